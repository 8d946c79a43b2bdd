"""``mcp-resume proxy --upstream URL``: a checking reverse proxy between a real MCP
client and its server.

It forwards every request to URL's origin and streams every answer back as it
comes (``model.traffic.proxy``), records the exchanges (``--record FILE``, JSON
lines that ``mcp-resume validate`` reads) and checks them as they happen
(``model.traffic.live``): a finding is printed the moment it is seen (a GET's replay
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
import logging
import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit

from mcp_resume import interrupts
from mcp_resume.model.http.curl import exchanges_script
from mcp_resume.model.http.evidence import ErrorKind
from mcp_resume.outputs import OutputError, output_folder_probe, short_ids, write_output
from mcp_resume.model.traffic.fixes import generic_fix
from mcp_resume.model.traffic.judge import judge_beside
from mcp_resume.model.traffic.live import LiveChecker
from mcp_resume.model.traffic.proxy import ProxyTimeouts, RecordingProxy
from mcp_resume.model.traffic.records import Record
from mcp_resume.model.traffic.recording import Fanout, JsonLinesRecorder
from mcp_resume.model.traffic.upstream import Kind, Upstream, check_upstream
from mcp_resume.model.traffic.validate import RuleResult, Validation
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict
from mcp_resume.validate import EXIT_USAGE, exit_code, print_report, report_json

DEFAULT_LISTEN = "127.0.0.1:8808"
EXIT_UNCHECKED = 3
PROBE_SECONDS = 5.0
"""The longest wait of the start probe of the upstream (``model.traffic.upstream``), for the
connection and for each response head; ``--timeout`` lowers it."""


def run(args) -> int:
    """The ``proxy`` command; ``args``: ``upstream``, ``listen``, ``profile``, ``record``, ``json``, ``out``, ``timeout``."""
    try:
        host, port = parse_listen(args.listen)
        fanout = Fanout()
        proxy = RecordingProxy(args.upstream, fanout, ProxyTimeouts(head=args.timeout))
    except ValueError as error:
        print(f"mcp-resume proxy: {error}", file=sys.stderr)
        return EXIT_USAGE
    problem = output_folder_probe(Path(args.out))  # created at the first finding, not before
    if problem:
        print(f"mcp-resume proxy: --out {problem}", file=sys.stderr)
        return EXIT_USAGE
    upstream = check_upstream(args.upstream, min(args.timeout, PROBE_SECONDS))
    if upstream.kind is Kind.NOT_MCP:
        print(f"mcp-resume proxy: the upstream {args.upstream} is {upstream.detail}: nothing to check", file=sys.stderr)
        return EXIT_UNCHECKED
    try:
        listener = _bind(host, port)
    except OSError as error:
        print(f"mcp-resume proxy: cannot listen on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        return EXIT_USAGE
    try:  # only once listening: a proxy that cannot start leaves an earlier --record file alone
        lines = JsonLinesRecorder(Path(args.record)) if args.record else None
    except OSError as error:
        listener.close()
        print(f"mcp-resume proxy: {error}", file=sys.stderr)
        return EXIT_USAGE
    checker = _live_checker(args, proxy)
    fanout.recorders = (checker,) + ((lines,) if lines else ())
    path = urlsplit(args.upstream).path or "/"
    where = "" if host in ("127.0.0.1", "localhost", "::1") else " (reachable from other machines)"
    try:  # a Ctrl-C right after the banner, before uvicorn took the signals, also ends in the report
        print(f"proxy listening on http://{host}:{listener.getsockname()[1]}{where}, forwarding to {proxy.origin}{path}; "
              f"point your client at http://{host}:{listener.getsockname()[1]}{path}. Ctrl-C stops it.", flush=True)
        _say_upstream(upstream)
        _serve(proxy, listener)
    except KeyboardInterrupt:  # uvicorn shuts down gracefully, then raises the signal again
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


def nothing_recorded(records: list[Record], upstream: Upstream, path: str) -> str | None:
    """Why a run judged nothing, or ``None`` if some exchange reached the upstream: no exchange
    recorded (no client came to the endpoint ``path``; the start probe's ``upstream`` said if it was
    unreachable), or every one refused by the proxy itself (502/504: the upstream unreachable)."""
    if not records:
        why = f"no client came to {path}"
        if upstream.kind is Kind.UNREACHABLE:
            why += f", and at start the upstream was {upstream.detail}"
        return f"0 exchanges recorded ({why})"
    if all(r.exchange.error_kind in (ErrorKind.CONNECT, ErrorKind.FIRST_BYTE) for r in records):
        return (f"{len(records)} exchanges recorded, none answered by the upstream (unreachable: the proxy "
                "answered each 502 or 504 itself)")
    return None


def _say_upstream(upstream: Upstream) -> None:
    """One line on what the start probe found: on stdout for an MCP server, on stderr as a
    warning otherwise (the proxy still runs: the upstream may come up, or take the client's
    credentials)."""
    if upstream.kind is Kind.MCP:
        print(f"upstream: {upstream.detail}", flush=True)
    elif upstream.kind is Kind.UNREACHABLE:
        print(f"mcp-resume proxy: warning: the upstream is {upstream.detail}; the proxy answers 502 (or 504) "
              "until it is up", file=sys.stderr, flush=True)
    else:
        print(f"mcp-resume proxy: warning: the upstream's {upstream.detail}", file=sys.stderr, flush=True)


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``PORT``) -> (host, port); ``ValueError`` naming what is wrong."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--listen {text!r}: expected HOST:PORT such as {DEFAULT_LISTEN}")
    return host, int(port)


def _live_checker(args, proxy: RecordingProxy) -> LiveChecker:
    """The live checker, printing each finding and writing its reproducers in ``--out``."""
    out = Path(args.out)
    profile = None if args.profile == "auto" else Profile.parse(args.profile)
    checker = LiveChecker(profile, lambda rule, result: _finding(rule, result, checker.records, out), proxy.now)
    return checker


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # inherited by accepted sockets: a response's
    listener.bind((host, port))                                      # head and body chunks are not held back (Nagle)
    listener.listen(128)  # before the banner: a client started on it must not be refused
    return listener


def _serve(proxy: RecordingProxy, listener: socket.socket) -> None:
    import uvicorn

    config = uvicorn.Config(proxy, log_level="warning", lifespan="on", timeout_graceful_shutdown=2,
                            server_header=False, date_header=False)  # the upstream's own are passed on
    server = uvicorn.Server(config)
    quiet = _QuietStop(server)
    logger = logging.getLogger("uvicorn.error")  # configured by Config: the filter goes on after it
    logger.addFilter(quiet)
    try:
        server.run(sockets=[listener])
    finally:
        logger.removeFilter(quiet)


class _QuietStop(logging.Filter):
    """Drops what uvicorn says when Ctrl-C cuts the streams a client still holds open (SSE streams
    are long-lived, B16; each is recorded as dropped): "Cancel N running task(s), timeout graceful
    shutdown exceeded" and, once the server is stopping, "ASGI callable returned without completing
    response". Every other line of uvicorn's passes."""

    def __init__(self, server) -> None:
        super().__init__()
        self.server = server

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        if message.startswith("Cancel %s running task"):
            return False
        return not (self.server.should_exit and message.startswith("ASGI callable returned without completing"))


def _finding(rule: RuleResult, result: Validation, records: list[Record], out: Path) -> None:
    """Print one live finding, marked provisional: the final judgement at Ctrl-C may revise it (a
    404 for a session a DELETE ended a moment before is judged once the DELETE has settled). Its
    reproducers are written only if the final report keeps it (``write_reproducers``)."""
    numbers = sorted({n for step in rule.steps for n in step.records})
    print(f"{rule.verdict.value} {rule.rule} (live, provisional until the final report): {short_ids(rule.reason)} "
          f"(exchanges {', '.join(map(str, numbers))})", flush=True)
    print(f"  fix: {generic_fix(rule.rule)}", flush=True)


def write_reproducers(final: Validation, records: list[Record], out: Path, live: set[str]) -> None:
    """For each FAIL and WARN of the ``final`` judgement, write its reproducers in ``out`` and say
    where: ``<rule>.curl.sh`` (the recorded requests up to it) and ``<rule>.trace.json`` (the spec's
    steps up to it, for ``mcp-resume replay``). A ``live`` finding the final judgement revised away
    gets one line saying so, and no file."""
    for rule in final.results:
        if rule.verdict in (Verdict.FAIL, Verdict.WARN):
            _write_reproducer(rule, final, records, out)
    for name in sorted(live):
        verdict = final.result(name).verdict
        if verdict not in (Verdict.FAIL, Verdict.WARN):
            print(f"{name}: the live finding was revised by the final judgement: {verdict.value} (no reproducer)",
                  flush=True)


def _write_reproducer(rule: RuleResult, result: Validation, records: list[Record], out: Path) -> None:
    numbers = sorted({n for step in rule.steps for n in step.records})
    try:
        out.mkdir(parents=True, exist_ok=True)
        script = out / f"{rule.rule}.curl.sh"
        script.write_text(curl_script(rule, [r for r in records if r.number <= max(numbers, default=0)]))
        script.chmod(0o755)  # run as ./<rule>.curl.sh, as verify's are
        print(f"{rule.rule} reproducer: {script}", flush=True)
        trace = result.trace(rule)
        if trace is not None:
            path = out / f"{rule.rule}.trace.json"
            path.write_text(trace.dumps())
            print(f"{rule.rule} spec trace: {path} (mcp-resume replay {path} URL)", flush=True)
    except OSError as error:
        print(f"  cannot write the reproducer in {out}: {error.strerror or error}", file=sys.stderr, flush=True)


def curl_script(rule: RuleResult, records: list[Record]) -> str:
    """A bash script of the recorded requests up to ``rule``'s finding, one curl command each,
    in the order they were sent, carrying the ids the server hands out (``model.http.curl``);
    its default target is the recorded server's URL."""
    ordered = sorted(records, key=lambda r: r.started)
    url = ordered[0].exchange.url if ordered else ""
    comments = [f"mcp-resume proxy reproducer: rule {rule.rule} is {rule.verdict.value}: {rule.reason}",
                f"the recorded requests up to the finding; run as: bash {rule.rule}.curl.sh [URL]"]
    return exchanges_script(comments, url, [r.exchange for r in ordered])
