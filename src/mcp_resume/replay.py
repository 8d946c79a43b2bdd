"""``mcp-resume replay TRACE TARGET``: run a saved finding again.

TRACE is either

- a verify trace (``mcp-resume-verify-trace/1``, written by ``mcp-resume verify``
  for every FAIL and WARN): the rule's scenario runs again against TARGET, an
  ``http://`` URL or an embedded target; TARGET ``spec`` runs it against the
  reference server behind the HTTP façade, to show the answers the spec expects;
- a spec trace (``mcp-resume-trace/1``, a counterexample of ``mcp-resume check``):
  its actions are replayed side by side with the spec against the in-process
  server TARGET (``spec``, ``reference``, ``design-<n>``) or, over HTTP, against
  a URL or an embedded target: its client actions are sent (the fixture tools play
  the server's) and what came back is judged by the spec as ``verify`` judges
  (``model.verify.playback``); a lasso of ``liveness``
  (``meta.lasso``) against an in-process server replays its prefix, then its
  cycle as often as the trace repeats it (twice as written), following the
  server, says which requests are stranded after each part and whether the
  lasso reproduces (its request stranded after the prefix and every round):
  exit 1 then, where ``reemit-pending`` is a MUST (``boundary``), else 0.

A verify trace records the tools ``verify --tool ROLE=NAME[:ARGUMENTS_JSON]`` gave for a
role (its ``tools``); the replay calls them again, and ``replay --tool`` (same syntax)
replaces the recorded tools of its role.

Prints what was expected and observed; exits 0 when the rule holds (a verify trace:
PASS), 1 when it does not (a verify trace: FAIL, or WARN: the finding reproduces,
its SHOULD or MAY still broken), 2 on a bad TRACE or TARGET (or ``--tool``), 3 when the target cannot be reached or
when nothing was judged: a verify trace whose rule came out SKIP or INCONCLUSIVE
(the target lacks what the scenario needs, e.g. a fixture tool, docs/fixtures.md)
or a spec trace of which no step could be judged. A replay after a fix must
not pass on what it never checked.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp_resume.jobs.exits import EXIT_UNCHECKED as EXIT_UNREACHABLE, EXIT_USAGE
from mcp_resume.jobs.replaying import replay_spec_trace, replay_verify_trace
from mcp_resume.jobs.request_headers import request_headers
from mcp_resume.model.http.client import Timeouts
from mcp_resume.model.targets.embedded import ToolMissing
from mcp_resume.model.targets.process import TargetStartError
from mcp_resume.model.verify.formats import VERIFY_TRACE_FORMAT
from mcp_resume.model.verify.probe import TargetError
from mcp_resume.model.verify.roles import ToolRoleError, parse_tool_option
from mcp_resume.options import SESSION_PROFILE_NAMES, handler
from mcp_resume.spec.trace import NESTED_TOO_DEEPLY, TRACE_FORMAT, trace_from_json


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume replay`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    replay = subparsers.add_parser(
        "replay",
        help=summary,
        description=(
            "Run a trace again: a verify trace (written by 'verify' for every FAIL and WARN) re-runs its "
            "rule's scenario against TARGET, an http:// URL or an embedded target; TARGET 'spec' shows "
            "what the spec expects. A spec trace (a counterexample of 'check') is replayed side by side "
            "with the spec against spec, reference, design-N, or a server over HTTP."
        ),
        epilog=("Exit codes: 0 the rule holds (a verify trace: PASS), 1 it does not (a verify trace: FAIL, or WARN: "
                "the finding reproduces), 2 bad trace or target, 3 target unreachable or "
                "nothing judged (the rule SKIP or INCONCLUSIVE there, e.g. a missing fixture tool: docs/fixtures.md)."),
    )
    replay.set_defaults(handler=handler("replay", "run_replay"))
    replay.add_argument("trace", type=Path, help="a *.trace.json file")
    replay.add_argument("target", help="spec, reference, design-N, an embedded target or an http:// or https:// URL")
    replay.add_argument("--profile", choices=SESSION_PROFILE_NAMES, default=None, help="profile (default: the trace's)")
    replay.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for any one response or event (default: %(default)s)")
    replay.add_argument(
        "--tool", action="append", default=[], metavar="ROLE=NAME[:ARGUMENTS_JSON]",
        help="a verify trace: call your own tool NAME for ROLE, as 'verify --tool' does; replaces the tools the "
             "trace recorded for that ROLE (default: the trace's); repeatable; docs/fixtures.md",
    )
    replay.add_argument(
        "--header", action="append", default=None, metavar="NAME:VALUE",
        help="send this header with every request over HTTP, as 'verify --header' does (a verify trace, or a "
             "spec trace against a URL; a trace keeps header names, never values); repeatable; also read from "
             "MCP_RESUME_HEADERS",
    )


def run_replay(args) -> int:
    """The command: read TRACE, replay it against TARGET by its format; the exit code (module docstring)."""
    try:
        data = json.loads(Path(args.trace).read_text(encoding="utf-8"))
    except OSError as error:
        return _error(f"cannot read {args.trace}: {error.strerror or error}", EXIT_USAGE)
    except ValueError as error:
        return _error(f"{args.trace} is not JSON: {error}", EXIT_USAGE)
    except RecursionError:
        return _error(f"{args.trace}: {NESTED_TOO_DEEPLY}", EXIT_USAGE)
    kind = data.get("format") if isinstance(data, dict) else None
    try:
        bounds = Timeouts.from_timeout(args.timeout)
        if kind == VERIFY_TRACE_FORMAT:
            given = [parse_tool_option(text) for text in getattr(args, "tool", None) or []]
            headers = request_headers(getattr(args, "header", None))
            return replay_verify_trace(data, args.target, args.profile, bounds, given, headers)
        if kind == TRACE_FORMAT:
            headers = request_headers(getattr(args, "header", None))
            return replay_spec_trace(trace_from_json(data), args.target, args.profile, bounds, headers)
    except ValueError as error:
        return _error(str(error), EXIT_USAGE)
    except (ToolMissing, ToolRoleError) as error:
        return _error(str(error), EXIT_USAGE)
    except (TargetError, TargetStartError) as error:
        return _error(str(error), EXIT_UNREACHABLE)
    return _error(f"{args.trace}: unknown trace format {kind!r}; expected {VERIFY_TRACE_FORMAT} or {TRACE_FORMAT}", EXIT_USAGE)


def _error(message: str, code: int) -> int:
    print(f"mcp-resume replay: error: {message}", file=sys.stderr)
    return code
