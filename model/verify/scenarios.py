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

from mcp_resume.spec.decision import CONFLICT, ClassDecision, Method, decide_class
from mcp_resume.spec.headers import EventClass, SessionClass, is_well_formed
from mcp_resume.spec.profiles import Profile

from mcp_resume.model.http.client import Timeouts
from mcp_resume.model.http.evidence import End, Exchange, SseEvent
from mcp_resume.model.verify.driver import (
    RECONNECTION_TOOL,
    SERVER_REQUEST_TOOLS,
    Driver,
    Inconclusive,
    cursor_in_middle,
    describe_events,
    require,
    suffix_after,
)
from mcp_resume.model.verify.probe import Capabilities
from mcp_resume.model.verify.report import Check, status_check

GET, POST_REQUEST, DELETE = Method.GET, Method.POST_REQUEST, Method.DELETE
MALFORMED_VALUE = "not well formed"
"""A header value with spaces, outside 0x21-0x7E (MCP B30/D35)."""
OVERSIZED_CHARS = 4096
"""Length of the well-formed but oversized header values sent (within common HTTP header limits)."""

NEEDS = {
    "sessions": (lambda c: c.session_ids, "the server issued no Mcp-Session-Id: no session to resume (B28)"),
    "event-ids": (lambda c: c.event_ids, "the server's SSE events carry no event id: nothing to resume from (B22)"),
    "get": (lambda c: c.get_stream, "the server offers no GET stream (GET answered HTTP {get_status}, B15)"),
    "sse": (lambda c: c.post_stream == "sse", "the server answers POSTed requests with JSON, not SSE"),
    "server-request-tool": (
        lambda c: any(t in c.fixture_tools for t in SERVER_REQUEST_TOOLS),
        "the server lists neither test_elicitation nor test_sampling: no pending server request to drive",
    ),
}


@dataclass
class Context:
    profile: Profile
    bounds: Timeouts
    caps: Capabilities

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
    """Stream resumption from a middle event id replays exactly the later events of
    that stream (branch 1; MCP B25, D30). With ``test_reconnection``, also after a
    connection the server closed itself (D9, D29)."""
    session = await d.open_session("session S")
    history = await d.history(session, "session S: a complete stream")
    checks = await _resume_from_middle(d, ctx, session, history.events, "the complete stream")
    if RECONNECTION_TOOL in d.tools:
        checks += await _resume_after_server_close(d, ctx, session)
    return checks


async def _resume_from_middle(d: Driver, ctx: Context, session, events: list[SseEvent], name: str) -> list[Check]:
    cursor = cursor_in_middle(events)
    if cursor is None:
        raise Inconclusive(f"{name} has no event id followed by a data event")
    expected = suffix_after(events, cursor)
    got = require(
        await d.client.get(label=f"resume {name} from {cursor.id}", session=session, last_event_id=cursor.id),
        "stream resumption",
    )
    retained = ctx.expect(GET, SessionClass.LIVE, EventClass.RETAINED)
    return [
        status_check(f"GET with the session and an event id of {name}", got, retained),
        Check(
            f"replay of {name} after {cursor.id}",
            describe_events(expected),
            describe_events(got.data_events),
            _same_events(expected, got.data_events),
        ),
    ]


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
    resuming its stream after B used the same JSON-RPC request id (MCP B23, B26,
    D27, D28, D50; rules §3.1)."""
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
    checks = [
        Check(
            "GET in session B with session A's event id",
            "no event of session A",
            describe_events(leaked) if leaked else f"none of A's events ({len(got.data_events)} events)",
            not leaked,
        )
    ]
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
    checks.append(
        Check(
            "session C resumes its own stream after session D used the same JSON-RPC request id",
            "no event of session D",
            describe_events(leaked) if leaked else f"none of D's events ({len(resumed.data_events)} events)",
            not leaked,
        )
    )
    return checks


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
            f"pending {request.method} id={rid!r} of {tool} after its POST connection dropped",
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
    cursor = cursor_in_middle(history.events) or _any_event_id(history)
    got = require(
        await d.client.get(
            label=f"GET with session A's event id {cursor.id} and no session id", last_event_id=cursor.id
        ),
        "orphan GET",
    )
    checks = [
        status_check(
            "GET with an event id and no session id", got, ctx.expect(GET, SessionClass.ABSENT, EventClass.FOREIGN)
        ),
        _nothing_delivered("GET with an event id and no session id", got),
    ]
    for name, value, event_class in (
        ("an event id never issued", f"mcp-resume-unknown-event-{secrets.token_hex(4)}", EventClass.UNKNOWN),
        ("a malformed event id", MALFORMED_VALUE, EventClass.MALFORMED),
    ):
        what = f"GET with {name} and no session id"
        other = require(await d.client.get(label=what, last_event_id=value), what)
        checks += [status_check(what, other, ctx.expect(GET, SessionClass.ABSENT, event_class)), _nothing_delivered(what, other)]
    minted = got.session_header
    if minted is not None and minted != a:
        used = require(
            await d.client.request(minted, "tools/list", label="use the session id the rejection carried"), "tools/list"
        )
        checks.append(
            status_check(
                "a request with the session id the rejection carried (created nothing)",
                used,
                ctx.expect(POST_REQUEST, SessionClass.UNKNOWN, EventClass.ABSENT),
            )
        )
    return checks


async def reject_foreign_event_id(d: Driver, ctx: Context) -> list[Check]:
    """A live session with an event id not valid for it (another session's, never
    issued, malformed) gets a 4xx that is not 404, and nothing changes (branch 3;
    rules §3.2)."""
    a = await d.open_session("session A")
    history = await d.history(a, "session A: a complete stream")
    foreign = (cursor_in_middle(history.events) or _any_event_id(history)).id
    b = await d.open_session("session B")
    variants = [
        ("another session's event id", foreign, EventClass.FOREIGN),
        ("an event id never issued", f"mcp-resume-unknown-event-{secrets.token_hex(4)}", EventClass.UNKNOWN),
        ("a malformed event id", MALFORMED_VALUE, EventClass.MALFORMED),
        ("an oversized event id", "e" * OVERSIZED_CHARS, EventClass.UNKNOWN),
    ]
    checks: list[Check] = []
    for name, value, event_class in variants:
        got = require(await d.client.get(label=f"session B presents {name}", session=b, last_event_id=value), name)
        what = f"GET with a live session and {name}"
        checks.append(status_check(what, got, ctx.expect(GET, SessionClass.LIVE, event_class)))
        checks.append(_nothing_delivered(what, got))
    after = require(await d.client.request(b, "tools/list", label="session B after the rejections"), "tools/list")
    checks.append(
        status_check(
            "session B still answers after the rejections",
            after,
            ctx.expect(POST_REQUEST, SessionClass.LIVE, EventClass.ABSENT),
        )
    )
    return checks


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
    requests.append(
        (
            "POST tools/list with an oversized unknown session id",
            POST_REQUEST,
            "s" * OVERSIZED_CHARS,
            None,
            SessionClass.UNKNOWN,
            EventClass.ABSENT,
        )
    )
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
    return checks


async def malformed_session_400(d: Driver, ctx: Context) -> list[Check]:
    """A session id outside 0x21-0x7E names no session (MCP B30, D35)."""
    assert not is_well_formed(MALFORMED_VALUE)
    await d.open_session("session S")
    checks = []
    methods = ([GET] if ctx.caps.get_stream else []) + [POST_REQUEST]
    for method in methods:
        what = f"{'GET' if method is GET else 'POST tools/list'} with a malformed session id"
        got = require(await _send(d, method, what, MALFORMED_VALUE, None), what)
        checks.append(status_check(what, got, ctx.expect(method, SessionClass.MALFORMED, EventClass.ABSENT)))
    if ctx.caps.get_stream:
        what = "GET with a malformed session id and an event id"
        got = require(await _send(d, GET, what, MALFORMED_VALUE, "mcp-resume-event-1"), what)
        checks.append(status_check(what, got, ctx.expect(GET, SessionClass.MALFORMED, EventClass.UNKNOWN)))
    return checks


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

    Raises ``Inconclusive`` when the probe could not tell (its GET got no answer).
    """
    for need in needs:
        offered, reason = NEEDS[need]
        if need == "get" and caps.get_status is None:
            raise Inconclusive("the probe's GET with the session id got no answer: whether a GET stream is offered is unknown")
        if not offered(caps):
            return reason.format(get_status=caps.get_status)
    return None


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
    return [(e.id, e.data) for e in expected] == [(e.id, e.data) for e in observed]


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
