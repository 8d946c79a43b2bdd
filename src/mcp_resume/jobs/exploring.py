"""The explorers run for a command: the spec alone within a bound (``explore_spec``) and a faulty
design beside the spec (``explore_design``), each printed, written as JSON and given its exit code.

The spec explorer estimates the size of a run before it starts (``fast.estimate_states``; without
symmetry reduction, scaled by a sample) and refuses one above the budget (``FAST_BUDGET`` states
for the fast engine, ``REFERENCE_BUDGET`` for the reference one) with ``TooLarge``; ``max_states``
and ``max_memory`` stop a run there, with the counts so far, marked incomplete (exit 3). The fast
engine runs in ``workers`` processes, and a design's levels of at least ``FORK_AT`` product states
too; the counts do not depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from mcp_resume.jobs.bounds import UsageError
from mcp_resume.jobs.exits import EXIT_FAILED, EXIT_OK, EXIT_UNCHECKED as EXIT_INCOMPLETE
from mcp_resume.jobs.explore_report import print_exploration, write_json
from mcp_resume.model.harness.workers import default_workers
from mcp_resume.model.explore.estimate import TooLarge, estimate_reference
from mcp_resume.model.explore.result import ExplorationResult
from mcp_resume.model.explore.server import Stop, explore_server
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.outputs import output_folder_probe
from mcp_resume.spec import designs
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import KILL_BOUND, Bounds

__all__ = ["TooLarge", "SpecRun", "explore_spec", "explore_design", "check_design", "outputs_problem"]

FAST_BUDGET = 4_000_000
"""States the fast engine explores without a budget given: every named bound fits (the default
bound 826,721 states; ``deep`` 3,036,382 states, 100 s on two workers and 1.6 GB of memory)."""

REFERENCE_BUDGET = 150_000
"""States the reference engine explores without a budget given (it walks a few thousand states/s)."""


@dataclass
class SpecRun:
    """How to explore the spec: ``reference`` walks whole states (symmetry reduced unless
    ``symmetry`` is false) instead of session forms; ``budget`` ``None`` is the engine's default
    unless ``max_states`` or ``max_memory`` (MB) bound the run; ``workers`` ``None`` is
    ``default_workers()`` (the fast engine only)."""

    reference: bool = False
    symmetry: bool = True
    workers: int | None = None
    budget: int | None = None
    max_states: int | None = None
    max_memory: int | None = None

    def budget_or_default(self) -> int | None:
        if self.budget is not None:
            return self.budget
        if self.max_states is not None or self.max_memory is not None:
            return None
        return REFERENCE_BUDGET if self.reference else FAST_BUDGET


def explore_spec(run: SpecRun, profile: Profile, bound_name: str | None, bounds: Bounds, console: Console,
                 progress=None, json_path: Path | None = None) -> tuple[int, ExplorationResult]:
    """Explore the spec within ``bounds``, print the result (a named bound compared with the
    state-space manifest), write ``json_path``; ``(exit code, result)``: 1 when a rule is broken,
    the run is vacuous or the counts differ from the manifest, 3 when it stopped early. Raises
    ``TooLarge`` for a run estimated above the budget."""
    from mcp_resume.model.explore import state_space
    from mcp_resume.model.explore.fast import explore_fast
    from mcp_resume.model.explore.plain import explore_spec as explore_plain

    if progress:
        progress.note(f"explore: the spec under {profile.value}, within {bounds.describe()}")
    limits = {"max_states": run.max_states, "max_memory": run.max_memory}
    workers = run.workers or default_workers()
    budget = run.budget_or_default()
    if run.reference:
        estimate = None if budget is None else estimate_reference(bounds, profile, run.symmetry, budget, workers)
        result = explore_plain(bounds, profile, symmetry=run.symmetry, progress=progress, **limits)
        result.notes["estimated_states"] = estimate
    else:
        result = explore_fast(bounds, profile, progress=progress, workers=workers, budget=budget, **limits)
    if progress:
        progress.done()
    differences = None
    if bound_name is not None and result.complete and run.symmetry \
            and state_space.expected(bound_name, profile) is not None:
        differences = state_space.differences(bound_name, result)
    print_exploration(result, console, bound_name, differences)
    if result.violations:
        code = EXIT_FAILED
    elif not result.complete:
        code = EXIT_INCOMPLETE
    else:
        code = EXIT_OK if result.holds and not differences else EXIT_FAILED
    write_json(json_path, {**result.to_json(), "bound_name": bound_name, "manifest_differences": differences})
    return code, result


def check_design(number: int) -> None:
    """``UsageError`` unless ``number`` is a faulty design's (``spec/designs.py``)."""
    if number not in designs.BY_NUMBER:
        raise UsageError(f"unknown design {number}; designs are {designs.numbers_text()} (spec/designs.py)")


def explore_design(number: int, stop: Stop, profile: Profile, bound_name: str | None, bounds: Bounds,
                   console: Console, progress=None, workers: int | None = None,
                   json_path: Path | None = None) -> tuple[int, ExplorationResult]:
    """Explore faulty design ``number`` beside the spec breadth-first within ``bounds`` (the ``kill``
    bound widened for a design whose counterexample lies beyond it), until ``stop``; print it, write
    ``json_path``; ``(exit code, result)``: 1 when it breaks a rule (as a faulty design should) or
    the run is vacuous."""
    if progress:
        walk = {Stop.FIRST: "until the first counterexample", Stop.NEVER: "the whole bound"}.get(
            stop, "until each rule of the design, or the first level with a counterexample, is done")
        progress.note(f"explore: design {number} beside the spec under {profile.value}, within "
                      f"{bounds.describe()} ({walk})")
    expect = designs.design(number).breaks(profile)  # LEVEL ends once each has its counterexample
    if bound_name == KILL_BOUND:
        bounds = designs.design(number).widened(bounds)  # a design whose counterexample lies beyond it
    result = explore_server(DESIGNS[number], bounds, profile, stop=stop, progress=progress, expect=expect,
                            workers=workers or default_workers())
    if progress:
        progress.done()
    print_exploration(result, console, bound_name, None)
    write_json(json_path, {**result.to_json(), "bound_name": bound_name, "design": number})
    return (EXIT_FAILED if result.violations or result.vacuous else EXIT_OK), result


def outputs_problem(files: dict[str, object], folders: dict[str, object], shared: frozenset = frozenset()) -> str | None:
    """Why the outputs a command names cannot be written, checked before the run (so that no
    report is left behind by a failed write): two named by one path (but the folders in
    ``shared``, whose files differ), a file in a folder that does not exist, a folder that cannot
    be made. ``files`` and ``folders`` map an option (``--json``) to its path or ``None``."""
    from mcp_resume.outputs import output_paths_problem

    given = [(option, Path(path)) for option, path in {**files, **folders}.items() if path is not None and path != "-"]
    for index, (option, path) in enumerate(given):
        for other, other_path in given[index + 1:]:
            if path.resolve() == other_path.resolve() and not {option, other} <= shared:
                return f"{option} and {other} both name {path}: give each its own path"
    problem = output_paths_problem(files=[path for path in files.values()])
    if problem:
        return problem
    for folder in folders.values():
        if folder is not None and (problem := output_folder_probe(Path(folder))):
            return problem
    return None
