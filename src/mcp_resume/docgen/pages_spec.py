"""Pages about the specification itself: the decision, the lifecycles, the profiles, the sources."""

from __future__ import annotations

from itertools import product

from mcp_resume.proofs.diagrams.decision_flow import describe_statuses
from mcp_resume.proofs.diagrams.model import Diagram
from mcp_resume.proofs.diagrams.render import to_mermaid
from mcp_resume.spec.catalog import AGREEMENT, AGREEMENT_GRADES, PROFILE_ORDER, RULES, Grade
from mcp_resume.spec.decision import BRANCH_RULE, NUMBERED_BRANCHES, Branch, Method, decide_class
from mcp_resume.spec.headers import EventClass, SessionClass
from mcp_resume.spec.profiles import PROFILE_NOTES, SESSION_ERA, Profile
from mcp_resume.model.traffic.gists import link_ids
from mcp_resume.spec.sources import REVISIONS, SOURCES, anchor

from .collect import DocsModel
from .markdown import bullets, code, details, link, page, table

PROFILES = tuple(Profile)
GENERATED = "Generated from the specification by `mcp-resume docs`; do not edit by hand."
GUARDS = (Branch.MALFORMED_SESSION, Branch.UNKNOWN_SESSION)


def rule_link(rule_id: str, prefix: str = "rules/") -> str:
    return link(code(rule_id), f"{prefix}{rule_id}.md")


def source_link(source_id: str, page: str = "sources.md") -> str:
    """``source_id`` (an MCP rule id, ``B26``) as a link to its gist: its row of ``page`` (docs/sources.md)."""
    return link(code(source_id), f"{page}#{anchor(source_id)}") if source_id in SOURCES else code(source_id)


def linked_ids(text: str, page: str = "sources.md") -> str:
    """``text`` with every MCP rule id docs/sources.md lists linked to its row of ``page``."""
    return link_ids(text, lambda source_id: f"{page}#{anchor(source_id)}")


def diagram_block(diagram: Diagram, folder: str = "diagrams") -> str:
    """The SVG, links to the DOT and Mermaid sources, and the Mermaid inline (collapsed)."""
    base = f"{folder}/{diagram.name}"
    return page(
        f"![{diagram.title}]({base}.svg)",
        f"Sources: {link('DOT', base + '.dot')} · {link('Mermaid', base + '.mmd')} · {link('SVG', base + '.svg')}",
        details("Mermaid (rendered by GitHub)", f"```mermaid\n{to_mermaid(diagram)}```"),
    )


# -- the decision ------------------------------------------------------------------


def decision_page(model: DocsModel) -> str:
    flow = next(d for d in model.diagrams if d.name == "decision-flow")
    wide = [f"{code(o.name)}: {o.statement}" for o in model.decision_wide]
    return page(
        "# The decision: how a server answers a request",
        GENERATED + " Source: `decide_class` in [spec/decision.py](../spec/decision.py).",
        "The server decides on the *combination* of `Mcp-Session-Id` and `Last-Event-ID`, each read as a class "
        "(absent, malformed, unknown, ...; see [spec/headers.py](../spec/headers.py)). Guards on the session come "
        "first: a malformed session id gets 400, one that names no live session 404, whatever `Last-Event-ID` "
        "says. Then the five numbered branches. The flowchart below is grown from the table by "
        "enumeration; every label on it comes from the spec.",
        diagram_block(flow),
        "## The table, by header class",
        "Statuses are the reference answer, then in parentheses every status the profile accepts.",
        decision_table(),
        "## Under the sessionless revision (mcp-2026-07-28)",
        sessionless_table(),
        "## Proof obligations",
        "These Z3 queries (`mcp-resume check`, [proofs/decision/queries.py](../proofs/decision/queries.py)) hold "
        "the whole table to an independent encoding of the decision and the profiles; each rule's page lists the queries about "
        "its own branch.",
        bullets(wide),
    )


def decision_table() -> str:
    revisions = [p for p in PROFILES if p in SESSION_ERA and p is not Profile.BOUNDARY]
    rows = []
    for branch, methods, sessions, events in _decision_rows():
        sample = (min(methods, key=list(Method).index), next(iter(sessions)), next(iter(events)))
        mcp_text = _profiles_text({p: _status(*sample, p) for p in revisions})
        number = NUMBERED_BRANCHES.get(branch)
        rows.append((
            "guard" if branch in GUARDS else (str(number) if number else ""),
            branch.value, _classes(methods, Method), _classes(sessions, SessionClass), _classes(events, EventClass),
            _status(*sample, Profile.BOUNDARY), mcp_text, rule_link(BRANCH_RULE[branch]),
        ))
    return table(["#", "branch", "method", "Mcp-Session-Id", "Last-Event-ID", "boundary", "MCP 2025 revisions", "rule"], rows)


def _decision_rows():
    """(branch, methods, session classes, event classes): exact blocks of the table, in reading order.

    Blocks are grown one header at a time (events for one method and session,
    then sessions, then methods), merging only where the branch and every
    profile's statuses agree, so each row is an exact product of its sets.
    """
    by_events: dict[tuple, set[SessionClass]] = {}
    for method, session in product(Method, SessionClass):
        groups: dict[tuple, set[EventClass]] = {}
        for event in EventClass:
            groups.setdefault(_answer(method, session, event), set()).add(event)
        for answer, events in groups.items():
            by_events.setdefault((answer, method, frozenset(events)), set()).add(session)
    by_sessions: dict[tuple, set[Method]] = {}
    for (answer, method, events), sessions in by_events.items():
        by_sessions.setdefault((answer, frozenset(sessions), events), set()).add(method)
    rows = [(answer[0], frozenset(methods), sessions, events) for (answer, sessions, events), methods in by_sessions.items()]
    order = [*GUARDS, *sorted(NUMBERED_BRANCHES, key=NUMBERED_BRANCHES.get)]
    order += [b for b in Branch if b not in order]
    return sorted(rows, key=lambda r: (order.index(r[0]), _rank(r[1], Method), _rank(r[2], SessionClass), _rank(r[3], EventClass)))


def _answer(method: Method, session: SessionClass, event: EventClass) -> tuple:
    """The branch under boundary and the statuses under every session-era profile."""
    branch = decide_class(method, session, event, Profile.BOUNDARY).branch
    return (branch, *(_status(method, session, event, p) for p in PROFILES if p in SESSION_ERA))


def sessionless_table() -> str:
    rows = []
    for method in Method:
        decision = decide_class(method, SessionClass.ABSENT, EventClass.ABSENT, Profile.MCP_2026_07_28)
        if any(decide_class(method, s, e, Profile.MCP_2026_07_28) != decision for s, e in product(SessionClass, EventClass)):
            raise ValueError(f"under mcp-2026-07-28 the answer to {method.value} depends on the headers; "
                             "this page says it does not")
        rows.append((method.value, decision.branch.value, describe_statuses(decision.status, decision.statuses),
                     rule_link(BRANCH_RULE[decision.branch])))
    return page("Both headers are ignored: the answer depends on the method only (MCP F17).",
                table(["method", "branch", "status", "rule"], rows))


def _status(method: Method, session: SessionClass, event: EventClass, profile: Profile) -> str:
    decision = decide_class(method, session, event, profile)
    return describe_statuses(decision.status, decision.statuses)


def _profiles_text(by_profile: dict[Profile, str]) -> str:
    groups: dict[str, list[Profile]] = {}
    for profile, text in by_profile.items():
        groups.setdefault(text, []).append(profile)
    if len(groups) == 1:
        return next(iter(groups))
    return "; ".join(f"{', '.join(p.value for p in profiles)}: {text}" for text, profiles in groups.items())


def _classes(members, enum) -> str:
    if set(members) == set(enum):
        return "any"
    return ", ".join(m.value for m in sorted(members, key=lambda m: list(enum).index(m)))


def _rank(members, enum) -> int:
    return min(list(enum).index(m) for m in members)


# -- lifecycles --------------------------------------------------------------------


def lifecycles_page(model: DocsModel) -> str:
    blocks = [
        "# Lifecycles of a stream and of a session",
        GENERATED + " Every edge is a transition of the spec (`step` in [spec/transitions.py](../spec/transitions.py)) "
        "found by a bounded breadth-first exploration ([proofs/diagrams/exploration.py](../proofs/diagrams/exploration.py)), "
        "abstracted to the state of one stream or one session ([proofs/diagrams/lifecycle.py](../proofs/diagrams/lifecycle.py)). "
        "A client request is labelled with the branch of the decision it took.",
    ]
    for name, heading in (("stream-lifecycle", "## Stream: status and connection"), ("session-lifecycle", "## Session")):
        diagram = next(d for d in model.diagrams if d.name == name)
        blocks += [heading, diagram_block(diagram), transitions_table(diagram)]
    return page(*blocks)


def transitions_table(diagram: Diagram) -> str:
    names = {node.id: " ".join(node.lines) for node in diagram.nodes}
    rows = [(names[e.source], names[e.target], ", ".join(code(label) for label in e.labels)) for e in diagram.edges]
    return table(["from", "to", "actions"], rows)


# -- profiles ----------------------------------------------------------------------


def profiles_page(model: DocsModel) -> str:
    blocks = [
        "# Profiles: which rules bind a server, and how strongly",
        GENERATED + " Source: [spec/catalog.py](../spec/catalog.py) and [spec/profiles.py](../spec/profiles.py).",
        "## One grading rule for every rule",
        "Every rule of the catalog is graded the same way, by its level under the chosen profile "
        "(`spec/verdicts.py`), and per case where a rule names one (below):",
        "- **FAIL**: a MUST of the profile is broken.\n"
        "- **WARN**: a SHOULD is broken; or the server's answer is outside everything the profile accepts "
        "for a rule it applies, whatever the rule's level (a 5xx, or no answer at all): such an answer is never a PASS.\n"
        "- **PASS**: every step where the rule's check could fail held it; or what the server did is a behaviour "
        "the profile allows (a MAY not taken, a choice where MCP is silent), and the verdict then carries a note "
        "(`allowed under <profile> (MAY): ...`) with what it did, while the stricter profile's view stands in the "
        "column beside it.\n"
        "- **SKIP**: the profile does not apply the rule (`n/a`), or the server offers nothing the rule is about "
        "(no GET stream, no event ids, no fixture tool); **INCONCLUSIVE**: the scenario could not be driven.",
        "A difference from the spec that no rule names is a note, never a FAIL. Where MCP is silent on a whole "
        "rule (what a session resumption owes a pending server request), the MCP profiles do not apply it: "
        "`n/a`, and `boundary` beside it says what the decision wants.",
        "## The profiles",
        table(["profile", "what it holds a server to"], [(code(p.value), PROFILE_NOTES[p]) for p in PROFILES]),
        "## Every rule in every profile",
        table(["rule", *[p.value for p in PROFILES]],
              [(rule_link(r.id), *[r.level(p).value for p in PROFILES]) for r in model.rules]),
        "## Case levels",
        "A finding may name a case whose level differs from its rule's (`spec.catalog.Rule.cases`).",
        table(["rule", "case", *[p.value for p in PROFILES]],
              [(rule_link(r.id), code(case), *[r.level(p, case).value for p in PROFILES])
               for r in model.rules for case in r.cases]),
        f"## `{AGREEMENT}`",
        "A difference between a server and the spec that no rule of the catalog names.",
        grades_table(AGREEMENT_GRADES, "sources.md"),
        "## What changes from one profile to the next",
    ]
    for before, after in zip(PROFILES, PROFILES[1:]):
        changed = [(rule_link(r.id), r.level(before).value, r.level(after).value)
                   for r in model.rules if r.level(before) is not r.level(after)]
        blocks.append(f"### {before.value} → {after.value}")
        blocks.append(table(["rule", before.value, after.value], changed) if changed else "No rule changes level.")
    return page(*blocks)


def grades_table(grades: tuple[Grade, ...], sources: str = "sources.md") -> str:
    """One row per profile: the level, the ids it comes from, the reason; MCP rule ids link to their
    gist in ``sources`` (the path of docs/sources.md from the page)."""
    rows = [(code(p.value), g.level.value, ", ".join(source_link(s, sources) for s in g.sources),
             linked_ids(g.explanation, sources)) for p, g in zip(PROFILE_ORDER, grades)]
    return table(["profile", "level", "from", "why"], rows)


# -- sources -----------------------------------------------------------------------


def sources_page(model: DocsModel) -> str:
    cited_by: dict[str, list[str]] = {}
    for rule in RULES:
        for source_id in rule.sources:
            cited_by.setdefault(source_id, []).append(rule.id)
    revisions = [(r.letter, r.name, code(r.profile.value) if r.profile else "none", code(r.page)) for r in REVISIONS.values()]
    rows = []
    for source in SOURCES.values():
        rows.append((f'<a id="{anchor(source.id)}"></a>{code(source.id)}', source.kind, source.section, source.gist,
                     ", ".join(rule_link(r) for r in cited_by.get(source.id, []))))
    return page(
        "# MCP sources of the rule catalog",
        GENERATED + " Source: [spec/sources.py](../spec/sources.py). The gists are this project's paraphrase; "
        "read the specification itself for the normative text.",
        "## Revisions",
        "A rule id's letter names the revision of the MCP specification it comes from; pages are paths in the "
        "`modelcontextprotocol/modelcontextprotocol` repository.",
        table(["letter", "revision", "profile", "page"], revisions),
        "## Every id the catalog cites",
        "Each id's row is an anchor (`#source-b26`, `#source-c22-c27`, `#source-q3-7`): rule pages and "
        "Markdown reports link an id to it.",
        table(["id", "revision", "section", "what it says", "cited by"], rows),
    )
