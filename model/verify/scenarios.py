"""Scenarios of the reconnect decision: drive a real server over Streamable HTTP, judge it against the spec.

``model.verify.suite`` runs one scenario per rule (these, ``verify_pending`` and
``verify_lifecycle``), each in fresh sessions of its own, with its own client,
so that scenarios never see each other's streams. Each scenario returns ``Check`` values;
the expected statuses come from ``spec.decision.decide_class`` with the header
classes the scenario set up, and the verdict from the catalog's level of the
rule under the profile (``verify_report.judge``). A scenario whose needs the
server does not offer is SKIPped with the reason; one that cannot be driven is
INCONCLUSIVE. Data out, nothing printed.

JSON-RPC request ids are unique to each client, so the streams of two sessions
never share a key, except in the part of ``no-cross-session`` that makes two
sessions use the same request id on purpose, as two independent clients do.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp_resume.spec.decision import CLIENT_ERRORS, CONFLICT, ClassDecision, Method, decide_class
from mcp_resume.spec.headers import EventClass, SessionClass, is_well_formed
from mcp_resume.spec.profiles import Profile

from mcp_resume.model.http.client import Timeouts
from mcp_resume.model.http.evidence import End, ErrorKind, Exchange, SseEvent
from mcp_resume.model.verify.driver import (
    RECONNECTION_TOOL,
    SERVER_REQUEST_TOOLS,
    Driver,
    Inconclusive,
    NotObservable,
    cursor_in_middle,
    describe_events,
    invented_event_id,
    require,
    suffix_after,
)
from mcp_resume.model.verify.probe import Capabilities
from mcp_resume.model.verify.report import Check, status_check

GET, POST_REQUEST, DELETE = Method.GET, Method.POST_REQUEST, Method.DELETE
MALFORMED_VALUE = "not well formed"
"""A header value with spaces, outside 0x21-0x7E (MCP B30/D35)."""
DROP_NOTICE_SECONDS = 0.2
"""Pause between dropping a connection and the session resumption that must re-emit
its request: a server learns of a drop from its transport a moment late (DESIGN §2)."""
OVERSIZED_CHARS = 4096
"""Length of the well-formed but oversized header values sent (within common HTTP header limits)."""

NEEDS = {
    "sessions": (
        lambda c: c.session_ids,
        "the server issues no Mcp-Session-Id (B28 MAY): a session rule does not apply to a server without sessions",
    ),
    "event-ids": (lambda c: c.event_ids, "the server's SSE events carry no event id: nothing to resume from (B22)"),
    "get": (lambda c: c.get_stream, "the server offers no GET stream (GET answered {get_answer}, B15)"),
    "sse": (lambda c: c.post_stream == "sse", "the server answers POSTed requests with JSON, not SSE"),
    "server-request-tool": (
        lambda c: any(t in c.fixture_tools for t in SERVER_REQUEST_TOOLS),
        "the server lists neither test_elicitation nor test_sampling: no pending server request to drive",
    ),
}

UNLOCKS = {
    "sessions": "issue an Mcp-Session-Id on initialize (a server without sessions is judged on the others only)",
    "event-ids": "SSE event ids on some stream (a priming event, D8, gives every POST stream one)",
    "get": "a GET stream: answer a GET with the session id with text/event-stream",
    "sse": "answer POSTed requests with text/event-stream",
    "server-request-tool": "add the fixture tool test_elicitation (or test_sampling)",
    "history-tool": "add the fixture tool test_tool_with_logging (or test_tool_with_progress)",
    "ttl": "give --stream-ttl S and --session-ttl S (the server's expiry times)",
}
"""What would let verify judge the rules a missing need left unjudged (DESIGN §7)."""

REFUSED_VERSION = (
    "the server's GET refuses MCP-Protocol-Version {version}, the revision it negotiated (HTTP 400; the same "
    "GET without the header opens a stream): no GET stream to drive (the finding is under "
    "session-identity-stable, B15, C40)"
)
REFUSED_VERSION_UNLOCK = "accept MCP-Protocol-Version {version}, the negotiated revision, on GET (C40: 400 is for an unsupported version)"


@dataclass
class Context:
    """What every scenario knows: the profile, the bounds, the probe's findings and
    the server's expiry times in seconds (``--stream-ttl``, ``--session-ttl``; ``None`` = unknown)."""

    profile: Profile
    bounds: Timeouts
    caps: Capabilities
    stream_ttl: float | None = None
    session_ttl: float | None = None

    def expect(self, method: Method, session: SessionClass, event: EventClass) -> ClassDecision:
        """The spec's decision for these header classes under this profile."""
        return decide_class(method, session, event, self.profile)


ScenarioRun = Callable[[Driver, Context], Awaitable[list[Check]]]


@dataclass(frozen=True)
class Scenario:
    rule: str
    run: ScenarioRun
    needs: tuple[str, ...]


# -- scenarios ------------------------------------------------------------------


async def replay_suffix(d: Driver, ctx: Context) -> list[Check]:
    """Stream resumption replays exactly the later events of that stream (branch
    1; MCP B25, D30): from a middle, the oldest and the latest event id of a
    complete POST stream (a ring buffer may refuse an evicted cursor, never
    replay past a gap), of the GET stream wherever its events carry ids, and,
    with ``test_reconnection``, after a connection the server closed (D9, D29)."""
    session = await d.open_session("session S")
    checks: list[Check] = []
    if ctx.caps.post_event_ids:
        history = await d.history(session, "session S: a complete stream")
        checks += await _resume_from_cursors(d, ctx, session, history.events, "the complete stream")
        if RECONNECTION_TOOL in d.tools:
            checks += await _resume_after_server_close(d, ctx, session)
    if ctx.caps.get_event_ids:
        checks += await get_stream_replay(d, ctx, session)
    if not checks:
        raise NotObservable("no stream with event ids to resume")
    return checks


async def _resume_from_cursors(d: Driver, ctx: Context, session, events: list[SseEvent], name: str) -> list[Check]:
    """The middle cursor, then the oldest and the latest: the latest must replay;
    the others replay exactly or are refused as evicted (DESIGN §2, partial retention)."""
    checks = await _resume_from_middle(d, ctx, session, events, name, evictable=True)
    middle = cursor_in_middle(events)
    with_later = [e for i, e in enumerate(events) if e.id is not None and any(not x.is_priming for x in events[i + 1 :])]
    for cursor, evictable in ((with_later[0], True), (with_later[-1], False)) if with_later else ():
        if cursor is not middle:
            checks += await _resume_from(d, ctx, session, events, cursor, name, evictable=evictable)
    return checks


async def _resume_from_middle(
    d: Driver, ctx: Context, session, events: list[SseEvent], name: str, *, evictable: bool = False
) -> list[Check]:
    cursor = cursor_in_middle(events)
    if cursor is None:
        raise Inconclusive(f"{name} has no event id followed by a data event")
    return await _resume_from(d, ctx, session, events, cursor, name, evictable=evictable)


async def _resume_from(
    d: Driver, ctx: Context, session, events: list[SseEvent], cursor: SseEvent, name: str, *, evictable: bool
) -> list[Check]:
    expected = suffix_after(events, cursor)
    got = require(
        await d.client.get(label=f"resume {name} from {cursor.id}", session=session, last_event_id=cursor.id),
        "stream resumption",
    )
    retained = ctx.expect(GET, SessionClass.LIVE, EventClass.RETAINED)
    evicted = ctx.expect(GET, SessionClass.LIVE, EventClass.EVICTED)
    refused = evictable and got.status in evicted.statuses - {200} and not got.data_events
    if refused:
        return [
            Check(
                f"GET with the session and event id {cursor.id} of {name}",
                "the exact replay, or a refusal that delivers nothing (an evicted cursor)",
                f"HTTP {got.status}, nothing delivered",
                True,
                evicted.branch.value,
            )
        ]
    return [
        status_check(f"GET with the session and event id {cursor.id} of {name}", got, retained),
        Check(
            f"replay of {name} after {cursor.id}",
            describe_events(expected),
            describe_events(got.data_events),
            _same_events(expected, got.data_events),
        ),
    ]


async def get_stream_replay(d: Driver, ctx: Context, session) -> list[Check]:
    """Resuming the GET stream replays only the GET stream's events: nothing a
    POST stream delivered meanwhile (B26, D30). Empty when its events carry no id."""
    opened = require(await d.client.get(label="session S: open the GET stream", session=session), "session resumption")
    cursor = next((e for e in reversed(opened.events) if e.id is not None), None)
    if cursor is None:
        return []
    post = await d.history(session, "session S: a POST stream while the GET stream is away")
    resumed = require(
        await d.client.get(label=f"resume the GET stream from {cursor.id}", session=session, last_event_id=cursor.id),
        "stream resumption",
    )
    foreign = _belonging_to(resumed.data_events, post.events + [_as_event(m) for m in post.messages], by_content=True)
    return [
        status_check(f"GET with the session and the GET stream's event id {cursor.id}", resumed, ctx.expect(GET, SessionClass.LIVE, EventClass.RETAINED)),
        Check(
            f"replay of the GET stream after {cursor.id}",
            "only the GET stream's own events (nothing a POST stream delivered)",
            describe_events(foreign) if foreign else f"none of the POST stream's ({len(resumed.data_events)} events)",
            not foreign,
        ),
    ]


def _as_event(message: dict) -> SseEvent:
    return SseEvent(None, "message", "", None, message)


async def _resume_after_server_close(d: Driver, ctx: Context, session) -> list[Check]:
    rid = d.client.next_id()
    first = require(
        await d.client.call_tool(session, RECONNECTION_TOOL, label="session S: test_reconnection", request_id=rid),
        "test_reconnection",
    )
    if first.end is End.RESPONSE:
        return await _resume_from_middle(d, ctx, session, first.events, "the test_reconnection stream")
    cursor = next((e for e in reversed(first.events) if e.id is not None), None)
    if cursor is None:
        raise Inconclusive("test_reconnection closed its connection before any event id")
    resumed = require(
        await d.client.get(
            label=f"resume test_reconnection from {cursor.id}",
            session=session,
            last_event_id=cursor.id,
            stop=lambda e: e.is_response_to(rid),
            idle=ctx.bounds.idle,
        ),
        "resume test_reconnection",
    )
    seen = {e.id for e in first.events if e.id is not None}
    repeated = [e for e in resumed.data_events if e.id in seen]
    answered = resumed.end is End.DROPPED
    checks = [
        status_check(
            "GET with the session and the last event id before the server closed the connection",
            resumed,
            ctx.expect(GET, SessionClass.LIVE, EventClass.RETAINED),
        ),
        Check(
            "continuation of test_reconnection after the server closed the connection",
            "the rest of the stream up to the tools/call response, nothing delivered before",
            describe_events(resumed.data_events) + ("" if answered else " (no response)"),
            answered and not repeated,
        ),
    ]
    if answered:
        checks += await _resume_from_middle(
            d, ctx, session, first.events + resumed.events, "the test_reconnection stream"
        )
    return checks


async def no_cross_session(d: Driver, ctx: Context) -> list[Check]:
    """Nothing of session A reaches session B: B presenting A's event id, and A
    resuming its stream after B used the same JSON-RPC request id; and nothing
    replayed belongs to another stream of the same session, POST or GET (MCP B23,
    B26, D27, D28, D50; rules §3.1)."""
    checks: list[Check] = []
    if ctx.caps.post_event_ids:
        checks += await _foreign_session_cursor(d)
        checks += await _shared_request_id(d)
        checks += await _other_stream_of_session(d)
    if ctx.caps.get_event_ids:
        session = await d.open_session("session G")
        checks += await get_stream_replay(d, ctx, session)
    return checks


async def _foreign_session_cursor(d: Driver) -> list[Check]:
    a = await d.open_session("session A")
    history_a = await d.history(a, "session A: a complete stream")
    cursor = cursor_in_middle(history_a.events) or _any_event_id(history_a)
    b = await d.open_session("session B")
    got = require(
        await d.client.get(
            label=f"session B presents session A's event id {cursor.id}", session=b, last_event_id=cursor.id
        ),
        "GET in session B",
    )
    leaked = _belonging_to(got.data_events, history_a.events, by_content=True)
    return [
        Check(
            "GET in session B with session A's event id",
            "no event of session A",
            describe_events(leaked) if leaked else f"none of A's events ({len(got.data_events)} events)",
            not leaked,
        )
    ]


async def _shared_request_id(d: Driver) -> list[Check]:
    shared = d.client.next_id()
    c = await d.open_session("session C")
    history_c = await d.history(c, f"session C: a stream for request id {shared}", request_id=shared)
    other = await d.open_session("session D")
    history_d = await d.history(other, f"session D: a stream for the same request id {shared}", request_id=shared)
    cursor_c = cursor_in_middle(history_c.events) or _any_event_id(history_c)
    resumed = require(
        await d.client.get(
            label=f"session C resumes its stream from {cursor_c.id}", session=c, last_event_id=cursor_c.id
        ),
        "GET in session C",
    )
    leaked = _belonging_to(resumed.data_events, history_d.events, by_content=False)
    return [
        Check(
            "session C resumes its own stream after session D used the same JSON-RPC request id",
            "no event of session D",
            describe_events(leaked) if leaked else f"none of D's events ({len(resumed.data_events)} events)",
            not leaked,
        )
    ]


async def _other_stream_of_session(d: Driver) -> list[Check]:
    """Two complete streams of one session: resuming the first from its middle
    replays nothing of the second (the second clause of no-cross-session)."""
    session = await d.open_session("session S")
    first = await d.history(session, "session S: first stream")
    rid = d.client.next_id()
    second = await d.history(session, "session S: second stream", request_id=rid)
    cursor = cursor_in_middle(first.events)
    if cursor is None:
        return []
    got = require(
        await d.client.get(label=f"resume the first stream from {cursor.id}", session=session, last_event_id=cursor.id),
        "stream resumption",
    )
    strangers = [e for e in got.data_events if e in _belonging_to([e], second.events, by_content=False) or e.is_response_to(rid)]
    return [
        Check(
            f"event id {cursor.id} resumes the first stream only",
            "no event of the session's other stream",
            describe_events(strangers) if strangers else f"{len(got.data_events)} events of the first stream",
            not strangers,
        )
    ]


async def no_replay_on_session_resume(d: Driver, ctx: Context) -> list[Check]:
    """A GET with the session id alone replays no past event (branch 2; MCP B25, B26, D30, D31)."""
    session = await d.open_session("session S")
    await d.history(session, "session S: a complete stream")
    past = [e for x in d.exchanges for e in x.events]
    got = require(await d.client.get(label="GET with the session id alone", session=session), "session resumption")
    if got.status != 200:
        raise Inconclusive(f"GET with the session id alone answered HTTP {got.status}")
    replayed = _belonging_to(got.data_events, past, by_content=True)
    return [
        Check(
            "GET with the session id alone after a complete stream",
            "no past event",
            describe_events(replayed) if replayed else f"no past event ({len(got.data_events)} events)",
            not replayed,
        )
    ]


async def reemit_pending(d: Driver, ctx: Context) -> list[Check]:
    """After the connection carrying a server request drops, a GET with the session
    id alone re-emits that request (same JSON-RPC id) or cancels it (branch 2;
    rules §3.7). The request is answered afterwards to leave nothing pending."""
    session = await d.open_session("session S")
    tool, _, request = await d.tool_until_server_request(session, "session S: call a tool that sends a server request")
    rid = request.request_id
    await asyncio.sleep(DROP_NOTICE_SECONDS)
    got = require(
        await d.client.get(
            label="GET with the session id alone after the drop",
            session=session,
            stop=lambda e: _reemits(e, rid),
            idle=ctx.bounds.idle,
        ),
        "session resumption",
    )
    found = got.events[-1] if got.end is End.DROPPED else None
    observed = (
        f"{'cancelled' if found.method == 'notifications/cancelled' else 're-emitted'} as event {found.id or '-'}"
        if found
        else f"HTTP {got.status}, not within {ctx.bounds.idle:g} s ({describe_events(got.data_events)})"
    )
    await d.answer(session, request, f"answer {request.method} id={rid!r} (cleanup)")
    return [
        Check(
            f"pending {request.method} id={rid!r} of {tool} after the connection that carried it dropped",
            "re-emitted with the same id, or cancelled, on the new stream",
            observed,
            found is not None,
        )
    ]


async def reject_orphan_event_id(d: Driver, ctx: Context) -> list[Check]:
    """A GET with an event id and no session id gets 400, delivers nothing and
    creates no session (branch 4; MCP B23, B32)."""
    a = await d.open_session("session A")
    history = await d.history(a, "session A: a complete stream")
    cursor = cursor_in_middle(history.events) or _any_event_id(history, required=False)
    variants = [
        ("an event id never issued", invented_event_id(), EventClass.UNKNOWN),
        ("a malformed event id", MALFORMED_VALUE, EventClass.MALFORMED),
    ]
    if cursor is not None:
        variants.insert(0, (f"session A's event id {cursor.id}", cursor.id, EventClass.FOREIGN))
    checks: list[Check] = []
    answers: list[Exchange] = []
    for name, value, event_class in variants:
        what = f"GET with {name} and no session id"
        got = require(await d.client.get(label=what, last_event_id=value), what)
        checks += [status_check(what, got, ctx.expect(GET, SessionClass.ABSENT, event_class)), _nothing_delivered(what, got)]
        answers.append(got)
    for got in answers:
        checks += await _created_nothing(d, ctx, got, a)
    return checks


async def _created_nothing(d: Driver, ctx: Context, got: Exchange, own: str | None) -> list[Check]:
    """A session id the rejection of an orphan event id carried names no session (branch 4)."""
    minted = got.session_header
    if minted is None or minted == own:
        return []
    used = require(
        await d.client.request(minted, "tools/list", label="use the session id the rejection carried"), "tools/list"
    )
    return [
        status_check(
            f"a request with the session id {minted} the answer to {got.label} carried (creates nothing)",
            used,
            ctx.expect(POST_REQUEST, SessionClass.UNKNOWN, EventClass.ABSENT),
        )
    ]


async def reject_foreign_event_id(d: Driver, ctx: Context) -> list[Check]:
    """A live session with an event id not valid for it (another session's, never
    issued, malformed) gets a 4xx that is not 404, and nothing changes (branch 3;
    rules §3.2)."""
    a = await d.open_session("session A")
    history = await d.history(a, "session A: a complete stream")
    foreign = cursor_in_middle(history.events) or _any_event_id(history, required=False)
    b = await d.open_session("session B")
    variants = [
        ("an event id never issued", invented_event_id(), EventClass.UNKNOWN),
        ("a malformed event id", MALFORMED_VALUE, EventClass.MALFORMED),
        ("an oversized event id", "e" * OVERSIZED_CHARS, EventClass.UNKNOWN),
    ]
    if foreign is not None:
        variants.insert(0, ("another session's event id", foreign.id, EventClass.FOREIGN))
    checks: list[Check] = []
    missing = require(await d.client.get(label="GET without a session id (the missing-session error)"), "GET")
    for name, value, event_class in variants:
        got = require(await d.client.get(label=f"session B presents {name}", session=b, last_event_id=value), name)
        what = f"GET with a live session and {name}"
        checks.append(status_check(what, got, ctx.expect(GET, SessionClass.LIVE, event_class)))
        checks.append(_nothing_delivered(what, got))
        if got.status is not None and got.status >= 400 and missing.status == got.status:
            checks.append(_distinct_from_missing(what, got, missing))
    after = require(await d.client.request(b, "tools/list", label="session B after the rejections"), "tools/list")
    checks.append(
        status_check(
            "session B still answers after the rejections",
            after,
            ctx.expect(POST_REQUEST, SessionClass.LIVE, EventClass.ABSENT),
        )
    )
    return checks


def _distinct_from_missing(what: str, got: Exchange, missing: Exchange) -> Check:
    """Branch 3's refusal must be told apart from the missing-session error, by status
    or by JSON-RPC error code (DESIGN §2 row 3): a client re-initializes on the latter."""
    ours, theirs = _error_code(got), _error_code(missing)
    return Check(
        f"{what}: told apart from the missing-session error (HTTP {missing.status}, code {theirs})",
        "another status or another JSON-RPC error code",
        f"HTTP {got.status}, code {ours}",
        ours != theirs,
    )


def _error_code(exchange: Exchange) -> Any:
    for message in exchange.messages:
        error = message.get("error") if isinstance(message, dict) else None
        if isinstance(error, dict):
            return error.get("code")
    return None


async def unknown_session_404(d: Driver, ctx: Context) -> list[Check]:
    """A well-formed session id naming no live session (never issued, or deleted)
    gets 404 with or without an event id, and nothing is replayed (MCP B33, B34)."""
    a = await d.open_session("session A")
    history = await d.history(a, "session A: a complete stream")
    event = _any_event_id(history, required=False)
    unknown = f"mcp-resume-unknown-session-{secrets.token_hex(8)}"
    checks: list[Check] = []
    requests = []
    if ctx.caps.get_stream:
        requests.append(("GET with an unknown session id", GET, unknown, None, SessionClass.UNKNOWN, EventClass.ABSENT))
        if event is not None:
            requests.append(
                (
                    "GET with an unknown session id and session A's event id",
                    GET,
                    unknown,
                    event.id,
                    SessionClass.UNKNOWN,
                    EventClass.FOREIGN,
                )
            )
    oversized = require(
        await _send(d, POST_REQUEST, "POST tools/list with an oversized session id", "s" * OVERSIZED_CHARS, None),
        "oversized session id",
    )
    checks += _oversized_refused("POST tools/list with an oversized session id", oversized)
    requests.append(
        (
            "POST tools/list with an unknown session id",
            POST_REQUEST,
            unknown,
            None,
            SessionClass.UNKNOWN,
            EventClass.ABSENT,
        )
    )
    ended = await d.open_session("session E")
    history_e = await d.history(ended, "session E: a complete stream")
    deleted = await d.delete(ended, "delete session E")
    if deleted.status is not None and 200 <= deleted.status < 300:
        event_e = _any_event_id(history_e, required=False)
        if ctx.caps.get_stream and event_e is not None:
            requests.append(
                (
                    "GET with deleted session E and its event id",
                    GET,
                    ended,
                    event_e.id,
                    SessionClass.ENDED,
                    EventClass.EXPIRED,
                )
            )
        requests.append(
            ("POST tools/list with deleted session E", POST_REQUEST, ended, None, SessionClass.ENDED, EventClass.ABSENT)
        )
    for what, method, session, event_id, session_class, event_class in requests:
        got = require(await _send(d, method, what, session, event_id), what)
        checks.append(status_check(what, got, ctx.expect(method, session_class, event_class)))
        checks.append(_nothing_delivered(what, got))
    if deleted.status is not None and 200 <= deleted.status < 300:
        again = require(await d.client.delete(ended, label="DELETE deleted session E again"), "DELETE")
        checks.append(status_check("DELETE of deleted session E", again, ctx.expect(DELETE, SessionClass.ENDED, EventClass.ABSENT)))
    return checks


def _oversized_refused(what: str, got: Exchange) -> list[Check]:
    """An oversized header value: any 4xx (a server may cap ids, 400 or 431), no
    5xx, nothing delivered, no session created (DESIGN §7)."""
    return [
        Check(what, "a 4xx (404, or 400/431 for a capped id)", str(got.status), got.status in CLIENT_ERRORS),
        _nothing_delivered(what, got),
        Check(f"{what}: Mcp-Session-Id on the answer", "absent (nothing created)", str(got.session_header), got.session_header is None),
    ]


async def malformed_session_400(d: Driver, ctx: Context) -> list[Check]:
    """A session id outside 0x21-0x7E names no session (MCP B30, D35)."""
    assert not is_well_formed(MALFORMED_VALUE)
    await d.open_session("session S")
    checks = []
    methods = ([GET] if ctx.caps.get_stream else []) + [POST_REQUEST]
    for method in methods:
        what = f"{'GET' if method is GET else 'POST tools/list'} with a malformed session id"
        got = require(await _send(d, method, what, MALFORMED_VALUE, None), what)
        checks += [status_check(what, got, ctx.expect(method, SessionClass.MALFORMED, EventClass.ABSENT)), _no_echo(what, got)]
    if ctx.caps.get_stream:
        what = "GET with a malformed session id and an event id"
        got = require(await _send(d, GET, what, MALFORMED_VALUE, "mcp-resume-event-1"), what)
        checks += [status_check(what, got, ctx.expect(GET, SessionClass.MALFORMED, EventClass.UNKNOWN)), _no_echo(what, got)]
    return checks


def _no_echo(what: str, got: Exchange) -> Check:
    """A malformed session id names no session: the answer must not carry it back (B30)."""
    header = got.session_header
    return Check(f"{what}: Mcp-Session-Id on the answer", "absent (a malformed id names no session)", str(header), not got.echoes_malformed_session)


async def missing_session_400(d: Driver, ctx: Context) -> list[Check]:
    """A server that issues sessions answers a request without one with 400 (MCP B32)."""
    await d.open_session("session S")
    checks = []
    methods = [POST_REQUEST] + ([GET] if ctx.caps.get_stream else [])
    for method in methods:
        what = f"{'GET' if method is GET else 'POST tools/list'} without a session id"
        got = require(await _send(d, method, what, None, None), what)
        checks.append(status_check(what, got, ctx.expect(method, SessionClass.ABSENT, EventClass.ABSENT)))
    return checks


async def session_identity_stable(d: Driver, ctx: Context) -> list[Check]:
    """Session resumption and stream resumption leave the session as it was: it
    keeps its id and keeps answering (MCP B31, B33, D37-D41)."""
    session = await d.open_session("session S")
    history = await d.history(session, "session S: a complete stream")
    checks: list[Check] = []
    answers: list[Exchange] = []
    if not ctx.caps.get_stream:
        checks.append(await _get_is_sse_or_405(d, ctx, session))
    if ctx.caps.get_stream:
        got = require(await d.client.get(label="session resumption", session=session), "session resumption")
        checks.append(
            status_check("GET with the session id alone", got, ctx.expect(GET, SessionClass.LIVE, EventClass.ABSENT))
        )
        answers.append(got)
        cursor = cursor_in_middle(history.events)
        if ctx.caps.event_ids and cursor is not None:
            got = require(
                await d.client.get(label="stream resumption", session=session, last_event_id=cursor.id),
                "stream resumption",
            )
            answers.append(got)
    if ctx.caps.get_stream:
        checks += await _concurrent_gets(d, ctx, session)
    after = require(
        await d.client.request(session, "tools/list", label="session S after the resumptions"), "tools/list"
    )
    checks.append(
        status_check(
            "the session after its resumptions", after, ctx.expect(POST_REQUEST, SessionClass.LIVE, EventClass.ABSENT)
        )
    )
    answers.append(after)
    for exchange in answers:
        header = exchange.session_header
        checks.append(
            Check(
                f"Mcp-Session-Id on the answer to {exchange.label}",
                f"absent or {session}",
                str(header),
                header is None or header == session,
            )
        )
    return checks


async def _get_is_sse_or_405(d: Driver, ctx: Context, session) -> Check:
    """MCP allows only an SSE stream or 405 for a GET (B15, D16): 406, another
    status or no answer at all breaks the session's resumption; a 400 to the
    negotiated ``MCP-Protocol-Version`` is no refusal of an unsupported one (C40)."""
    got = await d.client.get(label="GET with the session id alone", session=session)
    if got.error_kind is ErrorKind.FIRST_BYTE:
        observed = "no answer within the bound"
    elif not got.ok and got.status is None:
        raise Inconclusive(f"GET with the session id alone: {got.error}")
    else:
        observed = f"HTTP {got.status} {got.content_type}".strip()
    refused = ctx.caps.get_refused_version
    if got.status == 400 and refused:
        observed += (f" to MCP-Protocol-Version {refused}, the revision initialize negotiated; the same GET "
                     "without the header opened a stream (400 is for an unsupported version, C40)")
    held = got.status == 405 or (got.status == 200 and got.content_type == "text/event-stream")
    return Check("GET with the session id alone", "an SSE stream or 405 (B15)", observed, held)


async def _concurrent_gets(d: Driver, ctx: Context, session) -> list[Check]:
    """Two GETs with the session id alone at once: the second is a session resumption
    too (200), or refused as a conflict (409, rules §3.3); the session lives on."""
    idle = 2 * ctx.bounds.settle
    first = asyncio.ensure_future(d.client.get(label="first of two concurrent GETs", session=session, idle=idle))
    await asyncio.sleep(ctx.bounds.settle / 2)
    second = require(await d.client.get(label="second concurrent GET", session=session, idle=idle / 2), "GET")
    require(await first, "GET")
    decision = ctx.expect(GET, SessionClass.LIVE, EventClass.ABSENT)
    accepted = decision.statuses | {CONFLICT}
    return [
        Check(
            "a second GET with the session id alone while the first is open",
            " or ".join(str(s) for s in sorted(accepted)),
            str(second.status),
            second.status in accepted,
            decision.branch.value,
        )
    ]


async def priming_event(d: Driver, ctx: Context) -> list[Check]:
    """A POST SSE stream starts with an event id and empty data (MCP D8)."""
    session = await d.open_session("session S")
    listed = require(await d.client.request(session, "tools/list", label="POST tools/list"), "tools/list")
    streams = [listed]
    if any(t in d.tools for t in ("test_tool_with_logging", "test_tool_with_progress")):
        streams.append(await d.history(session, "POST tools/call"))
    checks = []
    for exchange in streams:
        if exchange.content_type != "text/event-stream":
            continue
        first = exchange.events[0] if exchange.events else None
        observed = "no event" if first is None else f"{first.id or 'no id'}: {first.summary()}"
        held = first is not None and first.id is not None and first.is_priming
        checks.append(
            Check(f"first event of the {exchange.sent} stream", "an event id with empty data", observed, held)
        )
    return checks


# -- helpers --------------------------------------------------------------------


def _missing(needs: tuple[str, ...], caps: Capabilities) -> str | None:
    """Why the server cannot be driven through a scenario with ``needs``, or ``None``.

    A GET that got no answer or an answer MCP does not allow (only SSE or 405,
    B15) is judged once, under ``session-identity-stable``; here it only means
    there is no GET stream.
    """
    need = missing_need(needs, caps)
    if need is None:
        return None
    if need in ("get", "event-ids") and caps.get_refused_version:
        prefix = "no POST stream's SSE events carry an event id, and " if need == "event-ids" else ""
        return prefix + REFUSED_VERSION.format(version=caps.get_refused_version)
    answer = "nothing" if caps.get_status is None else f"HTTP {caps.get_status}"
    return NEEDS[need][1].format(get_answer=answer)


def unlock_for(need: str | None, caps: Capabilities) -> str | None:
    """What would let verify drive the rules ``need`` left unjudged (``UNLOCKS``, or
    the version a GET refused), or ``None``."""
    if need in ("get", "event-ids") and caps.get_refused_version:
        return REFUSED_VERSION_UNLOCK.format(version=caps.get_refused_version)
    return UNLOCKS.get(need or "")


def missing_need(needs: tuple[str, ...], caps: Capabilities) -> str | None:
    """The first of ``needs`` the server does not offer, or ``None``."""
    return next((need for need in needs if not NEEDS[need][0](caps)), None)


async def _send(d: Driver, method: Method, label: str, session: str | None, event_id: str | None) -> Exchange:
    if method is GET:
        return await d.client.get(label=label, session=session, last_event_id=event_id)
    return await d.client.request(session, "tools/list", label=label)


def _any_event_id(exchange: Exchange, *, required: bool = True) -> SseEvent | None:
    event = next((e for e in exchange.events if e.id is not None and not e.is_priming), None)
    event = event or next((e for e in exchange.events if e.id is not None), None)
    if event is None and required:
        raise Inconclusive(f"{exchange.label}: no event carried an id")
    return event


def _same_events(expected: list[SseEvent], observed: list[SseEvent]) -> bool:
    """Same event ids and the same JSON-RPC values, in order (never bytes: a store may re-serialise)."""
    return [_value(e) for e in expected] == [_value(e) for e in observed]


def _value(event: SseEvent) -> tuple:
    return (event.id, event.message if event.message is not None else event.data)


def _belonging_to(delivered: list[SseEvent], others: list[SseEvent], *, by_content: bool) -> list[SseEvent]:
    """The delivered data events that are one of ``others``: the same event id, or
    (``by_content``) the same JSON-RPC message."""
    ids = {e.id for e in others if e.id is not None}
    messages = [e.message for e in others if e.message is not None]
    return [e for e in delivered if e.id in ids or (by_content and e.message is not None and e.message in messages)]


def _reemits(event: SseEvent, request_id: Any) -> bool:
    if event.is_server_request and event.request_id == request_id:
        return True
    params = event.message.get("params") if isinstance(event.message, dict) else None
    return (
        event.method == "notifications/cancelled" and isinstance(params, dict) and params.get("requestId") == request_id
    )


def _nothing_delivered(what: str, exchange: Exchange) -> Check:
    events = exchange.data_events
    return Check(f"{what}: events delivered", "none", describe_events(events) if events else "none", not events)
