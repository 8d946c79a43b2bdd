"""Steps the verify scenarios share: fresh sessions, a stream with history, answers
to server requests, and the cleanup of every session a scenario opened.

A ``Driver`` wraps one ``StreamableHttpClient``; everything it sends is recorded
in the client's ``exchanges``, which become the evidence of one rule. When a
step the scenario needs fails (the server errs, a fixture tool does not do what
its name says), the driver raises ``Inconclusive`` with a one-line reason.
"""

from __future__ import annotations

import asyncio
import copy
import secrets
import time
from typing import Any

from mcp_resume.model.http.client import StreamableHttpClient
from mcp_resume.model.http.evidence import End, ErrorKind, Exchange, SseEvent
from mcp_resume.model.verify.answers import answer_to
from mcp_resume.model.verify.fixture_tools import (  # noqa: F401  (re-exported: the names verify drives)
    HISTORY_TOOLS,
    NAMES,
    RECONNECTION_TOOL,
    SERVER_REQUEST_TOOLS,
    ROLE_NEEDS,
    Role,
)
from mcp_resume.model.verify.roles import ToolUse, tools_for

FIXTURE_TOOLS = NAMES
GET_AFTER_CALL_SECONDS = 0.2
"""Pause between POSTing a call whose answer will be JSON and the GET that should carry
its server request, so that the server has issued the request first."""


class Inconclusive(Exception):
    """A scenario could not be driven to the point of judging; the message says why."""


class Driver:
    """Scenario steps over one client; ``tools`` are the names the server listed,
    ``uses`` the tools given for a role (``verify --tool``, ``model.verify.roles``)."""

    def __init__(self, client: StreamableHttpClient, tools: list[str], *, json_posts: bool = False,
                 uses: list[ToolUse] | None = None, unplayed: dict[str, str] | None = None):
        self.client = client
        self.tools = tools
        self.uses = list(uses or [])
        self.unplayed = {} if unplayed is None else unplayed  # shared by the run (``Capabilities.unplayed``)
        self.json_posts = json_posts
        self._sessions: list[str] = []
        self._deleted: set[str] = set()
        self._calls: list[asyncio.Task] = []

    @property
    def exchanges(self) -> list[Exchange]:
        return self.client.exchanges

    def event_ids_of(self, session: str | None) -> set[str]:
        """The event ids delivered so far on connections of ``session`` (its ``initialize``
        answer included)."""
        return {e.id for x in self.client.exchanges
                if session in (x.request_headers.get("mcp-session-id"), x.session_header)
                for e in x.events if e.id is not None}

    def tools_of(self, role: Role) -> list[ToolUse]:
        """The tools to call for ``role``: those given with ``--tool`` that have not failed to play
        it (``unplayed``), else the listed fixture tools."""
        uses = [use for use in self.uses if use.name not in self.unplayed]
        return tools_for(role, self.tools, uses)

    def not_playing(self, tool: ToolUse, what: str) -> None:
        """Record that the given ``tool`` did not do ``what`` its role needs: it drives no rule
        (``Capabilities.unplayed``), and from now on the run calls for its role what it would call
        without it (``tools_of``). The scenario goes on as without a given tool, so that a finding
        the rest of the run can make is not lost to a tool named for a role it does not play."""
        self.unplayed.setdefault(tool.name, what)

    async def call(self, session: str | None, tool: ToolUse, **options) -> Exchange:
        """POST ``tools/call`` of ``tool`` with its arguments (``options``: ``label``, ``request_id``, ``stop``, ``idle``)."""
        return await self.client.call_tool(session, tool.name, tool.arguments, **options)

    async def open_session(self, label: str) -> str | None:
        """``initialize`` + ``notifications/initialized``; the new session id
        (``None`` when the server issues none). Raises ``Inconclusive`` on failure."""
        exchange = await self.client.initialize(f"{label}: initialize")
        require(exchange, "initialize")
        if exchange.status != 200 or not _has_result(exchange):
            raise Inconclusive(f"{label}: initialize answered HTTP {exchange.status} without a result")
        self.client.protocol_version = negotiated_version(exchange) or self.client.protocol_version
        session = exchange.session_header
        if exchange.names_malformed_session:
            raise Inconclusive(f"{label}: initialize answered a malformed Mcp-Session-Id {session!r} (MCP B30)")
        if session is not None:
            self._sessions.append(session)
        notified = await self.client.notify(session, "notifications/initialized", label=f"{label}: initialized")
        require(notified, "notifications/initialized")
        return session

    def adopt(self, session: str) -> None:
        """Delete ``session`` at cleanup too (a session opened outside ``open_session``)."""
        self._sessions.append(session)

    async def history(self, session: str | None, label: str, *, request_id: Any = None) -> Exchange:
        """A complete POST stream with as many events as the server offers: a
        history fixture tool when listed, else ``tools/list``."""
        tool = next(iter(self.tools_of(Role.NOTIFICATIONS)), None)
        rid = self.client.next_id() if request_id is None else request_id
        if tool is None:
            exchange = await self.client.request(session, "tools/list", label=label, request_id=rid)
        else:
            exchange = await self.call(session, tool, label=label, request_id=rid)
        require(exchange, label)
        if exchange.end is End.CLOSED and not exchange.responds_to(rid):
            exchange = await self.polled(session, exchange, rid, label)
        if exchange.end is not End.RESPONSE and not exchange.responds_to(rid):
            raise Inconclusive(f"{label}: the stream ended ({_end(exchange)}) before the response")
        if tool is not None and tool.given and not notified_before_response(exchange, rid):
            self.not_playing(tool, "its call sent no notification before its response")  # still a complete stream
        return exchange

    async def polled(self, session: str | None, exchange: Exchange, rid: Any, label: str, *,
                     due: bool = False) -> Exchange:
        """A POST stream whose connection the server closed before the response (SEP-1699 polling,
        D9-D10), followed as a client does: after the ``retry`` it sent (at most ``MAX_POLL_WAIT``
        seconds), a GET with ``Last-Event-ID`` of the last event seen, up to ``POLLS`` times, until the
        response comes. Returns ``exchange`` with every event of the stream so far and how it ended.
        ``due``: the response was owed by now (a call that ends on its own), so when the last poll
        still lacks it, it is placed on that poll's connection (``Exchange.promised``) for the judge."""
        events, last, retry = list(exchange.events), exchange, 0
        for poll in range(1, POLLS + 1):
            cursor = next((e.id for e in reversed(events) if e.id is not None), None)
            if cursor is None or last.end is not End.CLOSED:
                break
            retry = retry if last.retry is None else last.retry
            await asyncio.sleep(min(retry / 1000, MAX_POLL_WAIT))
            last = require(await self.client.get(label=f"{label}: poll {poll}, resumed from {cursor} (D9)",
                                                 session=session, last_event_id=cursor,
                                                 stop=lambda e: e.is_response_to(rid)), label)
            events += last.events
            if any(e.is_response_to(rid) for e in last.events):
                break
        answered = any(e.is_response_to(rid) for e in events)
        if due and not answered and last is not exchange and last.ended is not None:
            last.promised = last.ended - PROMISE_MARGIN_SECONDS
        whole = copy.copy(exchange)
        whole.events = events
        whole.end = End.RESPONSE if answered else last.end
        return whole

    async def tool_until_server_request(
        self, session: str | None, label: str, tool: ToolUse | None = None, *, request_id: Any = None
    ) -> tuple[ToolUse, Exchange, SseEvent]:
        """Call a server-request tool (``tool``, or the first of its role) and drop
        its connection as soon as the server request arrives; returns the tool, the
        exchange and that event."""
        tool = tool or next(iter(self.tools_of(Role.SERVER_REQUEST)), None)
        if tool is None:
            raise Inconclusive("no tool that sends a server request (a fixture tool, or --tool server-request=NAME)")
        if self.json_posts:
            return tool, *await self._server_request_on_get(session, label, tool, request_id)
        exchange = await self.call(session, tool, label=label, request_id=request_id, stop=lambda e: e.is_input_request)
        require(exchange, label)
        if exchange.end in (End.IDLE, End.DEADLINE):  # the call waits: its request may have gone elsewhere
            found = await self._server_request_on_open_get(session, label, tool, request_id)
            if found is not None:
                return tool, *found
        if exchange.end is not End.DROPPED:
            raise Inconclusive(f"{label}: {tool} sent no server request ({_no_request(exchange)})")
        return tool, exchange, exchange.events[-1]

    async def _server_request_on_open_get(self, session, label: str, tool: ToolUse, request_id: Any):
        """Some servers send a call's server request on the session's GET stream, not on
        the call's POST stream (MCP B17 says they SHOULD NOT), and only while that stream
        is open: open it first, call the tool again in the background, and take the
        request from the GET stream; ``None`` when it does not come there either."""
        get = asyncio.ensure_future(
            self.client.get(
                label=f"{label}: the GET stream, opened first ({tool}'s POST stream carried no server request)",
                session=session,
                stop=lambda e: e.is_input_request,
                idle=self.client.bounds.idle,
            )
        )
        await asyncio.sleep(GET_AFTER_CALL_SECONDS)
        rid = None if request_id is None else f"{request_id}-again"
        self.start_call(session, tool, f"{label}, again while the GET stream is open", rid)
        exchange = await get
        if exchange.ok and exchange.end is End.DROPPED:
            return exchange, exchange.events[-1]
        return None

    def start_call(self, session: str | None, tool: ToolUse, label: str, request_id: Any = None) -> asyncio.Task:
        """POST ``tools/call`` of ``tool`` in the background (its answer, a JSON body
        when the tool ends, is not waited for); cancelled at ``cleanup`` if still running."""
        call = asyncio.ensure_future(self.call(session, tool, label=label, request_id=request_id))
        self._calls.append(call)
        return call

    async def _server_request_on_get(self, session, label: str, tool: ToolUse, request_id: Any) -> tuple[Exchange, SseEvent]:
        """A server that answers POSTs with JSON (MCP B13) can send a tool's server request
        only on a GET stream (B16-B17): call the tool in the background and open GETs with
        the session id until the request arrives on one, then drop that connection."""
        call = self.start_call(session, tool, f"{label} (answered with JSON once the tool ends)", request_id)
        deadline = time.monotonic() + self.client.bounds.idle
        while True:
            await asyncio.sleep(GET_AFTER_CALL_SECONDS)
            exchange = require(
                await self.client.get(
                    label=f"{label}: GET with the session id, where the server request comes (POSTs are answered with JSON)",
                    session=session,
                    stop=lambda e: e.is_input_request,
                    idle=self.client.bounds.settle,
                ),
                label,
            )
            if exchange.end is End.DROPPED:
                return exchange, exchange.events[-1]
            if exchange.status != 200:
                raise NotObservable(f"{label}: POSTs are answered with JSON and the GET stream answered HTTP "
                                    f"{exchange.status}: no stream can carry {tool}'s server request")
            if call.done():  # answered without asking: in JSON mode this server sends its tool no request
                raise NotObservable(f"{label}: POSTs are answered with JSON and {tool} was answered without a server "
                                    "request on any GET stream: no pending request to drive")
            if time.monotonic() > deadline:
                raise Inconclusive(f"{label}: {tool} sent no server request on a GET stream within "
                                   f"{self.client.bounds.idle:g} s")

    async def answer(self, session: str | None, request: SseEvent, label: str) -> Exchange:
        """POST the client's answer to a server request (``answers.answer_to``: it fits any tool's request)."""
        params = request.message.get("params") if isinstance(request.message, dict) else None
        result = answer_to(request.method, params)
        return await self.client.respond(session, request.request_id, result, label=label)

    async def delete(self, session: str | None, label: str) -> Exchange:
        exchange = await self.client.delete(session, label=label)
        if session is not None and exchange.status is not None and 200 <= exchange.status < 300:
            self._deleted.add(session)
        return exchange

    async def cleanup(self) -> None:
        """Cancel the background calls still running, then DELETE every session this
        driver opened and did not delete (best effort)."""
        for call in self._calls:
            call.cancel()
        await asyncio.gather(*self._calls, return_exceptions=True)
        for session in self._sessions:
            if session not in self._deleted:
                await self.delete(session, "cleanup: delete session")


def notified_before_response(exchange: Exchange, request_id: Any) -> bool:
    """Whether ``exchange`` carried a notification (a message with a method and no id) before
    the response to ``request_id``."""
    for message in exchange.messages:
        if "method" in message and "id" not in message:
            return True
        if "method" not in message and message.get("id") == request_id:
            return False
    return False


def require(exchange: Exchange, what: str) -> Exchange:
    """``exchange`` when it did not fail, or when it is a GET answered with a status and a body
    that is no SSE stream (the status is the server's answer, which the judge reads: MCP B15);
    ``Inconclusive`` naming the error otherwise."""
    if not exchange.ok and not _answered_get(exchange):
        raise Inconclusive(f"{what}: {exchange.error}")
    return exchange


def _answered_get(exchange: Exchange) -> bool:
    return exchange.method == "GET" and exchange.status is not None and exchange.error_kind == ErrorKind.CONTENT_TYPE


def cursor_in_middle(events: list[SseEvent]) -> SseEvent | None:
    """An event with an id after which at least one data event follows, as near
    the middle of the stream as possible; ``None`` when there is none."""
    candidates = [
        i for i, e in enumerate(events) if e.id is not None and any(not later.is_priming for later in events[i + 1 :])
    ]
    if not candidates:
        return None
    data_positions = [i for i, e in enumerate(events) if not e.is_priming]
    middle = data_positions[len(data_positions) // 2 - 1] if len(data_positions) > 1 else candidates[0]
    best = min(candidates, key=lambda i: abs(i - middle))
    return events[best]




def foreign_cursor(events: list[SseEvent], presenter_ids: set[str]) -> SseEvent | None:
    """An event of ``events`` (a stream of another session) to present as a foreign
    ``Last-Event-ID`` under a session that was delivered ``presenter_ids``: one whose id that
    session never had, since event ids are unique within a session only (MCP B23/D27: a server
    that counts per session gives both sessions an event ``5``, and ``5`` is then the
    presenter's own). Near the middle of the stream when it can be (``cursor_in_middle``);
    ``None`` when every id of ``events`` is also one of the presenter's."""
    foreign = [e for e in events if e.id is None or e.id not in presenter_ids]
    cursor = cursor_in_middle(foreign)
    return cursor if cursor is not None else next((e for e in foreign if e.id is not None), None)


POLLS = 5
PROMISE_MARGIN_SECONDS = 0.001
"""How long before a connection's end what was due on it is placed (``Exchange.promised``)."""
"""How many times a POST stream the server closed early is resumed before its response (``Driver.polled``)."""
MAX_POLL_WAIT = 2.0
"""Longest wait, in seconds, before resuming a polled stream, whatever its ``retry`` asks (D10)."""

PAST_THE_END = 1000
"""How far past a stream's last event a mutated cursor points (``past_the_end``)."""


def past_the_end(event_id: str) -> str | None:
    """The server's own event id moved ``PAST_THE_END`` positions on: its last run of digits
    increased, in the server's own format and width (``s1-7`` -> ``s1-1007``, ``0042`` -> ``1042``),
    so a server that parses its ids reads a position past the end of a real stream (an unknown
    cursor: branch 3); ``None`` for an id with no digits."""
    digits = [i for i, c in enumerate(event_id) if c.isdigit()]
    if not digits:
        return None
    end = digits[-1] + 1
    start = end
    while start > 0 and event_id[start - 1].isdigit():
        start -= 1
    number = str(int(event_id[start:end]) + PAST_THE_END).zfill(end - start)
    return event_id[:start] + number + event_id[end:]


def negotiated_version(exchange: Exchange) -> str | None:
    """The ``protocolVersion`` an ``initialize`` answer returned, if any (D42-D45)."""
    for message in exchange.messages:
        result = message.get("result") if isinstance(message, dict) else None
        if isinstance(result, dict) and isinstance(result.get("protocolVersion"), str):
            return result["protocolVersion"]
    return None


def invented_event_id(kind: str = "unknown") -> str:
    """A well-formed ``Last-Event-ID`` no server issued: sending it needs no cooperation (docs/design.md §7)."""
    return f"mcp-resume-{kind}-event-{secrets.token_hex(4)}"


def _has_result(exchange: Exchange) -> bool:
    return any(isinstance(m, dict) and "result" in m for m in exchange.messages)


def _end(exchange: Exchange) -> str:
    return exchange.end.value if exchange.end else "no end"


def _no_request(exchange: Exchange) -> str:
    """How a call that should have sent a server request ended instead: its JSON-RPC
    error when it was answered with one, else how its stream ended."""
    error = next((m["error"] for m in exchange.messages if isinstance(m.get("error"), dict)), None)
    if error is None:
        return _end(exchange)
    return f"the call was answered with JSON-RPC error {error.get('code')} {error.get('message')!r} first"


class NotObservable(Exception):
    """The server does not offer what a scenario needs to observe its rule (it
    becomes a SKIP with this reason), e.g. it never re-emits, so whether
    re-emission keeps a request pending cannot be seen. ``unlock`` names what
    would let verify judge it (a key of ``scenarios.UNLOCKS``)."""

    def __init__(self, reason: str, unlock: str | None = None):
        super().__init__(reason)
        self.unlock = unlock


def reemit_wait(bounds) -> float:
    """How long a session resumption is read for re-emitted requests, in seconds:
    three settle periods, at most the idle bound. It is also the grace period of
    docs/design.md §2: a server learns of a dropped connection a moment late, and a
    re-emission that reaches the new stream within it counts."""
    return min(bounds.idle, 3 * bounds.settle)
