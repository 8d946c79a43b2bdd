"""A bounded HTTP client for MCP Streamable HTTP, built on httpx and httpx-sse.

Every request is one ``Exchange`` (``model.http.evidence``): the client never
raises for what a server does. Refused connections, silence, broken SSE, wrong
content types, bodies that are not JSON and malformed ``Mcp-Session-Id``
headers all come back as an exchange with ``error_kind`` and a one-line
``error``.

Every wait is bounded (``Timeouts``, in seconds): the TCP connect, the first byte
of the response, the idle time between two SSE events and the whole exchange.
A GET stream that never ends is read until it has been quiet for the idle
bound given to that call (``idle=``), then the client closes the connection.

Header values are sent as given, so a scenario can present any combination of
``Mcp-Session-Id`` and ``Last-Event-ID``, absent (``None``), malformed, unknown or
another session's (MCP B24/B30/B31, D29-D31, D37-D41).
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import os
import secrets
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

# httpx-sse's incremental line splitter (only CR, LF and CRLF end a line, as SSE
# requires); the dependency is pinned below 0.5 in pyproject.toml.
from httpx_sse._decoders import SSELineDecoder


from mcp_resume.model.http.evidence import (
    REQUEST_HEADERS_KEPT,
    RESPONSE_HEADERS_KEPT,
    End,
    ErrorKind,
    Exchange,
    SseEvent,
    summarize_message,
)

PROTOCOL_VERSION = "2025-11-25"
"""The MCP revision this client offers first (D42-D45: sent as MCP-Protocol-Version after initialize)."""
SESSIONLESS_VERSION = "2026-07-28"
"""The sessionless revision: every POST carries its version in a header and in ``_meta`` (F12),
and ``Mcp-Method`` / ``Mcp-Name`` headers (F16)."""
META_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
"""Required beside the version in every 2026-07-28 request's ``_meta`` (the per-request envelope)."""
META_CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"
"""2026-07-28 makes log notifications a per-request opt-in: without it a server sends none."""
CLIENT_INFO = {"name": "mcp-resume", "version": "0.1.0"}
CLIENT_CAPABILITIES = {"elicitation": {}, "sampling": {}}

ACCEPT_POST = "application/json, text/event-stream"  # MCP B4/D4
ACCEPT_GET = "text/event-stream"  # MCP B14
SSE_TYPE = "text/event-stream"
JSON_TYPE = "application/json"
MAX_BODY_BYTES = 1 << 20
"""Largest JSON or error body read, in bytes; a longer one fails the exchange."""

MAX_EVENT_CHARS = 1 << 20
"""Longest SSE event read, in characters; a longer one fails the exchange."""
MAX_EVENTS = 10_000
"""Most SSE events read in one exchange; more fail it (a server that floods)."""
CLOSE_WAIT_SECONDS = 2.0
"""How long a read waits for its connection to close, in seconds; the close goes on after it."""

SSE_FIELDS = ("data", "event", "id", "retry")

EventFilter = Callable[[SseEvent], bool]


@dataclass(frozen=True)
class Timeouts:
    """How long the client waits, in seconds.

    - ``connect``: for the TCP connection;
    - ``first_byte``: from sending the request to the response head;
    - ``idle``: between two SSE events of a stream the client waits on;
    - ``exchange``: for one whole request, from sending to the end of reading;
    - ``settle``: how long a stream must stay quiet before the client decides
      nothing more is coming (used where a stream does not end by itself).
    """

    connect: float = 5.0
    first_byte: float = 5.0
    idle: float = 5.0
    exchange: float = 20.0
    settle: float = 1.0

    def __post_init__(self) -> None:
        for name in ("connect", "first_byte", "idle", "exchange", "settle"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ValueError(f"bound {name} must be a positive number of seconds, got {value!r}")

    @classmethod
    def from_timeout(cls, seconds: float) -> "Timeouts":
        """Timeouts derived from one ``--timeout``: every wait ``seconds``, a whole
        exchange ``3 * seconds`` (at least 10 s), settling ``min(1, seconds)``.

        Raises ``ValueError`` for a value that is not a positive finite number.
        """
        if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"timeout must be a positive number of seconds, got {seconds!r}")
        return cls(seconds, seconds, seconds, max(10.0, 3 * seconds), min(1.0, seconds))


def tls_context() -> ssl.SSLContext:
    """The TLS settings of an ``https://`` target: certificates verified against the system's trust
    store (OpenSSL's default paths; ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` move them), made once per
    store. Loading a store costs about 20 ms of CPU, which each client paid again, and ``verify``
    makes a client per scenario."""
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _tls_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    return ssl.create_default_context()


class StreamableHttpClient:
    """A client of one MCP endpoint (``url``), recording every exchange in ``exchanges``.

    Use it as an async context manager. JSON-RPC ids are strings unique to this
    client (``next_id``), so two clients never collide unless told to. An empty
    ``protocol_version`` sends no ``MCP-Protocol-Version`` header; ``version_on_get = False``
    sends none on GET (for a server that refuses the negotiated one there, C40). ``headers``
    (``(name, value)`` pairs, e.g. ``Authorization``) go with every request and are never kept
    in an exchange, so no report, trace or curl script holds their values; the MCP headers the
    client sets itself win over them. An ``https://`` URL is verified against the system's
    trust store (``tls_context``).
    """

    def __init__(self, url: str, bounds: Timeouts | None = None, *, protocol_version: str = PROTOCOL_VERSION,
                 headers: tuple[tuple[str, str], ...] = ()):
        self.url = url
        self.bounds = bounds or Timeouts()
        self.protocol_version = protocol_version
        self.extra_headers = headers  # sent on every request, never kept in an exchange (secrets)
        self.version_on_get = True
        self.exchanges: list[Exchange] = []
        self._prefix = f"mr-{secrets.token_hex(3)}"
        self._counter = 0
        timeout = httpx.Timeout(
            connect=self.bounds.connect, read=None, write=self.bounds.connect, pool=self.bounds.connect
        )
        self._http = httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False, verify=tls_context())

    async def __aenter__(self) -> "StreamableHttpClient":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    def next_id(self) -> str:
        """A JSON-RPC request id not used before by this client."""
        self._counter += 1
        return f"{self._prefix}-{self._counter}"

    # -- MCP messages -----------------------------------------------------------

    async def initialize(self, label: str = "initialize", *, request_id: Any = None) -> Exchange:
        """POST ``initialize`` without a session id (branch 5), declaring the
        elicitation and sampling capabilities; reads until its response."""
        params = {"protocolVersion": self.protocol_version, "capabilities": CLIENT_CAPABILITIES, "clientInfo": CLIENT_INFO}
        return await self.request(None, "initialize", params, label=label, request_id=request_id)

    async def request(
        self,
        session: str | None,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        label: str,
        request_id: Any = None,
        stop: EventFilter | None = None,
        idle: float | None = None,
    ) -> Exchange:
        """POST a JSON-RPC request and read until its response, ``stop`` or a bound.

        ``request_id`` defaults to ``next_id()``; the id used is in ``Exchange.sent``.
        """
        rid = self.next_id() if request_id is None else request_id
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            body["params"] = params
        return await self.send("POST", label=label, session=session, body=body, await_id=rid, stop=stop, idle=idle)

    async def call_tool(
        self,
        session: str | None,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        label: str,
        request_id: Any = None,
        stop: EventFilter | None = None,
        idle: float | None = None,
    ) -> Exchange:
        """POST ``tools/call`` of ``name`` (with a progress token) and read its stream."""
        rid = self.next_id() if request_id is None else request_id
        params = {"name": name, "arguments": arguments or {}, "_meta": {"progressToken": f"{rid}-progress"}}
        return await self.request(session, "tools/call", params, label=label, request_id=rid, stop=stop, idle=idle)

    async def notify(
        self, session: str | None, method: str, params: dict[str, Any] | None = None, *, label: str
    ) -> Exchange:
        """POST a JSON-RPC notification (expects 202, MCP B6/C6)."""
        body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = params
        return await self.send("POST", label=label, session=session, body=body)

    async def respond(self, session: str | None, request_id: Any, result: dict[str, Any], *, label: str) -> Exchange:
        """POST the client's JSON-RPC response to a server request (expects 202)."""
        body = {"jsonrpc": "2.0", "id": request_id, "result": result}
        return await self.send("POST", label=label, session=session, body=body)

    async def get(
        self,
        *,
        label: str,
        session: str | None = None,
        last_event_id: str | None = None,
        stop: EventFilter | None = None,
        idle: float | None = None,
        until: asyncio.Event | None = None,
    ) -> Exchange:
        """GET the endpoint with the two reconnect headers as given (``None`` = absent).

        Reads the SSE stream until it ends, ``stop`` matches an event (the client
        then drops the connection), or no event came for ``idle`` seconds
        (default: ``bounds.settle``). With ``until``, the idle wait starts only once
        that event is set: a stream watched while other traffic goes on is read for
        as long as that traffic lasts, within the exchange bound.
        """
        return await self.send(
            "GET",
            label=label,
            session=session,
            last_event_id=last_event_id,
            stop=stop,
            idle=self.bounds.settle if idle is None else idle,
            until=until,
        )

    async def delete(self, session: str | None, *, label: str = "delete session") -> Exchange:
        """DELETE the session (MCP B35/D37-D41)."""
        return await self.send("DELETE", label=label, session=session)

    # -- one exchange -------------------------------------------------------------

    async def send(
        self,
        method: str,
        *,
        label: str,
        session: str | None = None,
        last_event_id: str | None = None,
        body: dict[str, Any] | None = None,
        await_id: Any = None,
        stop: EventFilter | None = None,
        idle: float | None = None,
        until: asyncio.Event | None = None,
        headers: dict[str, str] | None = None,
    ) -> Exchange:
        """Send one request and read its answer within the bounds; never raises for
        what the server does. The exchange is appended to ``exchanges``. ``headers`` (lower-case
        names) replace the ones the client would send: a request made wrong on purpose."""
        body = self._shaped(body)
        headers = {**self._headers(method, session, last_event_id, body), **(headers or {})}
        exchange = Exchange(label, method, self.url, request_headers=_kept(headers, REQUEST_HEADERS_KEPT))
        if body is not None:
            exchange.sent = summarize_message(body)
            exchange.request_body = body
        self.exchanges.append(exchange)
        started = exchange.started = time.monotonic()
        deadline = started + self.bounds.exchange
        try:
            await self._run(exchange, method, headers, body, deadline, _Reading(await_id, stop, idle or self.bounds.idle, until))
        except Exception as error:  # last resort: a server must never produce a traceback
            exchange.fail(ErrorKind.PROTOCOL, f"unexpected {type(error).__name__}: {error}")
        exchange.ended = time.monotonic()
        exchange.seconds = exchange.ended - started
        return exchange

    def _headers(self, method: str, session: str | None, last_event_id: str | None, body: Any) -> dict[str, str]:
        headers = {name.lower(): value for name, value in self.extra_headers}
        headers["accept"] = ACCEPT_GET if method == "GET" else ACCEPT_POST
        if body is not None:
            headers["content-type"] = JSON_TYPE
        if session is not None:
            headers["mcp-session-id"] = session
        if last_event_id is not None:
            headers["last-event-id"] = last_event_id
        if self.protocol_version == SESSIONLESS_VERSION:
            headers.update(_sessionless_headers(method, body))
        elif self.protocol_version and not (isinstance(body, dict) and body.get("method") == "initialize") \
                and (method != "GET" or self.version_on_get):
            headers["mcp-protocol-version"] = self.protocol_version
        return headers

    def _shaped(self, body: Any) -> Any:
        """``body`` in the request shape of the revision spoken: under 2026-07-28 a request or
        notification carries the per-request envelope in ``params._meta``: the version (F12, the
        same as the header), the client's capabilities (required beside it), its info, and the
        lowest log level it wants (every level: a tool's log notifications are what verify reads).
        An envelope key ``body`` already carries is kept (a request made wrong on purpose)."""
        if self.protocol_version != SESSIONLESS_VERSION or not isinstance(body, dict) or "method" not in body:
            return body
        params = dict(body.get("params") or {})
        envelope = {META_VERSION_KEY: self.protocol_version, META_CAPABILITIES_KEY: CLIENT_CAPABILITIES,
                    META_CLIENT_INFO_KEY: CLIENT_INFO, META_LOG_LEVEL_KEY: "debug"}
        params["_meta"] = {**envelope, **(params.get("_meta") or {})}
        return {**body, "params": params}

    async def _run(self, exchange, method, headers, body, deadline, reading: "_Reading") -> None:
        try:
            request = self._http.build_request(method, self.url, headers=headers, json=body)
        except (httpx.HTTPError, UnicodeError, ValueError) as error:
            exchange.fail(ErrorKind.PROTOCOL, f"cannot build the request: {error}")
            return
        response = await self._open(exchange, request)
        if response is None:
            return
        try:
            await self._read(exchange, response, deadline, reading)
        finally:
            await _close_quietly(response)

    async def _open(self, exchange: Exchange, request: httpx.Request) -> httpx.Response | None:
        wait = self.bounds.connect + self.bounds.first_byte
        try:
            response = await asyncio.wait_for(self._http.send(request, stream=True), wait)
        except asyncio.TimeoutError:
            exchange.fail(ErrorKind.FIRST_BYTE, f"no response head within {wait:g} s of sending the request "
                                                 f"(connect {self.bounds.connect:g} s + first byte {self.bounds.first_byte:g} s)")
            return None
        except httpx.ConnectTimeout:
            exchange.fail(ErrorKind.CONNECT, f"no connection within {self.bounds.connect:g} s")
            return None
        except httpx.ConnectError as error:
            exchange.fail(ErrorKind.CONNECT, f"cannot connect to {_address(request.url)}: {_connect_reason(error, request.url)}")
            return None
        except httpx.HTTPError as error:
            exchange.fail(ErrorKind.NETWORK, f"no valid response head: {_reason(error)}")
            return None
        exchange.status = response.status_code
        exchange.head = time.monotonic()
        exchange.response_headers = _kept(response.headers, RESPONSE_HEADERS_KEPT)
        return response

    async def _read(self, exchange, response, deadline, reading: "_Reading") -> None:
        content_type = exchange.content_type
        if content_type == SSE_TYPE:
            await self._read_sse(exchange, response, deadline, reading)
            return
        raw = await self._read_body(exchange, response, deadline)
        if raw is None:
            return
        exchange.end = End.CLOSED
        if content_type == JSON_TYPE and raw.strip():
            try:
                exchange.body = json.loads(raw)
            except ValueError:
                exchange.fail(ErrorKind.NOT_JSON, f"{JSON_TYPE} body is not JSON: {_snippet(raw)!r}")
            return
        if raw.strip():
            exchange.body = _snippet(raw)
        if _needs_stream_or_json(exchange):
            shown = content_type or "no content type"
            exchange.fail(
                ErrorKind.CONTENT_TYPE, f"HTTP {exchange.status} with {shown}, expected {_expected_types(exchange)}"
            )

    async def _read_body(self, exchange: Exchange, response: httpx.Response, deadline: float) -> str | None:
        chunks: list[bytes] = []
        size = 0
        iterator = response.aiter_bytes()
        while True:
            left = deadline - time.monotonic()
            try:
                chunk = await asyncio.wait_for(anext(iterator), max(0.0, min(left, self.bounds.idle)))
            except StopAsyncIteration:
                return b"".join(chunks).decode("utf-8", errors="replace")
            except asyncio.TimeoutError:
                exchange.fail(ErrorKind.NETWORK, "the body did not finish within its bound")
                return None
            except httpx.HTTPError as error:
                exchange.fail(ErrorKind.NETWORK, f"the connection broke while reading the body: {_reason(error)}")
                return None
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                exchange.fail(ErrorKind.PROTOCOL, f"body longer than {MAX_BODY_BYTES} bytes")
                return None
            chunks.append(chunk)

    async def _read_sse(self, exchange, response, deadline, reading: "_Reading") -> None:
        reader = _SseReader()
        chunks = _Chunks(response.aiter_text())
        opened = time.monotonic()
        try:
            while True:
                released = reading.released()
                now = time.monotonic()
                last_event = exchange.arrivals[-1] if exchange.arrivals else opened
                quiet_ends = math.inf if released is None else max(last_event, released) + reading.idle
                wait = min(deadline, quiet_ends) - now
                try:
                    if wait <= 0:
                        raise asyncio.TimeoutError
                    text = await chunks.next(wait, wake=reading.until if released is None else None)
                except StopAsyncIteration:
                    exchange.end = End.CLOSED
                    _check_stream_end(exchange, reader, reading.await_id)
                    return
                except asyncio.TimeoutError:
                    exchange.end = End.DEADLINE if time.monotonic() >= deadline else End.IDLE
                    _check_stream_end(exchange, reader, reading.await_id)
                    return
                except httpx.HTTPError as error:
                    exchange.fail(ErrorKind.NETWORK, f"the connection broke while reading events: {_reason(error)}")
                    return
                if text is not None and _take_events(exchange, reader, text, reading):
                    return
        finally:
            await chunks.close()


def _take_events(exchange: Exchange, reader: "_SseReader", text: str, reading: "_Reading") -> bool:
    """Add the events ``text`` completes to ``exchange``; True when the reading ends there."""
    events = reader.feed(text)
    exchange.retry = reader.retry
    if reader.pending_chars > MAX_EVENT_CHARS:
        exchange.fail(ErrorKind.PROTOCOL, f"an SSE event longer than {MAX_EVENT_CHARS} characters")
        return True
    for event in events:
        if len(exchange.events) >= MAX_EVENTS:
            exchange.fail(ErrorKind.PROTOCOL, f"more than {MAX_EVENTS} SSE events in one response")
            return True
        exchange.events.append(event)
        exchange.arrivals.append(time.monotonic())
        if event.data and event.message is None:
            exchange.fail(ErrorKind.NOT_JSON, f"SSE event data is not a JSON object: {_snippet(event.data)!r}")
            return True
        if reading.await_id is not None and event.is_response_to(reading.await_id):
            exchange.end = End.RESPONSE
            return True
        if reading.stop is not None and reading.stop(event):
            exchange.end = End.DROPPED
            return True
    return False


@dataclass
class _Reading:
    """How one response is read: up to the response to ``await_id``, up to the event ``stop``
    matches, or until quiet for ``idle`` seconds, counted once ``until`` is set (at once without it)."""

    await_id: Any
    stop: EventFilter | None
    idle: float
    until: asyncio.Event | None = None
    _released: float | None = None

    def released(self) -> float | None:
        """Since when the idle wait counts (``time.monotonic()``), or ``None`` while ``until`` is not set."""
        if self._released is None and (self.until is None or self.until.is_set()):
            self._released = time.monotonic()
        return self._released


class _Chunks:
    """A streamed response's text, chunk by chunk, each waited for at most a given time, or until
    an event is set. The read in flight is kept when the event comes first: cancelling it would
    close the stream."""

    def __init__(self, iterator) -> None:
        self._iterator = iterator
        self._next: asyncio.Future | None = None

    async def next(self, seconds: float, wake: asyncio.Event | None = None) -> str | None:
        """The next chunk, or ``None`` when ``wake`` was set first. Raises ``asyncio.TimeoutError``
        when neither came within ``seconds``, ``StopAsyncIteration`` at the end of the body and the
        transport's ``httpx.HTTPError`` as it comes."""
        if self._next is None:
            self._next = asyncio.ensure_future(anext(self._iterator))
        woken = asyncio.ensure_future(wake.wait()) if wake is not None else None
        try:
            done, _ = await asyncio.wait([f for f in (self._next, woken) if f is not None], timeout=seconds,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            if woken is not None:
                woken.cancel()
        if self._next in done:
            chunk, self._next = self._next, None
            return chunk.result()
        if woken is not None and woken in done:
            return None
        raise asyncio.TimeoutError

    async def close(self) -> None:
        """Cancel the read in flight, if any, and wait until it has ended."""
        pending, self._next = self._next, None
        if pending is None:
            return
        pending.cancel()
        await asyncio.wait([pending])
        if not pending.cancelled():
            pending.exception()  # retrieved: a read that failed as it was dropped is not logged


class _SseReader:
    """Text in, ``SseEvent`` out, following the WHATWG event-stream rules, except
    that an event's ``id`` is the id field *of that event* (``None`` without one)
    and a block with only an ``id`` field counts as an event with empty data (a
    bare cursor). A block cut off by the end of the stream is discarded.
    Remembers the first line that is not an SSE field (``stray_line``) and the
    last ``retry`` value read, in milliseconds, in any block (``retry``): a block
    with only that field makes no event."""

    def __init__(self) -> None:
        self._lines = SSELineDecoder()
        self.stray_line: str | None = None
        self.retry: int | None = None
        self._reset()

    def _reset(self) -> None:
        self.pending_chars = 0
        self._id: str | None = None
        self._event = ""
        self._data: list[str] | None = None
        self._retry: int | None = None

    def feed(self, text: str) -> list[SseEvent]:
        events = []
        self.pending_chars += len(text)
        for line in self._lines.decode(text):
            event = self._line(line.rstrip("\n"))
            if event is not None:
                events.append(event)
        return events

    def _line(self, line: str) -> SseEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            self._data = (self._data or []) + [value]
        elif name == "id" and "\0" not in value:
            self._id = value
        elif name == "event":
            self._event = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = self.retry = int(value)
        elif name not in SSE_FIELDS and self.stray_line is None:
            self.stray_line = line
        return None

    def _dispatch(self) -> SseEvent | None:
        if self._data is None and self._id is None:
            self._reset()
            return None
        event = _to_event(self._id or None, self._event or "message", "\n".join(self._data or []), self._retry)
        self._reset()
        return event


SseStreamReader = _SseReader
"""Incremental SSE parsing: ``SseStreamReader().feed(text)`` returns the events completed so far."""


def event_from_fields(event_id: str | None, kind: str, data: str, retry: int | None = None) -> SseEvent:
    """One ``SseEvent`` from its fields, with ``message`` parsed when ``data`` is a JSON object."""
    return _to_event(event_id, kind, data, retry)


def _to_event(event_id: str | None, kind: str, data: str, retry: int | None) -> SseEvent:
    message = None
    if data:
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = None
        message = parsed if isinstance(parsed, dict) else None
    return SseEvent(event_id, kind, data, retry, message)


def _check_stream_end(exchange: Exchange, reader: _SseReader, await_id: Any) -> None:
    """A stream that ended without the awaited response and held lines that are
    not SSE is broken SSE, not a server that closed a connection early."""
    if await_id is None or reader.stray_line is None:
        return
    if any(event.is_response_to(await_id) for event in exchange.events):
        return
    exchange.fail(ErrorKind.BROKEN_SSE, f"not an SSE stream: line {_snippet(reader.stray_line)!r} is no SSE field")


NAME_PARAMS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
"""The parameter each method's ``Mcp-Name`` header mirrors (F16)."""


def _sessionless_headers(method: str, body: Any) -> dict[str, str]:
    """The request headers 2026-07-28 requires of a POST (F12, F16); a GET or DELETE carries
    the version alone, so that a server of both eras can tell it from the session era's."""
    headers = {"mcp-protocol-version": SESSIONLESS_VERSION}
    if method != "POST":
        return headers
    if isinstance(body, dict) and isinstance(body.get("method"), str):
        headers["mcp-method"] = body["method"]
        params = body.get("params") if isinstance(body.get("params"), dict) else {}
        name = params.get(NAME_PARAMS.get(body["method"], ""))
        if isinstance(name, str):
            headers["mcp-name"] = name
    return headers


def _needs_stream_or_json(exchange: Exchange) -> bool:
    """A 2xx answer to a GET or to a POSTed request must be SSE (or JSON for a POST)."""
    if exchange.status is None or not 200 <= exchange.status < 300 or exchange.status == 202:
        return False
    if exchange.method == "GET":
        return True
    return exchange.method == "POST" and exchange.sent is not None and exchange.sent.startswith("request ")


def _expected_types(exchange: Exchange) -> str:
    return SSE_TYPE if exchange.method == "GET" else f"{JSON_TYPE} or {SSE_TYPE}"


def _kept(headers: Any, names: tuple[str, ...]) -> dict[str, str]:
    kept = {}
    for name in names:
        value = headers.get(name)
        if value is not None:
            kept[name] = value
    return kept


def _address(url: httpx.URL) -> str:
    """``host:port`` a request to ``url`` connects to, the scheme's default port written out."""
    return f"{url.host}:{url.port or (443 if url.scheme == 'https' else 80)}"


def _connect_reason(error: BaseException, url: httpx.URL) -> str:
    """Why a connection failed, in words: OpenSSL's answer to a server that speaks no TLS is
    ``WRONG_VERSION_NUMBER``, which says nothing to someone who typed https:// by habit."""
    reason = _reason(error)
    if url.scheme == "https" and "WRONG_VERSION_NUMBER" in reason.upper():
        return "the server there does not speak TLS (an http:// server? then write http://)"
    return reason


def _reason(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


def _snippet(text: str, limit: int = 60) -> str:
    text = text.strip().replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def _close_quietly(response: httpx.Response) -> None:
    """Close ``response``'s connection: the client's drop, which the server must see (a drop that
    never reaches it leaves its requests on a connection it thinks open). The wait is bounded by
    ``CLOSE_WAIT_SECONDS``; a close that takes longer (a loop held up by other work, a broken
    connection) goes on in the background rather than being cut off half done."""
    closing = asyncio.ensure_future(response.aclose())
    _CLOSING.add(closing)
    closing.add_done_callback(_CLOSING.discard)
    closing.add_done_callback(retrieve_exception)
    try:
        await asyncio.wait_for(asyncio.shield(closing), CLOSE_WAIT_SECONDS)
    except Exception:  # closing a broken connection may fail or hang; nothing is lost
        pass


_CLOSING: set[asyncio.Future] = set()
"""Closes still going on after their wait (a task nobody holds may be collected half done)."""


def retrieve_exception(future: asyncio.Future) -> None:
    """Take a finished future's exception, so that asyncio does not log it: a failed close, or a
    read cut at shutdown, is nothing to report (an ``add_done_callback`` callback)."""
    if not future.cancelled():
        future.exception()


