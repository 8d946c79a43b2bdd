"""``mcp-resume explore-design N``: faulty design N explored beside the spec, breadth-first.

Within the ``kill`` bound unless ``--bound`` or numbers say otherwise, each level likeliest
first, until every rule the design breaks (docs/design.md §5) has its shortest counterexample,
at the latest at the end of the first level with a counterexample, with the shortest trace of
every rule broken there and the count of states it needed (``--first``: stop at the first
failing step; ``--exhaustive``: walk the whole bound and list every rule broken in it). The
levels of at least ``FORK_AT`` product states run in ``--workers`` processes.

Exit codes: 0 nothing broken (the design is not caught within the bound); 1 the design breaks a
rule (as a faulty design should) or the run is vacuous; 2 bad usage (unknown design or bound).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from mcp_resume.jobs.bounds import UsageError, resolve_bounds
from mcp_resume.jobs.exits import EXIT_USAGE
from mcp_resume.jobs.explore_report import ProgressLine, error_line, write_traces
from mcp_resume.jobs.exploring import check_design, explore_design, outputs_problem
from mcp_resume.model.explore.server import Stop
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import KILL_BOUND

COMMAND = "explore-design"


def run(args) -> int:
    """Run ``explore-design`` for parsed ``args``; return the exit code (module docstring)."""
    try:
        profile = Profile.parse(args.profile)
        check_design(args.design)
        bound_name, bounds = resolve_bounds(args, KILL_BOUND)
        problem = outputs_problem({"--json": args.json}, {"--traces": args.traces})
        if problem:
            raise UsageError(problem)
    except ValueError as error:
        return error_line(COMMAND, str(error), EXIT_USAGE)
    stop = Stop.FIRST if args.first else Stop.NEVER if args.exhaustive else Stop.LEVEL
    console = Console()
    code, result = explore_design(args.design, stop, profile, bound_name, bounds, console,
                                  None if args.quiet else ProgressLine(), args.workers, args.json)
    if args.traces:
        write_traces(Path(args.traces), result, console)
    return code
