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
from mcp_resume.options import SESSION_PROFILE_NAMES, add_bound, handler, named_bounds, output_path, whole_number, worker_count
from mcp_resume.spec import designs
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.space import KILL_BOUND

COMMAND = "explore-design"


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume explore-design`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    design = subparsers.add_parser(
        COMMAND,
        help=summary,
        description=(
            "Explore faulty design N beside the spec, breadth-first (each level likeliest first), checking "
            "every invariant on every step, until every rule the design breaks (docs/design.md §5) has its "
            "shortest counterexample, at the latest at the end of the first level with a counterexample; "
            "print the shortest trace of each rule broken and the count of states it needed. Named bounds: "
            + named_bounds() + "."
        ),
        epilog="Exit codes: 0 nothing broken within the bound, 1 a rule broken (as a faulty design should) or a "
        "vacuous run, 2 usage error.",
    )
    design.set_defaults(handler=handler("explore_design", "run"))
    design.add_argument("design", type=whole_number, metavar="N", help=f"the faulty design ({designs.numbers_text()}, spec/designs.py)")
    add_bound(design, "kill, widened for a design whose counterexample lies beyond it")
    design.add_argument("--profile", choices=SESSION_PROFILE_NAMES, default=DEFAULT_PROFILE.value, help="profile (default: %(default)s)")
    walk = design.add_mutually_exclusive_group()
    walk.add_argument("--first", action="store_true", help="stop at the first (shortest) counterexample")
    walk.add_argument("--exhaustive", action="store_true", help="walk the whole bound and list every rule broken in it")
    design.add_argument("--workers", type=worker_count, default=None, metavar="N", help="processes for the big levels (default: cores, at most 4)")
    design.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the result as JSON")
    design.add_argument("--traces", type=output_path, default=None, metavar="DIR", help="write the shortest trace of each broken rule as JSON")
    design.add_argument("--quiet", action="store_true", help="no progress line")


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
