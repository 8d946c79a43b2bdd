"""The kill matrix: every faulty design and every correct variation against every checker, under two profiles.

A check that cannot fail proves nothing. Each cell runs one checker (a
*column*) against one faulty design of docs/design.md §5 under one profile and says
whether the design was caught, by which rule, in how many steps, and whether
the counterexample is confirmed (replayed from JSON: it fails on the design at
the same step and holds on the reference server).

A row is a design's number or a correct variation's target (``variation-<slug>``).
What each cell must show (``expected_caught``): under ``boundary`` every design
is caught; under ``mcp-2025-11-25`` exactly the designs that break a MUST of
that revision itself (``CAUGHT_UNDER_MCP``, read from ``spec.designs``) are
caught and the others pass, without being vacuous; a correct variation passes
under both (a checker that blames it is wrong). A caught cell must name one
of the design's rules (``spec.designs``) and be confirmed. The matrix ``holds`` when every
available cell shows what it must.

Columns are pluggable (``Column``): ``HypothesisColumn`` (the machine, as
``model.harness.runs.run_server``), ``ExplorerColumn`` (``explore_server`` within a
bound), and ``UnavailableColumn`` for a checker that is not built yet; its
cells say "not available" and do not count.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Protocol

from mcp_resume.model.harness.workers import finished_tasks
from mcp_resume.spec import designs as spec_designs
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.trace import Trace

from mcp_resume.model.harness.runs import ServerRun, confirm, run_server
from mcp_resume.model.explore.server import explore_server
from mcp_resume.spec.space import Bounds, KILL_BOUND, named_bound
from mcp_resume.model.servers.inprocess import server_factory
from mcp_resume.model.harness.stateful import DEFAULT_EXAMPLES, DEFAULT_STEPS

KILL_PROFILES: tuple[Profile, ...] = (Profile.BOUNDARY, Profile.MCP_2025_11_25)

CAUGHT_UNDER_MCP = spec_designs.caught_under(Profile.MCP_2025_11_25)
"""Designs that break a MUST of mcp-2025-11-25 itself (cross-session or cross-stream
replay, history replayed on a new stream); the others break only what ``boundary`` adds."""

CAUGHT, PASSED, VACUOUS, UNAVAILABLE, ERROR = "caught", "passed", "vacuous", "not available", "error"


Row = int | str
"""A design's number, or a correct variation's target."""

ROWS: tuple[Row, ...] = spec_designs.NUMBERS + tuple(v.target for v in spec_designs.VARIATIONS)
"""Every row of the matrix: the faulty designs, then the correct variations."""


def entry(row: Row) -> spec_designs.Design:
    """The design or correct variation of ``row``; ``KeyError`` when there is none."""
    if isinstance(row, int):
        return spec_designs.design(row)
    found = spec_designs.by_target(row)
    if found is None:
        raise KeyError(f"unknown kill-matrix row {row!r}")
    return found


def target(row: Row) -> str:
    """The in-process server's name of ``row``: ``design-<n>`` or ``variation-<slug>``."""
    return entry(row).target


def expected_caught(design: Row, profile: Profile) -> bool:
    """Whether ``design`` must be caught under ``profile`` (see the module docstring)."""
    return entry(design).caught(profile)


@dataclass
class Cell:
    """One checker against one design under one profile."""

    checker: str
    design: Row
    profile: Profile
    outcome: str
    rule: str | None = None
    steps: int | None = None
    confirmed: bool | None = None
    detail: str = ""
    seconds: float = 0.0
    trace: Trace | None = None

    @property
    def expected(self) -> bool:
        return expected_caught(self.design, self.profile)

    @property
    def as_expected(self) -> bool:
        """The cell shows what it must (an unavailable cell does not count)."""
        if self.outcome == UNAVAILABLE:
            return True
        if self.outcome == CAUGHT:
            return self.expected and bool(self.confirmed) and self.rule in entry(self.design).rules
        if self.outcome == PASSED:
            return not self.expected
        return False

    def to_json(self) -> dict:
        return {
            "checker": self.checker,
            "design": self.design,
            "profile": self.profile.value,
            "outcome": self.outcome,
            "expected": CAUGHT if self.expected else PASSED,
            "as_expected": self.as_expected,
            "rule": self.rule,
            "steps": self.steps,
            "confirmed": self.confirmed,
            "detail": self.detail,
            "seconds": round(self.seconds, 3),
            "trace": self.trace.to_json() if self.trace else None,
        }


class Column(Protocol):
    """A checker that can be run against one faulty design under one profile."""

    name: str

    def unavailable(self) -> str | None:
        """Why the checker cannot run here (``None`` when it can)."""

    def run(self, design: Row, profile: Profile) -> Cell:
        """Run against design number ``design`` (or a variation's target); never raises on a finding."""


@dataclass
class UnavailableColumn:
    """A column for a checker that does not exist (yet): every cell says why."""

    name: str
    reason: str

    def unavailable(self) -> str | None:
        return self.reason

    def run(self, design: Row, profile: Profile) -> Cell:
        return Cell(self.name, design, profile, UNAVAILABLE, detail=self.reason)


@dataclass
class HypothesisColumn:
    """The Hypothesis machine (``model.harness.runs.run_server``), ``examples`` sequences per run."""

    examples: int = DEFAULT_EXAMPLES
    name: str = "hypothesis"

    def unavailable(self) -> str | None:
        return None

    def run(self, design: Row, profile: Profile) -> Cell:
        return cell_from_server_run(run_server(target(design), profile, self.examples), self.name, design)


def cell_from_server_run(run: ServerRun, checker: str = "hypothesis", row: Row | None = None) -> Cell:
    """The cell a finished machine run fills (lets ``check`` reuse its own runs)."""
    design = run.design if row is None else row
    assert design is not None, f"{run.server} is not a faulty design"
    result = run.result
    if run.caught:
        trace = result.trace
        return Cell(checker, design, run.profile, CAUGHT, run.rule, len(trace.actions), run.confirmed,
                    f"{result.actions_run} actions", run.seconds, trace)
    outcome = VACUOUS if result.vacuous else PASSED
    detail = f"{result.actions_run} actions; coverage {result.coverage.explain()}"
    return Cell(checker, design, run.profile, outcome, detail=detail, seconds=run.seconds)


@dataclass
class ExplorerColumn:
    """``explore_server`` within ``bounds``, stopping at the first counterexample."""

    bounds: Bounds = field(default_factory=lambda: named_bound(KILL_BOUND))
    name: str = "explorer"

    def unavailable(self) -> str | None:
        return None

    def run(self, design: Row, profile: Profile) -> Cell:
        factory = server_factory(target(design))
        spec = spec_designs.by_target(target(design))
        result = explore_server(factory, spec.widened(self.bounds) if spec else self.bounds, profile)
        counts = f"{result.states} states, {result.transitions} transitions"
        first = result.first
        if first is None:
            outcome = VACUOUS if result.vacuous else PASSED
            detail = f"{counts}; coverage {result.coverage.explain()}"
            return Cell(self.name, design, profile, outcome, detail=detail, seconds=result.seconds)
        fails_again, holds_on_reference = confirm(first.trace, factory)
        return Cell(self.name, design, profile, CAUGHT, first.rule, first.steps, fails_again and holds_on_reference,
                    counts, result.seconds, first.trace)


@dataclass
class KillMatrix:
    """Cells by (checker, design, profile), with each column's note (its bound, why unavailable ...)."""

    columns: list[str]
    notes: dict[str, str]
    cells: list[Cell] = field(default_factory=list)
    seconds: float = 0.0

    def cell(self, checker: str, design: Row, profile: Profile) -> Cell:
        for cell in self.cells:
            if (cell.checker, cell.design, cell.profile) == (checker, design, profile):
                return cell
        raise KeyError((checker, design, profile.value))

    @property
    def holds(self) -> bool:
        return all(cell.as_expected for cell in self.cells)

    @property
    def misses(self) -> list[Cell]:
        """Cells that do not show what they must."""
        return [cell for cell in self.cells if not cell.as_expected]

    def to_json(self) -> dict:
        return {
            "format": "mcp-resume-kill-matrix/1",
            "holds": self.holds,
            "columns": [{"name": name, "note": self.notes.get(name, "")} for name in self.columns],
            "profiles": [p.value for p in KILL_PROFILES],
            "expected_caught_under_mcp": sorted(CAUGHT_UNDER_MCP),
            "cells": [cell.to_json() for cell in self.cells],
            "seconds": round(self.seconds, 3),
        }

    def to_markdown(self) -> str:
        """One table per profile: a row per design, a column per checker."""
        lines = ["# Kill matrix", ""]
        lines.append("Each faulty design and each correct variation of docs/design.md §5 against each checker. A cell reads `caught: <rule>, "
                     "<n> steps` (the first rule broken and the length of the counterexample, replayed from JSON: "
                     "it fails on the design and holds on the reference server), `passed` (nothing broken, "
                     "every action and branch exercised), `VACUOUS`, or `not available`. "
                     "Cells that do not show what they must are marked **(!)**.")
        lines.append("")
        for name in self.columns:
            lines.append(f"- **{name}**: {self.notes.get(name, '')}")
        lines.append("")
        for profile in KILL_PROFILES:
            lines.append(f"## {profile.value}")
            lines.append("")
            lines.append("| design | must be | " + " | ".join(self.columns) + " |")
            lines.append("|---|---|" + "---|" * len(self.columns))
            for design in dict.fromkeys(c.design for c in self.cells):
                row = [str(design), CAUGHT if expected_caught(design, profile) else PASSED]
                for name in self.columns:
                    cell = self.cell(name, design, profile)
                    text = describe_cell(cell)
                    row.append(text if cell.as_expected else f"**{text} (!)**")
                lines.append("| " + " | ".join(row) + " |")
            lines.append("")
        lines.append(f"Matrix {'holds' if self.holds else 'DOES NOT HOLD'}.")
        return "\n".join(lines) + "\n"


def describe_cell(cell: Cell) -> str:
    """A short reading of a cell, e.g. ``caught: replay-suffix, 4 steps``."""
    if cell.outcome == CAUGHT:
        confirmed = "" if cell.confirmed else ", NOT CONFIRMED"
        steps = f", {cell.steps} steps" if cell.steps is not None else ""
        return f"caught: {cell.rule}{steps}{confirmed}"
    if cell.outcome == VACUOUS:
        return "VACUOUS"
    return cell.outcome


def run_kill_matrix(
    columns: list[Column],
    designs: Iterable[Row] = ROWS,
    profiles: Iterable[Profile] = KILL_PROFILES,
    done: dict[tuple[str, Row, Profile], Cell] | None = None,
    progress: Callable[[str], None] | None = None,
    workers: int = 1,
) -> KillMatrix:
    """Fill every cell; ``done`` holds cells already computed, which are not run again.

    With ``workers`` > 1 the cells run in that many processes (each run is
    deterministic, so the matrix is the same). ``progress`` is called with a
    description of each cell as it finishes.
    """
    started = time.perf_counter()
    done = dict(done or {})
    order = [(column, design, profile) for profile in profiles for design in designs for column in columns]
    todo = [(c, d, p) for c, d, p in order if (c.name, d, p) not in done]
    for cell in _run_cells(todo, workers):
        done[(cell.checker, cell.design, cell.profile)] = cell
        if progress and cell.outcome != UNAVAILABLE:
            progress(f"{cell.checker} vs {target(cell.design)} under {cell.profile.value}: {describe_cell(cell)}")
    notes = {column.name: column_note(column) for column in columns}
    matrix = KillMatrix([column.name for column in columns], notes)
    matrix.cells = [done[(column.name, design, profile)] for column, design, profile in order]
    matrix.seconds = time.perf_counter() - started
    return matrix


def _run_cells(todo: list[tuple[Column, Row, Profile]], workers: int) -> Iterator[Cell]:
    """Each task's cell, here or in ``workers`` processes (as they finish); an unavailable
    column's cells are made here at once."""
    runnable = [task for task in todo if task[0].unavailable() is None]
    for task in todo:
        if task[0].unavailable() is not None:
            yield _run_cell(task)
    if workers <= 1 or len(runnable) <= 1:
        yield from map(_run_cell, runnable)
        return
    # the slowest cells (exhaustive explorations) first, so the workers end together
    runnable.sort(key=lambda t: isinstance(t[0], ExplorerColumn) and not expected_caught(t[1], t[2]), reverse=True)
    tasks = [(task,) for task in runnable]
    with finished_tasks(_run_cell, tasks, workers, start="spawn") as finished:  # no fork of a process that may run threads
        for _, cell in finished:
            yield cell


def _run_cell(task: tuple[Column, Row, Profile]) -> Cell:
    column, design, profile = task
    return column.run(design, profile)


def column_note(column: Column) -> str:
    reason = column.unavailable()
    if reason:
        return f"not available: {reason}"
    if isinstance(column, ExplorerColumn):
        return f"every path within {column.bounds.describe()}, breadth-first (shortest counterexample)"
    if isinstance(column, HypothesisColumn):
        return f"{column.examples} derandomized sequences of up to {DEFAULT_STEPS} steps, shrunk"
    return getattr(column, "note", "")
