"""What the explorers print and write: the table of one exploration (``print_exploration``), its
JSON report and shortest traces, and the one progress line on stderr. Shared by ``mcp-resume
explore``, ``explore-design``, ``liveness`` and ``kill-matrix``."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mcp_resume.model.explore.result import ExplorationResult
from mcp_resume.model.harness.coverage import REQUIRED_BRANCHES, branch_label
from mcp_resume.outputs import write_output
from mcp_resume.spec.catalog import AGREEMENT
from mcp_resume.spec.decision import BRANCH_RULE
from mcp_resume.spec.invariants import GENERIC_CHECKS, SERVER_CHECKS, STATE_INVARIANTS


def error_line(command: str, message: str, code: int) -> int:
    """Print ``message`` as ``command``'s one error line on stderr; return ``code``."""
    print(f"mcp-resume {command}: error: {message}", file=sys.stderr)
    return code


def print_exploration(result: ExplorationResult, console: Console, bound_name: str | None, differences) -> None:
    """The counts, coverage, invariants and shortest traces of one exploration."""
    summary = Table(title=f"explored {result.server} under {result.profile.value}")
    summary.add_column("measure")
    summary.add_column("value", overflow="fold")
    name = f"{bound_name}: " if bound_name else ""
    rows = [
        ("bound", name + result.bounds.describe()),
        ("engine", f"{result.engine}{' with symmetry reduction' if result.symmetry else ', no symmetry reduction'}"),
        ("distinct states", f"{result.states:,}"),
        ("transitions", f"{result.transitions:,} (+{result.pruned:,} pruned by the bound)"),
        ("depth", f"{result.depth}" + ("" if result.exhausted or result.stopped else f" ({_stopped(result)})")),
        ("states per level", " ".join(map(str, result.levels))),
        ("time", f"{result.seconds:.2f} s, {result.states_per_second:,.0f} states/s"),
        ("coverage", result.coverage.explain()),
    ]
    if differences is not None:
        rows.append(("manifest", "matches" if not differences else "DIFFERS: " + "; ".join(differences)))
    if result.stopped:
        rows.insert(0, ("INCOMPLETE", f"{result.stopped}; the counts are those of the states explored so far"))
    for measure, value in rows:
        summary.add_row(measure, value)
    console.print(summary)
    counts = Table(title="transitions per action and per decision branch")
    counts.add_column("action")
    counts.add_column("transitions", justify="right")
    counts.add_column("branch")
    counts.add_column("transitions", justify="right")
    actions = sorted(result.coverage.actions.items(), key=lambda kv: -kv[1])
    branches = [(b.value, result.coverage.branches.get(b.value, 0)) for b in REQUIRED_BRANCHES]
    for index in range(max(len(actions), len(branches))):
        kind, n = actions[index] if index < len(actions) else ("", "")
        branch, m = branches[index] if index < len(branches) else ("", "")
        counts.add_row(kind, f"{n:,}" if n != "" else "", branch_label(branch) if branch else "", f"{m:,}" if m != "" else "")
    console.print(counts)
    rules = list(STATE_INVARIANTS) + [r for r, _ in SERVER_CHECKS if r != "status"] + [r for r, _ in GENERIC_CHECKS]
    rules += [BRANCH_RULE[branch] for branch in REQUIRED_BRANCHES]  # the status check files findings under these
    rules += [r for r in list(result.violations) + list(result.warnings) if r not in rules]
    invariants = Table(title="invariants, checked in every state and on every transition")
    invariants.add_column("rule")
    invariants.add_column("result")
    invariants.add_column("shortest trace")
    for rule in dict.fromkeys(rules):
        if rule in result.violations:
            invariants.add_row(rule, "[bold red]BROKEN[/]", steps_text(result.violations[rule].steps))
        elif rule == AGREEMENT and rule in result.warnings:
            invariants.add_row(rule, "[yellow]note: differs where no rule speaks[/]", steps_text(result.warnings[rule].steps))
        elif rule in result.warnings:
            invariants.add_row(rule, "[yellow]broken (not a MUST here)[/]", steps_text(result.warnings[rule].steps))
        else:
            invariants.add_row(rule, "[yellow]holds so far[/]" if result.stopped else "[green]holds[/]", "")
    console.print(invariants)
    for violation in list(result.violations.values()) + list(result.warnings.values()):
        console.print(f"[bold]{violation.rule}[/] ({steps_text(violation.steps)}): {violation.message}")
        console.print(violation.trace.describe(), markup=False, highlight=False)
    if result.violations:
        verdict = "DOES NOT HOLD"
    elif result.stopped:
        verdict = "INCOMPLETE (nothing broken so far)"
    else:
        verdict = "holds" if result.holds else ("VACUOUS" if result.vacuous else "DOES NOT HOLD")
    console.print(f"{result.server} {verdict} within {result.bounds.describe()}")


_STOPPED = {
    "first": "stopped at the first counterexample",
    "level": "stopped at the end of the first level with a counterexample; --exhaustive walks the whole bound",
}


def _stopped(result: ExplorationResult) -> str:
    """Why a walk ended early and, for a design, how many product states it needed."""
    text = _STOPPED.get(result.notes.get("stop"), _STOPPED["first"])
    if "expanded" in result.notes:
        text += f"; needed {result.states:,} states, {result.notes['expanded']:,} of them expanded"
    return text


def steps_text(count: int) -> str:
    return f"{count} step" if count == 1 else f"{count} steps"


def write_json(path, data) -> None:
    if path is not None:
        write_output(Path(path), json.dumps(data, indent=2) + "\n")


def write_traces(folder: Path, result: ExplorationResult, console: Console) -> None:
    """Write each counterexample as ``FOLDER/<server>-<rule>.json``; name the traces of the
    same server an earlier run left there for rules this run did not break (kept as they are)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = set()
    for registry in (result.violations, result.warnings):
        for rule, violation in registry.items():
            path = folder / f"{result.server}-{rule}.json"
            write_output(path, violation.trace.dumps())
            written.add(path.name)
            console.print(f"trace: {path}", markup=False, highlight=False, soft_wrap=True)
    for path in sorted(folder.glob(f"{result.server}-*.json")):
        if path.name not in written:
            console.print(f"[yellow]note[/]: {escape(str(path))} is an earlier run's trace: this run did not break its rule",
                          soft_wrap=True)


class ProgressLine:
    """One status line on stderr, at most once a second: states, transitions, depth, rate."""

    def __init__(self, interval: float = 1.0) -> None:
        self.interval = interval
        self.last = 0.0
        self.tty = sys.stderr.isatty()
        self.shown = False

    def __call__(self, result: ExplorationResult) -> None:
        if not self._due():
            return
        forms = result.notes.get("forms_so_far")
        if forms is not None:
            self._show(f"expanding session forms: {forms:,} forms within {steps_text(result.depth)}, {result.seconds:.0f} s")
            return
        self._show(f"exploring: {result.states:,} states so far, depth {result.depth}, "
                   f"{result.seconds:.0f} s, {result.states_per_second:,.0f} states/s")

    def note(self, text: str) -> None:
        self._show(text, force=True)

    def graph(self, states: int, depth: int, seconds: float) -> None:
        """Progress of a graph walked for ``mcp-resume liveness`` (the ``progress`` of ``model.explore.liveness_check.spec_graph``)."""
        if self._due():
            self._show(f"walking the graph: {states:,} states, depth {depth}, {seconds:.0f} s")

    def _due(self) -> bool:
        now = time.monotonic()
        if now - self.last < self.interval:
            return False
        self.last = now
        return True

    def _show(self, text: str, force: bool = False) -> None:
        if self.tty:
            sys.stderr.write("\r\033[K" + text)
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown and self.tty:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
