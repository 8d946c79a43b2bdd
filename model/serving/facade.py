"""Streamable HTTP in front of an in-process server: the reference server or a faulty design.

``FacadeApp(server)`` is an ASGI application that turns HTTP requests into the
spec's actions on ``server`` (a ``ReferenceServer`` or the server of a faulty
design of ``spec.designs``, ``model/servers/faulty.py``) and writes what the
server observed back as HTTP: statuses, the
``Mcp-Session-Id`` header and SSE events with the server's event ids. Whatever
the design decides (which events a reconnect replays, which requests it
re-emits, which status it answers) reaches the client unchanged, so
``mcp-resume verify URL`` judges the design as it would any real server.

Every request opens a POST stream (``call_tool``); the façade plays the server
side of the conformance fixture tools on it, as ``model.verify.fixture_tools``
defines them (docs/fixtures.md), with shorter pauses:

- ``tools/list``, ``ping``: a priming event, then the response;
- ``test_tool_with_logging`` / ``test_tool_with_progress``: a priming event,
  three notifications ``step_seconds`` apart, then the response;
- ``test_elicitation`` / ``test_sampling``: a priming event, then a server
  request (``issue_server_request``); the response follows once the client
  answers it (``answer_request``), whatever connection carried it;
- ``test_reconnection``: a notification, then the server closes the
  connection (``drop_connection``), waits, sends one more notification and the
  response on the stream, to be read by stream resumption (SEP-1699).

A correct variation of ``spec.designs`` changes the wire: ``reserialise_replays``
writes replayed events with another key order and whitespace, ``json_responses``
answers each POST request with one ``application/json`` body (its stream has
no connection, so a server request it sends waits for a GET stream), and
``ring_capacity`` keeps that many events per stream (``evict_event`` beyond it).
A request cancelled on a session resumption ends its tool call with an error result.

A GET with the session id alone is a session resumption (a new GET stream that
stays open, with a priming event after what it re-emits), a GET with
``Last-Event-ID`` a stream resumption; a client that
closes a connection is a ``drop_connection``. The façade keeps at most
``retained_streams`` ended POST streams per session and expires older ones
(``expire_stream``), as a server with bounded event storage does.

``serving(app)`` runs an app with uvicorn on 127.0.0.1 in a thread of its own.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from mcp_resume.spec import actions as a

from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.model.http.asgi import read_body
from mcp_resume.model.verify import fixture_tools as fixtures

MCP_PATH = "/mcp"
HOST = "127.0.0.1"
SUPPORTED_VERSIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
LATEST_VERSION = SUPPORTED_VERSIONS[-1]
STEP_SECONDS = 0.02
"""Pause between two notifications of a fixture tool, in seconds (shorter than the
definition's ``fixture_tools.STEP_SECONDS``: any pause under verify's idle bound works)."""
RETRY_MILLISECONDS = 0
"""The SSE ``retry`` field of every priming event: the delay, in milliseconds, a client waits before it
reconnects to a stream whose connection the server closed (MCP D10, D23). 0: a client polls as fast as
it can, and verify's polls of the faulty designs meet their faults where a server's would."""
RECONNECT_PAUSE_SECONDS = 1.0
"""How long ``test_reconnection`` works on after closing its connection, in seconds: long enough
that a client busy with other scenarios has resumed before the rest is sent (a design that loses
what is sent to a resumed stream, design 15, shows only then), shorter than verify's idle bound."""
ANSWER_TIMEOUT_SECONDS = fixtures.ANSWER_TIMEOUT_SECONDS
"""How long a fixture tool waits for the answer to its server request before cancelling it."""
RETAINED_STREAMS = 4
"""Ended POST streams kept per session; older ones expire (their event ids resume nothing)."""
MAX_BODY_BYTES = 1 << 20

FIXTURE_TOOLS = fixtures.HISTORY_TOOLS + (fixtures.RECONNECTION_TOOL,) + fixtures.SERVER_REQUEST_TOOLS
SERVER_REQUESTS = {tool.name: tool.server_request for tool in fixtures.FIXTURE_TOOLS if tool.server_request}


class StreamGone(Exception):
    """The stream a fixture tool works on was ended by someone else (session deleted, expired)."""


@dataclass
class Connection:
    """One HTTP response body delivering a stream; ``None`` in the queue ends it."""

    stream: str
    queue: asyncio.Queue = field(default_factory=asyncio.Queue)
    closed: bool = False


class FacadeApp:
    """The ASGI app; ``server`` is touched only from the event loop that serves it."""

    def __init__(
        self,
        server: ReferenceServer,
        *,
        step_seconds: float = STEP_SECONDS,
        retained_streams: int = RETAINED_STREAMS,
        retry_milliseconds: int | None = RETRY_MILLISECONDS,
    ) -> None:
        self.server = server
        self.retry_field = "" if retry_milliseconds is None else f"retry: {retry_milliseconds}\n"
        self.reserialise_replays = bool(getattr(server, "reserialise_replays", False))
        self.json_responses = bool(getattr(server, "json_responses", False))
        self.ring_capacity = int(getattr(server, "ring_capacity", 0))
        self.step_seconds = step_seconds
        self.retained_streams = retained_streams
        self.connections: dict[str, Connection] = {}
        self.event_payloads: dict[str, dict | None] = {}
        self.request_payloads: dict[str, dict] = {}
        self.answers: dict[str, asyncio.Future] = {}
        self.ended_streams: dict[str, list[str]] = {}
        self.tasks: set[asyncio.Task] = set()
        self.log: list[str] = []
        """Every action applied, as ``describe(action)``: what the server was asked to do."""

    # -- ASGI ---------------------------------------------------------------------

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if scope["path"] != MCP_PATH:
            await _plain(send, 404, b"not found")
            return
        method = scope["method"]
        if method == "POST":
            body = await _read_body(receive)
            await self.post(headers, body, receive, send)
        elif method in ("GET", "DELETE") and _unsupported_version(headers):
            await _refuse_version(send, headers, None)
        elif method == "GET":
            await self.get(headers, receive, send)
        elif method == "DELETE":
            await self.delete(headers, send)
        else:
            await _plain(send, 405, b"method not allowed", allow="GET, POST, DELETE")

    # -- requests -------------------------------------------------------------------

    async def post(self, headers, body, receive, send) -> None:
        try:
            message = json.loads(body)
        except ValueError:
            await _json_error(send, 400, None, -32700, "parse error")
            return
        if not isinstance(message, dict):
            await _json_error(send, 400, None, -32600, "one JSON-RPC message per POST")
            return
        session = headers.get("mcp-session-id")
        if message.get("method") != "initialize" and _unsupported_version(headers):
            await _refuse_version(send, headers, message.get("id"))
        elif "method" not in message:
            await self.answer(session, message, send)
        elif "id" not in message:
            refusal = self.server.check_session(session)
            await _plain(send, refusal or 202, b"")
        elif message["method"] == "initialize":
            await self.initialize(session, message, send)
        else:
            await self.request(session, message, receive, send)

    async def initialize(self, session, message, send) -> None:
        if session is not None:
            await _json_error(send, 400, message.get("id"), -32600, "already initialized")
            return
        observed = self.apply(a.Initialize())
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        asked = params.get("protocolVersion")
        result = {
            "protocolVersion": asked if asked in SUPPORTED_VERSIONS else LATEST_VERSION,
            "capabilities": {"tools": {}, "logging": {}},
            "serverInfo": {"name": f"mcp-resume facade ({self.server.name})", "version": "1"},
        }
        body = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        await _json(send, 200, body, {"mcp-session-id": observed.session})

    async def answer(self, session, message, send) -> None:
        request = str(message.get("id"))
        owner = self.server.request_session.get(request)
        observed = self.apply(a.AnswerRequest(session, request))
        if observed.status == 202 and owner == session:
            waiting = self.answers.pop(request, None)
            if waiting is not None and not waiting.done():
                waiting.set_result(message)
        await _plain(send, observed.status, b"")

    async def request(self, session, message, receive, send) -> None:
        observed = self.apply(a.CallTool(session))
        if observed.status != 200:
            await _json_error(send, observed.status, message["id"], observed.error or -32600, _refusal(observed.status))
            return
        stream = observed.stream
        if self.json_responses:
            await self.answer_with_json(stream, session, message, receive, send)
            return
        connection = self.attach(stream)
        self._spawn(self.serve_request(stream, session, message))
        await self.stream_out(connection, [], receive, send, {})

    async def answer_with_json(self, stream, session, message, receive, send) -> None:
        """The request's response as one JSON body once the work is done; a client that
        goes away first gets nothing (the work goes on)."""
        self.apply(a.DropConnection(stream))  # a JSON body is no SSE stream: nothing reaches the client on it
        work = asyncio.ensure_future(self.serve_request(stream, session, message))
        self.tasks.add(work)
        work.add_done_callback(self.tasks.discard)
        gone = asyncio.Event()
        watcher = asyncio.ensure_future(_watch_disconnect(receive, gone))
        waiter = asyncio.ensure_future(gone.wait())
        try:
            await asyncio.wait({work, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watcher.cancel()
            waiter.cancel()
        if not work.done():
            return
        answer = work.result()
        if answer is None:
            await _json_error(send, 404, message["id"], -32600, "session ended while the request ran")
        else:
            await _json(send, 200, answer)

    async def get(self, headers, receive, send) -> None:
        session = headers.get("mcp-session-id")
        last_event_id = headers.get("last-event-id")
        observed = self.apply(a.Reconnect(session, last_event_id))
        if observed.status is None:  # a server that never answers this GET (design 36): held until the client goes
            await _watch_disconnect(receive, asyncio.Event())
            return
        if observed.status != 200:
            await _json_error(send, observed.status, None, observed.error or -32600, _refusal(observed.status))
            return
        stream = observed.stream
        record = self.server.streams.get(stream) if stream else None
        connection = self.attach(stream) if record is not None and record.connected else None
        minted = {"mcp-session-id": observed.session} if observed.session else {}
        replayed = {d.event for d in observed.events} if self.reserialise_replays and last_event_id else set()
        if connection is not None and last_event_id is None:
            self.emit(stream, None)  # priming event of the new GET stream (MCP D8): it too can be resumed
        self.keep_ring(stream)
        await self.stream_out(connection, list(observed.events), receive, send, minted, replayed)

    async def delete(self, headers, send) -> None:
        observed = self.apply(a.DeleteSession(headers.get("mcp-session-id")))
        await _plain(send, observed.status, b"")

    # -- streams ------------------------------------------------------------------------

    def attach(self, stream: str) -> Connection:
        """A new connection for ``stream``; one it had before is ended."""
        old = self.connections.get(stream)
        if old is not None and not old.closed:
            old.closed = True
            old.queue.put_nowait(None)
        connection = Connection(stream)
        self.connections[stream] = connection
        return connection

    async def stream_out(self, connection, first, receive, send, extra_headers, reserialised=frozenset()) -> None:
        """Write the SSE response: ``first`` events (those in ``reserialised`` written
        with another key order and whitespace), then whatever reaches ``connection``
        until it closes or the client goes away (then the stream's connection drops)."""
        headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
        headers += [(k.encode(), v.encode()) for k, v in extra_headers.items()]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        gone = asyncio.Event()
        watcher = asyncio.ensure_future(_watch_disconnect(receive, gone))
        try:
            for delivered in first:
                body = self.frame(delivered, delivered.event in reserialised)
                await send({"type": "http.response.body", "body": body, "more_body": True})
            while connection is not None and not gone.is_set():
                getter = asyncio.ensure_future(connection.queue.get())
                waiter = asyncio.ensure_future(gone.wait())
                done, _ = await asyncio.wait({getter, waiter}, return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                if getter not in done:
                    getter.cancel()
                    break
                item = getter.result()
                if item is None:
                    break
                await send({"type": "http.response.body", "body": self.frame(item), "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            if connection is not None and self.connections.get(connection.stream) is connection:
                self.connection_lost(connection)

    def connection_lost(self, connection: Connection) -> None:
        connection.closed = True
        del self.connections[connection.stream]
        record = self.server.streams.get(connection.stream)
        if record is not None and record.connected:
            self.apply(a.DropConnection(connection.stream))

    def frame(self, delivered, reserialise: bool = False) -> bytes:
        """One SSE event; ``reserialise``: the JSON in reversed key order, indented
        over several ``data:`` lines (the same JSON-RPC value, other bytes)."""
        if delivered.cancels is not None:
            payload = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": int(delivered.cancels)}}
        elif delivered.request is not None:
            payload = self.request_payloads.get(delivered.request, _ping(delivered.request))
        elif delivered.event in self.event_payloads:
            payload = self.event_payloads[delivered.event]  # None for a priming event
        else:  # a notification the server sent on its own
            payload = {"jsonrpc": "2.0", "method": "notifications/message",
                       "params": {"level": "info", "data": f"event {delivered.event}"}}
        if payload is None:  # the priming event, which also gives the client its reconnection delay (MCP D10)
            return f"id: {delivered.event}\n{self.retry_field}data: \n\n".encode()
        text = json.dumps(_reversed_keys(payload), indent=2) if reserialise else json.dumps(payload)
        data = "".join(f"data: {line}\n" for line in text.splitlines())
        return f"id: {delivered.event}\n{data}\n".encode()

    # -- applying actions -------------------------------------------------------------------

    def apply(self, action):
        self.log.append(a.describe(action))
        observed = self.server.apply(action)
        for delivered in observed.events:
            if delivered.cancels is not None:
                self._cancelled(delivered.cancels)
        for delivered in observed.events if action.side != "client" else ():
            self._deliver(action, delivered)
        self._close_connections(observed.closed)
        return observed

    def _close_connections(self, streams) -> None:
        """End the open HTTP connections of ``streams`` (their SSE bodies see the end)."""
        for stream in streams:
            connection = self.connections.pop(stream, None)
            if connection is not None and not connection.closed:
                connection.closed = True
                connection.queue.put_nowait(None)

    def _cancelled(self, request: str) -> None:
        """The server cancelled ``request``: the tool call waiting for its answer ends (with an error result)."""
        waiting = self.answers.pop(request, None)
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    def keep_ring(self, stream: str | None) -> None:
        """A ring buffer of ``ring_capacity`` events per stream: evict the oldest beyond it."""
        record = self.server.streams.get(stream) if stream else None
        while self.ring_capacity and record is not None and len(self.server.kept_events(record)) > self.ring_capacity:
            self.apply(a.EvictEvent(stream))

    def _deliver(self, action, delivered) -> None:
        """Queue ``delivered`` on the connection of the stream the server delivered it on
        (its own, or, for a server that sends elsewhere, another one)."""
        stream = delivered.stream or getattr(action, "stream", None)
        connection = self.connections.get(stream) if stream else None
        if connection is not None and not connection.closed:
            connection.queue.put_nowait(delivered)

    def live(self, stream: str) -> bool:
        record = self.server.streams.get(stream)
        session = self.server.sessions.get(record.session) if record else None
        return bool(record and record.open and session and session.live)

    def emit(self, stream: str, payload: dict | None) -> None:
        if not self.live(stream):
            raise StreamGone(stream)
        observed = self.server.apply(a.EmitEvent(stream))
        self.log.append(a.describe(a.EmitEvent(stream)))
        self.event_payloads[observed.event] = payload
        for delivered in observed.events:
            self._deliver(a.EmitEvent(stream), delivered)
        self.keep_ring(stream)

    def issue(self, stream: str, method: str, params: dict) -> str:
        if not self.live(stream):
            raise StreamGone(stream)
        self.log.append(a.describe(a.IssueServerRequest(stream)))
        observed = self.server.apply(a.IssueServerRequest(stream))
        request = observed.request
        self.request_payloads[request] = {"jsonrpc": "2.0", "id": int(request), "method": method, "params": params}
        for delivered in observed.events:
            self._deliver(a.IssueServerRequest(stream), delivered)
        self.keep_ring(stream)
        return request

    def respond(self, stream: str, session: str, answer: dict) -> None:
        """The call's response as its stream's last event, then the stream ends (``Respond``)."""
        if not self.live(stream):
            raise StreamGone(stream)
        self.log.append(a.describe(a.Respond(stream)))
        observed = self.server.apply(a.Respond(stream))
        if observed.event is not None:
            self.event_payloads[observed.event] = answer
        for delivered in observed.events:
            self._deliver(a.Respond(stream), delivered)
        self._close_connections(observed.closed)
        self.keep_ring(stream)
        self.retain(stream, session)

    def retain(self, stream: str, session: str) -> None:
        """Keep the events of the ``retained_streams`` newest ended streams of ``session``."""
        ended = self.ended_streams.setdefault(session, [])
        ended.append(stream)
        while len(ended) > self.retained_streams:
            oldest = ended.pop(0)
            record = self.server.streams.get(oldest)
            live = self.server.sessions.get(session)
            if record is not None and record.retained and live is not None and live.live:
                self.apply(a.ExpireStream(oldest))

    # -- the server side of one request -----------------------------------------------------------

    async def serve_request(self, stream: str, session: str, message: dict) -> dict | None:
        """Work on one request; return its JSON-RPC response (``None`` when the stream was ended)."""
        rid = message["id"]
        try:
            self.emit(stream, None)  # priming event (MCP D8)
            result = await self.run_method(stream, message)
            answer = {"jsonrpc": "2.0", "id": rid, **result}
            self.respond(stream, session, answer)
            return answer
        except StreamGone:
            return None

    async def run_method(self, stream: str, message: dict) -> dict:
        method = message["method"]
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if method == "ping":
            return {"result": {}}
        if method == "tools/list":
            tools = [{"name": name, "inputSchema": {"type": "object"}} for name in FIXTURE_TOOLS]
            return {"result": {"tools": tools}}
        if method != "tools/call":
            return {"error": {"code": -32601, "message": f"method {method!r} not found"}}
        name = params.get("name")
        token = (params.get("_meta") or {}).get("progressToken") if isinstance(params.get("_meta"), dict) else None
        if name in fixtures.HISTORY_TOOLS:
            for step in range(1, fixtures.NOTIFICATIONS + 1):
                self.emit(stream, _note(name, step, token))
                await asyncio.sleep(self.step_seconds)
            return _text(f"{name} done")
        if name == fixtures.RECONNECTION_TOOL:
            self.emit(stream, _log("before the connection closes"))
            await asyncio.sleep(self.step_seconds)
            if self.server.streams[stream].connected:
                self.apply(a.DropConnection(stream))
            await asyncio.sleep(RECONNECT_PAUSE_SECONDS)
            self.emit(stream, _log("after the connection closed"))
            return _text("reconnection test finished")
        if name in SERVER_REQUESTS:
            return await self.ask_client(stream, *SERVER_REQUESTS[name])
        return {"error": {"code": -32602, "message": f"unknown tool {name!r}"}}

    async def ask_client(self, stream: str, method: str, params: dict) -> dict:
        request = self.issue(stream, method, params)
        waiting = asyncio.get_running_loop().create_future()
        self.answers[request] = waiting
        try:
            answer = await asyncio.wait_for(waiting, ANSWER_TIMEOUT_SECONDS)
        except asyncio.TimeoutError:
            if request in self.server.sessions[self.server.request_session[request]].pending:
                self.apply(a.CancelRequest(request))
            return {"error": {"code": -32001, "message": f"no answer to {method} within {ANSWER_TIMEOUT_SECONDS:g} s"}}
        if answer is None:  # cancelled on a session resumption (docs/design.md §2 branch 2)
            return {"result": {"content": [{"type": "text", "text": f"{method} was cancelled"}], "isError": True}}
        return _text(f"{method} answered: {json.dumps(answer.get('result'))[:60]}")

    def _spawn(self, coroutine) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


# -- serving -----------------------------------------------------------------------------------


@contextmanager
def serving(app, *, host: str = HOST, lifespan: str = "off", tls: tuple[str, str] | None = None) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free port of ``host`` in a daemon thread;
    yield the MCP endpoint URL; stop the server when the block ends. ``lifespan``:
    uvicorn's, ``"on"`` for an app that needs its startup (the SDK's session manager).
    ``tls``: ``(certificate file, key file)`` (PEM) to serve ``https://`` instead."""
    import uvicorn

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # accepted sockets inherit it: no 40 ms Nagle waits
    listener.bind((host, 0))
    port = listener.getsockname()[1]
    certificates = {"ssl_certfile": tls[0], "ssl_keyfile": tls[1]} if tls else {}
    config = uvicorn.Config(app, log_level="error", lifespan=lifespan, timeout_graceful_shutdown=1, **certificates)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        if not server.started:
            raise RuntimeError("the façade did not start within 10 s")
        yield f"{'https' if tls else 'http'}://{host}:{port}{MCP_PATH}"
    finally:
        server.should_exit = True
        thread.join(5)
        listener.close()


@contextmanager
def serving_design(name: str) -> Iterator[str]:
    """Serve the in-process server ``name`` (``reference``, ``design-<n>`` or ``variation-<slug>``) over HTTP."""
    from mcp_resume.model.servers.inprocess import server_factory

    if name == "spec":
        name = "reference"
    factory = server_factory(name)
    with serving(FacadeApp(factory())) as url:
        yield url


# -- helpers ---------------------------------------------------------------------------------------


def _reversed_keys(value):
    """``value`` with every object's keys in reverse order."""
    if isinstance(value, dict):
        return {key: _reversed_keys(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed_keys(item) for item in value]
    return value


def _note(tool: str, step: int, token) -> dict:
    if tool == "test_tool_with_progress" and token is not None:
        params = {"progressToken": token, "progress": step, "total": fixtures.NOTIFICATIONS, "message": f"step {step}"}
        return {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}
    return _log(f"logging step {step}")


def _log(text: str) -> dict:
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": text}}


def _text(text: str) -> dict:
    return {"result": {"content": [{"type": "text", "text": text}], "isError": False}}


def _refusal(status: int | None) -> str:
    return {400: "bad request", 404: "session not found", 405: "method not allowed", 409: "conflict"}.get(
        status, f"refused with {status}"
    )


async def _read_body(receive) -> bytes:
    body, _ = await read_body(receive, MAX_BODY_BYTES)
    return body


async def _watch_disconnect(receive, gone: asyncio.Event) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            gone.set()
            return


async def _plain(send, status: int, body: bytes, *, allow: str | None = None) -> None:
    headers = [(b"content-type", b"text/plain")] if body else []
    if allow:
        headers.append((b"allow", allow.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _json(send, status: int, body: Any, extra: dict[str, str] | None = None) -> None:
    headers = [(b"content-type", b"application/json")]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})


def _unsupported_version(headers: dict[str, str]) -> bool:
    """The request carries an ``MCP-Protocol-Version`` this server does not support: it gets
    400 before anything else is looked at (``_refuse_version``, MCP C40, D45)."""
    version = headers.get("mcp-protocol-version")
    return version is not None and version not in SUPPORTED_VERSIONS


async def _refuse_version(send, headers: dict[str, str], rid) -> None:
    version = headers["mcp-protocol-version"]
    await _json_error(send, 400, rid, -32600, f"Bad Request: unsupported MCP-Protocol-Version {version!r}")


async def _json_error(send, status: int, rid, code: int, text: str) -> None:
    await _json(send, status, {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": text}})


def _ping(request: str) -> dict:
    """The JSON-RPC form of a server request no fixture tool made (a server's own, e.g. after
    a stream resumption's replay): a ``ping``."""
    return {"jsonrpc": "2.0", "id": int(request) if request.isdigit() else request, "method": "ping"}
