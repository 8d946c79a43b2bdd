"""One configurable Streamable HTTP server for the verify tests: the reference
server behind the façade (``model.serving.facade``), with behaviour switches that
make it act as the real servers of docs/design.md §7 do, correctly or not.

``serving_variant(Variant(...))`` runs it with uvicorn on 127.0.0.1 (a free
port) and yields the MCP endpoint URL; the server stops when the block ends.
Each switch changes what goes over the wire, never the reference's own tables,
except where the switch is a server action (cancel, expire, mint).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from mcp_resume.model.serving.facade import RETRY_MILLISECONDS, FacadeApp, serving
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec import actions as a
from mcp_resume.spec.headers import is_well_formed

ERA_2026 = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
SESSION_ID_CAP = 256
"""Longest Mcp-Session-Id a capping variant reads, in characters."""
ASKING_TOOLS = ("test_elicitation", "test_sampling", "test_reconnection")


@dataclass(frozen=True)
class Variant:
    """Behaviour switches; the default is the reference server as served by the façade.

    Correct: ``version``, ``cap_session``, ``reserialise``, ``json_answers``, ``slow_posts``,
    ``ids_on_get_only``, ``cancel_on_resume``, ``delay_reemit``, ``ping_first``, ``ring`` (with
    ``ring_gap`` false), ``stream_ttl``, ``session_ttl``, ``sessionless``, ``era_2026``,
    ``dual_era``. Faulty: the rest, and ``ring_gap``.
    """

    version: str | None = None  # negotiate this revision; any other MCP-Protocol-Version gets 400
    cap_session: int | None = None  # status for session ids longer than SESSION_ID_CAP (400, 431)
    reserialise: bool = False  # replayed JSON re-serialised (sorted keys, no spaces)
    json_answers: bool = False  # POSTed requests answered with application/json
    slow_posts: float = 0.0  # every POST answered this many seconds late (a slow server)
    unknown_session_status: int | None = None  # faulty: status for a session id naming no live session
    ids_on_get_only: bool = False  # SSE ids only on GET streams
    leak_replay: bool = False  # faulty: a stream resumption also replays the session's other streams
    repeat_replayed: bool = False  # faulty: the first replayed event is sent twice
    orphan_mints: bool = False  # faulty: an orphan Last-Event-ID gets 200 and a new session
    malformed_event_500: bool = False  # faulty: a malformed Last-Event-ID gets 500
    echo_malformed_session: bool = False  # faulty: a malformed session id is echoed back
    delete_again_200: bool = False  # faulty: DELETE of a session that is gone gets 200
    get_status: int | None = None  # faulty: a GET with the session id alone gets this status
    get_silent: bool = False  # faulty: a GET with the session id alone is never answered
    get_version: str | None = None  # faulty: a GET with any other MCP-Protocol-Version gets 400 (as mcp-lite 0.10.0)
    any_version: bool = False  # faulty: a request in any MCP-Protocol-Version is served (C40 asks 400)
    no_retry: bool = False  # faulty (a SHOULD): no SSE retry field before the server closes a connection (D10)
    sessionless: bool = False  # no Mcp-Session-Id; GET and DELETE get 405
    era_2026: bool = False  # speaks only 2026-07-28 (its headers and _meta required)
    no_initialize: bool = False  # with era_2026: no initialize at all, server/discover is its handshake
    dual_era: bool = False  # a request in the 2026-07-28 shape is served as era_2026, any other as the reference
    era_2026_get_status: int = 405  # faulty when not 405: a GET or DELETE in the 2026-07-28 shape gets this status
    broadcast_all: bool = False  # faulty: every new message also goes to every open SSE stream of every session
    ring: int | None = None  # a stream keeps only its latest N events
    ring_gap: bool = False  # faulty: an evicted cursor replays what is left (a gap)
    stream_ttl: float | None = None  # an ended POST stream expires after this many seconds
    session_ttl: float | None = None  # a session idle this many seconds ends
    broadcast: bool = False  # faulty: a session resumption also re-emits requests on open connections
    # (without it, a request still on an open POST connection is never re-emitted, whatever
    # the reference does: MCP B21)
    cancel_on_resume: bool = False  # session resumption cancels pending requests instead of re-emitting
    delay_reemit: float = 0.0  # re-emitted requests reach the new stream this many seconds late
    ping_first: bool = False  # a session resumption's new stream sends a ping request before what it re-emits


@dataclass
class _Request:
    kind: str  # "post", "resume" (GET with Last-Event-ID), "session-get", "other"
    session: str | None
    cursor: str | None = None
    rpc: dict | None = None
    carried: list[str] = field(default_factory=list)
    era_2026: bool = False  # served as a server of 2026-07-28 (no session on the wire)


class VariantApp:
    """The ASGI app: ``variant`` applied around ``FacadeApp(ReferenceServer())``."""

    def __init__(self, variant: Variant) -> None:
        self.v = variant
        retained = 10_000 if variant.stream_ttl else 4
        self.facade = FacadeApp(ReferenceServer(), retained_streams=retained,
                                retry_milliseconds=None if variant.no_retry else RETRY_MILLISECONDS)
        self.hidden: str | None = None
        self.delivered: dict[str, list[tuple[str, str]]] = {}  # session -> (event id, data) sent on POST streams
        self.open_requests: dict[str, tuple[str, bytes]] = {}  # request id -> (session, frame) on an open POST
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.open_sse: list = []  # the sends of the SSE responses now open, every session's (``broadcast_all``)

    @property
    def server(self) -> ReferenceServer:
        return self.facade.server

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        method = scope["method"]
        body = b""
        if method == "POST":
            body = await _read(receive)
            await asyncio.sleep(self.v.slow_posts)
        rpc = _parse(body)
        era = self.v.era_2026 or self.v.dual_era and headers.get("mcp-protocol-version") == ERA_2026
        refusal = await self.refuse(method, headers, rpc, send, receive, era)
        if refusal:
            return
        if (self.v.no_initialize or self.v.dual_era and era) and self.hidden is None:
            self.hidden = await self._open_hidden_session(scope)
        scope, request = self.rewrite(scope, method, headers, rpc, era)
        replayed = _replaying(body, receive)
        try:
            await self.facade(scope, replayed, self.wrap(send, request))
        finally:
            for rid in request.carried:
                self.open_requests.pop(rid, None)
        self.touch(request.session)

    async def _open_hidden_session(self, scope) -> str | None:
        """A server without ``initialize`` still serves through the façade, which needs a
        session: open one with an initialize of its own, never seen on the wire."""
        rpc = {"jsonrpc": "2.0", "id": "hidden", "method": "initialize",
               "params": {"protocolVersion": ERA_2026, "capabilities": {}, "clientInfo": {"name": "v", "version": "1"}}}
        headers = [(b"content-type", b"application/json"), (b"accept", b"application/json, text/event-stream")]
        minted: list[str] = []

        async def capture(message) -> None:
            if message["type"] == "http.response.start":
                minted.extend(v.decode() for k, v in message["headers"] if k.decode().lower() == "mcp-session-id")

        async def gone():
            return {"type": "http.disconnect"}

        await self.facade({**scope, "method": "POST", "headers": headers}, _replaying(json.dumps(rpc).encode(), gone),
                          capture)
        return minted[0] if minted else None

    # -- refusals before the façade ---------------------------------------------------

    async def refuse(self, method, headers, rpc, send, receive=None, era=False) -> bool:
        v = self.v
        session = headers.get("mcp-session-id")
        leid = headers.get("last-event-id")
        version = headers.get("mcp-protocol-version")
        is_init = isinstance(rpc, dict) and rpc.get("method") == "initialize"
        if (v.sessionless or era) and method in ("GET", "DELETE"):
            return await _answer(send, v.era_2026_get_status, b"", {"allow": "POST"})
        if v.no_initialize and is_init:
            return await _error(send, 400, rpc, -32601, "Method not found: initialize (this server speaks 2026-07-28)")
        if (v.no_initialize or v.dual_era and era) and isinstance(rpc, dict) and rpc.get("method") == "server/discover":
            versions = [ERA_2026] + (["2025-11-25"] if v.dual_era else [])
            result = {"supportedVersions": versions, "capabilities": {"tools": {}}, "resultType": "complete"}
            body = json.dumps({"jsonrpc": "2.0", "id": rpc.get("id"), "result": result}).encode()
            return await _answer(send, 200, body, {}, "application/json")
        if era and method == "POST" and (problem := _era_problem(headers, rpc)):
            return await _error(send, 400, rpc, -32020, problem)
        if era and method == "POST" and isinstance(rpc, dict) and "id" in rpc and rpc.get("method") not in ERA_METHODS:
            return await _error(send, 404, rpc, -32601, f"Method not found: {rpc.get('method')}")  # F14
        if method == "GET" and v.get_version and version is not None and version != v.get_version:
            return await _answer(send, 400, b"Bad Request: Protocol version mismatch")
        if v.version and not is_init and version is not None and version != v.version:
            return await _error(send, 400, rpc, -32600, f"unsupported MCP-Protocol-Version {version}")
        if v.sessionless or era:
            return False
        if v.cap_session and session is not None and len(session) > SESSION_ID_CAP:
            return await _answer(send, v.cap_session, b"session id too long")
        if session is not None and not is_well_formed(session) and v.echo_malformed_session:
            return await _answer(send, 400, b"bad session", {"mcp-session-id": session})
        if session is not None and is_well_formed(session) and not self.live(session):
            if v.delete_again_200 and method == "DELETE":
                return await _answer(send, 200, b"")
            if v.unknown_session_status is not None:
                return await self.unknown(send, method, rpc)
        if method == "GET":
            return await self.refuse_get(send, session, leid, receive)
        return False

    async def refuse_get(self, send, session, leid, receive=None) -> bool:
        v = self.v
        if leid is not None and not is_well_formed(leid) and v.malformed_event_500:
            return await _answer(send, 500, b"internal error")
        if leid is not None and session is None and v.orphan_mints:
            minted = self.facade.apply(a.Initialize()).session
            return await _answer(send, 200, b": resumed\n\n", {"mcp-session-id": minted}, "text/event-stream")
        if leid is None and session is not None and self.live(session):
            if v.get_silent:
                while receive is not None and (await receive())["type"] != "http.disconnect":
                    pass
                return True
            if v.get_status is not None:
                return await _answer(send, v.get_status, b"not acceptable")
        if leid is not None and v.ring and not v.ring_gap and session is not None and self.live(session) and self.evicted(leid):
            return await _error(send, 400, None, -32002, "that event is no longer retained")
        return False

    async def unknown(self, send, method, rpc) -> bool:
        status = self.v.unknown_session_status
        if status == 200 and method == "POST" and isinstance(rpc, dict) and "id" in rpc:
            body = json.dumps({"jsonrpc": "2.0", "id": rpc["id"], "result": {"tools": []}}).encode()
            return await _answer(send, 200, body, {}, "application/json")
        if status == 200 and method == "GET":
            return await _answer(send, 200, b"", {}, "text/event-stream")
        return await _answer(send, status, b"")

    # -- what the façade sees -----------------------------------------------------------

    def rewrite(self, scope, method, headers, rpc, era=False):
        session = headers.get("mcp-session-id")
        leid = headers.get("last-event-id")
        if self.v.sessionless or era:
            session = None if isinstance(rpc, dict) and rpc.get("method") == "initialize" else self.hidden
            dropped = ("mcp-session-id", "last-event-id", "mcp-protocol-version")  # the façade speaks the session era
            headers = {k: v for k, v in headers.items() if k not in dropped}
            if session is not None:
                headers["mcp-session-id"] = session
        if self.v.any_version:
            headers = {k: v for k, v in headers.items() if k != "mcp-protocol-version"}
        if method == "GET" and leid is not None and self.v.ring_gap and session and self.live(session) and self.evicted(leid):
            headers["last-event-id"] = self.oldest_cursor(leid)
        kind = "other"
        if method == "POST" and isinstance(rpc, dict) and "id" in rpc and "method" in rpc:
            kind = "post"
        elif method == "GET":
            kind = "resume" if leid is not None else "session-get"
        if method == "POST" and isinstance(rpc, dict) and "method" not in rpc:
            self.open_requests.pop(str(rpc.get("id")), None)
        raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
        return {**scope, "headers": raw}, _Request(kind, session, leid, rpc if isinstance(rpc, dict) else None,
                                                   era_2026=era)

    def wrap(self, send, request: _Request):
        state = {"json": False, "status": 200, "done": False, "first": True}

        async def wrapped(message) -> None:
            if state["done"]:
                return
            if message["type"] == "http.response.start":
                await self.start(send, message, request, state)
                return
            chunk = message.get("body", b"")
            frames = [_frame(part) for part in chunk.decode().split("\n\n") if part.strip()] if state["sse"] else []
            if not state["sse"]:
                await send({**message, "body": self.negotiated(request, chunk)})
                return
            for event_id, data, retry in frames:
                await self.frame(send, request, state, event_id, data, retry)
            if not message.get("more_body", False) and send in self.open_sse:
                self.open_sse.remove(send)
            if not message.get("more_body", False) and not state["done"]:
                if state["json"]:
                    await self.json_fallback(send, state)
                else:
                    await send({"type": "http.response.body", "body": b"", "more_body": False})

        return wrapped

    async def start(self, send, message, request, state) -> None:
        headers = dict((k.decode(), v.decode()) for k, v in message["headers"])
        state["sse"] = headers.get("content-type") == "text/event-stream"
        state["status"] = message["status"]
        if (self.v.sessionless or request.era_2026) and "mcp-session-id" in headers:
            self.hidden = headers.pop("mcp-session-id")
        if state["sse"] and request.kind == "post" and self.v.json_answers:
            state["json"] = True
            return
        await send({**message, "headers": [(k.encode(), v.encode()) for k, v in headers.items()]})
        if self.v.broadcast_all and state["sse"] and state["status"] == 200:
            self.open_sse.append(send)
        if request.kind == "session-get" and self.v.ids_on_get_only and state["status"] == 200:
            self.prime_get_stream(request.session)
        if request.kind == "session-get" and self.v.broadcast:
            for session, frame in list(self.open_requests.values()):
                if session == request.session:
                    await send({"type": "http.response.body", "body": frame, "more_body": True})
        if request.kind == "resume" and self.v.leak_replay and state["status"] == 200:
            await self.leak(send, request)

    async def frame(self, send, request, state, event_id, data, retry=None) -> None:
        v = self.v
        message = _parse(data.encode()) if data else None
        if data == "" and v.version == "2025-03-26":
            return
        if request.kind == "post":
            message = self.tools_filter(message)
            data = json.dumps(message) if message is not None else data
            if request.session and data:
                self.delivered.setdefault(request.session, []).append((event_id, data))
            if isinstance(message, dict) and "method" in message and "id" in message:
                rid = str(message["id"])
                self.open_requests[rid] = (request.session, _encode(event_id, data))
                request.carried.append(rid)
            if _is_response(message) and request.rpc and message.get("id") == request.rpc.get("id"):
                self.schedule_stream_expiry(event_id)
            if state["json"]:
                if _is_response(message) and message.get("id") == request.rpc.get("id"):
                    await self.json_answer(send, state, message)
                return
            if v.ids_on_get_only and not data:
                return  # no priming event where there are no ids
            if v.ids_on_get_only:
                event_id = None
        if request.kind == "resume" and data:
            if v.reserialise:
                data = json.dumps(json.loads(data), sort_keys=True, separators=(",", ":"))
            if v.repeat_replayed and state["first"]:
                state["first"] = False
                await send({"type": "http.response.body", "body": _encode(event_id, data), "more_body": True})
        if request.kind == "session-get" and isinstance(message, dict) and "method" in message and "id" in message:
            if str(message["id"]) in self.open_requests and not v.broadcast:
                return  # still on an open connection: never sent twice (B21)
            if v.ping_first:
                ping = {"jsonrpc": "2.0", "id": f"ping-{message['id']}", "method": "ping"}
                await send({"type": "http.response.body", "body": _encode(None, json.dumps(ping)), "more_body": True})
            if v.cancel_on_resume:
                data = json.dumps(self.cancel(message))
            elif v.delay_reemit:
                await asyncio.sleep(v.delay_reemit)
        await send({"type": "http.response.body", "body": _encode(event_id, data, retry), "more_body": True})
        if v.broadcast_all and request.kind in ("post", "session-get") and isinstance(message, dict) and "method" in message:
            await self.to_every_stream(send, _encode(event_id, data))

    async def to_every_stream(self, own, frame: bytes) -> None:
        """``broadcast_all``: the frame on every other open SSE response, of any session."""
        for other in list(self.open_sse):
            if other is own:
                continue
            try:
                await other({"type": "http.response.body", "body": frame, "more_body": True})
            except Exception:  # that response has ended
                self.open_sse.remove(other)

    async def json_answer(self, send, state, message) -> None:
        headers = [(b"content-type", b"application/json")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": json.dumps(message).encode(), "more_body": False})
        state["done"] = True

    async def json_fallback(self, send, state) -> None:
        await send({"type": "http.response.start", "status": 202, "headers": []})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        state["done"] = True

    async def leak(self, send, request) -> None:
        own = request.cursor.rpartition("/")[0]
        for event_id, data in self.delivered.get(request.session or "", []):
            if event_id.rpartition("/")[0] != own:
                await send({"type": "http.response.body", "body": _encode(event_id, data), "more_body": True})

    def prime_get_stream(self, session: str | None) -> None:
        """A priming event (an id, empty data) at the start of the new GET stream."""
        streams = [k for k, r in self.server.streams.items() if r.session == session and k.startswith("get-") and r.connected]
        if streams:
            self.facade.emit(streams[-1], None)

    def negotiated(self, request: _Request, chunk: bytes) -> bytes:
        """The initialize answer with this variant's revision."""
        revision = ERA_2026 if self.v.era_2026 else self.v.version
        message = _parse(chunk)
        if revision is None or not (request.rpc or {}).get("method") == "initialize" or not isinstance(message, dict):
            return chunk
        if isinstance(message.get("result"), dict):
            message["result"]["protocolVersion"] = revision
        return json.dumps(message).encode()

    def tools_filter(self, message):
        if not (self.v.json_answers or self.v.era_2026) or not isinstance(message, dict):
            return message
        result = message.get("result")
        if isinstance(result, dict) and isinstance(result.get("tools"), list):
            tools = [t for t in result["tools"] if t.get("name") not in ASKING_TOOLS]
            return {**message, "result": {**result, "tools": tools}}
        return message

    def cancel(self, message: dict) -> dict:
        request = str(message["id"])
        if request in self.server.request_session and request in self.server.sessions[self.server.request_session[request]].pending:
            self.facade.apply(a.CancelRequest(request))
        waiting = self.facade.answers.pop(request, None)
        if waiting is not None and not waiting.done():
            waiting.set_result({"result": "cancelled"})
        params = {"requestId": message["id"], "reason": "the connection carrying it dropped"}
        return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}

    # -- server-side bookkeeping ------------------------------------------------------------

    def live(self, session: str) -> bool:
        record = self.server.sessions.get(session)
        return record is not None and record.live

    def stream_events(self, event_id: str) -> list[str]:
        record = self.server.streams.get(event_id.rpartition("/")[0])
        return [e for e, _ in record.events] if record else []

    def evicted(self, event_id: str) -> bool:
        ids = self.stream_events(event_id)
        return event_id in ids and ids.index(event_id) < len(ids) - self.v.ring

    def oldest_cursor(self, event_id: str) -> str:
        ids = self.stream_events(event_id)
        return ids[len(ids) - self.v.ring - 1]

    def schedule_stream_expiry(self, event_id: str | None) -> None:
        if self.v.stream_ttl is None or not event_id:
            return
        stream = event_id.rpartition("/")[0]
        asyncio.get_running_loop().call_later(self.v.stream_ttl + 0.05, self.expire_stream, stream)

    def expire_stream(self, stream: str) -> None:
        record = self.server.streams.get(stream)
        if record is not None and record.retained and not record.open and self.live(record.session):
            self.facade.apply(a.ExpireStream(stream))

    def touch(self, session: str | None) -> None:
        if self.v.session_ttl is None or session is None or not self.live(session):
            return
        if session in self.timers:
            self.timers[session].cancel()
        loop = asyncio.get_running_loop()
        self.timers[session] = loop.call_later(self.v.session_ttl, self.expire_session, session)

    def expire_session(self, session: str) -> None:
        if self.live(session):
            self.facade.apply(a.ExpireSession(session))


@contextmanager
def serving_variant(variant: Variant) -> Iterator[str]:
    """Serve ``variant`` on 127.0.0.1; yields the MCP endpoint URL."""
    with serving(VariantApp(variant)) as url:
        yield url


# -- helpers ------------------------------------------------------------------------------


ERA_METHODS = frozenset({"initialize", "server/discover", "tools/list", "tools/call", "ping"})
"""The requests a 2026-07-28 variant serves; any other gets 404 and -32601 (F14)."""


def _era_problem(headers: dict[str, str], rpc) -> str | None:
    if not isinstance(rpc, dict):
        return None
    version = headers.get("mcp-protocol-version")
    if version != ERA_2026:
        return f"UnsupportedProtocolVersion: {version!r}, this server speaks {ERA_2026} only"
    if "method" not in rpc:
        return None
    meta = (rpc.get("params") or {}).get("_meta") if isinstance(rpc.get("params"), dict) else None
    if not isinstance(meta, dict) or meta.get(META_VERSION) != version:
        return "HeaderMismatch: MCP-Protocol-Version and _meta protocolVersion differ"
    if headers.get("mcp-method") != rpc.get("method"):
        return "HeaderMismatch: Mcp-Method"
    if rpc.get("method") == "tools/call" and headers.get("mcp-name") != rpc["params"].get("name"):
        return "HeaderMismatch: Mcp-Name"
    return None


def _is_response(message) -> bool:
    return isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message)


def _frame(part: str) -> tuple[str | None, str, str | None]:
    """One SSE event's id, data and retry field."""
    event_id, data, retry = None, [], None
    for line in part.split("\n"):
        name, _, value = line.partition(": ")
        if name == "id":
            event_id = value
        elif name == "retry":
            retry = value
        elif name == "data":
            data.append(value)
        elif line.startswith("data:"):
            data.append(line[5:])
    return event_id, "\n".join(data), retry


def _encode(event_id: str | None, data: str, retry: str | None = None) -> bytes:
    head = (f"id: {event_id}\n" if event_id else "") + (f"retry: {retry}\n" if retry is not None else "")
    return f"{head}data: {data}\n\n".encode()


def _parse(body: bytes):
    try:
        return json.loads(body) if body else None
    except ValueError:
        return None


async def _read(receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def _replaying(body: bytes, receive):
    sent = False

    async def replayed():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


async def _answer(send, status: int, body: bytes, headers: dict | None = None, content_type: str = "text/plain") -> bool:
    raw = [(b"content-type", content_type.encode())] if body or content_type != "text/plain" else []
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
    return True


async def _error(send, status: int, rpc, code: int, text: str) -> bool:
    rid = rpc.get("id") if isinstance(rpc, dict) else None
    body = json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": text}}).encode()
    return await _answer(send, status, body, {}, "application/json")
