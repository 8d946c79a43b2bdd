"""Misbehaving HTTP servers for the tests, on 127.0.0.1, each in a thread of its own.

Every helper is a context manager that yields the server's MCP endpoint URL and
stops the server (and closes every connection it holds) when the block ends.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOST = "127.0.0.1"
POLL_SECONDS = 0.02
"""How often a server thread looks whether it was told to stop, in seconds: ``shutdown()`` waits up to
this long (``serve_forever``'s default, 0.5 s, was most of each test that stopped one)."""

Reply = Callable[[BaseHTTPRequestHandler], None]

INITIALIZE_RESULT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "hostile", "version": "0"},
}


class _QuietServer(ThreadingHTTPServer):
    """Says nothing when a client drops a connection (the tests do that on purpose)."""

    def handle_error(self, request, client_address) -> None:
        pass


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


@contextmanager
def http_server(reply: Reply) -> Iterator[str]:
    """A threaded HTTP server answering every request with ``reply(handler)``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _handle(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            self.request_body = self.rfile.read(length) if length else b""
            reply(self)

        do_GET = do_POST = do_DELETE = _handle

        def log_message(self, *args) -> None:  # keep test output clean
            pass

    server = _QuietServer((HOST, 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(POLL_SECONDS,), daemon=True)
    thread.start()
    try:
        yield f"http://{HOST}:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def silent_server() -> Iterator[str]:
    """Accepts connections and never sends a byte."""
    listener = socket.socket()
    listener.bind((HOST, 0))
    listener.listen(16)
    listener.settimeout(0.1)
    held: list[socket.socket] = []
    stopping = threading.Event()

    def accept() -> None:
        while not stopping.is_set():
            try:
                connection, _ = listener.accept()
                held.append(connection)
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://{HOST}:{listener.getsockname()[1]}/mcp"
    finally:
        stopping.set()
        thread.join(2)
        for connection in held:
            connection.close()
        listener.close()


@contextmanager
def down_server() -> Iterator[str]:
    """The URL of a port where nothing listens (connection refused), held for the block: the
    port stays bound to a socket that never listens, so no server another test starts can
    take it meanwhile (a port only probed free was, once, and the "down" upstream answered)."""
    with socket.socket() as held:
        held.bind((HOST, 0))
        yield f"http://{HOST}:{held.getsockname()[1]}/mcp"


# -- replies ----------------------------------------------------------------------


def send(
    handler: BaseHTTPRequestHandler, status: int, content_type: str, body: bytes, headers: dict | None = None
) -> None:
    handler.send_response(status)
    handler.send_header("content-type", content_type)
    handler.send_header("content-length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def request_id(handler: BaseHTTPRequestHandler):
    try:
        return json.loads(handler.request_body).get("id")
    except (ValueError, AttributeError):
        return None


def html_page(handler: BaseHTTPRequestHandler) -> None:
    send(handler, 200, "text/html", b"<html><body>hello, not MCP</body></html>")


def broken_sse(handler: BaseHTTPRequestHandler) -> None:
    send(handler, 200, "text/event-stream", b"<html>\nthis is not an event stream\n</html>\n")


def sse_with_bad_json(handler: BaseHTTPRequestHandler) -> None:
    send(handler, 200, "text/event-stream", b"id: 1\ndata: {not json\n\n")


def json_that_is_not(handler: BaseHTTPRequestHandler) -> None:
    send(handler, 200, "application/json", b"{this is not json")


def malformed_session_header(handler: BaseHTTPRequestHandler) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": request_id(handler), "result": INITIALIZE_RESULT}).encode()
    send(handler, 200, "application/json", body, {"Mcp-Session-Id": "bad session id"})


def _sse_head(handler: BaseHTTPRequestHandler) -> None:
    """A 200 response head for an SSE stream of unknown length."""
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.end_headers()


def dripping_sse(handler: BaseHTTPRequestHandler) -> None:
    """Headers, then one comment byte every 0.2 s for up to a minute: never an event."""
    _sse_head(handler)
    end = time.monotonic() + 60
    try:
        while time.monotonic() < end:
            handler.wfile.write(b":")
            handler.wfile.flush()
            time.sleep(0.2)
    except OSError:
        pass


def late_event_sse(handler: BaseHTTPRequestHandler) -> None:
    """A priming event, one notification 0.8 s later, then the stream held open for 10 s."""
    _sse_head(handler)
    try:
        handler.wfile.write(b"id: 1\ndata: \n\n")
        handler.wfile.flush()
        time.sleep(0.8)
        handler.wfile.write(b'id: 2\ndata: {"jsonrpc": "2.0", "method": "notifications/message"}\n\n')
        handler.wfile.flush()
        time.sleep(10)
    except OSError:
        pass


def not_found(handler: BaseHTTPRequestHandler) -> None:
    send(handler, 404, "text/plain", b"no such endpoint")


def huge_event(handler: BaseHTTPRequestHandler) -> None:
    """An SSE stream whose first event never ends: 4 MiB of data on one line."""
    _sse_head(handler)
    try:
        handler.wfile.write(b"id: 1\ndata: ")
        for _ in range(64):
            handler.wfile.write(b"x" * 65536)
    except OSError:
        pass


def event_flood(handler: BaseHTTPRequestHandler) -> None:
    """An SSE stream of 50 000 tiny events, none of them the response."""
    _sse_head(handler)
    try:
        handler.wfile.write(b'data: {"jsonrpc": "2.0", "method": "ping"}\n\n' * 50_000)
    except OSError:
        pass


def huge_header(handler: BaseHTTPRequestHandler) -> None:
    """A response head with a 200 KiB header line."""
    send(handler, 200, "application/json", b"{}", {"x-padding": "p" * 200_000})


def redirect_elsewhere(handler: BaseHTTPRequestHandler) -> None:
    """A redirect to another host, which must never be followed."""
    send(handler, 307, "text/plain", b"moved", {"location": "http://elsewhere.invalid/mcp"})


def mcp_then_silent(handler: BaseHTTPRequestHandler) -> None:
    """An MCP server for initialize, notifications and tools/list that never answers
    anything else (every other request hangs for a minute)."""
    try:
        message = json.loads(handler.request_body or b"null")
    except ValueError:
        message = None
    method = message.get("method") if isinstance(message, dict) else None
    if handler.command == "POST" and method == "initialize":
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": INITIALIZE_RESULT}).encode()
        send(handler, 200, "application/json", body, {"mcp-session-id": "hostile-session"})
    elif handler.command == "POST" and isinstance(message, dict) and "id" not in message:
        send(handler, 202, "text/plain", b"")
    elif handler.command == "POST" and method == "tools/list":
        result = {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": [{"name": "test_elicitation"}]}}
        send(handler, 200, "text/event-stream", f"id: a1\ndata: \n\nid: a2\ndata: {json.dumps(result)}\n\n".encode())
    else:
        time.sleep(60)


def sessionless_server(handler: BaseHTTPRequestHandler) -> None:
    """A server of the sessionless revision (2026-07-28): GET and DELETE get 405, a POST it
    cannot take as sent its refusal (F12-F14, F16), every other POSTed request an answer,
    and no Mcp-Session-Id, whatever the legacy headers."""
    refusal = _sessionless_refusal(handler)
    if refusal is not None:
        status, code = refusal
        error = {"jsonrpc": "2.0", "id": request_id(handler), "error": {"code": code, "message": "refused"}}
        send(handler, status, "application/json", json.dumps(error).encode())
        return
    sessionless_server_taking_anything(handler)


def sessionless_server_taking_anything(handler: BaseHTTPRequestHandler) -> None:
    """``sessionless_server`` without its refusals: every POSTed request is served, whatever its
    version and method headers say (breaks F12-F14, F16); a notification gets 202 (F4)."""
    if handler.command in ("GET", "DELETE"):
        send(handler, 405, "text/plain", b"", {"allow": "POST"})
        return
    if _is_notification(handler):
        send(handler, 202, "application/json", b"")
        return
    result = {"protocolVersion": "2026-07-28", "tools": []}
    send(handler, 200, "application/json", json.dumps({"jsonrpc": "2.0", "id": request_id(handler), "result": result}).encode())


def _is_notification(handler: BaseHTTPRequestHandler) -> bool:
    try:
        body = json.loads(handler.request_body)
    except ValueError:
        return False
    return isinstance(body, dict) and "method" in body and "id" not in body


SESSIONLESS_METHODS = {"initialize", "tools/list", "tools/call", "prompts/list", "server/discover"}
"""The methods ``sessionless_server`` implements."""


def _sessionless_refusal(handler: BaseHTTPRequestHandler) -> tuple[int, int] | None:
    """The status and JSON-RPC error code a 2026-07-28 server refuses this POST with, if any."""
    try:
        body = json.loads(handler.request_body)
    except (ValueError, AttributeError, TypeError):
        return None
    if handler.command != "POST" or not isinstance(body, dict) or "method" not in body:
        return None
    meta = (body.get("params") or {}).get("_meta") or {}
    version = handler.headers.get("mcp-protocol-version")
    stated = meta.get("io.modelcontextprotocol/protocolVersion")
    named = handler.headers.get("mcp-method")
    if version is not None and stated is not None and version != stated or named is not None and named != body["method"]:
        return 400, -32020  # HeaderMismatch (F12, F16)
    if version not in (None, "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"):
        return 400, -32602  # F13
    if body["method"] not in SESSIONLESS_METHODS and "id" in body:
        return 404, -32601  # F14
    return None


def post_not_allowed(handler: BaseHTTPRequestHandler) -> None:
    send(handler, 405, "text/plain", b"method not allowed", {"allow": "GET"})


def unavailable(handler: BaseHTTPRequestHandler) -> None:
    send(handler, 503, "text/html", b"<html><body>starting up</body></html>")
