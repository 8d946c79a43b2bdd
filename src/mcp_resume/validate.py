"""``mcp-resume validate FILE``: judge recorded traffic with a server against the spec.

FILE is a HAR 1.2 file (browser devtools, mitmproxy) or the JSON lines that
``mcp-resume proxy --record`` writes (``--format auto`` tells them apart). Each
exchange is mapped onto the spec's actions and judged by every rule's server
check (``model.traffic.trace_validation``); one row per rule is printed (rule, level,
verdict, the same traffic's verdict under the profile beside it, the first
exchange that broke it), and ``--json``, ``--junit`` and ``--markdown`` write the
same as files. A JSON-lines file is read line by line into compact records
(``model.traffic.compact``) and judged lean (``judge(..., lean=True)``), the profile
beside first and kept as verdicts only, the JSON report written piece by piece: the
memory grows with the number of exchanges and events, not with the file's bytes. Beside an MCP revision of the session era stands ``boundary``,
beside ``boundary`` the revision the traffic negotiated; the exit code follows
``--profile`` alone. What the log cannot show is left open:
a rule that only unjudged exchanges touched is INCONCLUSIVE, one that no
exchange touched is SKIP.

Exit codes: 0 no rule FAILed and none is INCONCLUSIVE; 1 some rule FAILed; 2 bad
usage, a file that cannot be read or holds no exchange (one line naming it); 3 no
FAIL but some rule INCONCLUSIVE.

The reports' shapes: ``jobs.traffic_report``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp_resume.jobs.exits import EXIT_USAGE
from mcp_resume.jobs.traffic_report import exit_code, judge_recording, outputs, print_report
from mcp_resume.model.traffic.records import RecordError
from mcp_resume.options import PROFILE_NAMES, handler, output_path
from mcp_resume.outputs import OutputError, write_output
from mcp_resume.spec.profiles import Profile


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume validate`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    validate = subparsers.add_parser(
        "validate",
        help=summary,
        description=(
            "Map each recorded exchange onto the spec's actions and judge it by every rule's server check. "
            "What the log cannot show is left open: a rule only unjudged exchanges touched is INCONCLUSIVE, "
            "one no exchange touched is SKIP. JSON lines of any length are read line by line, each exchange "
            "kept as what the judge reads of it: memory grows with the exchanges and events, not the bytes "
            "(a 235 MB recording of 107,000 events in under 150 MB). Exit codes: 0 holds, 1 some rule FAILed, "
            "2 bad usage, an unreadable file or one with no exchange, 3 no FAIL but some rule INCONCLUSIVE."
        ),
    )
    validate.set_defaults(handler=handler("validate", "run"))
    validate.add_argument("file", help="a HAR 1.2 file or a JSON-lines record file")
    validate.add_argument("--format", choices=["auto", "har", "jsonl"], default="auto", help="file format (default: %(default)s, by content)")
    validate.add_argument("--profile", choices=["auto", *PROFILE_NAMES], default="auto",
                       help="rule levels to apply; auto (the default) = the profile of the revision the traffic shows: "
                            "the one initialize negotiated, or 2026-07-28 for its request shape, exchange by exchange")
    validate.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the verdicts as JSON")
    validate.add_argument("--junit", type=output_path, default=None, metavar="FILE", help="write JUnit XML, one test case per rule")
    validate.add_argument("--markdown", type=output_path, default=None, metavar="FILE", help="write the report as Markdown")


def run(args) -> int:
    """The ``validate`` command; ``args`` has ``file``, ``format``, ``profile``, ``json``, ``junit``, ``markdown``."""
    profile = None if args.profile == "auto" else Profile.parse(args.profile)
    try:
        judged = judge_recording(Path(args.file), args.format, profile)
    except RecordError as error:
        print(f"mcp-resume validate: {error}", file=sys.stderr)
        return EXIT_USAGE
    result = judged.result
    print_report(result, f"validate {args.file}: {judged.exchanges} exchanges, profile {result.profile.value}", judged.beside)
    for path, text in outputs(args, result, judged.exchanges, judged.beside):
        try:
            write_output(Path(path), text)
        except OutputError as error:
            print(f"mcp-resume validate: {error}", file=sys.stderr)
            return EXIT_USAGE
    return exit_code(result)
