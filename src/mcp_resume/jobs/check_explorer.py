"""The stages ``mcp-resume check`` adds for the explorer: a named bound and the kill matrix.

Each returns summary lines as plain dicts (``stage``, ``item``, ``holds``,
``detail``, ``result``) that ``check`` turns into rows, and writes its
artifacts under ``out``:

- ``explorer/<bound>.json``: the exploration of a named bound (``check``: the kill
  bound), compared with the state-space manifest;
- ``kill-matrix.json`` and ``kill-matrix.md``, and the explorer's shortest
  counterexample of every design in ``traces/explorer/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from mcp_resume.model.explore import state_space
from mcp_resume.spec.space import KILL_BOUND
from mcp_resume.model.explore.kill_cells import KILL_PROFILES, UNAVAILABLE, KillMatrix, target
from mcp_resume.spec.designs import NUMBERS

from mcp_resume.jobs.kill_matrix_run import fill_kill_matrix


def explore_bound(out: Path, bound: str = KILL_BOUND) -> dict:
    """Exhaust the named ``bound`` (a key of ``spec.space.NAMED_BOUNDS``) with the fast explorer
    under ``boundary``; it must hold and match the manifest's counts. Writes
    ``out/explorer/<bound>.json``; returns a summary line as a dict (module docstring)."""
    result = state_space.explore_named(bound)
    differences = state_space.differences(bound, result)
    folder = out / "explorer"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{bound}.json").write_text(
        json.dumps({**result.to_json(), "bound_name": bound, "manifest_differences": differences}, indent=2) + "\n"
    )
    detail = (f"{result.states:,} states, {result.transitions:,} transitions, depth {result.depth}, "
              f"{result.seconds:.1f} s ({result.states_per_second:,.0f} states/s)")
    if not result.holds:
        broken = ", ".join(result.violations) or result.coverage.explain()
        return _line("explorer", f"spec within {bound} bound", False, f"{detail}; broken: {broken}")
    if differences:
        return _line("explorer", f"spec within {bound} bound", False, f"{detail}; differs from the manifest: {'; '.join(differences)}")
    return _line("explorer", f"spec within {bound} bound", True, f"{detail}; every invariant holds, matches the manifest")


def kill_matrix_stage(
    out: Path,
    examples: int | None,
    progress: Callable[[str], None] | None = None,
    workers: int | None = None,
) -> list[dict]:
    """Fill the kill matrix and summarise each column; cells run in ``workers`` processes
    (default: the cores, at most 4)."""
    matrix = fill_kill_matrix(examples, progress=progress, workers=workers)
    out.mkdir(parents=True, exist_ok=True)
    (out / "kill-matrix.json").write_text(json.dumps(matrix.to_json(), indent=2) + "\n")
    (out / "kill-matrix.md").write_text(matrix.to_markdown())
    _save_explorer_traces(matrix, out / "traces" / "explorer")
    return [_column_line(matrix, name) for name in matrix.columns]


def _column_line(matrix: KillMatrix, name: str) -> dict:
    cells = [c for c in matrix.cells if c.checker == name]
    if all(c.outcome == UNAVAILABLE for c in cells):
        return _line("kill matrix", name, True, matrix.notes[name], "not available")
    parts = []
    for profile in KILL_PROFILES:
        mine = [c for c in cells if c.profile is profile]
        caught = sorted(c.design for c in mine if c.outcome == "caught" and isinstance(c.design, int))
        parts.append(f"{profile.value}: caught {_designs(caught)}")
    misses = [c for c in cells if not c.as_expected]
    if misses:
        wrong = ", ".join(f"{target(c.design)}/{c.profile.value}: {c.outcome}" for c in misses)
        return _line("kill matrix", name, False, "; ".join(parts) + f"; NOT AS EXPECTED: {wrong}", "wrong")
    return _line("kill matrix", name, True, "; ".join(parts) + "; every cell as expected", "as expected")


def _designs(numbers: list[int]) -> str:
    if numbers == sorted(NUMBERS):
        return f"all {len(numbers)}"
    return ", ".join(map(str, numbers)) if numbers else "none"


def _save_explorer_traces(matrix: KillMatrix, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for cell in matrix.cells:
        if cell.checker == "explorer" and cell.trace is not None:
            (folder / f"{target(cell.design)}-{cell.profile.value}.json").write_text(cell.trace.dumps())


def _line(stage: str, item: str, holds: bool, detail: str, result: str = "") -> dict:
    return {"stage": stage, "item": item, "holds": holds, "detail": detail, "result": result}
