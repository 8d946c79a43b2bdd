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
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile

COMMAND = "liveness"


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
