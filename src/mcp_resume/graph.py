"""``mcp-resume graph --out DIR``: draw the spec's explored state graph (``jobs.pictures``).

Every state of the spec within ``--bound`` (default ``graph``; a bound with too many states to
draw is refused before anything is written) as DOT, and SVG with Graphviz: ``explored.*`` an
overview, ``explored-<n>.*`` its parts with every arrow labelled (docs/state-graph/README.md says
how to read them). ``--design N`` draws design N's shortest counterexample in red (found within
the bound, else within the ``kill`` bound). Without Graphviz, only the DOT files, and a note.

Exit codes: 0 drawn; 1 drawn with a design's counterexample in red (the design breaks a rule,
as ``explore-design`` exits), or Graphviz failed; 2 bad usage (unknown bound or design, a bound
too big to draw, a folder that cannot be made).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from mcp_resume.jobs.bounds import UsageError, resolve_bounds
from mcp_resume.jobs.exits import EXIT_FAILED, EXIT_USAGE
from mcp_resume.jobs.explore_report import error_line
from mcp_resume.jobs.exploring import check_design, outputs_problem
from mcp_resume.jobs.pictures import draw, write_picture
from mcp_resume.options import SESSION_PROFILE_NAMES, add_bound, handler, output_path, whole_number
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.space import GRAPH_BOUND

COMMAND = "graph"


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume graph`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    graph = subparsers.add_parser(
        COMMAND,
        help=summary,
        description=(
            "Draw every state of the spec within a bound (DOT, and SVG with Graphviz): explored.* an overview, "
            "explored-N.* its parts with every arrow labelled (read them with docs/state-graph/README.md). A "
            "bound too big to draw is refused before anything is written."
        ),
        epilog="Exit codes: 0 drawn, 1 drawn with a design's counterexample in red (or Graphviz failed), 2 usage error.",
    )
    graph.set_defaults(handler=handler("graph", "run"))
    graph.add_argument("--out", type=output_path, required=True, metavar="DIR", help="output folder")
    add_bound(graph, "graph")
    graph.add_argument("--profile", choices=SESSION_PROFILE_NAMES, default=DEFAULT_PROFILE.value, help="profile (default: %(default)s)")
    graph.add_argument("--design", type=whole_number, default=None, metavar="N",
                       help="draw faulty design N's shortest counterexample in red (found within the bound, else the kill bound)")


def run(args) -> int:
    """Run ``graph`` for parsed ``args``; return the exit code (module docstring)."""
    try:
        profile = Profile.parse(args.profile)
        if args.design is not None:
            check_design(args.design)
        bounds = resolve_bounds(args, GRAPH_BOUND)[1]
        problem = outputs_problem({}, {"--out": args.out})
        if problem:
            raise UsageError(problem)
        drawn = draw(bounds, profile, args.design)
    except ValueError as error:
        return error_line(COMMAND, str(error), EXIT_USAGE)
    summary = f"{len(drawn.data.states)} states, {len(drawn.data.edges)} edges -> "
    code = write_picture(Path(args.out), drawn, Console(), summary)
    return max(code, EXIT_FAILED if drawn.trace is not None else code)
