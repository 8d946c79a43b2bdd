"""A recording reverse proxy for a Streamable HTTP server (an ASGI app for uvicorn).

``RecordingProxy(upstream)`` forwards every request to the upstream origin (same
path and query), streams every response back unchanged as it arrives (SSE
events are passed on chunk by chunk, never buffered; headers are kept except
the hop-by-hop ones of RFC 9110 §7.6.1), and records each exchange as a
``records.Record``: the request, the response head, each SSE event with the
second it arrived, a JSON body, and how it ended (``End.CLOSED`` when the
server ended it, ``End.DROPPED`` when the client went away first, ``End.ERROR``
when the upstream could not be reached or broke).

Waits are bounded both ways: connecting to the upstream and its response head
(``ProxyTimeouts``); a request body larger than ``max_body`` bytes is refused
413 without being forwarded. A stream may stay quiet as long as the client
keeps reading it (SSE streams are long-lived by design, MCP B16).

``recorder`` callbacks (``Recorder``) see each exchange start, each event, and
its end, in order; the JSON-lines writer and the live checker are recorders.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

import httpx

from mcp_resume.model.http.asgi import read_body
from mcp_resume.model.http.client import SseStreamReader, retrieve_exception, tls_context
from mcp_resume.model.http.evidence import End, ErrorKind, Exchange, SseEvent
from mcp_resume.model.traffic.records import Record, json_or_text
from mcp_resume.model.traffic.recording import Fanout

HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding",
    "upgrade", "host", "content-length",
})
"""Headers that describe one connection, not the message: never forwarded."""
MAX_BODY_BYTES = 10_000_000
MAX_RECORDED_BODY_CHARS = 1_000_000


@dataclass(frozen=True)
class ProxyTimeouts:
    """Seconds: ``connect`` to the upstream, ``head`` for its response head after sending."""

    connect: float = 10.0
    head: float = 60.0


class Recorder(Protocol):
    def started(self, record: Record) -> None: ...
    def event(self, record: Record, event: SseEvent) -> None: ...
    def ended(self, record: Record) -> None: ...


_UNRECORDED = Fanout()
"""The recorder of exchanges beside the MCP endpoint: none (they are forwarded, not recorded)."""


CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "x-api-key"})
"""Request headers whose values a record never keeps (``MASKED`` instead): they are forwarded, not written."""

MASKED = "(masked by mcp-resume)"


class RecordingProxy:
    """ASGI app forwarding to ``upstream`` (an ``http(s)://host:port[/path]`` URL, https verified
    against the system's trust store): every request goes to its origin; only those to its path
    (the MCP endpoint) are recorded. ``headers`` (``proxy --header``) are added to each request
    that does not carry them; their values and those of ``CREDENTIAL_HEADERS`` are forwarded but
    recorded as ``MASKED``. Raises ``ValueError`` for an upstream that is not http(s)."""

    def __init__(self, upstream: str, recorder: Recorder, timeouts: ProxyTimeouts = ProxyTimeouts(),
                 max_body: int = MAX_BODY_BYTES, headers: tuple[tuple[str, str], ...] = ()) -> None:
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"upstream must be an http:// or https:// URL, got {upstream!r}")
        if parts.username is not None or parts.password is not None:  # not echoed: it holds a credential
            raise ValueError("the upstream URL holds credentials (user:password@): give them with --header instead")
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.path = parts.path.rstrip("/") or None  # None: no path given, every request is the endpoint
        self.recorder = recorder
        self.timeouts = timeouts
        self.max_body = max_body
        self.headers = headers
        self.masked = CREDENTIAL_HEADERS | {name.lower() for name, _ in headers}
        self.clock_zero = time.monotonic()
        self._count = 0
        self._client: httpx.AsyncClient | None = None

    def now(self) -> float:
        """Seconds since the proxy started (the records' clock)."""
        return time.monotonic() - self.clock_zero

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._forward(scope, receive, send)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- one exchange ------------------------------------------------------------------

    async def _forward(self, scope, receive, send) -> None:
        body, too_large = await read_body(receive, self.max_body)
        record = self._start(scope, body)
        if too_large:
            await self._refuse(send, record, 413, f"request body larger than {self.max_body} bytes")
            return
        headers = [(k, v) for k, v in _headers(scope) if k not in HOP_BY_HOP]
        sent = {k for k, _ in headers}
        headers += [(name.lower(), value) for name, value in self.headers if name.lower() not in sent]
        client = self._http()
        try:
            request = client.build_request(record.exchange.method, record.exchange.url, headers=headers, content=body)
            response = await asyncio.wait_for(client.send(request, stream=True), self.timeouts.connect + self.timeouts.head)
        except asyncio.TimeoutError:
            await self._refuse(send, record, 504, f"no response head from the upstream within "
                                                  f"{self.timeouts.connect + self.timeouts.head:g} s", ErrorKind.FIRST_BYTE)
            return
        except httpx.HTTPError as error:
            await self._refuse(send, record, 502, f"upstream unreachable: {error or type(error).__name__}", ErrorKind.CONNECT)
            return
        try:
            await self._stream_back(response, record, receive, send)
        finally:  # recorded first: a shutdown may cancel the close below
            record.ended = self.now()
            record.exchange.seconds = record.ended - record.started
            self._recorder(record).ended(record)
            await response.aclose()

    def _start(self, scope, body: bytes) -> Record:
        """The record of a new exchange, told to the recorder; a request beside the MCP endpoint
        gets number 0 and is forwarded unrecorded."""
        recorded = self.path is None or scope["path"].rstrip("/") == self.path
        path = scope.get("raw_path") or scope["path"].encode()
        query = scope.get("query_string") or b""
        url = self.origin + path.decode("latin-1") + (("?" + query.decode("latin-1")) if query else "")
        headers = {k: MASKED if k in self.masked else v for k, v in _headers(scope)}
        number = self._count + 1 if recorded else 0
        exchange = Exchange(f"exchange {number}", scope["method"], url, request_headers=headers,
                            request_body=json_or_text(body.decode("utf-8", errors="replace")))
        record = Record(number, self.now(), exchange)
        if recorded:
            self._count = number
        self._recorder(record).started(record)
        return record

    def _recorder(self, record: Record) -> Recorder:
        return self.recorder if record.number else _UNRECORDED

    async def _stream_back(self, response: httpx.Response, record: Record, receive, send) -> None:
        x = record.exchange
        record.head = self.now()
        x.status = response.status_code
        x.response_headers = {k.lower(): v for k, v in response.headers.items()}
        kept = [(k, v) for k, v in response.headers.raw if k.decode("latin-1").lower() not in HOP_BY_HOP]
        await send({"type": "http.response.start", "status": response.status_code, "headers": kept})
        sse = SseStreamReader() if x.content_type == "text/event-stream" else None
        body: list[str] = []
        gone = asyncio.ensure_future(_disconnected(receive))
        chunks = response.aiter_raw().__aiter__()
        chunk = None
        try:
            while True:
                chunk = asyncio.ensure_future(chunks.__anext__())
                chunk.add_done_callback(retrieve_exception)
                done, _ = await asyncio.wait({chunk, gone}, return_when=asyncio.FIRST_COMPLETED)
                if gone in done:
                    chunk.cancel()
                    x.end = End.DROPPED
                    return
                try:
                    data = chunk.result()
                except StopAsyncIteration:
                    break
                await send({"type": "http.response.body", "body": data, "more_body": True})
                self._note(record, data, sse, body)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            x.end = End.CLOSED
        except httpx.HTTPError as error:
            x.fail(ErrorKind.NETWORK, f"the upstream connection broke: {error or type(error).__name__}")
        except asyncio.CancelledError:  # the proxy is stopping (its graceful shutdown ran out): the
            x.end = End.DROPPED          # connection is cut; end quietly rather than as an ASGI error
        finally:
            gone.cancel()
            if chunk is not None:
                chunk.cancel()
            if sse is None and body:
                x.body = json_or_text("".join(body))

    def _note(self, record: Record, data: bytes, sse, body: list[str]) -> None:
        text = data.decode("utf-8", errors="replace")
        if sse is None:
            if sum(map(len, body)) < MAX_RECORDED_BODY_CHARS:
                body.append(text)
            return
        events = sse.feed(text)
        record.exchange.retry = sse.retry
        for event in events:
            record.exchange.events.append(event)
            record.arrivals.append(self.now())
            self._recorder(record).event(record, event)

    async def _refuse(self, send, record: Record, status: int, reason: str, kind: ErrorKind = ErrorKind.PROTOCOL) -> None:
        record.exchange.fail(kind, reason)
        record.exchange.status = status
        payload = f"mcp-resume proxy: {reason}\n".encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
        await send({"type": "http.response.body", "body": payload, "more_body": False})
        record.ended = self.now()
        self._recorder(record).ended(record)

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            timeout = httpx.Timeout(connect=self.timeouts.connect, read=None, write=self.timeouts.head, pool=self.timeouts.connect)
            self._client = httpx.AsyncClient(timeout=timeout, verify=tls_context(),
                                             limits=httpx.Limits(max_connections=None, max_keepalive_connections=20))
        return self._client

    async def _lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _disconnected(receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _headers(scope) -> list[tuple[str, str]]:
    return [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope.get("headers", [])]
