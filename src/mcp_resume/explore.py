"""``mcp-resume explore``: walk every state of the spec within bounds, as TLC does.

The fast explorer (over session forms; ``--reference``: over whole states, ``--no-symmetry``
without symmetry reduction) within ``--bound`` (default ``default``) or explicit
``--sessions/--streams/--events/--requests/--depth``; prints the counts, the count of each
action and of each decision branch, every invariant with its verdict and, for each broken rule,
the shortest trace (``--traces DIR``: as JSON); a named bound is compared with the state-space
manifest. It estimates the size first and refuses a run above ``--budget``; ``--max-states`` and
``--max-memory`` stop a run there, marked incomplete (``jobs.exploring``).

A faulty design beside the spec is ``explore-design N``, the liveness rule ``liveness``, every
design against every checker ``kill-matrix``, the picture of the states ``graph``.

Exit codes: 0 everything explored holds; 1 a rule is broken, the run is vacuous, or the counts
differ from the manifest; 2 bad usage (unknown bound, a bound below 1, a run above the budget, a
file in a folder that does not exist); 3 the run stopped at ``--max-states`` or ``--max-memory``
before exploring everything (nothing broken so far).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from mcp_resume.jobs.bounds import UsageError, resolve_bounds
from mcp_resume.jobs.exits import EXIT_USAGE
from mcp_resume.jobs.explore_report import ProgressLine, error_line, write_traces
from mcp_resume.jobs.exploring import SpecRun, TooLarge, explore_spec, outputs_problem
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import DEFAULT_BOUND

COMMAND = "explore"


def run_explore(args) -> int:
    """Run ``explore`` for parsed ``args``; return the exit code (module docstring)."""
    try:
        profile = Profile.parse(args.profile)
        bound_name, bounds = resolve_bounds(args, DEFAULT_BOUND)
        problem = outputs_problem({"--json": args.json}, {"--traces": args.traces})
        if problem:
            raise UsageError(problem)
    except ValueError as error:
        return error_line(COMMAND, str(error), EXIT_USAGE)
    run = SpecRun(reference=args.reference or args.no_symmetry, symmetry=not args.no_symmetry, workers=args.workers,
                  budget=args.budget, max_states=args.max_states, max_memory=args.max_memory)
    progress = None if args.quiet else ProgressLine()
    console = Console()
    try:
        code, result = explore_spec(run, profile, bound_name, bounds, console, progress, args.json)
    except TooLarge as error:
        if progress:
            progress.done()
        anyway = "a --budget well above that" if error.partial else f"--budget {error.estimate}"
        return error_line(COMMAND, f"{error}; explore it anyway with {anyway}, or stop early with --max-states N / "
                                   f"--max-memory MB", EXIT_USAGE)
    if args.traces:
        write_traces(Path(args.traces), result, console)
    return code
