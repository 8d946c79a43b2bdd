"""Scenarios about pending server requests, driven through ``test_elicitation`` and ``test_sampling``.

Each scenario calls a fixture tool that sends a server request, drops the POST
connection as soon as the request arrives (the request is now pending, MCP
B12/D15), and then reconnects in the ways DESIGN.md §2 distinguishes:

- ``reemit_keeps_pending``: session resumption twice (the request must come
  again the second time), then the answer, then a third session resumption
  (the answered request must not come again) — rules §3.7;
- ``no_reemit_on_stream_resume``: stream resumption of the POST stream from the
  request's own event id and from the event before it: the request may come
  again only as the replay of its own event (its event id), never under a new
  one — B21, B26;
- ``server_request_ownership``: two sessions with a pending request each; what
  one session receives on its session resumptions and on the resumption of its
  GET stream must be its own (B23, B26, B41);
- ``no_duplicate_tool_call``: a client that follows MCP (resumes, answers once,
  re-initializes after a 404) never has cause to send a call again: no 404 for
  its live session while the call is unfinished (B12, B34, D15);
- ``no_broadcast``: a request whose POST connection the client is still reading
  is not re-emitted on a new GET stream (B21);
- ``get_streams_across_sessions``: two sessions' GET streams stay apart (design 12).
"""

from __future__ import annotations

import asyncio
from typing import Any

from mcp_resume.model.http.evidence import End, Exchange, SseEvent
from mcp_resume.model.verify.driver import (
    GET_AFTER_CALL_SECONDS,
    HISTORY_TOOLS,
    Driver,
    Inconclusive,
    NotObservable,
    describe_events,
    reemit_wait,
    require,
    server_request_tools,
)
from mcp_resume.model.verify.report import Check
from mcp_resume.model.verify.scenarios import DROP_NOTICE_SECONDS, Context, _reemits


async def reemit_keeps_pending(d: Driver, ctx: Context) -> list[Check]:
    """Re-emission leaves a request pending; only the answer resolves it (rules §3.7)."""
    checks: list[Check] = []
    observable = False
    for tool in server_request_tools(d.tools):
        session = await d.open_session(f"session S ({tool})")
        _, arrival, request = await d.tool_until_server_request(session, f"session S: call {tool}", tool)
        rid = request.request_id
        if d.json_posts:  # it came on a GET with the session id alone: that was a session resumption (B16-B17)
            first = arrival
        else:
            first = await _session_resume(d, ctx, session, rid, "first session resumption")
        if first.end is End.DROPPED and _cancelled(first.events[-1]):
            continue  # the cancel alternative: the request is resolved, nothing stays pending
        if first.end is not End.DROPPED:
            await d.answer(session, request, f"answer {request.method} id={rid!r} (cleanup)")
            continue
        observable = True
        second = await _session_resume(d, ctx, session, rid, "second session resumption, after a second drop")
        checks.append(
            Check(
                f"{request.method} id={rid!r} of {tool}, re-emitted once, after a second drop",
                "re-emitted again (same id) or cancelled on the new stream",
                _found(second, ctx),
                second.end is End.DROPPED,
            )
        )
        answered = await d.answer(session, request, f"answer {request.method} id={rid!r}")
        checks.append(Check(f"the answer to {request.method} id={rid!r}", "202", str(answered.status), answered.status == 202))
        third = await _session_resume(d, ctx, session, rid, "session resumption after the answer", wait=ctx.bounds.settle)
        checks.append(
            Check(
                f"{request.method} id={rid!r} after it was answered",
                "not re-emitted (the answer resolved it)",
                _found(third, ctx),
                third.end is not End.DROPPED or _cancelled(third.events[-1]),
            )
        )
    if not observable:
        raise NotObservable(
            "the server never re-emitted a pending server request on session resumption (it cancelled it, or see "
            "reemit-pending): whether re-emission keeps it pending cannot be observed"
        )
    return checks


async def no_reemit_on_stream_resume(d: Driver, ctx: Context) -> list[Check]:
    """Stream resumption of a POST stream whose server request is pending sends
    the replay suffix only, never the request again (B21, B26, D30).

    A re-emission is the request under a new event id. The request's own event
    coming back under its own id is a replay, right or wrong: whether the replay
    starts after the cursor is ``replay-suffix``'s business (a MAY under the MCP
    revisions), so it is not judged here.
    """
    session = await d.open_session("session S")
    tool, call, request = await d.tool_until_server_request(session, "session S: call a tool that sends a server request")
    if request.id is None:
        raise NotObservable(f"the {request.method} event of {tool} carries no event id: nothing to resume from")
    rid = request.request_id
    delivered = {e.id for e in call.events if e.id is not None} | {request.id}
    from_request = require(
        await d.client.get(
            label=f"resume the POST stream from the {request.method} event {request.id}",
            session=session,
            last_event_id=request.id,
        ),
        "stream resumption",
    )
    reemitted = _reemitted(from_request.events, delivered)
    checks = [
        Check(
            f"stream resumption from the event that carried {request.method} id={rid!r}",
            "no server request under a new event id (nothing follows that event yet)",
            f"HTTP {from_request.status}: {describe_events(reemitted or from_request.data_events)}",
            not reemitted,
        )
    ]
    before = [e for e in call.events[:-1] if e.id is not None]
    if before:
        cursor = before[-1]
        from_before = require(
            await d.client.get(
                label=f"resume the POST stream from {cursor.id}, the event before the request",
                session=session,
                last_event_id=cursor.id,
            ),
            "stream resumption",
        )
        reemitted = _reemitted(from_before.events, delivered)
        carried = [e for e in from_before.events if e.is_server_request]
        checks.append(
            Check(
                f"stream resumption from {cursor.id}, just before {request.method} id={rid!r}",
                f"no server request under a new event id (the replay may carry event {request.id})",
                f"HTTP {from_before.status}: {describe_events(reemitted or carried)}",
                not reemitted,
            )
        )
    await d.answer(session, request, f"answer {request.method} id={rid!r} (cleanup)")
    return checks


def _reemitted(events: list[SseEvent], delivered: set) -> list[SseEvent]:
    """The server requests among ``events`` sent anew: under an event id the stream
    had not delivered (``delivered``), or under none."""
    return [e for e in events if e.is_server_request and (e.id is None or e.id not in delivered)]


async def server_request_ownership(d: Driver, ctx: Context) -> list[Check]:
    """Whatever session B receives is B's own: on its session resumptions and when
    it resumes its GET stream after session A's got more events (B23, B26, B41)."""
    return await get_streams_across_sessions(d, ctx)


async def get_streams_across_sessions(d: Driver, ctx: Context) -> list[Check]:
    """Two sessions' GET streams, each carrying its own re-emitted request: B's
    session resumption and the resumption of B's GET stream deliver nothing of A's
    (a stream key shared by the GET streams of all sessions, design 12, fails)."""
    tool = server_request_tools(d.tools)[0]
    a = await d.open_session("session A")
    _, _, request_a = await d.tool_until_server_request(a, f"session A: call {tool}", tool)
    b = await d.open_session("session B")
    _, _, request_b = await d.tool_until_server_request(b, f"session B: call {tool}", tool)
    seen_by_a: list[SseEvent] = [request_a]
    first_a = await _session_resume(d, ctx, a, request_a.request_id, "session A: session resumption")
    seen_by_a += first_a.events
    first_b = await _session_resume(d, ctx, b, request_b.request_id, "session B: session resumption")
    checks = [_own_only("session B's session resumption", first_b.events, seen_by_a, request_a, request_b)]
    cursor = first_b.events[-1] if first_b.end is End.DROPPED and first_b.events[-1].id else None
    if cursor is not None:
        second_a = await _session_resume(d, ctx, a, request_a.request_id, "session A: second session resumption")
        seen_by_a += second_a.events
        resumed = require(
            await d.client.get(
                label=f"session B resumes its GET stream from {cursor.id}",
                session=b,
                last_event_id=cursor.id,
                idle=reemit_wait(ctx.bounds),
            ),
            "stream resumption",
        )
        checks.append(
            _own_only(
                f"session B resumes its GET stream from {cursor.id} after A's second session resumption",
                resumed.events,
                seen_by_a,
                request_a,
                request_b,
            )
        )
    await d.answer(a, request_a, "answer session A's request (cleanup)")
    await d.answer(b, request_b, "answer session B's request (cleanup)")
    return checks


async def no_duplicate_tool_call(d: Driver, ctx: Context) -> list[Check]:
    """A client that follows MCP re-initializes after a 404 (B34) and may re-send a
    ``tools/call`` whose result it never saw: so while a call is unfinished, no
    request naming its live session may get 404, and once its server request is
    resolved the call does not run again (B12, B34, D15). A notification
    delivered twice, or a result never delivered, is ``replay-suffix``'s."""
    checks: list[Check] = []
    session = await d.open_session("session S")
    history_tool = next((t for t in HISTORY_TOOLS if t in d.tools), None)
    if history_tool is not None and ctx.caps.post_event_ids:
        checks += await _dropped_history_call(d, ctx, session, history_tool)
    tools = server_request_tools(d.tools)
    if tools:
        checks += await _answered_request_call(d, ctx, session, tools[0])
    if not checks:
        raise NotObservable("the server lists no fixture tool with notifications or a server request", "history-tool")
    return checks


async def _dropped_history_call(d: Driver, ctx: Context, session, tool: str) -> list[Check]:
    rid = d.client.next_id()
    first = require(
        await d.client.call_tool(
            session, tool, label=f"call {tool}, drop after its first notification", request_id=rid,
            stop=lambda e: not e.is_priming,
        ),
        tool,
    )
    if first.end is End.RESPONSE or not first.events or first.events[-1].id is None:
        raise NotObservable(f"{tool} sent no notification with an event id before its response")
    cursor = first.events[-1]
    rest = require(
        await d.client.get(
            label=f"resume the {tool} stream from {cursor.id}",
            session=session,
            last_event_id=cursor.id,
            stop=lambda e: e.is_response_to(rid),
            idle=ctx.bounds.idle,
        ),
        "stream resumption",
    )
    return [_no_404(f"resuming the unfinished {tool} call", [rest])]


async def _answered_request_call(d: Driver, ctx: Context, session, tool: str) -> list[Check]:
    rid = d.client.next_id()
    _, call, request = await d.tool_until_server_request(session, f"call {tool}, drop at its server request", tool, request_id=rid)
    resumed = await _session_resume(d, ctx, session, request.request_id, "session resumption before answering")
    cancelled = resumed.end is End.DROPPED and _cancelled(resumed.events[-1])
    sent = [resumed]
    if not cancelled:
        answered = await d.answer(session, request, f"answer {request.method} id={request.request_id!r} once")
        sent.append(answered)
        if answered.status not in (202, 404):
            raise Inconclusive(f"the answer to {request.method} got HTTP {answered.status}")
    if request.id is None:
        raise NotObservable(f"the {request.method} event carries no event id: the call's stream cannot be resumed")
    rest = require(
        await d.client.get(
            label=f"resume the {tool} stream from {request.id} after {'the cancel' if cancelled else 'answering'}",
            session=session,
            last_event_id=request.id,
            stop=lambda e: e.is_response_to(rid),
            idle=ctx.bounds.idle,
        ),
        "stream resumption",
    )
    sent.append(rest)
    later = require(
        await d.client.get(label="session resumption after the response", session=session, idle=ctx.bounds.settle),
        "session resumption",
    )
    new_requests = [  # the same request delivered again is a replay's or re-emission's business
        e for e in rest.data_events + later.data_events if e.is_server_request and e.request_id != request.request_id
    ]
    return [
        _no_404(f"requests of session S while {tool} was unfinished", sent),
        Check(
            f"server requests after {tool}'s {request.method} was resolved",
            "none (the call does not run again)",
            describe_events(new_requests) if new_requests else "none",
            not new_requests,
        ),
    ]


async def no_broadcast(d: Driver, ctx: Context) -> list[Check]:
    """A pending server request whose connection the client is still reading is
    not sent again on a new GET stream (MCP B21: one connected stream per message).
    Judged only while that connection is demonstrably open (DESIGN §2). The request
    is read where the server sends it: the call's POST stream, else (JSON answers,
    or a server that uses its GET stream for it, B17) the session's GET stream."""
    tool = server_request_tools(d.tools)[0]
    session = await d.open_session("session S")
    via_get = d.json_posts
    reading, request = await _reading_until_request(d, ctx, session, tool, via_get)
    if request is None and not via_get:
        via_get = True
        reading, request = await _reading_until_request(d, ctx, session, tool, via_get)
    if request is None:
        raise Inconclusive(f"{tool} sent no server request within {ctx.bounds.idle:g} s, on its POST stream or the GET stream")
    got = await _session_resume(d, ctx, session, request.request_id, "GET with the session id alone while the call's connection is open")
    still_open = not reading.done()
    await d.answer(session, request, f"answer {request.method} id={request.request_id!r}")
    if via_get:
        reading.cancel()  # a GET stream does not end with the call: stop reading it
    call = (await asyncio.gather(reading, return_exceptions=True))[0]
    if not still_open:
        ended = call.end.value if isinstance(call, Exchange) and call.end else "no end"
        raise NotObservable(f"the connection carrying {tool}'s request closed before the GET was answered ({ended})")
    sent_again = got.end is End.DROPPED and not _cancelled(got.events[-1])
    return [
        Check(
            f"{request.method} id={request.request_id!r}, pending on a connection the client is reading",
            "not re-emitted on the new GET stream",
            f"re-emitted as event {got.events[-1].id or '-'}" if sent_again else "not re-emitted",
            not sent_again,
        )
    ]


async def _reading_until_request(d: Driver, ctx: Context, session, tool: str, via_get: bool):
    """Start reading the stream that should carry ``tool``'s server request (the POST
    stream of a new call, or the GET stream opened before the call); return the
    reading task and the request, or (cancelled task, None) when none came in time."""
    rid = d.client.next_id()
    arrived: asyncio.Future = asyncio.get_running_loop().create_future()

    def watch(event: SseEvent) -> bool:
        if event.is_server_request and not arrived.done():
            arrived.set_result(event)
        return False

    if via_get:
        def open_get():
            return asyncio.ensure_future(
                d.client.get(label=f"GET with the session id, kept open: {tool}'s server request comes here",
                             session=session, stop=watch, idle=3 * ctx.bounds.idle))

        def call() -> None:
            d.start_call(session, tool, f"call {tool} (its server request comes on the GET stream)", rid)

        if d.json_posts:  # JSON answers: the request is pending before any GET can carry it, so call first
            call()
            await asyncio.sleep(GET_AFTER_CALL_SECONDS)
            reading = open_get()
        else:  # a server that sends it on an open GET stream only (B17) needs that stream open before the call
            reading = open_get()
            await asyncio.sleep(GET_AFTER_CALL_SECONDS)
            call()
    else:
        reading = asyncio.ensure_future(
            d.client.call_tool(session, tool, label=f"call {tool} and keep reading its stream", request_id=rid, stop=watch,
                               idle=3 * ctx.bounds.idle)
        )
    try:
        return reading, await asyncio.wait_for(asyncio.shield(arrived), ctx.bounds.idle)
    except asyncio.TimeoutError:
        reading.cancel()
        await asyncio.gather(reading, return_exceptions=True)
        return reading, None


# -- helpers ----------------------------------------------------------------------


async def _session_resume(d: Driver, ctx: Context, session, rid: Any, label: str, *, wait: float | None = None) -> Exchange:
    """A GET with the session id alone, dropped as soon as ``rid`` is re-emitted
    (or cancelled); otherwise read until quiet for ``wait`` seconds. It starts
    after a short pause, so that the server has seen the drop before it (DESIGN §2)."""
    await asyncio.sleep(DROP_NOTICE_SECONDS)
    return require(
        await d.client.get(
            label=label,
            session=session,
            stop=lambda e: _reemits(e, rid),
            idle=reemit_wait(ctx.bounds) if wait is None else wait,
        ),
        label,
    )


def _found(exchange: Exchange, ctx: Context) -> str:
    if exchange.end is End.DROPPED:
        event = exchange.events[-1]
        return f"{'cancelled' if _cancelled(event) else 're-emitted'} as event {event.id or '-'}"
    return f"HTTP {exchange.status}, nothing within the wait ({describe_events(exchange.data_events)})"


def _cancelled(event: SseEvent) -> bool:
    return event.method == "notifications/cancelled"


def _own_only(what: str, delivered, seen_by_a, request_a: SseEvent, request_b: SseEvent) -> Check:
    a_ids = {e.id for e in seen_by_a if e.id is not None}
    foreign = [
        e
        for e in delivered
        if not e.is_priming
        and (e.id in a_ids or (e.is_server_request and e.request_id == request_a.request_id != request_b.request_id))
    ]
    return Check(
        what,
        "only session B's own events and server requests",
        describe_events(foreign) if foreign else f"none of session A's ({len([e for e in delivered if not e.is_priming])} events)",
        not foreign,
    )


def _no_404(what: str, exchanges: list[Exchange]) -> Check:
    """No 404 while the session lives and its call is unfinished (a client would re-initialize, B34)."""
    refused = [e for e in exchanges if e.status == 404]
    observed = ", ".join(e.label for e in refused) if refused else "no 404"
    return Check(what, "no 404 (the session is live)", observed, not refused)
