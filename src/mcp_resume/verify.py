"""``mcp-resume verify TARGET``: hold a real server to the spec over Streamable HTTP.

TARGET is the ``http://`` URL of a running server's MCP endpoint or the name of
an embedded target started here on 127.0.0.1 and stopped afterwards
(``model.targets.embedded``: ``python-sdk``, ``typescript-sdk``, ``reference``,
``design-<n>`` ...). Prints one row per catalog rule (rule, level, verdict,
one-line evidence) and optionally writes the report as JSON (``--json``),
JUnit XML (``--junit``, one test case per rule) and Markdown (``--markdown``).
For every FAIL and WARN it writes a verify trace (``mcp-resume replay TRACE
TARGET`` runs it again) and a curl script that sends the same requests, into
``mcp-resume-findings/<target>.<profile>/`` beside the first report (or in the
working folder), or into ``--out``, and says where. A later run against the same
TARGET and ``--profile`` replaces them (a passing run leaves none); runs against
other targets or profiles keep theirs in their own folders; a run that reached no
server leaves them as they were.

``--profile auto`` (the default) applies the MCP profile of the revision the
server negotiates; ``--profile boundary`` is the stricter one. ``--stream-ttl S``
and ``--session-ttl S`` tell verify the server's expiry times, in seconds, so it
waits for them and checks ``expiry-independent``. ``--tool ROLE=NAME[:ARGUMENTS_JSON]``
(repeatable; roles ``notifications``, ``server-request``, ``long-running``) names a
server's own tool to call wherever verify would call a fixture tool of that role
(docs/fixtures.md defines the fixture tools). ``--sdk NAME`` (``python-sdk``,
``typescript-sdk``, ``fastmcp-python``, ``fastmcp-typescript``, ``tmcp``, ``mcp-lite``)
names the SDK the server is built with, whose remedies the fixes of FAIL and WARN give;
by default the SDK ``serverInfo``'s name mentions, and when it mentions none and a
finding has an SDK's remedy the summary says so. The summary ends with what would let
verify judge each rule it could not (a fixture tool, a GET stream, a TTL) and which
tool drove which rules. Exit codes:

- 0 when no rule got FAIL or INCONCLUSIVE and ``--require``/``--fail-on`` are met
  (``jobs.gate``), 1 when some rule got FAIL, or a required rule FAIL or WARN, or a
  WARN under ``--fail-on warn``;
- 2 for bad usage (TARGET, ``--timeout``, a report path, a ``--tool`` with an unknown
  role, arguments that are not a JSON object, a tool the server does not list, or an
  unknown ``--sdk``) or a missing program (node);
- 3 when the target cannot be checked (down, silent, not an MCP server, or the
  embedded target did not start), or when no rule failed but some could not be
  driven (INCONCLUSIVE), or a required rule (or any under ``--fail-on skip``) was
  SKIPped: a CI gate must not pass on what was never checked;
- 130 when interrupted (Ctrl-C): the verdicts made so far are printed and
  written, the rest are INCONCLUSIVE, and the reports say partial (JSON ``partial``
  and ``stopped``, a Markdown line, a JUnit ``partial`` property).

The reports' shapes: ``jobs.verifying``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp_resume.jobs.request_headers import request_headers
from mcp_resume.jobs.gate import Gate, check_required, outcome, parse_fail_on, parse_required, unmet
from mcp_resume.jobs.exits import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNCHECKED as EXIT_UNREACHABLE, EXIT_USAGE
from mcp_resume.jobs.targets import UsageError, parse_target
from mcp_resume.jobs.verifying import (findings_folder, parse_sdk, partial_report, print_report, progress_printer, run_suite,
                                       write_outputs)
from mcp_resume.model.http.client import Timeouts
from mcp_resume.model.targets.embedded import ToolMissing, embedded_help, is_embedded
from mcp_resume.model.targets.process import TargetStartError
from mcp_resume.model.verify.probe import TargetError
from mcp_resume.model.verify.report import unreachable_report
from mcp_resume.model.verify.roles import ToolRoleError, parse_tool_option
from mcp_resume.model.verify.suite import CONCURRENCY
from mcp_resume.options import PROFILE_NAMES, handler, output_path
from mcp_resume.outputs import OutputError, output_file_problem, prepare_output_folder, wide_console, write_problem
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

MAX_TIMEOUT = 600.0
"""Seconds: the longest wait ``--timeout`` may set for one response or event."""


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume verify`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    verify = subparsers.add_parser(
        "verify",
        help=summary,
        description=(
            "Drive a Streamable HTTP server through the reconnect scenarios and print a verdict "
            "(PASS/FAIL/WARN/SKIP/INCONCLUSIVE) per rule id with its evidence. TARGET is the http:// "
            "URL of a running server's MCP endpoint, or an embedded target started here on 127.0.0.1: "
            f"{embedded_help()}. "
            "The rules about pending server requests and stream history need tools that make them: the "
            "fixture tools of docs/fixtures.md (mcp_resume.fixtures.add_fixture_tools(server) adds them to a "
            "server of the official Python SDK), or your own tools named with --tool ROLE=NAME."
        ),
        epilog=(
            "For every FAIL and WARN a verify trace (for 'mcp-resume replay') and a curl script are "
            "written into mcp-resume-findings/TARGET.PROFILE (or --out), and the run says where. Exit codes: 0 no FAIL "
            "(and --require, --fail-on met), 1 some FAIL (or a required rule FAIL or WARN), 2 usage "
            "error or missing tool, 3 target unreachable or some verdict INCONCLUSIVE (or a required rule SKIPped) "
            "and none FAIL, "
            "130 interrupted (the reports written are marked partial)."
        ),
    )
    verify.set_defaults(handler=handler("verify", "run_verify"))
    verify.add_argument("target", help="an http:// URL such as http://127.0.0.1:8000/mcp, or an embedded target name")
    verify.add_argument(
        "--profile",
        choices=["auto"] + PROFILE_NAMES,
        default="auto",
        help="rule levels to apply; auto = the MCP profile of the revision the server negotiates, "
        "boundary = the stricter reconnect decision (default: %(default)s)",
    )
    verify.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the verdicts as JSON")
    verify.add_argument("--junit", type=output_path, default=None, metavar="FILE", help="write JUnit XML, one test case per rule")
    verify.add_argument("--markdown", type=output_path, default=None, metavar="FILE", help="write the report as Markdown")
    verify.add_argument("--out", type=output_path, default=None, metavar="DIR",
                        help="folder for the reproducers of each finding (default: mcp-resume-findings/TARGET.PROFILE "
                             "beside the report file (--json, else --junit, else --markdown), or in the working folder: each target and profile "
                             "keeps its own). A later run into the same folder replaces the reproducers there, "
                             "and says so when they were another target's or profile's")
    verify.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for any one response or event (default: %(default)s)")
    verify.add_argument("--max-seconds", type=float, default=600.0,
                        help="bound on the whole run in seconds, from the first request to the server (starting an "
                             "embedded target is not counted): the run ends within it, plus the time to write the "
                             "report, and the rules not judged by then are INCONCLUSIVE (default: %(default)s)")
    verify.add_argument("--concurrency", type=int, default=CONCURRENCY, metavar="N",
                        help="scenarios run at once, each in sessions of its own (default: %(default)s; 1: one after "
                             "another, in catalog order). Verdicts are those of one at a time: when the traffic shows "
                             "the server delivering messages across sessions, every scenario runs again one at a "
                             "time; a scenario whose traffic shows strain (a refused, slow or broken connection, "
                             "HTTP 429/5xx, a session it opened answered 404) runs again alone; the report's note "
                             "says which")
    verify.add_argument("--stream-ttl", type=float, default=None, metavar="S", help="seconds after which the server expires an ended stream: verify waits that long and checks expiry-independent")
    verify.add_argument("--session-ttl", type=float, default=None, metavar="S", help="seconds after which the server ends an idle session: verify waits that long and checks expiry-independent")
    verify.add_argument(
        "--tool", action="append", default=[], metavar="ROLE=NAME[:ARGUMENTS_JSON]",
        help="call your own tool NAME (with the JSON object ARGUMENTS_JSON) wherever verify would call a fixture "
             "tool of ROLE: server-request (it sends an elicitation, sampling or roots request), notifications (it "
             "sends notifications before its answer), long-running (it runs for a while); repeatable; "
             "docs/fixtures.md defines the fixture tools",
    )
    verify.add_argument(
        "--sdk", default=None, metavar="NAME",
        help="the SDK the server is built with, whose remedies the fixes of FAIL and WARN give (python-sdk, "
             "typescript-sdk, fastmcp-python, fastmcp-typescript, tmcp, mcp-lite; default: the one serverInfo's "
             "name mentions)",
    )
    verify.add_argument(
        "--header", action="append", default=None, metavar="NAME:VALUE",
        help="send this header with every request (e.g. 'Authorization: Bearer ...' for a server behind auth); "
             "repeatable; also read from MCP_RESUME_HEADERS (one NAME: VALUE per line), which keeps a CI secret "
             "out of the command line. Values are never printed nor written: reports and reproducers name "
             "the header only")
    verify.add_argument(
        "--require", action="append", default=None, metavar="RULE[,RULE]",
        help="rules that must PASS, for a CI gate: one SKIPped or INCONCLUSIVE exits 3, one that FAILs or WARNs "
             "exits 1 (e.g. --require replay-suffix,no-cross-session for a server that must resume; a rule the "
             "named --profile does not apply is a usage error); repeatable")
    verify.add_argument(
        "--fail-on", action="append", default=None, metavar="VERDICT",
        help="also fail the run on these verdicts: warn (exit 1), skip (a rule that applies under the profile "
             "but was not checked: exit 3); repeatable or comma-separated")
    verify.add_argument("--progress", action="store_true", help="print each verdict to stderr as it is made, 'rule n of N: RULE: VERDICT' (the default, kept for old scripts)")
    verify.add_argument("--quiet", action="store_true", help="no progress lines on stderr: the report, the gate's "
                                                           "lines and errors only")


def run_verify(args) -> int:
    """Run ``verify`` for parsed ``args``; returns the exit code."""
    try:
        profile = None if args.profile == "auto" else Profile.parse(args.profile)
        if MAX_TIMEOUT < args.timeout < float("inf"):
            raise UsageError(f"--timeout must be at most {MAX_TIMEOUT:g} seconds, got {args.timeout:g}")
        bounds = Timeouts.from_timeout(args.timeout)
        run_seconds = _positive(getattr(args, "max_seconds", 600.0), "--max-seconds")
        concurrency = getattr(args, "concurrency", CONCURRENCY)
        if concurrency < 1:
            raise UsageError(f"--concurrency must be at least 1, got {concurrency}")
        ttls = {
            name: None if getattr(args, name, None) is None else _positive(getattr(args, name), "--" + name.replace("_", "-"))
            for name in ("stream_ttl", "session_ttl")
        }
        outputs = {kind: _check_path(getattr(args, kind, None), kind) for kind in ("json", "junit", "markdown")}
        if getattr(args, "out", None) is not None and (problem := prepare_output_folder(Path(args.out))):
            raise UsageError(f"--out {problem}")
        asked = getattr(args, "profile", "auto")
        folder = findings_folder(outputs, getattr(args, "out", None), args.target, asked)
        url = None if is_embedded(args.target) else parse_target(args.target)
        tools = [parse_tool_option(text) for text in getattr(args, "tool", None) or []]
        sdk = parse_sdk(getattr(args, "sdk", None))
        gate = Gate(parse_required(getattr(args, "require", None)), parse_fail_on(getattr(args, "fail_on", None)))
        check_required(gate.required, profile)
        headers = request_headers(getattr(args, "header", None))
    except (UsageError, ValueError) as error:
        return _error(str(error), EXIT_USAGE)
    console = wide_console()
    progress = None if getattr(args, "quiet", False) else progress_printer(getattr(args, "progress", False))
    stopped = None
    try:
        run = run_suite(args.target, url, profile, bounds, run_seconds, progress, ttls, tools, sdk, headers,
                        concurrency)
        report = run.report()
    except KeyboardInterrupt:
        stopped = "interrupted (Ctrl-C) before this rule was judged"
        report = partial_report(stopped)
        if report is None:
            return _error("interrupted before the target answered", EXIT_INTERRUPTED)
    except (ToolMissing, ToolRoleError) as error:
        return _error(str(error), EXIT_USAGE)
    except (TargetError, TargetStartError) as error:
        report = unreachable_report(args.target, url, profile, str(error))
        try:
            write_outputs(report, outputs, folder, console, asked=asked)
        except OSError as failure:
            return _error(f"cannot write a report to {failure.filename or 'its file'}: {failure.strerror or failure}",
                          EXIT_USAGE)
        return _error(str(error), EXIT_UNREACHABLE)
    print_report(report, console)
    demanded = unmet(report, gate)
    report.gate = outcome(gate, demanded)
    try:
        write_outputs(report, outputs, folder, console, asked=asked)
    except OutputError as error:
        return _error(str(error), EXIT_USAGE)
    except OSError as error:
        return _error(write_problem(error), EXIT_USAGE)
    if stopped:
        return _error("interrupted: the verdicts above are partial", EXIT_INTERRUPTED)
    for item in demanded:
        print(f"mcp-resume verify: {item.line}", file=sys.stderr)
    if report.failed or any(item.broken for item in demanded):
        return EXIT_FAILED
    inconclusive = [v.rule for v in report.verdicts if v.verdict is Verdict.INCONCLUSIVE]
    if inconclusive:
        return _error(f"{len(inconclusive)} rule(s) could not be checked: {', '.join(inconclusive)}", EXIT_UNREACHABLE)
    if demanded:
        return _error(f"{len(demanded)} demand(s) of --require/--fail-on not met: see above", EXIT_UNREACHABLE)
    return EXIT_OK


def _positive(value: float, name: str) -> float:
    if not (isinstance(value, (int, float)) and value == value and 0 < value < float("inf")):
        raise UsageError(f"{name} must be a positive number of seconds, got {value!r}")
    return float(value)


def _check_path(path: Path | None, kind: str) -> Path | None:
    problem = output_file_problem(path) if path is not None else None
    if problem:
        raise UsageError(f"--{kind} {problem}")
    return path


def _error(message: str, code: int) -> int:
    print(f"mcp-resume verify: error: {message}", file=sys.stderr)
    return code
