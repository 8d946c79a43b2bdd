"""The quick gate of ``mcp-resume check``: every machine check of the spec, with its artifacts.

Stages, independent of each other, run side by side on the machine's cores
(``--workers``), each written under ``--out``:

- ``proofs/decision/``: the Z3 queries over the decision table (total,
  exclusive, reachable, agreeing with the Python decision), as ``decision.json``
  and ``DECISION.md``;
- ``proofs/machine/boundary/``: the transition-system proofs and the agreement
  of their formulas with the spec on two sessions (``mcp-resume prove`` adds the
  deep agreement run, through re-emitting session resumptions, and the bounded
  model checking of the faulty designs, whose shortest runs the explorer finds here);
- the Hypothesis machine against the spec itself and against the in-process
  reference server, under ``--profile``: both must hold, covering every action
  and decision branch (a run that does not is vacuous and fails);
- every faulty design explored beside the spec under ``boundary`` until its
  first, shortest counterexample, saved to ``traces/design-N.json`` and
  confirmed by replaying it from JSON (fails on the design, holds on the
  reference server);
- every correct variation whose deviation shows in process explored beside
  the spec at the kill bound one step shallower: none may be blamed;
- liveness (``no-stranded-request``) on the spec's own graph at a bound where a
  session resumption re-emits a stranded request: it must hold under
  ``boundary`` with re-emissions explored, and show the stranding that an MCP
  revision allows (a lasso, not a failure) under ``mcp-2025-11-25``;
- the spec's state space under ``mcp-2025-11-25`` exhausted at the kill bound:
  every answer that revision accepts (a session resumption that leaves a
  request) within the spec's own invariants;
- the 2026-07-28 machine exhausted within its default bound, its reference
  server explored beside it, and each of its faulty servers caught;
- ``diagrams/``: the decision and the lifecycles (DOT, Mermaid, SVG when
  Graphviz is installed);
- ``explorer/kill.json``: the spec's state space exhausted within the kill
  bound, every invariant checked, counts compared with the manifest (the
  default bound, 13 times the transitions, is ``mcp-resume explore``'s and the
  slow test tier's: ``check`` stays a gate of seconds).

``--kill-matrix`` adds every faulty design against every checker (Hypothesis,
explorer, Z3 bounded model checking, ``verify`` over HTTP) under ``boundary``
and ``mcp-2025-11-25``: ``kill-matrix.json``/``.md``.

One line per finished stage goes to stderr (terminal or CI log alike) unless
``quiet``. Every stage writes into a scratch folder inside ``out``, merged
into ``out`` once all are done; when interrupted, the worker processes are
ended at once and ``out`` is left as it was.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from rich.console import Console
from rich.table import Table

from mcp_resume.jobs import check_explorer
from mcp_resume.model.harness.runs import design_names, run_server
from mcp_resume.spec.designs import NUMBERS, VARIATIONS, WIRE_ONLY
from mcp_resume.model.harness.workers import finished_tasks
from mcp_resume.outputs import StageProgress, staged_folder
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import KILL_BOUND, NAMED_BOUNDS, Bounds


CHECK_EXAMPLES = 200
"""Hypothesis examples per machine run in ``check`` (the derandomized CI profile's): every action
and decision branch is covered within them, against the spec and the reference alike; a faulty
design is found within a hundred (``model.harness.stateful.DEFAULT_EXAMPLES``)."""


IN_PROCESS_VARIATIONS: tuple[str, ...] = tuple(v.target for v in VARIATIONS
                                               if not set(v.deviations) <= WIRE_ONLY)
"""The correct variations ``check`` explores: those whose deviation changes more than bytes on the
wire (a wire-only one is the reference server in process; ``verify`` judges it over HTTP)."""


@dataclass
class Line:
    """One row of the summary: what was checked, whether it holds, and how we know.

    ``result`` is the word shown: ``holds`` / ``caught`` when all is well.
    """

    stage: str
    item: str
    holds: bool
    detail: str
    result: str = ""

    @property
    def word(self) -> str:
        return self.result or ("holds" if self.holds else "FAILS")


@dataclass
class CheckSummary:
    """``profile`` is the one the machine ran under against the spec and the reference."""

    profile: Profile
    lines: list[Line] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return all(line.holds for line in self.lines)

    def to_json(self) -> dict:
        """``{"holds": bool, "profile": str, "checks": [{"stage", "item", "holds", "detail", "result"}]}``."""
        checks = [{**line.__dict__, "result": line.word} for line in self.lines]
        return {"holds": self.holds, "profile": self.profile.value, "checks": checks}


@dataclass(frozen=True)
class Stage:
    """One independent piece of work: ``run(*args)`` returns its summary lines.
    ``run`` is a module-level function, so a worker process can be handed it."""

    name: str
    run: Callable[..., list[Line]]
    args: tuple


# -- the stages ---------------------------------------------------------------------------


def decision_stage(folder: Path) -> list[Line]:
    """The Z3 queries over the decision table, written to ``folder``."""
    from mcp_resume.proofs.artifacts import write_decision_artifacts
    from mcp_resume.proofs.decision.queries import run_decision_queries

    results = run_decision_queries()
    write_decision_artifacts(results, folder)
    failed = [r for r in results if not r.holds]
    detail = f"{len(results) - len(failed)} of {len(results)} queries hold"
    if failed:
        detail += "; not holding: " + ", ".join(r.query for r in failed)
    return [Line("z3", "decision table", not failed, detail)]


def proofs_stage(folder: Path) -> list[Line]:
    """The transition-system proofs of ``mcp-resume prove`` and their wide agreement with the spec (boundary)."""
    from mcp_resume.jobs.proving import prove_stage

    return [Line("z3", item, holds, detail) for item, holds, detail in prove_stage(folder)]


def machine_stage(name: str, profile: Profile, examples: int, traces: Path) -> list[Line]:
    """The Hypothesis machine against the spec or the reference server: it must agree and cover everything."""
    run = run_server(name, profile, examples)
    actions = f"{run.profile.value}, {run.result.actions_run} actions, {run.seconds:.1f} s"
    if run.caught:
        _write_trace(traces / f"{name}.json", run.result.trace)
        return [Line("hypothesis", name, False, f"broke {run.rule} ({actions})", "BROKEN")]
    if run.result.vacuous:
        return [Line("hypothesis", name, False, f"vacuous: {run.result.coverage.explain()} ({actions})", "VACUOUS")]
    return [Line("hypothesis", name, True, f"agrees with the spec; every action and branch covered ({actions})")]


def design_stage(number: int, traces: Path, bound: str = KILL_BOUND) -> list[Line]:
    """Faulty design ``number`` explored beside the spec (the named ``bound``, boundary) to its
    first, shortest counterexample, as the kill matrix's explorer column does, saved as
    ``traces/design-N.json`` and confirmed by replay."""
    from mcp_resume.model.explore.kill_cells import CAUGHT, ExplorerColumn

    name = f"design-{number}"
    cell = ExplorerColumn(NAMED_BOUNDS[bound]).run(number, Profile.BOUNDARY)
    searched = f"{cell.detail}, {cell.seconds:.1f} s"
    if cell.outcome != CAUGHT:
        return [Line("explorer", name, False, f"no rule broken within the {bound} bound ({searched})", "NOT caught")]
    _write_trace(traces / f"{name}.json", cell.trace)
    detail = (f"{cell.rule}, {cell.steps} steps (shortest), "
              f"{'replay confirmed' if cell.confirmed else 'REPLAY NOT CONFIRMED'} ({searched})")
    return [Line("explorer", name, cell.as_expected, detail, "caught")]


VARIATION_BOUNDS = replace(NAMED_BOUNDS[KILL_BOUND], depth=6)
"""Where ``check`` explores each correct variation: the kill bound one step shallower. Every case
a variation answers its own way lies within six steps (the deepest, a resumption from an evicted
cursor with a later event kept, is initialize, call, two events, an eviction and the GET), every
action and branch is exercised there, and it is four times quicker than depth 7 (~0.7 s a variation)."""


def variation_stage(name: str, bounds: Bounds = VARIATION_BOUNDS) -> list[Line]:
    """Correct variation ``name`` (``variation-<slug>``) explored beside the spec within
    ``bounds`` under ``boundary``: it holds when no rule is found broken and every action and
    branch was exercised (the kill matrix's explorer column)."""
    from mcp_resume.model.explore.kill_cells import PASSED, ExplorerColumn

    cell = ExplorerColumn(bounds).run(name, Profile.BOUNDARY)
    searched = f"{cell.detail}, {cell.seconds:.1f} s"
    if cell.outcome == PASSED:
        return [Line("explorer", name, True, f"no rule broken within {bounds.describe()} ({searched})")]
    return [Line("explorer", name, False, f"{cell.outcome}: {cell.rule or 'vacuous'} ({searched})", "BLAMED")]


def liveness_stage() -> list[Line]:
    """``no-stranded-request`` on the spec's graph at ``liveness_check.CHECK_BOUNDS``: under
    ``boundary`` it holds, with stranded states and re-emitting session resumptions explored
    (else it is vacuous); under ``mcp-2025-11-25``, which accepts a resumption that leaves a
    request, the spec itself strands one (a lasso the revision allows)."""
    from mcp_resume.model.explore import liveness_check

    lines = []
    for profile, wanted in ((Profile.BOUNDARY, "holds"), (Profile.MCP_2025_11_25, "allowed")):
        started = time.perf_counter()
        graph = liveness_check.spec_graph(liveness_check.CHECK_BOUNDS, profile)
        result = liveness_check.check(graph)
        reemitting = liveness_check.reemitting_resumptions(graph)
        holds = result.verdict == wanted and reemitting > 0
        detail = (f"{result.verdict} under {profile.value}: {len(graph.states)} states, {result.stranded_states} "
                  f"strand a request, {reemitting} session resumptions re-emit one "
                  f"({time.perf_counter() - started:.1f} s)")
        lines.append(Line("liveness", f"spec, {profile.value}", holds, detail))
    return lines


def mcp_profile_stage(bound: str = KILL_BOUND, profile: Profile = Profile.MCP_2025_11_25) -> list[Line]:
    """The spec's state space within the named ``bound`` under an MCP revision: every answer it
    accepts keeps the spec's invariants, and every action and branch is exercised."""
    from mcp_resume.model.explore.fast import explore_fast

    result = explore_fast(NAMED_BOUNDS[bound], profile=profile)
    detail = (f"{result.verdict} within the {bound} bound: {result.states} states, {result.transitions} transitions "
              f"({result.seconds:.1f} s)")
    return [Line("explorer", f"spec, {profile.value}", result.holds, detail)]


SESSIONLESS_SERVER_BOUNDS_CALLS = 2
"""How many requests the 2026-07-28 reference and faulty servers are explored with beside the
machine: two (a request and its retry with input) reach every action and check of the machine
(89 states, 0.2 s); the machine alone is exhausted at its default bound of three."""


def sessionless_stage() -> list[Line]:
    """The 2026-07-28 machine (``spec/sessionless``): exhausted within its default bound with
    every state and transition passing its own checks; its reference server explored beside it
    holds; each of its faulty servers is caught (the shortest counterexample is found)."""
    from mcp_resume.model.sessionless.sessionless_explore import BOUNDS, explore_server, explore_sessionless
    from mcp_resume.model.sessionless.sessionless_server import FAULTY, SessionlessServer

    profile = Profile.MCP_2026_07_28.value
    started = time.perf_counter()
    machine = explore_sessionless(BOUNDS)
    detail = (f"{machine.states} states, {machine.transitions} transitions, {len(machine.problems)} findings "
              f"({time.perf_counter() - started:.1f} s)")
    lines = [Line("explorer", f"spec, {profile}", not machine.problems, detail)]
    server_bounds = replace(BOUNDS, calls=SESSIONLESS_SERVER_BOUNDS_CALLS)
    reference = explore_server(SessionlessServer, server_bounds)
    found = reference.counterexample
    lines.append(Line("explorer", f"reference, {profile}", found is None, f"{reference.states} states" if found is None
                      else f"blamed by {', '.join(sorted(found.rules))} in {len(found.actions)} steps",
                      "" if found is None else "BLAMED"))
    for rule, server in FAULTY.items():
        found = explore_server(server, server_bounds).counterexample
        caught = found is not None and rule in found.rules
        steps = len(found.actions) if found is not None else 0
        detail = (f"{', '.join(sorted(found.rules))}, {steps} step{'' if steps == 1 else 's'} (shortest)"
                  if found is not None else "no rule broken")
        lines.append(Line("explorer", f"faulty {rule}", caught, detail, "caught" if caught else "NOT caught"))
    return lines


def diagrams_stage(folder: Path) -> list[Line]:
    """The decision flowchart and the lifecycles: DOT and Mermaid, SVG when Graphviz is installed."""
    from mcp_resume.proofs.diagrams import graphviz
    from mcp_resume.proofs.diagrams.render import write_diagrams

    dot_program = graphviz.find_dot()
    formats = ["dot", "mermaid"] + (["svg"] if dot_program else [])
    try:
        written = write_diagrams(folder, formats, dot_program)
    except (OSError, graphviz.GraphvizError) as error:
        return [Line("diagrams", "decision and lifecycles", False, str(error))]
    note = "" if dot_program else f" (no SVG: {graphviz.INSTALL_HINT})"
    return [Line("diagrams", "decision and lifecycles", True, f"{len(written)} files{note}")]


def explorer_stage(out: Path) -> list[Line]:
    """The kill bound exhausted under ``boundary`` and compared with the state-space manifest."""
    return [Line(**check_explorer.explore_bound(out, KILL_BOUND))]


def stages(out: Path, profile: Profile, examples: int) -> list[Stage]:
    """Every stage of a run, the longest first (so two workers finish close together)."""
    traces = out / "traces"
    return [
        Stage("transition-system proofs", proofs_stage, (out / "proofs" / "machine",)),
        Stage("machine vs spec", machine_stage, ("spec", profile, examples, traces)),
        Stage("machine vs reference", machine_stage, ("reference", profile, examples, traces)),
        Stage("explorer: kill bound", explorer_stage, (out,)),
        Stage("decision proofs", decision_stage, (out / "proofs" / "decision",)),
        *[Stage(f"explorer vs design-{n}", design_stage, (n, traces)) for n in NUMBERS],
        *[Stage(f"explorer vs {name}", variation_stage, (name,)) for name in IN_PROCESS_VARIATIONS],
        Stage("liveness", liveness_stage, ()),
        Stage("explorer: mcp-2025-11-25", mcp_profile_stage, ()),
        Stage("explorer: mcp-2026-07-28", sessionless_stage, ()),
        Stage("diagrams", diagrams_stage, (out / "diagrams",)),
    ]


# -- running them ---------------------------------------------------------------------------


def run_gate(out: Path, profile: Profile, examples: int | None = None, workers: int | None = None,
              kill_matrix: bool = False, quiet: bool = False) -> CheckSummary:
    """Run every stage in ``workers`` processes (default: one per core), in a scratch folder inside
    ``out`` merged into ``out`` once all are done (an interrupt leaves ``out`` as it was); with
    ``kill_matrix`` also the kill matrix (``check_explorer.kill_matrix_stage``). One line per
    finished stage goes to stderr unless ``quiet``. Returns the summary, its details naming ``out``."""
    workers = workers or os.cpu_count() or 1
    report = _Reporter(quiet=quiet)
    summary = CheckSummary(profile)
    with staged_folder(out) as scratch:
        work = stages(scratch, profile, examples or CHECK_EXAMPLES)
        report.say(f"{len(work)} stages on {min(workers, len(work))} process(es); artifacts in {out}/")
        summary.lines += run_stages(work, workers, report.stage_done)
        if kill_matrix:
            report.say("kill matrix: every faulty design against every checker, under boundary and mcp-2025-11-25")
            kill = check_explorer.kill_matrix_stage(scratch, examples, report.cell_done, workers=workers)
            summary.lines += [Line(**line) for line in kill]
        _clear_old_traces(out / "traces")
    for line in summary.lines:
        line.detail = line.detail.replace(str(scratch), str(out))
    return summary


def run_stages(work: list[Stage], workers: int, done: Callable[[Stage, list[Line], float, int, int], None]) -> list[Line]:
    """Run ``work`` in ``workers`` processes (in this one when ``workers`` is 1); lines in ``work`` order.

    ``done(stage, lines, seconds, finished, total)`` is called as each stage ends.
    """
    results: dict[int, list[Line]] = {}
    total = len(work)
    if workers <= 1:
        for index, stage in enumerate(work):
            started = time.perf_counter()
            results[index] = stage.run(*stage.args)
            done(stage, results[index], time.perf_counter() - started, len(results), total)
        return [line for index in range(total) for line in results[index]]
    tasks = [(stage.run, stage.args) for stage in work]
    with finished_tasks(_timed, tasks, workers, start="spawn") as finished:  # spawn: this process runs threads
        for index, (lines, seconds) in finished:
            results[index] = lines
            done(work[index], lines, seconds, len(results), total)
    return [line for index in range(total) for line in results[index]]


def _timed(function: Callable[..., list[Line]], args: tuple) -> tuple[list[Line], float]:
    started = time.perf_counter()
    return function(*args), time.perf_counter() - started


class _Reporter:
    """One plain line per event on stderr, so a CI log shows the run as well as a terminal."""

    def __init__(self, quiet: bool) -> None:
        self.lines = StageProgress("check", quiet=quiet, terminal=False)
        self.started = time.perf_counter()

    def say(self, text: str) -> None:
        self.lines.note(text)

    def stage_done(self, stage: Stage, lines: list[Line], seconds: float, finished: int, total: int) -> None:
        words = ", ".join(sorted({line.word for line in lines})) or "no result"
        self.say(f"[{finished}/{total}] {stage.name}: {words} ({seconds:.1f} s; {self._elapsed()})")

    def cell_done(self, text: str) -> None:
        self.say(f"kill matrix: {text} ({self._elapsed()})")

    def _elapsed(self) -> str:
        return f"{time.perf_counter() - self.started:.0f} s elapsed"


def _clear_old_traces(traces: Path) -> None:
    """Remove the counterexamples a previous ``check`` wrote (its own file names only, nothing else),
    so that a design caught before and not now leaves no stale trace behind."""
    own = [traces / f"{name}.json" for name in ["spec", "reference", *design_names()]]
    own += list((traces / "explorer").glob("design-*-*.json"))
    for old in own:
        old.unlink(missing_ok=True)


def _write_trace(path: Path, trace) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(trace.dumps())


def print_summary(summary: CheckSummary, out: Path, console: Console) -> None:
    """The summary table and the verdict line, on stdout."""
    table = Table(title="mcp-resume check")
    for column in ("stage", "item", "result", "detail"):
        table.add_column(column, overflow="fold")
    for line in summary.lines:
        result = f"[green]{line.word}[/]" if line.holds else f"[bold red]{line.word}[/]"
        table.add_row(line.stage, line.item, result, line.detail)
    console.print(table)
    verdict = "everything holds" if summary.holds else "SOME CHECKS FAIL"
    print(f"{verdict} (machine under {summary.profile.value}, faulty designs under boundary); "
          f"proofs, traces and diagrams in {out}/", file=sys.stdout)
