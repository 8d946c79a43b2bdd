"""``mcp-resume liveness [N]``: the liveness rule ``no-stranded-request`` on the explored graph,
with weak fairness on the client's reconnect (``jobs.lassos``): the spec within ``tiny``, or
faulty design N within the ``liveness`` bound (1 session, 2 streams, 2 events, 2 server
requests, depth 8); numbers given build on that bound. A lasso counterexample is printed, saved
with ``--traces DIR`` (``no-stranded-request.lasso.trace.json``, for ``replay``) and drawn with
``--graph DIR``. The graph is kept whole and unreduced, so the walk stops at ``--max-states``
(default 500,000).

Exit codes: 0 no request can stay stranded (or, for the spec, the profile allows it: under an MCP
revision ``reemit-pending`` is no MUST); 1 a lasso, or a vacuous graph (no request is ever
stranded); 2 bad usage (unknown design or bound, a design under another profile than
``boundary``); 3 the walk stopped at ``--max-states`` with no lasso so far.
"""

from __future__ import annotations

from rich.console import Console

from mcp_resume.jobs.bounds import UsageError, resolve_bounds
from mcp_resume.jobs.exits import EXIT_USAGE
from mcp_resume.jobs.explore_report import ProgressLine, error_line
from mcp_resume.jobs.exploring import check_design, outputs_problem
from mcp_resume.jobs.lassos import check_liveness, check_profile, default_bound
from mcp_resume.options import SESSION_PROFILE_NAMES, add_bound, handler, output_path, positive_int, whole_number
from mcp_resume.spec import designs
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile

COMMAND = "liveness"


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume liveness`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    liveness = subparsers.add_parser(
        COMMAND,
        help=summary,
        description=(
            "Check the liveness rule no-stranded-request on the explored graph of the spec, or of faulty design "
            "N, with weak fairness on the client's reconnect, and print a lasso counterexample (a failure where "
            "reemit-pending is a MUST: boundary). The graph is kept whole and unreduced in memory: --max-states "
            "caps it (default 500,000); a lasso found by then is real. A design is judged under boundary only."
        ),
        epilog="Exit codes: 0 holds (or the profile allows the lasso), 1 a lasso or a vacuous graph, 2 usage error, "
        "3 stopped at --max-states with no lasso so far.",
    )
    liveness.set_defaults(handler=handler("liveness", "run"))
    liveness.add_argument("design", type=whole_number, nargs="?", default=None, metavar="N",
                          help=f"a faulty design ({designs.numbers_text()}) instead of the spec")
    add_bound(liveness, "tiny for the spec; beside a design, liveness = 1 session, 2 streams, 2 events, "
                         "2 server requests, depth 8; numbers given build on it")
    liveness.add_argument("--profile", choices=SESSION_PROFILE_NAMES, default=None, help=f"profile (default: {DEFAULT_PROFILE.value})")
    liveness.add_argument("--max-states", type=positive_int, default=None, metavar="N", help="stop once more than N states are held (default: 500,000), marked incomplete (exit 3)")
    liveness.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the result as JSON")
    liveness.add_argument("--traces", type=output_path, default=None, metavar="DIR", help="write the lasso as JSON, for replay")
    liveness.add_argument("--graph", type=output_path, default=None, metavar="DIR", help="draw the graph bound's states with the lasso's cycle in red (DOT, SVG)")
    liveness.add_argument("--quiet", action="store_true", help="no progress line")


def run(args) -> int:
    """Run ``liveness`` for parsed ``args``; return the exit code (module docstring)."""
    try:
        profile = Profile.parse(args.profile or DEFAULT_PROFILE.value)
        if args.design is not None:
            check_design(args.design)
        check_profile(args.design, profile, args.profile is not None)
        name, bounds = resolve_bounds(args, default_bound(args.design), liveness=True)
        problem = outputs_problem({"--json": args.json}, {"--traces": args.traces, "--graph": args.graph},
                                  shared=frozenset({"--traces", "--graph"}))
        if problem:
            raise UsageError(problem)
    except ValueError as error:
        return error_line(COMMAND, str(error), EXIT_USAGE)
    return check_liveness(args.design, profile, name, bounds, Console(), None if args.quiet else ProgressLine(),
                          args.max_states, args.json, args.traces, args.graph)
