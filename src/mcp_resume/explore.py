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
from mcp_resume.options import Moved, SESSION_PROFILE_NAMES, add_bound, handler, named_bounds, output_path, positive_int, worker_count
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.space import DEFAULT_BOUND

COMMAND = "explore"


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume explore`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    explore = subparsers.add_parser(
        COMMAND,
        help=summary,
        description=(
            "Explore the spec's state space breadth-first within bounds, as TLC does, checking every "
            "invariant in every state and on every transition; report distinct states, transitions, "
            "the count of each action and decision branch, and the shortest trace of every rule "
            "broken; a named bound is compared with the state-space manifest. Named bounds: " + named_bounds() + ". "
            "A faulty design beside the spec: explore-design N; the liveness rule: liveness; every design "
            "against every checker: kill-matrix; the picture: graph."
        ),
        epilog="Exit codes: 0 all holds, 1 a rule broken / vacuous run / counts differ from the manifest, "
        "2 usage error (a run estimated above --budget), 3 stopped at --max-states or --max-memory "
        "before exploring everything (marked incomplete).",
    )
    explore.set_defaults(handler=handler("explore", "run_explore"))
    add_bound(explore, "default")
    explore.add_argument("--profile", choices=SESSION_PROFILE_NAMES, default=DEFAULT_PROFILE.value, help="profile (default: %(default)s)")
    engine = explore.add_mutually_exclusive_group()
    engine.add_argument("--workers", type=worker_count, default=None, metavar="N", help="processes for the fast explorer, over session forms (default: cores, at most 4)")
    engine.add_argument("--reference", action="store_true", help="the reference explorer instead: over whole states, symmetry reduced, one process")
    engine.add_argument("--no-symmetry", action="store_true", help="the reference explorer without symmetry reduction")
    explore.add_argument("--budget", type=positive_int, default=None, metavar="N", help="refuse a run estimated above N states (default: 4,000,000 fast, 150,000 reference; none with --max-states or --max-memory)")
    explore.add_argument("--max-states", type=positive_int, default=None, metavar="N", help="stop once more than N states are held (the successors of the state that passes N are kept: a few more), marked incomplete (exit 3)")
    explore.add_argument("--max-memory", type=positive_int, default=None, metavar="MB", help="stop at MB of resident memory, marked incomplete (exit 3)")
    explore.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the result as JSON")
    explore.add_argument("--traces", type=output_path, default=None, metavar="DIR", help="write the shortest trace of each broken rule as JSON")
    explore.add_argument("--quiet", action="store_true", help="no progress line")
    for option, instead in (("--design", "mcp-resume explore-design N"), ("--first", "mcp-resume explore-design N --first"),
                            ("--exhaustive", "mcp-resume explore-design N --exhaustive"), ("--liveness", "mcp-resume liveness [N]"),
                            ("--kill-matrix", "mcp-resume kill-matrix"), ("--examples", "mcp-resume kill-matrix --examples N"),
                            ("--markdown", "mcp-resume kill-matrix --markdown FILE"), ("--graph", "mcp-resume graph --out DIR"),
                            ("--engine", "mcp-resume explore --reference (or --no-symmetry)")):
        explore.add_argument(option, action=Moved, instead=instead, nargs="?")


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
