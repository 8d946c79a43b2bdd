"""The kill matrix filled for a command: every faulty design (and correct variation) against every
checker (``kill_columns``: Hypothesis, the explorer, Z3 bounded model checking, ``verify`` over
HTTP) under ``boundary`` and ``mcp-2025-11-25``; shared by ``mcp-resume kill-matrix`` and
``mcp-resume check --kill-matrix`` (``check_explorer.kill_matrix_stage``)."""

from __future__ import annotations

from typing import Callable

from rich.console import Console
from rich.table import Table

from mcp_resume.model.harness.workers import default_workers
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import Bounds


def kill_columns(examples: int | None = None, bounds: Bounds | None = None) -> list:
    """``jobs.kill_columns.kill_columns``, imported when the matrix runs (it pulls in Hypothesis, Z3, httpx)."""
    from mcp_resume.jobs.kill_columns import kill_columns as columns

    return columns(examples, bounds)


def fill_kill_matrix(examples: int | None = None, bounds: Bounds | None = None,
                     progress: Callable[[str], None] | None = None, workers: int | None = None):
    """The ``model.explore.kill_cells.KillMatrix`` of every column: Hypothesis ``examples`` per run
    (default ``DEFAULT_EXAMPLES``), the explorer within ``bounds`` (default: the kill bound), its
    cells in ``workers`` processes (default ``default_workers()``); ``progress`` is told each cell."""
    from mcp_resume.model.explore.kill_cells import run_kill_matrix

    columns = kill_columns(examples, bounds)
    return run_kill_matrix(columns, progress=progress, workers=workers if workers is not None else default_workers())


def print_kill_matrix(matrix, console: Console) -> None:
    """One table per profile (a row per design, a column per checker), each column's note and the verdict."""
    from mcp_resume.model.explore.kill_cells import describe_cell

    for profile in sorted({c.profile for c in matrix.cells}, key=lambda p: p is not Profile.BOUNDARY):
        table = Table(title=f"kill matrix under {profile.value}")
        table.add_column("design")
        table.add_column("must be")
        for name in matrix.columns:
            table.add_column(name, overflow="fold")
        for design in dict.fromkeys(c.design for c in matrix.cells):
            row = [str(design), "caught" if matrix.cell(matrix.columns[0], design, profile).expected else "passed"]
            for name in matrix.columns:
                cell = matrix.cell(name, design, profile)
                text = describe_cell(cell)
                style = "dim" if cell.outcome == "not available" else ("green" if cell.as_expected else "bold red")
                row.append(f"[{style}]{text}[/]")
            table.add_row(*row)
        console.print(table)
    for name in matrix.columns:
        console.print(f"[bold]{name}[/]: {matrix.notes.get(name, '')}")
    verdict = "holds: every cell shows what it must" if matrix.holds else f"DOES NOT HOLD: {len(matrix.misses)} cell(s)"
    console.print(f"kill matrix {verdict} ({matrix.seconds:.0f} s)")
    _vacuous_hint(matrix, console)


def _vacuous_hint(matrix, console: Console) -> None:
    from mcp_resume.model.explore.kill_cells import VACUOUS
    from mcp_resume.model.harness.stateful import DEFAULT_EXAMPLES

    if any(cell.outcome == VACUOUS for cell in matrix.misses):
        console.print(f"VACUOUS cells: the run never fired some action or took some decision branch; "
                      f"raise --examples (default {DEFAULT_EXAMPLES})")
