"""``mcp-resume compat --out FILE``: the compatibility page of the official MCP SDKs and third-party
frameworks (``jobs.compatibility`` says what is verified and written).

A listed verdict without a note, and a note of a rule the framework PASSes (stale), are warned
about on stderr. Exit 0 when the page was written (whatever the verdicts), 2 for a missing tool
or a bad path, 3 when a target did not start.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp_resume.jobs.compatibility import TARGETS, audit_notes, page, verify_targets
from mcp_resume.jobs.exits import EXIT_OK, EXIT_UNCHECKED as EXIT_UNREACHABLE, EXIT_USAGE
from mcp_resume.model.http.client import Timeouts
from mcp_resume.model.targets.embedded import ToolMissing
from mcp_resume.model.targets.process import TargetStartError
from mcp_resume.model.verify.probe import TargetError
from mcp_resume.options import handler, output_path


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume compat`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    compat = subparsers.add_parser(
        "compat",
        help=summary,
        description=(
            "Start python-sdk 1.x and 2.x (each in its own cached virtualenv), typescript-sdk (from npm, "
            "cached) and the pinned third-party frameworks (fastmcp-python, fastmcp-typescript, tmcp, mcp-lite, "
            "each in its own cache folder), verify each under boundary and under its negotiated MCP profile, "
            "time each run, write one Markdown page."
        ),
    )
    compat.set_defaults(handler=handler("compat", "run_compat"))
    compat.add_argument("--out", type=output_path, default=Path("docs/compatibility.md"), help="page to write (default: %(default)s)")
    compat.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for any one response or event (default: %(default)s)")
    compat.add_argument("targets", nargs="*", help="embedded targets (default: the newest python-sdk 1.x and 2.x, typescript-sdk, the frameworks)")


def run_compat(args) -> int:
    """The command: verify every target asked for (default ``TARGETS``), write the page to ``--out``."""
    out = Path(args.out)
    if not out.parent.is_dir():
        return _error(f"--out {out}: folder {out.parent} does not exist", EXIT_USAGE)
    try:
        results = verify_targets(args.targets or list(TARGETS), Timeouts.from_timeout(args.timeout))
    except ToolMissing as error:
        return _error(str(error), EXIT_USAGE)
    except (TargetError, TargetStartError) as error:
        return _error(str(error), EXIT_UNREACHABLE)
    out.write_text(page(results), encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    for problem in audit_notes(results):
        print(f"mcp-resume compat: warning: {problem}", file=sys.stderr)
    return EXIT_OK


def _error(message: str, code: int) -> int:
    print(f"mcp-resume compat: error: {message}", file=sys.stderr)
    return code
