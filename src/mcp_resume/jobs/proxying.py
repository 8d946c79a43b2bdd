"""The pieces of ``mcp-resume proxy``: the listening socket and the server (``bind_listener``,
``serve``), the live checker (``live_checker``) that prints each finding the moment it is seen, as
provisional; the reproducers of the final report's findings (``write_reproducers``: ``<rule>.curl.sh``,
executable, and ``<rule>.trace.json`` for replay); why a run judged nothing (``nothing_recorded``);
and what the start probe of the upstream found (``say_upstream``).
"""

from __future__ import annotations

import logging
import socket
import sys
from contextlib import contextmanager
from pathlib import Path

from mcp_resume import interrupts
from mcp_resume.model.http.curl import exchanges_script
from mcp_resume.model.http.evidence import ErrorKind
from mcp_resume.model.traffic.fixes import generic_fix
from mcp_resume.model.oracle.live import LiveChecker
from mcp_resume.model.traffic.recording_proxy import RecordingProxy
from mcp_resume.model.traffic.records import Record
from mcp_resume.model.traffic.upstream import Kind, Upstream
from mcp_resume.model.traffic.trace_validation import RuleResult, Validation
from mcp_resume.outputs import short_ids
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

DEFAULT_LISTEN = "127.0.0.1:8808"
PROBE_SECONDS = 5.0
"""The longest wait of the start probe of the upstream (``model.traffic.upstream``), for the
connection and for each response head; ``--timeout`` lowers it."""


def say_upstream(upstream: Upstream) -> None:
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


def live_checker(profile: Profile | None, proxy: RecordingProxy) -> LiveChecker:
    """The live checker under ``profile`` (``None``: the one the traffic shows), printing each finding
    as provisional (``print_finding``)."""
    return LiveChecker(profile, lambda rule, result: print_finding(rule), proxy.now)


def bind_listener(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free one); ``OSError`` when it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # inherited by accepted sockets: a response's
    listener.bind((host, port))                                      # head and body chunks are not held back (Nagle)
    listener.listen(128)  # before the banner: a client started on it must not be refused
    return listener


def serve(proxy: RecordingProxy, listener: socket.socket) -> None:
    """Serve ``proxy`` on ``listener`` with uvicorn until Ctrl-C or SIGTERM, then return (no
    ``KeyboardInterrupt``): the caller writes the final report."""
    import uvicorn

    config = uvicorn.Config(proxy, log_level="warning", lifespan="on", timeout_graceful_shutdown=2,
                            server_header=False, date_header=False)  # the upstream's own are passed on
    server = uvicorn.Server(config)
    quiet = _QuietStop(server)
    logger = logging.getLogger("uvicorn.error")  # configured by Config: the filter goes on after it
    logger.addFilter(quiet)
    try:
        with _signals_stop(server):
            server.run(sockets=[listener])
    finally:
        logger.removeFilter(quiet)


@contextmanager
def _signals_stop(server):
    """While uvicorn starts and after it stops, SIGINT and SIGTERM ask ``server`` to stop, as uvicorn's
    own handlers do while it serves. The command line's handler raises ``KeyboardInterrupt`` instead,
    and in the moment before uvicorn takes the signals that exception can be lost (in a destructor,
    in the event loop's start), leaving the proxy serving with no one to stop it. An interrupt
    already seen (``interrupts``) stops the server before it serves."""

    def stop(signum, frame) -> None:
        interrupts.mark()
        server.should_exit = True

    with interrupts.handled(stop):
        server.should_exit = interrupts.seen()
        yield


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


def print_finding(rule: RuleResult) -> None:
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
