"""``mcp-resume kill-matrix``: every faulty design, and every correct variation, against every
checker (Hypothesis, the explorer, Z3 bounded model checking, ``verify`` over HTTP) under
``boundary`` and ``mcp-2025-11-25`` (``jobs.kill_matrix_run``): a faulty design must be caught, a
variation must pass. ``--bound`` (default ``kill``) is the explorer column's; ``--markdown FILE``
writes the matrix as a Markdown table too. Minutes, not seconds.

Exit codes: 0 every cell shows what it must; 1 some cell does not; 2 bad usage.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from mcp_resume.jobs.bounds import UsageError, resolve_bounds
from mcp_resume.jobs.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from mcp_resume.jobs.explore_report import ProgressLine, error_line, write_json
from mcp_resume.jobs.exploring import outputs_problem
from mcp_resume.jobs.kill_matrix_run import fill_kill_matrix, print_kill_matrix
from mcp_resume.options import add_bound, handler, output_path, positive_int, worker_count
from mcp_resume.outputs import write_output
from mcp_resume.spec.space import KILL_BOUND

COMMAND = "kill-matrix"


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume kill-matrix`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    matrix = subparsers.add_parser(
        COMMAND,
        help=summary,
        description=(
            "Run every faulty design, and every correct variation, against every checker (Hypothesis, the "
            "explorer, Z3 bounded model checking, verify over HTTP) under boundary and mcp-2025-11-25: a "
            "faulty design must be caught, a variation must pass. Minutes, not seconds."
        ),
        epilog="Exit codes: 0 every cell shows what it must, 1 some cell does not, 2 usage error.",
    )
    matrix.set_defaults(handler=handler("kill_matrix", "run"))
    add_bound(matrix, "kill; the explorer column's")
    matrix.add_argument("--examples", type=positive_int, default=None, metavar="N", help="Hypothesis examples per run, at least 1")
    matrix.add_argument("--workers", type=worker_count, default=None, metavar="N", help="processes for the cells (default: cores, at most 4)")
    matrix.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the matrix as JSON")
    matrix.add_argument("--markdown", type=output_path, default=None, metavar="FILE", help="write the matrix as Markdown")
    matrix.add_argument("--quiet", action="store_true", help="no progress line")


def run(args) -> int:
    """Run ``kill-matrix`` for parsed ``args``; return the exit code (module docstring)."""
    try:
        bounds = resolve_bounds(args, KILL_BOUND)[1]
        problem = outputs_problem({"--json": args.json, "--markdown": args.markdown}, {})
        if problem:
            raise UsageError(problem)
    except ValueError as error:
        return error_line(COMMAND, str(error), EXIT_USAGE)
    progress = None if args.quiet else ProgressLine()
    matrix = fill_kill_matrix(args.examples, bounds, progress.note if progress else None, args.workers)
    if progress:
        progress.done()
    print_kill_matrix(matrix, Console())
    write_json(args.json, matrix.to_json())
    if args.markdown:
        write_output(Path(args.markdown), matrix.to_markdown())
    return EXIT_OK if matrix.holds else EXIT_FAILED
