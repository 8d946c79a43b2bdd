"""``mcp-resume check``: every machine check of the spec, with its artifacts.

Stages, each written under ``--out``:

1. ``proofs/decision/``: the Z3 queries over the decision table (total,
   exclusive, reachable, agreeing with the Python decision), as SMT-LIB2 files,
   JSON certificates and ``DECISION.md``; ``proofs/machine/boundary/``: the
   transition-system proofs and the faulty designs' shortest runs
   (``mcp-resume prove``);
2. the Hypothesis machine against the spec itself and against the in-process
   reference server, under ``--profile``: both must hold;
3. the machine against every faulty design of ``spec/designs.py``, under ``boundary``:
   each must be caught, its shrunk counterexample saved to ``traces/`` and
   confirmed by replaying it from JSON (fails on the design, holds on the
   reference server);
4. ``diagrams/``: the decision and the lifecycles (DOT, Mermaid, SVG when
   Graphviz is installed);
5. ``explorer/``: the spec's state space exhausted within the default bound,
   every invariant checked, counts compared with the manifest;
6. ``kill-matrix.json``/``.md``: every faulty design against every checker
   under ``boundary`` and ``mcp-2025-11-25`` (``check_explore``).

A machine run that finds nothing must also cover every action and every
decision branch; otherwise it is vacuous and fails.

Exit code 0 when everything holds, 1 otherwise, 2 when ``--out`` or
``--json`` cannot be written (checked before any work starts).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from mcp_resume import check_explore
from mcp_resume.model.harness.runs import ServerRun, design_names, run_server
from mcp_resume.model.harness.machine import DEFAULT_EXAMPLES
from mcp_resume.outputs import output_paths_problem
from mcp_resume.proofs.diagrams import graphviz
from mcp_resume.proofs.artifacts import write_decision_artifacts
from mcp_resume.proofs.decision.queries import run_decision_queries
from mcp_resume.proofs.diagrams.render import write_diagrams
from mcp_resume.prove import prove_stage
from mcp_resume.spec.profiles import Profile

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


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


def run_check(args) -> int:
    """Run every stage; print the summary; return 0 when all holds, 1 when not, 2 on unusable paths."""
    out = Path(args.out)
    problem = output_paths_problem(folders=[out], files=[args.json])
    if problem:
        print(f"mcp-resume check: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    _clear_old_traces(out / "traces")
    profile = Profile.parse(args.profile)
    examples = args.examples or DEFAULT_EXAMPLES
    console = Console(stderr=True)
    summary = CheckSummary(profile)
    servers = ["spec", "reference"] + design_names()
    # the kill matrix's own cells start in worker processes now and run beside the stages below
    with check_explore.start_kill_matrix(args.examples) as kill_matrix, Progress(
        TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(), console=console, disable=args.quiet,
    ) as progress:
        task = progress.add_task("decision proofs", total=len(servers) + 4 + check_explore.KILL_CELLS_TO_RUN)
        summary.lines += _decision_proofs(out / "proofs" / "decision")
        progress.advance(task)
        progress.update(task, description="transition-system proofs")
        summary.lines += [Line("z3", item, holds, detail) for item, holds, detail in prove_stage(out / "proofs" / "machine")]
        progress.advance(task)
        boundary_runs = []
        for name in servers:
            progress.update(task, description=f"machine vs {name}")
            run_profile = profile if name in ("spec", "reference") else Profile.BOUNDARY
            run = run_server(name, run_profile, examples)
            boundary_runs += [run] if run.design is not None else []
            summary.lines.append(_machine_line(run, out / "traces"))
            progress.advance(task)
        progress.update(task, description="diagrams")
        summary.lines.append(_diagrams(out / "diagrams"))
        progress.advance(task)
        progress.update(task, description="explorer: default bound")
        summary.lines.append(Line(**check_explore.explore_default_bound(out)))
        progress.advance(task)

        def cell_done(text: str) -> None:
            progress.update(task, description=f"kill matrix: {text}")
            progress.advance(task)

        kill = check_explore.kill_matrix_stage(boundary_runs, out, args.examples, cell_done, started=kill_matrix)
        summary.lines += [Line(**line) for line in kill]
    _print(summary, out, Console())
    if args.json:
        Path(args.json).write_text(json.dumps(summary.to_json(), indent=2) + "\n")
    return EXIT_OK if summary.holds else EXIT_FAILED


def _clear_old_traces(traces: Path) -> None:
    """Remove the counterexamples a previous ``check`` wrote (its own file names only, nothing else),
    so that a design caught before and not now leaves no stale trace behind."""
    own = [traces / f"{name}.json" for name in ["spec", "reference", *design_names()]]
    own += list((traces / "explorer").glob("design-*-*.json"))
    for old in own:
        old.unlink(missing_ok=True)


def _decision_proofs(folder: Path) -> list[Line]:
    results = run_decision_queries()
    write_decision_artifacts(results, folder)
    failed = [r for r in results if not r.holds]
    detail = f"{len(results) - len(failed)} of {len(results)} queries hold"
    if failed:
        detail += "; not holding: " + ", ".join(r.query for r in failed)
    return [Line("z3", "decision table", not failed, detail)]


def _machine_line(run: ServerRun, traces: Path) -> Line:
    actions = f"{run.profile.value}, {run.result.actions_run} actions, {run.seconds:.1f} s"
    if run.design is None:
        if run.caught:
            _save(run, traces)
            return Line("hypothesis", run.server, False, f"broke {run.rule} ({actions})", "BROKEN")
        if run.result.vacuous:
            return Line("hypothesis", run.server, False, f"vacuous: {run.result.coverage.explain()} ({actions})", "VACUOUS")
        return Line("hypothesis", run.server, True, f"agrees with the spec; every action and branch covered ({actions})", "holds")
    if not run.caught:
        return Line("hypothesis", run.server, False, f"no rule broken ({actions})", "NOT caught")
    _save(run, traces)
    steps = len(run.result.trace.actions)
    confirmed = "replay confirmed" if run.confirmed else "REPLAY NOT CONFIRMED"
    return Line("hypothesis", run.server, run.confirmed, f"{run.rule}, {steps} steps, {confirmed} ({actions})", "caught")


def _save(run: ServerRun, traces: Path) -> Path:
    traces.mkdir(parents=True, exist_ok=True)
    path = traces / f"{run.server}.json"
    path.write_text(run.result.trace.dumps())
    return path


def _diagrams(folder: Path) -> Line:
    dot_program = graphviz.find_dot()
    formats = ["dot", "mermaid"] + (["svg"] if dot_program else [])
    try:
        written = write_diagrams(folder, formats, dot_program)
    except (OSError, graphviz.GraphvizError) as error:
        return Line("diagrams", "decision and lifecycles", False, str(error))
    note = "" if dot_program else f" (no SVG: {graphviz.INSTALL_HINT})"
    return Line("diagrams", "decision and lifecycles", True, f"{len(written)} files{note}")


def _print(summary: CheckSummary, out: Path, console: Console) -> None:
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
