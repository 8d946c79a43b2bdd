"""Scenarios about the life of sessions, streams and event ids, and the sessionless revision.

- ``event_id_unique``: the event ids of one session's streams never repeat (B23, D27);
- ``expiry_independent``: a session whose old streams expired lives on, and a
  deleted or expired session's event ids resume nothing anywhere (B10, B23, B33,
  D13); ``--stream-ttl`` / ``--session-ttl`` make verify wait for the server's expiry;
- ``no_cross_session_after_delete``: the checks of ``no_cross_session`` plus a
  deleted session's event id presented by another session (D50);
- ``new_session_on_initialize``, ``session_delete``: B28, B31, B33, B35, B36;
- ``sessionless_get_405``, ``sessionless_ignores_headers``: F1, F10, F17.

Stream expiry cannot be commanded over HTTP. The scenario makes more streams
than a server with bounded event storage keeps (``EXPIRY_STREAMS``), then
resumes the oldest: it may replay (whether exactly is ``replay-suffix``'s) or be
refused without 404, and the session must keep answering either way.
"""

from __future__ import annotations

import asyncio
import secrets

from mcp_resume.spec.decision import SUCCESSES, Method
from mcp_resume.spec.headers import EventClass, SessionClass

from mcp_resume.model.http.client import SESSIONLESS_VERSION
from mcp_resume.model.http.evidence import Exchange
from mcp_resume.model.verify.driver import (
    Driver,
    NotObservable,
    cursor_in_middle,
    describe_events,
    require,
    server_request_tools,
)
from mcp_resume.model.verify.pending import get_streams_across_sessions
from mcp_resume.model.verify.report import Check, status_check
from mcp_resume.model.verify.scenarios import (
    Context,
    _any_event_id,
    _belonging_to,
    _nothing_delivered,
    no_cross_session,
)

GET, POST_REQUEST, POST_INITIALIZE, DELETE = Method.GET, Method.POST_REQUEST, Method.POST_INITIALIZE, Method.DELETE
EXPIRY_STREAMS = 6
"""Complete streams made after the oldest one before it is resumed in ``expiry_independent``."""


async def event_id_unique(d: Driver, ctx: Context) -> list[Check]:
    """Event ids are unique across the session's streams (B23, D27). What a
    resumption replays from another stream breaks ``no-cross-session`` instead."""
    session = await d.open_session("session S")
    streams = [
        await d.history(session, "session S: first stream"),
        await d.history(session, "session S: second stream"),
        require(await d.client.request(session, "tools/list", label="session S: tools/list"), "tools/list"),
    ]
    if ctx.caps.get_stream:
        streams.append(require(await d.client.get(label="session S: GET stream", session=session), "GET"))
    owner: dict[str, int] = {}
    repeated = []
    for index, exchange in enumerate(streams):
        for event in exchange.events:
            if event.id is None:
                continue
            if event.id in owner:
                repeated.append(f"{event.id} (streams {owner[event.id] + 1} and {index + 1})")
            owner.setdefault(event.id, index)
    checks = [
        Check(
            f"event ids of {len(streams)} streams of one session",
            "each id once",
            ", ".join(repeated) if repeated else f"{len(owner)} distinct ids",
            not repeated,
        )
    ]
    return checks


async def expiry_independent(d: Driver, ctx: Context) -> list[Check]:
    """A session outlives its expired streams; a deleted session's event ids end
    with it (B10, B23, B33, D13)."""
    checks = await _streams_expire_session_lives(d, ctx) if ctx.caps.post_event_ids else []
    if ctx.stream_ttl:
        checks += await _stream_ttl_passes(d, ctx)
    if ctx.session_ttl:
        checks += await _session_ttl_passes(d, ctx)
    checks += await _deleted_session_ids_are_dead(d, ctx)
    if not checks:
        raise NotObservable("no stream expired and no session ended that verify could see (give --stream-ttl or --session-ttl)", "ttl")
    return checks


def _lives_on(what: str, got: Exchange) -> Check:
    """A resumption of an old stream: replayed (retained) or refused without 404
    (expired), never "session gone". Whether a replay is exact is ``replay-suffix``'s."""
    return Check(
        what,
        "no 404 (the session lives); a refusal delivers nothing",
        f"HTTP {got.status}: {describe_events(got.data_events)}",
        got.status is not None and got.status != 404 and (got.status == 200 or not got.data_events),
    )


async def _stream_ttl_passes(d: Driver, ctx: Context) -> list[Check]:
    """``--stream-ttl``: after the stream's time to live, resuming it is refused
    without 404 and the session answers on (B10, D13)."""
    session = await d.open_session("session T")
    stream = await d.history(session, "session T: a stream that will expire")
    cursor = cursor_in_middle(stream.events) or _any_event_id(stream, required=False)
    await _wait_keeping_alive(d, ctx, session, ctx.stream_ttl + ctx.bounds.settle)
    checks = []
    if cursor is not None:
        what = f"GET with event id {cursor.id}, {ctx.stream_ttl:g} s after its stream ended (--stream-ttl)"
        got = require(await d.client.get(label=what, session=session, last_event_id=cursor.id), what)
        checks.append(_lives_on(what, got))
    after = require(await d.client.request(session, "tools/list", label="session T after its stream expired"), "tools/list")
    checks.append(status_check("session T after its stream's time to live", after, ctx.expect(POST_REQUEST, SessionClass.LIVE, EventClass.ABSENT)))
    return checks


async def _wait_keeping_alive(d: Driver, ctx: Context, session, seconds: float) -> None:
    """Sleep ``seconds``; with ``--session-ttl``, ping the session often enough that
    it does not expire meanwhile (only its stream is meant to)."""
    step = ctx.session_ttl / 2 if ctx.session_ttl else seconds
    left = seconds
    while left > 0:
        await asyncio.sleep(min(step, left))
        left -= step
        if left > 0:
            await d.client.request(session, "ping", label="keep session T alive (--session-ttl)")


async def _session_ttl_passes(d: Driver, ctx: Context) -> list[Check]:
    """``--session-ttl``: a session left idle past its time to live is gone (404)
    and its event ids resume nothing, in it or in another session (B33, D13)."""
    session = await d.open_session("session X")
    stream = await d.history(session, "session X: a stream of a session that will expire")
    cursor = cursor_in_middle(stream.events) or _any_event_id(stream, required=False)
    await asyncio.sleep(ctx.session_ttl + ctx.bounds.settle)
    what = f"tools/list with session X, idle {ctx.session_ttl:g} s (--session-ttl)"
    gone = require(await d.client.request(session, "tools/list", label=what), what)
    checks = [status_check(what, gone, ctx.expect(POST_REQUEST, SessionClass.ENDED, EventClass.ABSENT))]
    if cursor is not None and ctx.caps.get_stream:
        other = await d.open_session("session Y")
        what = f"session Y presents expired session X's event id {cursor.id}"
        got = require(await d.client.get(label=what, session=other, last_event_id=cursor.id), what)
        checks.append(_nothing_delivered(what, got))
    return checks


async def _streams_expire_session_lives(d: Driver, ctx: Context) -> list[Check]:
    session = await d.open_session("session C")
    oldest = await d.history(session, "session C: the oldest stream")
    cursor = cursor_in_middle(oldest.events)
    if cursor is None:
        raise NotObservable("the oldest stream has no event id followed by a data event")
    for number in range(EXPIRY_STREAMS):
        more = require(
            await d.client.request(session, "tools/list", label=f"session C: newer stream {number + 1}"),
            "tools/list",
        )
        if more.status != 200:
            return [
                Check(
                    f"session C after {number} newer streams",
                    "200: the session lives while old streams expire",
                    f"HTTP {more.status}",
                    False,
                )
            ]
    what = f"GET with the oldest stream's event id {cursor.id} after {EXPIRY_STREAMS} newer streams"
    got = require(await d.client.get(label=what, session=session, last_event_id=cursor.id), "stream resumption")
    after = require(await d.client.request(session, "tools/list", label="session C afterwards"), "tools/list")
    return [
        _lives_on(what, got),
        status_check(
            "session C after its oldest stream was resumed or refused",
            after,
            ctx.expect(POST_REQUEST, SessionClass.LIVE, EventClass.ABSENT),
        ),
    ]


async def _deleted_session_ids_are_dead(d: Driver, ctx: Context) -> list[Check]:
    a = await d.open_session("session A")
    history = await d.history(a, "session A: a complete stream")
    cursor = cursor_in_middle(history.events) or _any_event_id(history, required=False)
    if cursor is None or not ctx.caps.get_stream:
        return []
    deleted = await d.delete(a, "delete session A")
    if deleted.status is None or deleted.status not in SUCCESSES:
        return []
    b = await d.open_session("session B")
    what = f"session B presents deleted session A's event id {cursor.id}"
    got = require(await d.client.get(label=what, session=b, last_event_id=cursor.id), what)
    return [_nothing_delivered(what, got)]


async def no_cross_session_after_delete(d: Driver, ctx: Context) -> list[Check]:
    """``no_cross_session``, and nothing of a deleted session reaches another (D50)."""
    checks = await no_cross_session(d, ctx)
    if server_request_tools(d.tools):
        checks += await get_streams_across_sessions(d, ctx)
    if not ctx.caps.post_event_ids:
        if not checks:
            raise NotObservable("no event ids on POST streams, no GET-stream ids, no fixture tool with a server request")
        return checks
    a = await d.open_session("session E")
    history = await d.history(a, "session E: a complete stream")
    cursor = cursor_in_middle(history.events) or _any_event_id(history)
    deleted = await d.delete(a, "delete session E")
    if deleted.status is None or deleted.status not in SUCCESSES:
        return checks
    f = await d.open_session("session F")
    got = require(
        await d.client.get(label=f"session F presents deleted session E's event id {cursor.id}", session=f, last_event_id=cursor.id),
        "GET in session F",
    )
    leaked = _belonging_to(got.data_events, history.events, by_content=True)
    checks.append(
        Check(
            "GET in session F with deleted session E's event id",
            "no event of session E",
            describe_events(leaked) if leaked else f"none of E's events ({len(got.data_events)} events)",
            not leaked,
        )
    )
    return checks


async def new_session_on_initialize(d: Driver, ctx: Context) -> list[Check]:
    """Each initialize without a session id opens a new session with its own id (B28, B31)."""
    first = require(await d.client.initialize("first initialize"), "initialize")
    second = require(await d.client.initialize("second initialize"), "initialize")
    for exchange in (first, second):
        if exchange.session_header:
            d.adopt(exchange.session_header)
    decision = ctx.expect(POST_INITIALIZE, SessionClass.ABSENT, EventClass.ABSENT)
    ids = [first.session_header, second.session_header]
    return [
        status_check("initialize without a session id", first, decision),
        Check("Mcp-Session-Id of two initializes", "two different ids", f"{ids[0]} and {ids[1]}", None not in ids and ids[0] != ids[1]),
    ]


async def session_delete(d: Driver, ctx: Context) -> list[Check]:
    """DELETE ends a live session (2xx) or is refused (405) (B35, B36). What a
    deleted session's id gets afterwards is ``unknown-session-404``'s (B33)."""
    session = await d.open_session("session S")
    deleted = await d.delete(session, "DELETE session S")
    return [status_check("DELETE with a live session id", deleted, ctx.expect(DELETE, SessionClass.LIVE, EventClass.ABSENT))]


async def sessionless_get_405(d: Driver, ctx: Context) -> list[Check]:
    """A sessionless server answers GET and DELETE with 405 (F1, F17)."""
    plain = require(await d.client.get(label="GET without headers"), "GET")
    legacy = require(
        await d.client.get(
            label="GET with legacy session and event ids",
            session=f"mcp-resume-legacy-{secrets.token_hex(4)}",
            last_event_id="mcp-resume-legacy-event",
        ),
        "GET",
    )
    delete = require(await d.client.delete(None, label="DELETE without headers"), "DELETE")
    checks = [
        status_check("GET without headers", plain, ctx.expect(GET, SessionClass.ABSENT, EventClass.ABSENT)),
        status_check("GET with an Mcp-Session-Id and a Last-Event-ID", legacy, ctx.expect(GET, SessionClass.UNKNOWN, EventClass.UNKNOWN)),
        status_check("DELETE without headers", delete, ctx.expect(DELETE, SessionClass.ABSENT, EventClass.ABSENT)),
    ]
    return checks


async def sessionless_ignores_headers(d: Driver, ctx: Context) -> list[Check]:
    """A sessionless server never mints a session id and ignores both legacy headers (F10, F17)."""
    spoken = d.client.protocol_version
    d.client.protocol_version = SESSIONLESS_VERSION
    rid = d.client.next_id()
    try:
        listed = require(await d.client.request(None, "tools/list", label="POST tools/list without headers"), "tools/list")
        legacy = require(
            await d.client.send(
                "POST",
                label="POST tools/list with a made-up Mcp-Session-Id and Last-Event-ID",
                session=f"mcp-resume-legacy-{secrets.token_hex(4)}",
                last_event_id="mcp-resume-legacy-event",
                body={"jsonrpc": "2.0", "id": rid, "method": "tools/list"},
                await_id=rid,
            ),
            "tools/list",
        )
    finally:
        d.client.protocol_version = spoken
    decision = ctx.expect(POST_REQUEST, SessionClass.UNKNOWN, EventClass.UNKNOWN)
    return [
        status_check("POST tools/list without headers", listed, ctx.expect(POST_REQUEST, SessionClass.ABSENT, EventClass.ABSENT)),
        status_check("POST tools/list with legacy headers", legacy, decision),
        _no_session_header(listed),
        _no_session_header(legacy),
    ]


def _no_session_header(exchange: Exchange) -> Check:
    header = exchange.session_header
    return Check(f"Mcp-Session-Id on the answer to {exchange.label}", "absent", str(header), header is None)
