"""``mcp-resume proxy --upstream URL``: a checking reverse proxy between a real MCP
client and its server.

It forwards every request to URL's origin and streams every answer back as it
comes (``model.traffic.recording_proxy``), records the exchanges (``--record FILE``, JSON
lines that ``mcp-resume validate`` reads) and checks them as they happen
(``model.oracle.live``, ``jobs.proxying``): a finding is printed the moment it is seen (a GET's replay
and a DELETE's end of streams once their one-second window has passed), with the
rule and the exchanges, marked provisional. Ctrl-C or SIGTERM stops it; it then
judges every record once more (the final report, the one that counts), prints the
verdicts, writes the reproducers of that report's FAIL and WARN findings only
(``<rule>.curl.sh``: the recorded requests up to it, for curl; ``<rule>.trace.json``
for ``replay``) in ``--out``, says which live findings it revised, and writes
``--json`` (the ``validate`` report). Printed lines shorten ids longer than 64
characters (``outputs.short_ids``); the JSON keeps them whole. It binds
127.0.0.1 unless ``--listen`` names another address, and says where it listens.

At start, before it listens, it refuses an ``--out`` it cannot write into (a file,
exit 2) and asks the upstream one bounded ``initialize``
(``model.traffic.upstream``): an upstream that answers but not as an MCP server
(501 Not Implemented, 405 to the POST, a page, a redirect) ends the proxy with exit
3; one that cannot be reached, answers another 5xx (it may come up later) or asks
for credentials, is a warning and the proxy runs. The banner names the
upstream's endpoint (origin and path) and what the probe found. The
``<rule>.curl.sh`` reproducers are executable. Streams a client still holds at
Ctrl-C are cut after two seconds without uvicorn's "Cancel N running task(s)" lines.

Exit codes as ``validate``'s: 0 holds, 1 some rule FAILed, 2 bad usage (URL,
address, a file that cannot be written, a port in use), 3 no FAIL but some rule
INCONCLUSIVE, an upstream that is not an MCP server, or a run that judged nothing
(no exchange recorded, or none the upstream answered): a line says which.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import urlsplit

from mcp_resume import interrupts
from mcp_resume.jobs.exits import EXIT_UNCHECKED, EXIT_USAGE
from mcp_resume.jobs.proxying import (PROBE_SECONDS, bind_listener, live_checker, nothing_recorded, parse_listen,
                                      say_upstream, serve, write_reproducers)
from mcp_resume.jobs.traffic_report import exit_code, print_report, report_json
from mcp_resume.model.oracle.judge import judge_beside
from mcp_resume.model.traffic.recording_proxy import ProxyTimeouts, RecordingProxy
from mcp_resume.model.traffic.recording import Fanout, JsonLinesRecorder
from mcp_resume.jobs.request_headers import request_headers
from mcp_resume.model.traffic.upstream import Kind, check_upstream
from mcp_resume.options import PROFILE_NAMES, handler, output_path
from mcp_resume.outputs import OutputError, output_folder_probe, write_output
from mcp_resume.spec.profiles import Profile

def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume proxy`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    proxy = subparsers.add_parser(
        "proxy",
        help=summary,
        description=(
            "Forward every request to --upstream and stream every answer back unchanged, record the exchanges "
            "(--record, JSON lines for validate) and check them as they happen: each finding is printed when "
            "seen, marked provisional. Ctrl-C or SIGTERM stops it and writes the final report, the one that "
            "counts, with a curl reproducer and a spec trace in --out for each of its FAILs and WARNs. Binds "
            "127.0.0.1 unless --listen says otherwise. At start it asks the upstream one bounded initialize "
            "and says what it found: an upstream that answers but not as an MCP server (501 Not Implemented, 405 "
            "to the POST, another 4xx, a redirect, a page or another non-JSON, non-event-stream body) ends it with "
            "exit 3; one that is unreachable, answers another 5xx (it may come up later) or asks for credentials "
            "is a warning and the proxy runs. Exit codes as validate's, and 3 for an upstream that is not an MCP "
            "server or a run that recorded nothing."
        ),
    )
    proxy.set_defaults(handler=handler("proxy", "run"))
    proxy.add_argument("--upstream", required=True, metavar="URL", help="the server's MCP endpoint, e.g. http://127.0.0.1:8000/mcp")
    proxy.add_argument("--listen", default="127.0.0.1:8808", metavar="HOST:PORT", help="where to listen (default: %(default)s; port 0 = any free one)")
    proxy.add_argument("--profile", choices=["auto", *PROFILE_NAMES], default="auto",
                       help="rule levels to apply; auto (the default) = the profile of the revision the traffic shows: "
                            "the one initialize negotiated, or 2026-07-28 for its request shape, exchange by exchange")
    proxy.add_argument("--record", type=output_path, default=None, metavar="FILE", help="write every exchange to FILE as JSON lines")
    proxy.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the verdicts as JSON when stopped")
    proxy.add_argument("--out", type=output_path, default=Path("mcp-resume-findings"), metavar="DIR", help="folder for each finding's reproducers, <rule>.curl.sh (executable) and <rule>.trace.json for replay; refused at start when it cannot be a folder (default: %(default)s)")
    proxy.add_argument(
        "--header", action="append", default=None, metavar="NAME:VALUE",
        help="add this header to every request the client sends without it, and to the start-up probe (e.g. "
             "'Authorization: Bearer ...'); repeatable; also read from MCP_RESUME_HEADERS. Recordings and "
             "reproducers keep its name, never its value (nor those of Authorization, Cookie, X-Api-Key)")
    proxy.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the upstream's response head (default: %(default)s)")


def run(args) -> int:
    """The ``proxy`` command; ``args``: ``upstream``, ``listen``, ``profile``, ``record``, ``json``, ``out``, ``timeout``."""
    try:
        host, port = parse_listen(args.listen)
        fanout = Fanout()
        headers = request_headers(getattr(args, "header", None))
        proxy = RecordingProxy(args.upstream, fanout, ProxyTimeouts(head=args.timeout), headers=headers)
    except ValueError as error:
        print(f"mcp-resume proxy: {error}", file=sys.stderr)
        return EXIT_USAGE
    problem = output_folder_probe(Path(args.out))  # created at the first finding, not before
    if problem:
        print(f"mcp-resume proxy: --out {problem}", file=sys.stderr)
        return EXIT_USAGE
    upstream = check_upstream(args.upstream, min(args.timeout, PROBE_SECONDS), headers)
    if upstream.kind is Kind.NOT_MCP:
        print(f"mcp-resume proxy: the upstream {args.upstream} is {upstream.detail}: nothing to check", file=sys.stderr)
        return EXIT_UNCHECKED
    try:
        listener = bind_listener(host, port)
    except OSError as error:
        print(f"mcp-resume proxy: cannot listen on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    try:  # only once listening: a proxy that cannot start leaves an earlier --record file alone
        lines = JsonLinesRecorder(Path(args.record)) if args.record else None
    except OSError as error:
        listener.close()
        print(f"mcp-resume proxy: {error}", file=sys.stderr)
        return EXIT_USAGE
    checker = live_checker(None if args.profile == "auto" else Profile.parse(args.profile), proxy)
    fanout.recorders = (checker,) + ((lines,) if lines else ())
    path = urlsplit(args.upstream).path or "/"
    where = "" if host in ("127.0.0.1", "localhost", "::1") else " (reachable from other machines)"
    try:  # a Ctrl-C right after the banner, before serve takes the signals, also ends in the report
        print(f"proxy listening on http://{host}:{listener.getsockname()[1]}{where}, forwarding to {proxy.origin}{path}; "
              f"point your client at http://{host}:{listener.getsockname()[1]}{path}. Ctrl-C stops it.", flush=True)
        say_upstream(upstream)
        serve(proxy, listener)
    except KeyboardInterrupt:
        pass
    interrupts.reset()  # Ctrl-C is how the proxy is meant to stop: the report follows, with its own exit code
    final = checker.stop()
    if lines is not None:
        lines.close()
    beside = judge_beside(checker.judged_records, final)
    print_report(final, f"proxy: {len(checker.records)} exchanges recorded, profile {final.profile.value}", beside)
    write_reproducers(final, checker.judged_records, Path(args.out), checker.reported)
    code = exit_code(final)
    nothing = nothing_recorded(checker.records, upstream, path)
    if nothing:
        print(f"mcp-resume proxy: {nothing}: nothing was judged", file=sys.stderr)
        code = EXIT_UNCHECKED if code == 0 else code
    if args.json:
        try:
            write_output(Path(args.json), json.dumps(report_json(final, str(args.record or "(live)"), len(checker.records), beside), indent=2) + "\n")
        except OutputError as error:
            print(f"mcp-resume proxy: {error}", file=sys.stderr)
            code = EXIT_USAGE
    if lines is not None and lines.failure:
        print(f"mcp-resume proxy: {lines.failure}", file=sys.stderr)
        code = EXIT_USAGE
    return code
