"""Scenarios about pending server requests, driven through ``test_elicitation`` and ``test_sampling``.

Each scenario calls a fixture tool that sends a server request, drops the POST
connection as soon as the request arrives (the request is now pending, MCP
B12/D15), and then reconnects in the ways docs/design.md §2 distinguishes:

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
- ``get_streams_across_sessions``: two sessions' GET streams stay apart (design 12);
- ``standalone_stream_scope``: with the GET stream open, a call's notifications, response
  and server request come on the call's own stream (B9, B17, B18).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from mcp_resume.model.http.evidence import End, Exchange, SseEvent
from mcp_resume.model.verify.driver import (
    GET_AFTER_CALL_SECONDS,
    Driver,
    Inconclusive,
    NotObservable,
    reemit_wait,
    require,
)
from mcp_resume.model.verify.fixture_tools import Role
from mcp_resume.model.verify.roles import ToolUse
from mcp_resume.model.verify.scenarios import DROP_NOTICE_SECONDS, Context, _reemits, parts, watching


async def reemit_keeps_pending(d: Driver, ctx: Context) -> None:
    """A re-emitted request is dropped again: the second session resumption must bring
    it again; after the answer a third must not (rules §3.7)."""
    observable = False
    for tool in d.tools_of(Role.SERVER_REQUEST):
        session = await d.open_session(f"session S ({tool})")
        _, _, request = await d.tool_until_server_request(session, f"session S: call {tool}", tool)
        rid = request.request_id
        first = await _session_resume(d, ctx, session, rid, "first session resumption")
        if first.end is not End.DROPPED or _cancelled(first.events[-1]):
            if first.end is not End.DROPPED:
                await d.answer(session, request, f"answer {request.method} id={rid!r} (cleanup)")
            continue  # cancelled, or never re-emitted (reemit-pending's finding): nothing stays re-emitted
        observable = True
        await _session_resume(d, ctx, session, rid, "second session resumption, after a second drop")
        await d.answer(session, request, f"answer {request.method} id={rid!r}")
        await _session_resume(d, ctx, session, rid, "session resumption after the answer", wait=ctx.bounds.settle)
    if not observable:
        raise NotObservable(
            "the server never re-emitted a pending server request on session resumption (it cancelled it, or see "
            "reemit-pending): whether re-emission keeps it pending cannot be observed"
        )


async def no_reemit_on_stream_resume(d: Driver, ctx: Context) -> None:
    """Stream resumption of a POST stream whose server request is pending, from the
    request's own event id and from the event before it (B21, B26, D30)."""
    session = await d.open_session("session S")
    tool, call, request = await d.tool_until_server_request(session, "session S: call a tool that sends a server request")
    if request.id is None:
        raise NotObservable(f"the {request.method} event of {tool} carries no event id: nothing to resume from")
    require(
        await d.client.get(label=f"resume the POST stream from the {request.method} event {request.id}",
                           session=session, last_event_id=request.id),
        "stream resumption",
    )
    before = [e for e in call.events[:-1] if e.id is not None]
    if before:
        cursor = before[-1]
        require(
            await d.client.get(label=f"resume the POST stream from {cursor.id}, the event before the request",
                               session=session, last_event_id=cursor.id),
            "stream resumption",
        )
    await d.answer(session, request, f"answer {request.method} id={request.request_id!r} (cleanup)")


async def server_request_ownership(d: Driver, ctx: Context) -> None:
    """Two sessions with a pending request each; what each receives must be its own (B23, B26, B41)."""
    await get_streams_across_sessions(d, ctx)


async def get_streams_across_sessions(d: Driver, ctx: Context) -> None:
    """Two sessions' GET streams, each carrying its own re-emitted request: both sessions resumed
    (``parts``), then B's GET stream, opened before A's second session resumption, resumed after it
    (design 12)."""
    tool = d.tools_of(Role.SERVER_REQUEST)[0]
    async with watching(d, ctx, "session W"):
        a = await d.open_session("session A")
        _, _, request_a = await d.tool_until_server_request(a, f"session A: call {tool}", tool)
        b = await d.open_session("session B")
        _, _, request_b = await d.tool_until_server_request(b, f"session B: call {tool}", tool)
        resumed: dict[str, Exchange] = {}

        async def resume(name: str, session, request) -> None:
            resumed[name] = await _session_resume(d, ctx, session, request.request_id, f"session {name}: session resumption")

        await parts(ctx, lambda: resume("A", a, request_a), lambda: resume("B", b, request_b))
        first_b = resumed["B"]
        cursor = first_b.events[-1] if first_b.end is End.DROPPED and first_b.events[-1].id else None
        if cursor is not None:
            await _session_resume(d, ctx, a, request_a.request_id, "session A: second session resumption")
            require(
                await d.client.get(label=f"session B resumes its GET stream from {cursor.id}", session=b,
                                   last_event_id=cursor.id, idle=reemit_wait(ctx.bounds)),
                "stream resumption",
            )
        await d.answer(a, request_a, "answer session A's request (cleanup)")
        await d.answer(b, request_b, "answer session B's request (cleanup)")


async def no_duplicate_tool_call(d: Driver, ctx: Context) -> None:
    """A client that follows MCP resumes unfinished calls and answers server requests once
    (B12, B34, D15): a history call dropped at its first notification and resumed, and a
    server-request call dropped, resumed, answered and resumed to its response."""
    session = await d.open_session("session S")
    driven = False
    history_tool = next(iter(d.tools_of(Role.NOTIFICATIONS)), None)
    if history_tool is not None and ctx.caps.post_event_ids:
        driven = await _dropped_history_call(d, ctx, session, history_tool)
    tools = d.tools_of(Role.SERVER_REQUEST)
    if tools:
        await _answered_request_call(d, ctx, session, tools[0])
        driven = True
    if not driven:
        raise NotObservable("the server lists no fixture tool with notifications or a server request", "history-tool")


async def _dropped_history_call(d: Driver, ctx: Context, session, tool: ToolUse) -> bool:
    rid = d.client.next_id()
    first = require(
        await d.call(session, tool, label=f"call {tool}, drop at its first event id (the priming event's, if any)",
                     request_id=rid, stop=lambda e: e.id is not None),
        tool.name,
    )
    if first.end is End.RESPONSE or not first.events or first.events[-1].id is None:
        return False
    cursor = first.events[-1]
    require(
        await d.client.get(label=f"resume the {tool} stream from {cursor.id}", session=session, last_event_id=cursor.id,
                           stop=lambda e: e.is_response_to(rid), idle=ctx.bounds.idle),
        "stream resumption",
    )
    return True


async def _answered_request_call(d: Driver, ctx: Context, session, tool: ToolUse) -> None:
    rid = d.client.next_id()
    _, call, request = await d.tool_until_server_request(session, f"call {tool}, drop at its server request", tool, request_id=rid)
    resumed = await _session_resume(d, ctx, session, request.request_id, "session resumption before answering")
    cancelled = resumed.end is End.DROPPED and _cancelled(resumed.events[-1])
    if not cancelled:
        answered = await d.answer(session, request, f"answer {request.method} id={request.request_id!r} once")
        if answered.status not in (202, 404):
            raise Inconclusive(f"the answer to {request.method} got HTTP {answered.status}")
    if request.id is None:
        raise NotObservable(f"the {request.method} event carries no event id: the call's stream cannot be resumed")
    # by the fixture tool's definition its response follows the answer (or the cancel) at once: by the
    # time the stream is resumed it is due there, sent while no connection was open (Exchange.promised)
    await asyncio.sleep(ctx.bounds.settle)
    call.promised = time.monotonic()
    require(
        await d.client.get(label=f"resume the {tool} stream from {request.id} after {'the cancel' if cancelled else 'answering'}",
                           session=session, last_event_id=request.id, stop=lambda e: e.is_response_to(rid),
                           idle=ctx.bounds.idle),
        "stream resumption",
    )
    require(await d.client.get(label="session resumption after the response", session=session, idle=ctx.bounds.settle),
            "session resumption")


async def no_broadcast(d: Driver, ctx: Context) -> None:
    """A pending server request whose connection the client is still reading is
    not sent again on a new GET stream (MCP B21: one connected stream per message).
    Judged only while that connection is demonstrably open (docs/design.md §2). The request
    is read where the server sends it: the call's POST stream, else (JSON answers,
    or a server that uses its GET stream for it, B17) the session's GET stream."""
    tool = d.tools_of(Role.SERVER_REQUEST)[0]
    session = await d.open_session("session S")
    via_get = d.json_posts
    reading, request = await _reading_until_request(d, ctx, session, tool, via_get)
    if request is None and not via_get:
        via_get = True
        reading, request = await _reading_until_request(d, ctx, session, tool, via_get)
    if request is None:
        raise Inconclusive(f"{tool} sent no server request within {ctx.bounds.idle:g} s, on its POST stream or the GET stream")
    await _session_resume(d, ctx, session, request.request_id, "GET with the session id alone while the call's connection is open")
    still_open = not reading.done()
    await d.answer(session, request, f"answer {request.method} id={request.request_id!r}")
    if via_get:
        reading.cancel()  # a GET stream does not end with the call: stop reading it
    call = (await asyncio.gather(reading, return_exceptions=True))[0]
    if not still_open:
        ended = call.end.value if isinstance(call, Exchange) and call.end else "no end"
        raise NotObservable(f"the connection carrying {tool}'s request closed before the GET was answered ({ended})")


async def standalone_stream_scope(d: Driver, ctx: Context) -> None:
    """With the session's GET stream open, every message about a call comes on the call's own
    POST stream: its notifications and response (B9, B18: no response on the GET stream), the
    progress of two calls run at once each on its own stream (told by their progress tokens),
    and a server request (B17). The GET stream is read until the calls have ended, then until quiet
    for ``Timeouts.settle``: what a server sends about a call it sends before or as the call ends."""
    if d.json_posts:
        raise NotObservable("the server answers POST requests with JSON: a call's messages can only come on the GET "
                            "stream")
    history = d.tools_of(Role.NOTIFICATIONS)
    asking = d.tools_of(Role.SERVER_REQUEST)
    if not history and not asking:
        raise NotObservable("no tool that sends notifications or a server request to place", "history-tool")
    session = await d.open_session("session S")
    done = asyncio.Event()
    arrived: asyncio.Future = asyncio.get_running_loop().create_future()

    def watch(event: SseEvent) -> bool:
        """Note the first server request, on whichever stream it comes; read on."""
        if event.is_input_request and not arrived.done():
            arrived.set_result(event)
        return False

    get = asyncio.ensure_future(d.client.get(label="GET with the session id, kept open while tools run",
                                             session=session, stop=watch, idle=ctx.bounds.settle, until=done))
    await asyncio.sleep(GET_AFTER_CALL_SECONDS)
    try:
        if history:
            calls = [d.call(session, history[-1], label=f"call {history[-1]} with the GET stream open ({n} of 2)")
                     for n in (1, 2)]
            await asyncio.gather(*calls)  # two at once: each one's progress on its own stream
        if asking:
            await _request_with_get_open(d, ctx, session, asking[0], arrived, watch)
    except BaseException:  # cut off (the scenario's bound) or failed: stop reading at once
        get.cancel()
        await asyncio.gather(get, return_exceptions=True)
        raise
    done.set()
    await asyncio.gather(get, return_exceptions=True)


async def _request_with_get_open(d: Driver, ctx: Context, session, tool: ToolUse, arrived: asyncio.Future,
                                 watch) -> None:
    """``tool`` called while the session's GET stream is open (read with ``watch``, which sets
    ``arrived``); its server request answered wherever it came, and the call read to its response."""
    call = asyncio.ensure_future(d.call(session, tool, label=f"call {tool}, which sends a server request",
                                        stop=watch, idle=3 * ctx.bounds.idle))
    try:
        request = await asyncio.wait_for(asyncio.shield(arrived), ctx.bounds.idle)
    except asyncio.TimeoutError:
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        raise Inconclusive(f"{tool} sent no server request within {ctx.bounds.idle:g} s on its POST stream "
                           "(a request sent on the GET stream instead is judged from the GET's events)") from None
    await d.answer(session, request, f"answer {request.method} id={request.request_id!r}")
    await asyncio.gather(call, return_exceptions=True)


async def _reading_until_request(d: Driver, ctx: Context, session, tool: ToolUse, via_get: bool):
    """Start reading the stream that should carry ``tool``'s server request (the POST
    stream of a new call, or the GET stream opened before the call); return the
    reading task and the request, or (cancelled task, None) when none came in time."""
    rid = d.client.next_id()
    arrived: asyncio.Future = asyncio.get_running_loop().create_future()

    def watch(event: SseEvent) -> bool:
        if event.is_input_request and not arrived.done():
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
            d.call(session, tool, label=f"call {tool} and keep reading its stream", request_id=rid, stop=watch,
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
    after a short pause, so that the server has seen the drop before it (docs/design.md §2)."""
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



def _cancelled(event: SseEvent) -> bool:
    return event.method == "notifications/cancelled"

