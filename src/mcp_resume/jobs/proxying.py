"""The pieces of ``mcp-resume proxy``: the listening socket and the server (``bind_listener``,
``serve``), the live checker (``live_checker``) that prints each finding the moment it is seen and
writes its reproducers (``<rule>.curl.sh``, executable, and ``<rule>.trace.json`` for replay), and
what the start probe of the upstream found (``say_upstream``).
"""

from __future__ import annotations

import logging
import socket
import sys
from pathlib import Path

from mcp_resume.model.http.curl import exchanges_script
from mcp_resume.model.traffic.fixes import generic_fix
from mcp_resume.model.traffic.live import LiveChecker
from mcp_resume.model.traffic.proxy import RecordingProxy
from mcp_resume.model.traffic.records import Record
from mcp_resume.model.traffic.upstream import Kind, Upstream
from mcp_resume.model.traffic.validate import RuleResult, Validation
from mcp_resume.spec.profiles import Profile

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


def live_checker(profile: Profile | None, out: Path, proxy: RecordingProxy) -> LiveChecker:
    """The live checker under ``profile`` (``None``: the one the traffic shows), printing each finding
    and writing its reproducers in ``out``."""
    checker = LiveChecker(profile, lambda rule, result: print_finding(rule, result, checker.records, out), proxy.now)
    return checker


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
    """Serve ``proxy`` on ``listener`` with uvicorn until Ctrl-C or SIGTERM."""
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


def print_finding(rule: RuleResult, result: Validation, records: list[Record], out: Path) -> None:
    """Print one finding and write its reproducers: ``<rule>.curl.sh`` (the recorded requests)
    and ``<rule>.trace.json`` (the spec's steps up to it, for ``mcp-resume replay``)."""
    numbers = sorted({n for step in rule.steps for n in step.records})
    print(f"{rule.verdict.value} {rule.rule}: {rule.reason} (exchanges {', '.join(map(str, numbers))})", flush=True)
    print(f"  fix: {generic_fix(rule.rule)}", flush=True)
    try:
        out.mkdir(parents=True, exist_ok=True)
        script = out / f"{rule.rule}.curl.sh"
        script.write_text(curl_script(rule, [r for r in records if r.number <= max(numbers, default=0)]))
        script.chmod(0o755)  # run as ./<rule>.curl.sh, as verify's are
        print(f"  reproducer: {script}", flush=True)
        trace = result.trace(rule)
        if trace is not None:
            path = out / f"{rule.rule}.trace.json"
            path.write_text(trace.dumps())
            print(f"  spec trace: {path} (mcp-resume replay {path} URL)", flush=True)
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
