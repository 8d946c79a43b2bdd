"""Scenarios about the life of sessions, streams and event ids, and the sessionless revision.

- ``event_id_unique``: the event ids of one session's streams never repeat (B23, D27);
- ``expiry_independent``: a session whose old streams expired lives on, and a
  deleted or expired session's event ids resume nothing anywhere (B10, B23, B33,
  D13); ``--stream-ttl`` / ``--session-ttl`` make verify wait for the server's expiry;
- ``no_cross_session_after_delete``: the checks of ``no_cross_session`` plus a
  deleted session's event id presented by another session (D50);
- ``new_session_on_initialize``, ``session_delete``: B28, B31, B33, B35, B36;
- ``sessionless_get_405``, ``sessionless_ignores_headers``: F1, F10, F17;
- ``sessionless_request_validated``: F12, F13, F14, F16;
- ``sessionless_notification_202``: F4.

Stream expiry cannot be commanded over HTTP. The scenario makes more streams
than a server with bounded event storage keeps (``EXPIRY_STREAMS``), then
resumes the oldest: it may replay (whether exactly is ``replay-suffix``'s) or be
refused without 404, and the session must keep answering either way.
"""

from __future__ import annotations

import asyncio
import secrets

from mcp_resume.spec.decision import SUCCESSES

from mcp_resume.model.http.client import META_VERSION_KEY, SESSIONLESS_VERSION
from mcp_resume.model.sessionless.traffic import UNIMPLEMENTED_METHOD
from mcp_resume.model.verify.driver import Driver, NotObservable, cursor_in_middle, foreign_cursor, require
from mcp_resume.model.verify.fixture_tools import Role
from mcp_resume.model.verify.pending import get_streams_across_sessions
from mcp_resume.model.verify.scenarios import UNSUPPORTED_VERSION, Context, _any_event_id, no_cross_session, parts

EXPIRY_STREAMS = 6
"""Complete streams made after the oldest one before it is resumed in ``expiry_independent``."""


async def event_id_unique(d: Driver, ctx: Context) -> None:
    """Several streams of one session: two complete ones, a ``tools/list`` that carries a
    ``Last-Event-ID`` of the first (resumption is a GET, D31: a POST opens a new stream, whose
    events need ids of their own) and the GET stream (B23, D27)."""
    session = await d.open_session("session S")
    first = await d.history(session, "session S: first stream")
    await d.history(session, "session S: second stream")
    cursor = cursor_in_middle(first.events)
    if cursor is None:
        require(await d.client.request(session, "tools/list", label="session S: tools/list"), "tools/list")
    else:
        rid = d.client.next_id()
        what = f"session S: tools/list carrying Last-Event-ID {cursor.id}"
        require(await d.client.send("POST", label=what, session=session, last_event_id=cursor.id,
                                    body={"jsonrpc": "2.0", "id": rid, "method": "tools/list"}, await_id=rid), "tools/list")
    if ctx.caps.get_stream:
        require(await d.client.get(label="session S: GET stream", session=session), "GET")


async def expiry_independent(d: Driver, ctx: Context) -> None:
    """Streams expire, the session lives on; a deleted or expired session's event ids
    resume nothing anywhere (B10, B23, B33, D13). Only a server's own expiry, given by
    ``--stream-ttl`` / ``--session-ttl``, lets the spec judge it: verify waits for it
    and tells the judgement when it ran out (``Exchange.expires``)."""
    if ctx.caps.post_event_ids:
        await _streams_expire_session_lives(d, ctx)
    if ctx.stream_ttl:
        await _stream_ttl_passes(d, ctx)
    if ctx.session_ttl:
        await _session_ttl_passes(d, ctx)
    await _deleted_session_ids_are_dead(d, ctx)
    if not (ctx.stream_ttl or ctx.session_ttl):
        raise NotObservable("no stream expired and no session ended that verify could see (give --stream-ttl or --session-ttl)", "ttl")


async def _stream_ttl_passes(d: Driver, ctx: Context) -> None:
    """``--stream-ttl``: after the stream's time to live, it is resumed and the session used (B10, D13)."""
    session = await d.open_session("session T")
    stream = await d.history(session, "session T: a stream that will expire")
    stream.expires = (stream.ended or 0.0) + ctx.stream_ttl
    cursor = cursor_in_middle(stream.events) or _any_event_id(stream, required=False)
    await _wait_keeping_alive(d, ctx, session, ctx.stream_ttl + ctx.bounds.settle)
    if cursor is not None:
        what = f"GET with event id {cursor.id}, {ctx.stream_ttl:g} s after its stream ended (--stream-ttl)"
        require(await d.client.get(label=what, session=session, last_event_id=cursor.id), what)
    require(await d.client.request(session, "tools/list", label="session T after its stream expired"), "tools/list")


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


async def _session_ttl_passes(d: Driver, ctx: Context) -> None:
    """``--session-ttl``: a session left idle past its time to live is used, and its event
    id presented by another session (B33, D13)."""
    session = await d.open_session("session X")
    stream = await d.history(session, "session X: a stream of a session that will expire")
    opened = next(x for x in d.exchanges if x.session_header == session and x.method == "POST")
    opened.expires = (stream.ended or 0.0) + ctx.session_ttl
    await asyncio.sleep(ctx.session_ttl + ctx.bounds.settle)
    what = f"tools/list with session X, idle {ctx.session_ttl:g} s (--session-ttl)"
    require(await d.client.request(session, "tools/list", label=what), what)
    if ctx.caps.get_stream:
        other = await d.open_session("session Y")
        cursor = foreign_cursor(stream.events, d.event_ids_of(other))
        if cursor is None:
            return
        what = f"session Y presents expired session X's event id {cursor.id}"
        require(await d.client.get(label=what, session=other, last_event_id=cursor.id), what)


async def _streams_expire_session_lives(d: Driver, ctx: Context) -> None:
    """More streams than a server with bounded storage keeps, then the oldest resumed."""
    session = await d.open_session("session C")
    oldest = await d.history(session, "session C: the oldest stream")
    cursor = cursor_in_middle(oldest.events)
    if cursor is None:
        return
    for number in range(EXPIRY_STREAMS):
        more = require(
            await d.client.request(session, "tools/list", label=f"session C: newer stream {number + 1}"), "tools/list")
        if more.status != 200:
            return
    what = f"GET with the oldest stream's event id {cursor.id} after {EXPIRY_STREAMS} newer streams"
    require(await d.client.get(label=what, session=session, last_event_id=cursor.id), "stream resumption")
    require(await d.client.request(session, "tools/list", label="session C afterwards"), "tools/list")


async def _deleted_session_ids_are_dead(d: Driver, ctx: Context) -> None:
    a = await d.open_session("session A")
    history = await d.history(a, "session A: a complete stream")
    if _any_event_id(history, required=False) is None or not ctx.caps.get_stream:
        return
    deleted = await d.delete(a, "delete session A")
    if deleted.status is None or deleted.status not in SUCCESSES:
        return
    b = await d.open_session("session B")
    cursor = foreign_cursor(history.events, d.event_ids_of(b))
    if cursor is None:
        return
    what = f"session B presents deleted session A's event id {cursor.id}"
    require(await d.client.get(label=what, session=b, last_event_id=cursor.id), what)


async def no_cross_session_after_delete(d: Driver, ctx: Context) -> None:
    """``no_cross_session``, two sessions' pending requests, and a deleted session's event
    id presented by another session (D50), each in sessions of its own (``parts``)."""
    steps = [lambda: no_cross_session(d, ctx)]
    if d.tools_of(Role.SERVER_REQUEST):
        steps.append(lambda: get_streams_across_sessions(d, ctx))
    if ctx.caps.post_event_ids:
        steps.append(lambda: _deleted_session_cursor(d))
    await parts(ctx, *steps)
    if not ctx.caps.post_event_ids and not ctx.caps.get_event_ids and not d.tools_of(Role.SERVER_REQUEST):
        raise NotObservable("no event ids on POST streams, no GET-stream ids, no fixture tool with a server request")


async def _deleted_session_cursor(d: Driver) -> None:
    """Session F presents the event id of session E, deleted before (D50)."""
    a = await d.open_session("session E")
    history = await d.history(a, "session E: a complete stream")
    _any_event_id(history)
    deleted = await d.delete(a, "delete session E")
    if deleted.status is None or deleted.status not in SUCCESSES:
        return
    f = await d.open_session("session F")
    cursor = foreign_cursor(history.events, d.event_ids_of(f))
    if cursor is None:
        return
    require(
        await d.client.get(label=f"session F presents deleted session E's event id {cursor.id}", session=f,
                           last_event_id=cursor.id),
        "GET in session F",
    )


async def new_session_on_initialize(d: Driver, ctx: Context) -> None:
    """Two initializes without a session id (B28, B30, B31). A session minted with a malformed
    id is not deleted at cleanup: a DELETE naming it would be judged as any malformed id's."""
    for label in ("first initialize", "second initialize"):
        exchange = require(await d.client.initialize(label), "initialize")
        if exchange.session_header and not exchange.names_malformed_session:
            d.adopt(exchange.session_header)


async def session_delete(d: Driver, ctx: Context) -> None:
    """DELETE of a live session (B35, B36)."""
    session = await d.open_session("session S")
    await d.delete(session, "DELETE session S")


async def sessionless_get_405(d: Driver, ctx: Context) -> None:
    """GET without headers, GET with legacy session and event ids, DELETE (F1, F17)."""
    require(await d.client.get(label="GET without headers"), "GET")
    require(
        await d.client.get(label="GET with legacy session and event ids",
                           session=f"mcp-resume-legacy-{secrets.token_hex(4)}", last_event_id="mcp-resume-legacy-event"),
        "GET",
    )
    require(await d.client.delete(None, label="DELETE without headers"), "DELETE")


AFTER_FINAL_SECONDS = 1.0
"""How long verify reads on past one final response for its stream to end (F8): a server that ends
the stream with its final response has done so within it on any connection verify makes; one that
holds the stream open costs this once."""


async def sessionless_ignores_headers(d: Driver, ctx: Context) -> None:
    """POST ``tools/list`` in the 2026-07-28 request shape, without and with a made-up
    ``Mcp-Session-Id`` and ``Last-Event-ID`` (F10, F17). The first is read on past its final
    response, up to ``AFTER_FINAL_SECONDS``, to see its stream end (F8)."""
    spoken = d.client.protocol_version
    d.client.protocol_version = SESSIONLESS_VERSION
    rid = d.client.next_id()
    try:
        listing = {"jsonrpc": "2.0", "id": d.client.next_id(), "method": "tools/list"}
        require(await d.client.send("POST", label="POST tools/list without headers, read to the stream's end (F8)",
                                    body=listing, idle=AFTER_FINAL_SECONDS), "tools/list")
        require(
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


OTHER_VERSION = "2025-11-25"
"""The ``_meta`` version verify sends against a 2026-07-28 header for F12: a real revision, not this one."""


def invalid_requests(next_id) -> list[tuple[str, dict, dict[str, str]]]:
    """The requests of ``sessionless_request_validated``: (label, body, headers that replace the
    client's), each with a fresh id from ``next_id()``."""
    def listing(meta_version: str | None = None, method: str = "tools/list") -> dict:
        params = {"_meta": {META_VERSION_KEY: meta_version}} if meta_version else {}
        return {"jsonrpc": "2.0", "id": next_id(), "method": method, **({"params": params} if params else {})}

    return [
        ("POST tools/list whose MCP-Protocol-Version differs from params._meta (F12)", listing(OTHER_VERSION), {}),
        (f"POST tools/list in protocol version {UNSUPPORTED_VERSION}, which no revision has (F13)",
         listing(UNSUPPORTED_VERSION), {"mcp-protocol-version": UNSUPPORTED_VERSION}),
        (f"POST {UNIMPLEMENTED_METHOD}, a method no server implements (F14)", listing(method=UNIMPLEMENTED_METHOD), {}),
        ("POST tools/list whose Mcp-Method header says prompts/list (F16)", listing(), {"mcp-method": "prompts/list"}),
    ]


NOTIFICATION = "notifications/roots/list_changed"
"""The notification ``sessionless_notification_202`` sends: one a client of every revision may send,
which asks nothing of a server that does not track roots."""


async def sessionless_notification_202(d: Driver, ctx: Context) -> None:
    """POST a notification in the 2026-07-28 request shape: accepted, it gets 202 with no body;
    refused, an error status (F4)."""
    spoken = d.client.protocol_version
    d.client.protocol_version = SESSIONLESS_VERSION
    try:
        label = f"POST {NOTIFICATION} in the 2026-07-28 request shape (F4)"
        require(await d.client.notify(None, NOTIFICATION, label=label), NOTIFICATION)
    finally:
        d.client.protocol_version = spoken


async def sessionless_request_validated(d: Driver, ctx: Context) -> None:
    """POSTs in the 2026-07-28 request shape the server cannot take as sent (``invalid_requests``):
    each gets its refusal (F12, F13, F14, F16)."""
    spoken = d.client.protocol_version
    d.client.protocol_version = SESSIONLESS_VERSION
    try:
        for label, body, headers in invalid_requests(d.client.next_id):
            require(await d.client.send("POST", label=label, body=body, headers=headers, await_id=body["id"]), label)
    finally:
        d.client.protocol_version = spoken
