"""The contributor page: how to install and test the working tree, what is committed and
generated and how to regenerate it, where the spec, the model and the proofs live, how the
explorer and the kill matrix work, and where the benchmarks are.

The regenerate commands come from the code that checks them (``compare.REGENERATE``, the
state-space manifest's module); the rest is the project's own account, kept here so that the
top-level README can stay short."""

from __future__ import annotations

from mcp_resume.model.sessionless.sessionless_server import FAULTY as SESSIONLESS_FAULTY
from mcp_resume.spec.designs import DESIGNS, VARIATIONS, caught_under
from mcp_resume.spec.profiles import Profile

from .compare import REGENERATE
from .markdown import page, table
from .pages_spec import GENERATED

TEST_COMMANDS = '''python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]'
python -m pytest -m "not slow"        # the fast tier, on every edit
python -m pytest                      # everything, before you push (the slow tier starts real servers)
mcp-resume check                      # the quick gate: every machine check of the spec
ruff check .                          # the linter (its rules: [tool.ruff] in pyproject.toml)
python tools/typecheck.py             # mypy over the installed layout ([tool.mypy] in pyproject.toml)'''

GENERATED_FILES = (
    ("`docs/` (except `docs/compatibility.md`)", f"`{REGENERATE}`"),
    ("the proof results and `proofs/results/boundary/REPORT.md`",
     "`mcp-resume prove --out proofs/results` (compared by meaning: results, cores, fragments, the spec's hash)"),
    ("the state-space manifest `model/explore/state_space.json`", "`python -m mcp_resume.model.explore.state_space --write`"),
    ("`docs/compatibility.md`", "`mcp-resume compat` (needs node and npm)"),
)

LAYOUT = '''spec/       mcp_resume.spec       the specification: pure, standard library only (state, actions,
                                  decision, transitions, invariants, catalog, designs, bounds, walk)
model/      mcp_resume.model      implementations held to it, by concern, in pipeline order:
  servers/                          the adapter interface, the reference server, the faulty designs
  harness/                          the Hypothesis machine, the checker and replay, the worker processes
  explore/                          breadth-first exploration, symmetry, the state-space manifest, the kill matrix
  http/                             the bounded Streamable HTTP client, its evidence and curl scripts
  traffic/                          recorded exchanges mapped onto the spec's actions; the recording proxy
  oracle/                           the one judge (verify, validate, the proxy) and the proxy's live checker
  sessionless/                      the 2026-07-28 revision: its server, checker, explorer and traffic mapping
  verify/                           the scenarios that drive a live server, its verdicts and reports,
                                    the machine over HTTP
  serving/                          HTTP in front of in-process servers (the facade), designs over HTTP
  targets/                          real servers and programs started here (the official SDKs, frameworks)
proofs/     mcp_resume.proofs     evidence from the spec:
  decision/                         Z3 queries over the decision table
  system/                           the transition system in Z3: invariants, proofs, bounded model checking
  diagrams/                         the decision and lifecycle diagrams (pydot, Graphviz, Mermaid)
src/mcp_resume/                   the command line, one module per command, composing the three
tests/fast/                       pytest, the fast tier (`-m "not slow"`): tests of a fraction of a second
tests/slow/                       pytest, the slow tier: real servers, whole verify/prove/machine runs
tests/helpers/                    what the tests share: servers, event stores, recorded traffic
benchmarks/                       timing scripts that print their figures; their results in RESULTS.md
tools/                            the mutation script (tools/mutation.py says why it is ours), the type check'''


def contributing_page() -> str:
    return page(
        "# Working on mcp-resume",
        GENERATED + " For the user's side, start at the [top-level README](../README.md) and the "
        "[command reference](commands.md).",
        "## Install and test",
        f"```sh\n{TEST_COMMANDS}\n```",
        "The install is editable: an edit to `spec/`, `model/`, `proofs/` or `src/mcp_resume/` is what the next "
        "test run sees, with no reinstall. The suite runs on pytest-xdist workers (`-n auto --dist loadgroup` in "
        "`pyproject.toml`: a free worker takes the next test; `-n 0` runs in this process); `-n auto` is "
        "`WORKERS_PER_CORE` workers a core when the slow tier runs (its tests mostly wait on servers), one a core "
        "for the fast tier. Tests live "
        "in folders by what they cost: `tests/fast/` (the fast tier, `-m \"not slow\"`, which does not even "
        "collect the other folder) and `tests/slow/` (every test there is marked `slow` by `tests/conftest.py`; "
        "a `slow` mark elsewhere is an error; the slow tier is collected first). A test that starts a server, runs "
        "a whole checker or takes more than a fraction of a second belongs in `tests/slow/`. Expensive runs (each "
        "design's machine run, each `prove`, each HTTP verify of a server) are session-scoped fixtures in "
        "`tests/conftest.py`, made once per test session and shared by every xdist worker through lock files "
        "(`SharedRuns`, the pattern pytest-xdist documents). A test that uses a module-scoped fixture carries "
        "`@pytest.mark.xdist_group(\"<module>\")`, so that one worker runs those tests and makes the fixture once. "
        "Every interpreter the suite starts writes and reads bytecode, also where `PYTHONDONTWRITEBYTECODE` is set "
        "(pytest-env, `[tool.pytest_env]` in `pyproject.toml`). "
        "The suite's machine runs take `SUITE_EXAMPLES` (200, `tests/helpers`) Hypothesis "
        "examples, two fifths of the default, where every run that passes is fully covered. A test covers a rule when it carries `@pytest.mark.covers(\"<rule>\")`; the rule pages "
        "list those tests. Test servers written by the same hands as the judge share its reading of MCP, so a "
        "second one is written from the MCP text alone: the zoo (`tests/helpers/servers/zoo.py`, correct variations "
        "and real-world bug classes behind switches, `--list`), held by `tests/slow/test_zoo.py` to the verdicts "
        "the MCP text gives each variant under every profile; `tests/helpers/zoo_probe.py` checks that each variant "
        "behaves as described, with raw HTTP. "
        "The slow tier starts the official Python SDK on 127.0.0.1 for real, and the TypeScript "
        "SDK when `node` and `npm` are installed; `.ci/run` installs them, Graphviz and the pinned "
        "`@modelcontextprotocol/sdk`, then runs the README's test command verbatim, `ruff check .` and `tools/typecheck.py` (mypy; the modules not yet clean are listed in `pyproject.toml`, a list that only shrinks). How long each tier takes: "
        "[benchmarks/RESULTS.md](../benchmarks/RESULTS.md).",
        "## What is committed and generated",
        "How to regenerate each after a change that is meant to change it (a test fails when it is out of date, "
        "and says this):",
        table(["what", "regenerate with"], GENERATED_FILES),
        "`proofs/results/boundary/` holds the committed output of `mcp-resume prove --out proofs/results`: "
        "`proofs/results/boundary/results.json` (per query its id, kind, expected and actual answer, verdict, unsat core and fragment, "
        "whether the proof is trivial, i.e. unsat from its action's effect equations alone, and the spec's hash "
        "once at the top), `proofs/results/boundary/REPORT.md` and the faulty designs' traces. Neither records resource counts or times, "
        "so they change only when a result does; a test regenerates them and compares them by meaning. Add "
        "`--smt2` to get every query as an SMT-LIB2 file that `z3` replays. `z3-solver` is pinned to one version "
        "in `pyproject.toml` because the results record Z3's exact answers and unsat cores. `docs/` is compared "
        "byte for byte, SVG files by their text only (Graphviz lays graphs out differently across versions).",
        "## How it is built",
        f"```text\n{LAYOUT}\n```",
        "Data flows one way: `spec` -> (`model`, `proofs`) -> reports ([design.md §6](design.md#6-architecture)). "
        "Read [spec/decision.py](../spec/decision.py) for the decision table, "
        "[spec/invariants.py](../spec/invariants.py) for the invariants every checker shares, and "
        f"[spec/designs.py](../spec/designs.py) for the {len(DESIGNS)} faulty designs and {len(VARIATIONS)} correct variations of "
        "[design.md §5](design.md#5-faulty-designs-and-correct-variations), each defined once as data (its number, "
        "rules and deviations; a correct variation has neither number nor rules); "
        "[model/servers/faulty.py](../model/servers/faulty.py) and "
        "[model/servers/variations.py](../model/servers/variations.py) build their in-process servers and "
        "[proofs/system/faulty_systems.py](../proofs/system/faulty_systems.py) their Z3 variations. The sessionless revision "
        "(2026-07-28) has its own state machine, [spec/sessionless/machine.py](../spec/sessionless/machine.py), explored "
        f"exhaustively and checked against an in-process server, {len(SESSIONLESS_FAULTY)} faulty ones and a server "
        "serving both eras "
        "on one endpoint ([model/sessionless/dual_era_server.py](../model/sessionless/dual_era_server.py)). `mcp_resume.model` "
        "re-exports its public API: `ServerUnderTest`, `run_machine`, `replay`, `explore_spec`, `explore_server`.",
        "A counterexample is a **trace**: a JSON list of the spec's actions (`initialize`, `call_tool`, `reconnect` "
        "with any header combination, `emit_event`, `issue_server_request`, `drop_connection`, ...) with the step "
        "and rule that failed. `mcp-resume check` saves one per faulty design in `mcp-resume-out/traces/`; in "
        "Python, `mcp_resume.model.replay(trace, server)` replays one against any adapter.",
        "What `verify` is built from: `model/verify/suite.py` (one scenario per catalog rule, profiles, "
        "timeouts, partial results), `model/verify/scenarios.py`, `model/verify/pending.py` and "
        "`model/verify/lifecycle_scenarios.py` (the scenarios, drivers that judge nothing), "
        "`model/verify/judgement.py` (each rule's verdict from the spec's judgement of every scenario's traffic by "
        "`model/oracle/judge.py`, which maps it with `model/traffic/trace_validation.py`), "
        "`model/verify/formats.py` (JUnit, Markdown, traces, curl), `model/serving/facade.py` (Streamable HTTP in "
        "front of the reference server, each faulty design and each correct variation, with the fixture tools; a "
        "variation's wire changes, re-serialised replays and JSON answers to POST, are the facade's), "
        "`model/serving/designs_over_http.py` (`verify_design_over_http(number, profile) -> (caught, rules)`), "
        "`model/verify/playback.py` (the spec's client actions played against a live server, the server's part "
        "played by the fixture tools; answers, cancellation and expiry are not driven) and "
        "`model/verify/stateful_http.py` (the Hypothesis machine over it), both judged by `model/oracle/judge.py` "
        "as `verify` is, and `model/targets/` (the embedded targets).",
        "## Exhaustive exploration",
        "`mcp-resume explore` walks the spec's whole state space within a bound, breadth-first from the initial "
        "state: every client request with every meaningful header combination (each session of the state, live or "
        "ended, and an unknown, a malformed and an absent `Mcp-Session-Id`; each event, own, foreign or expired, "
        "and an unknown, a malformed and an absent `Last-Event-ID`), and every server and network action the spec "
        "enables. Each transition is computed by `spec.transitions.step` and checked by "
        "`spec.invariants.check_transition`, each new state by `check_state`. It reports distinct states, "
        "transitions, depth, states per second, the count of each action and of each decision branch, and for each "
        "broken rule the shortest trace, in the trace format of the Hypothesis machine.",
        "The named bounds and their counts are the state-space manifest, `model/explore/state_space.json` (shown on "
        "[the state-graph page](state-graph/README.md#state-space-manifest)): the tests explore the small bounds "
        "again and fail when a count changes, `mcp-resume check` does the same for the kill bound and the slow tier "
        "for the default bound, so a change to the spec that alters its state space is never silent. `default`, "
        "`kill`, `deep` and the `liveness` bound hold two server requests per session: the failure this project started from had two requests pending on "
        "one dropped stream, and a pending table that keeps one request per session (design 27) is caught only once "
        "a second request overwrites the first. `deep` (2 sessions, 2 streams, 3 events, 2 requests, depth 11) is "
        "not in the manifest nor checked by CI: 3,036,382 states and 50,160,740 transitions, 100 s on two workers "
        "and 1.6 GB of memory (2026-12-07).",
        "**How it is fast enough.** States are reduced by symmetry: session, stream, event and request ids are "
        "interchangeable, so a state is hashed as its canonical form (`model/explore/canonical.py`). A session owns "
        "everything that refers to it, so a state is a multiset of *session forms*: the fast explorer "
        "(`model/explore/fast.py`) steps and checks each action on each distinct session form once, with the spec "
        "itself, and searches the states built from them. Nothing the server decides, and no check of a step, reads "
        "the client's memory (its cursors and held requests; a test holds the spec to it), and the spec brings that "
        "memory up to date in one function after the server's side of each step (`spec.transitions.remember`): so "
        "forms that differ only there share their steps, and only the client's memory is worked out again for each. "
        "The tests hold the fast explorer to the plain one (`model/explore/plain.py`), count for count, and every "
        "one of its steps to `step` on the whole state. Both walk the reference's choice at a session resumption "
        "(re-emit every stranded request); the other choices the spec accepts (`spec.transitions.alternatives`: "
        "cancel, and under the MCP profiles leave pending) are walked within a bound of two pending requests by "
        "`tests/slow/test_spec_alternatives_walk.py`, and judged wherever a server takes them. The form workers are "
        "forked once and keep their tables, and the steps they worked out, from level to level; the counts do not "
        "depend on the number of workers.",
        "Faulty designs are explored beside the spec (`model/explore/server.py`): a server's state is kept as a "
        "pickle (cheaper to restore than `copy.deepcopy` or re-running a path) and recognised by its tables written "
        "in the spec's canonical names. A product state is keyed without what no decision and no server check reads "
        "(the client's cursors and held requests; how an ended session ended, its streams' kinds and its requests' "
        "statuses: a test holds the spec to that), a server that answers as the spec's own step is judged without "
        "the checker's machinery, a step that changes nothing (most are refusals) is told by comparing the server's "
        "attributes with `==` when the server says they are its whole state (`attributes_are_state`), and each level "
        "of 64 or more product states is expanded on forked workers that claim nodes as they come free; the results "
        "are the same on any number of workers. Every worker process, the explorers' and those of `check` and the "
        "kill matrix, comes from one module (`model/harness/workers.py`: fork for the explorers, spawn where a "
        "parent may run threads, and one clean-up that kills and reaps them), and every external program from "
        "another (`model/targets/process.py`); `tests/fast/test_process_modules.py` holds it. The Hypothesis machine's examples are the same in every process, "
        "editable install or not: Hypothesis draws some integers from the literals of the local modules loaded, so "
        "while the machine runs that pool is left empty (`model/harness/stateful.py`).",
        "**Liveness.** `mcp-resume liveness` (or `mcp-resume liveness 3` for faulty design 3) checks `no-stranded-request` on the explored graph under fair "
        "reconnection (strongly connected components) and prints, saves (`--traces`) and draws (`--graph`) a lasso "
        "when a request can stay stranded forever (designs 1 and 3). It keeps the graph whole and unreduced in memory, "
        "so it stops at `--max-states` (default 500,000): a lasso found by then is real, none found is exit 3. It "
        "builds on its own bounds (`tiny` for the spec, `liveness` beside a design), judges a design under `boundary` "
        "only (the spec's lasso under an MCP revision, where `reemit-pending` is MAY, is a run the revision allows: "
        "exit 0), and calls a graph where no request is ever stranded VACUOUS (exit 1).",
        "**Drawing.** `mcp-resume graph --out DIR` draws the explored states within the `graph` bound (or the one "
        "given; one too big to draw is refused before anything is written) as DOT, and SVG with Graphviz, edges "
        "coloured by action and labelled with the decision branch; with `--design N`, the design's shortest "
        "counterexample in red. `mcp-resume explore-design 4` explores faulty design 4 beside the spec within the "
        "`kill` bound and stops as soon as every rule the design breaks has its shortest trace, at the latest at the "
        "end of the first level with a counterexample (`--first`: at the first counterexample; `--exhaustive`: the "
        "whole bound; exit 1 when it breaks a rule, as a faulty design should).",
        "## The kill matrix",
        "`mcp-resume kill-matrix` (also `mcp-resume check --kill-matrix`) runs each faulty design and each correct variation against each checker "
        "under `boundary` and `mcp-2025-11-25`. Under `boundary` every design is caught by the Hypothesis machine and "
        f"by the explorer (whose counterexamples are the shortest); under `mcp-2025-11-25` designs {_caught_text()} "
        "are caught (they break MUSTs of that revision) and the others pass (design 23, which ends a session when a "
        f"connection drops, among them: MCP B33 allows it). The {len(VARIATIONS)} correct variations "
        f"({', '.join(f'`{v.target}`' for v in VARIATIONS)}) must pass every checker under both profiles; the Z3 column judges "
        "every design and variation the formulas encode. Every counterexample is replayed from JSON on the design and "
        "on the reference server. The other two columns (`src/mcp_resume/jobs/kill_columns.py`) agree cell for cell: "
        "`z3-bmc`, the shortest violating run Z3 finds over the transition formulas with the design's changes "
        "(decoded into a trace and replayed the same way), and `http-verify`, `mcp-resume verify design-N`: the design "
        "served over Streamable HTTP on 127.0.0.1. A run that finds nothing but never fired some action or never "
        "took some decision branch is *vacuous* and fails, in every checker.",
        "## Benchmarks",
        "Each script under `benchmarks/` prints its figures; run it from the repository root with "
        "`python benchmarks/NAME.py` (`benchmarks/bench_loop.py` times `check`, each of its stages and the two test tiers). "
        "The figures measured so far, with their dates and the machine's load, are in "
        "[benchmarks/RESULTS.md](../benchmarks/RESULTS.md).",
    )


def _caught_text() -> str:
    numbers = [str(n) for n in sorted(caught_under(Profile.MCP_2025_11_25))]
    return f"{', '.join(numbers[:-1])} and {numbers[-1]}" if len(numbers) > 1 else "".join(numbers)
