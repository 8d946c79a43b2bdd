"""The index page and one page per catalog rule."""

from __future__ import annotations

from mcp_resume.spec.catalog import Rule
from mcp_resume.spec.decision import NUMBERED_BRANCHES
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.sources import source

from .collect import KIT_RULES, NO_COVERAGE_HINT, DocsModel, branches_judged_by, checks_of
from .markdown import bullets, code, link, page, table
from .obligations import rules_judging_branches
from mcp_resume.model.traffic.fixes import SDK_BY_TARGET, generic_fix, remedies_for

from .pages_spec import GENERATED, grades_table, linked_ids, rule_link, source_link

SOURCES_PAGE = "../sources.md"

REPO = "../../"  # from docs/rules/ to the repository root: the set lives in a top-level folder
SHORT_ORIGIN = {"design": "invariant", "mcp": "MCP"}
ORIGIN = {"design": "one of the invariants of the design (docs/design.md §4)", "mcp": "an MCP rule the catalog adds to the invariants of the design"}

PAGES = (
    ("commands.md", "Command reference", "every command, its usage, options and exit codes, read from the command line's "
                                         "own definitions"),
    ("design.md", "The design", "what mcp-resume checks and how it is built: vocabulary, the decision, "
                                "profiles, invariants, faulty designs, architecture"),
    ("decision.md", "The decision", "how a server answers a request: the five branches and the 400/404 guards, "
                                    "as a flowchart and as a table"),
    ("lifecycles.md", "Lifecycles", "a stream's and a session's states, as state diagrams"),
    ("profiles.md", "Profiles", "every rule's level in every profile, and what changes between profiles"),
    ("sources.md", "MCP sources", "every MCP rule id the catalog cites: revision, section, gist"),
    ("testing.md", "EventStore test kit", "checking an `EventStore` for the official Python SDK in your own tests"),
    ("fixtures.md", "Fixture tools", "the tools verify calls to judge pending server requests and stream history: "
                                     "what each takes, sends and waits, `add_fixture_tools`, and `verify --tool`"),
    ("ci.md", "Checking a server in CI", "a GitHub Actions job that gates on `mcp-resume verify`"),
    ("traffic.md", "Judging a server by its real traffic", "`mcp-resume proxy` in front of a server you cannot "
                                                           "change, `mcp-resume validate` on a recording"),
    ("contributing.md", "Working on mcp-resume", "tests, what is generated and how to regenerate it, where the spec, "
                                                 "the model and the proofs live, the explorer and the kill matrix"),
    ("compatibility.md", "Compatibility of the official SDKs",
     "the verdicts measured for python-sdk 1.x and 2.x and typescript-sdk (written by `mcp-resume compat`)"),
)


def index_page(model: DocsModel) -> str:
    pages = [f"{link(title, name)}: {what}" for name, title, what in PAGES]
    pages += [f"{link(c.section.title, c.page)} (from `{c.section.command}`)" for c in model.contributions]
    rows = [
        (rule_link(r.id), SHORT_ORIGIN[r.origin], r.level(Profile.BOUNDARY).value, r.level(Profile.MCP_2025_11_25).value,
         r.statement, _test_count(model, r), len(_obligations(model, r)))
        for r in model.rules
    ]
    uncovered = model.uncovered()
    if not model.coverage_known:
        coverage = f"Not available: {NO_COVERAGE}."
    elif uncovered:
        coverage = bullets(f"{rule_link(r.id)}: {r.statement}" for r in uncovered)
    else:
        coverage = "Every rule is covered by at least one test."
    return page(
        "# mcp-resume: the specification, documented",
        GENERATED + " Regenerate with `mcp-resume docs --out docs` from the repository root and commit; a test "
        "fails whenever this folder differs from what the command writes, so it cannot drift from the spec.",
        "The specification says how an MCP Streamable HTTP server must tell *stream resumption* (`Last-Event-ID` "
        "names a position in one SSE stream) from *session resumption* (`Mcp-Session-Id` alone). Its vocabulary, "
        "decision and invariants are the project's design, stated in `spec/`.",
        "## Pages",
        bullets(pages),
        "## Rules",
        "Each rule has a page with its statement, its level per profile, the MCP rules it comes from, what checks "
        "it, and the tests and proof obligations that cover it. A test covers a rule when it carries "
        "`@pytest.mark.covers(\"<rule>\")`.",
        table(["rule", "origin", "boundary", "mcp-2025-11-25", "statement", "tests", "proof obligations"], rows),
        "## Rules no test covers",
        coverage,
    )


NO_COVERAGE = ("this set was written without the repository's `tests/` folder (from an installed package), "
               "so which tests cover which rule is not known here; " + NO_COVERAGE_HINT)


def _test_count(model: DocsModel, rule: Rule) -> str | int:
    if not model.coverage_known:
        return "n/a"
    return len(model.tests_of(rule.id)) or "**none**"


def rule_page(model: DocsModel, rule: Rule) -> str:
    return page(
        f"# `{rule.id}`",
        f"> {rule.statement}",
        f"{link('Index', '../README.md')} · {link('Profiles', '../profiles.md')} · "
        f"{link('MCP sources', '../sources.md')} · {link('The decision', '../decision.md')}",
        f"Origin: {ORIGIN[rule.origin]}. {GENERATED}",
        "## Level per profile",
        "Each level with the ids it comes from (see the table below) and, where the text does not state it, why.",
        grades_table(rule.grades, SOURCES_PAGE),
        _cases(rule),
        "## Where it comes from",
        _sources(rule),
        "## How to fix",
        _fix(rule),
        "## What checks it",
        bullets(_checkers(model, rule)),
        "## Tests that cover it",
        _tests(model, rule),
        "## Proof obligations",
        _proofs(model, rule),
        "## Faulty designs that break it",
        _designs(model, rule),
    )


def _cases(rule: Rule) -> str:
    blocks = []
    for case, grades in rule.cases.items():
        blocks += [f"### Case `{case}`", "A finding in this case is judged by these levels instead.",
                   grades_table(grades, SOURCES_PAGE)]
    return "\n\n".join(blocks)


def _sources(rule: Rule) -> str:
    rows = []
    for source_id in rule.sources:
        entry = source(source_id)
        rows.append((source_link(entry.id, SOURCES_PAGE), entry.kind, entry.section, entry.gist))
    return table(["id", "revision", "section", "what it says"], rows)


def _fix(rule: Rule) -> str:
    """What a server whose traffic breaks the rule must do differently, and the known SDKs' remedies."""
    remedies = remedies_for(rule.id)
    known = (bullets(f"{SDK_BY_TARGET[r.sdk].label} (`{r.sdk}`): {linked_ids(r.text, SOURCES_PAGE)}" for r in remedies)
             if remedies else "No remedy specific to a known SDK or framework.")
    return page(
        "What `verify`, `validate` and `proxy` print beside a FAIL or WARN of this rule: what the server must do "
        "differently.",
        f"> {linked_ids(generic_fix(rule.id), SOURCES_PAGE)}",
        "With the SDKs and frameworks `verify` knows (it names the SDK from the server's `serverInfo`, and then "
        "prints only that one's remedy):",
        known,
    ).rstrip("\n")


def _checkers(model: DocsModel, rule: Rule) -> list[str]:
    items = [f"{c.kind} {code(c.function)} in {link(c.module, REPO + c.module)}" for c in checks_of(rule)]
    branches = branches_judged_by(rule.id)
    if branches:
        named = ", ".join(f"[{NUMBERED_BRANCHES[b]}] {b.value}" if b in NUMBERED_BRANCHES else b.value for b in branches)
        items.append(f"judges the answer to requests landing in {named} ({link('the decision', '../decision.md')})")
    if rule.id in model.scenarios:
        items.append(f"`mcp-resume verify` drives a scenario for it over HTTP "
                     f"({link('model/verify/suite.py', REPO + 'model/verify/suite.py')})")
    if rule.id in KIT_RULES:
        items.append(f"the EventStore test kit checks it for stores of the official Python SDK "
                     f"({link('testing', '../testing.md')})")
    return items or ["no predicate of the spec: it is judged end to end only"]


def _tests(model: DocsModel, rule: Rule) -> str:
    if not model.coverage_known:
        return f"Not available: {NO_COVERAGE}."
    tests = model.tests_of(rule.id)
    if not tests:
        return (f"**No test covers this rule yet.** Mark a test that does with "
                f"`@pytest.mark.covers(\"{rule.id}\")`.")
    return bullets(f"{link(code(t.path), REPO + t.path)} {code(t.name)}" for t in tests)


def _obligations(model: DocsModel, rule: Rule) -> list[str]:
    items = [f"{code(o.name)}: {o.statement} ({o.source})" for o in model.obligations.get(rule.id, [])]
    for contribution in model.contributions:
        names = contribution.covered.get(rule.id, ())
        if names:
            items.append(f"{', '.join(code(n) for n in names)} ({link(contribution.section.title, '../' + contribution.page)})")
    return items


def _proofs(model: DocsModel, rule: Rule) -> str:
    items = _obligations(model, rule)
    if rule.id in rules_judging_branches():
        items.append(f"and the decision-wide queries ({link('the decision', '../decision.md#proof-obligations')})")
    return bullets(items) if items else "None yet."


def _designs(model: DocsModel, rule: Rule) -> str:
    designs = model.designs.get(rule.id, [])
    if not designs:
        return "None of the faulty designs of [spec/designs.py](../../spec/designs.py) is expected to break it first."
    return bullets(f"design {d.number} ({code(d.name)}): {d.summary}." for d in designs)
