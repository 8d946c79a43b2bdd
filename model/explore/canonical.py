"""Canonical forms of spec states: the explorer's symmetry reduction.

Session, stream, event and server-request handles are interchangeable names:
renaming them never changes what any action does or what any invariant says.
Neither does the order in which events of *different* streams were created (no
action and no invariant reads it; within one stream, order is kept). So two
states that differ only in those respects are one state for the explorer, and
it hashes their common canonical form.

The canonical form is a sorted tuple of *session forms*, one per session. A
session of the spec owns everything that refers to it (its streams, their
events, its server requests, the client's cursors and held requests), so a
session form is self-contained: ``(status, held, streams, requests, seen)`` with

- ``status``: ``LIVE``, ``EXPIRED`` or ``DELETED`` (0, 1, 2);
- ``held``: 1 when the client holds the session, else 0;
- ``streams``: sorted tuple of ``(kind, status, connected, cursor, events, evicted)``:
  ``kind`` 0 POST / 1 GET, ``status`` 0 open / 1 ended / 2 expired,
  ``connected`` 0/1, ``cursor`` the 1-based position of the client's cursor on
  the stream (0: none), ``events`` one code per event in stream order
  (``event_code``: 0 a notification, else which request it carries or cancels,
  whether it is the request's first sending or a re-emission, and whether its
  stream is the request's carrying stream), ``evicted`` how many of its oldest
  events a ring buffer discarded;
- ``requests``: the status of each server request (0 pending, 1 answered,
  2 cancelled), numbered 1, 2, ...;
- ``seen``: sorted numbers of the requests the client holds.

Requests are numbered by the permutation that gives the smallest form, so the
form is canonical: two sessions get the same form exactly when one is a
renaming of the other. A state of one session with at most two requests (what
the fast explorer meets) takes a shortcut that gives the same form in one pass
over its events. ``decode`` builds a spec state back from forms.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations
from typing import Sequence

from mcp_resume.spec.state import (
    ClientSession,
    Event,
    RequestStatus,
    ServerRequest,
    Session,
    SessionStatus,
    State,
    Stream,
    StreamKind,
    StreamStatus,
)

SessionForm = tuple
"""``(status, held, streams, requests, seen)``, see the module docstring."""

SESSION_CODES = {SessionStatus.LIVE: 0, SessionStatus.EXPIRED: 1, SessionStatus.DELETED: 2}
KIND_CODES = {StreamKind.POST: 0, StreamKind.GET: 1}
STREAM_CODES = {StreamStatus.OPEN: 0, StreamStatus.ENDED: 1, StreamStatus.EXPIRED: 2}
REQUEST_CODES = {RequestStatus.PENDING: 0, RequestStatus.ANSWERED: 1, RequestStatus.CANCELLED: 2}

_SESSIONS = {code: status for status, code in SESSION_CODES.items()}
_KINDS = {code: kind for kind, code in KIND_CODES.items()}
_STREAMS = {code: status for status, code in STREAM_CODES.items()}
_REQUESTS = {code: status for status, code in REQUEST_CODES.items()}


def event_code(request: int | None, first_sending: bool, carrier: bool = False, cancels: int | None = None) -> int:
    """0 for a notification; ``-c`` for the cancellation of request ``c``; for
    request ``r``: ``4r + 2*carrier + first_sending``."""
    if cancels is not None:
        return -cancels
    if request is None:
        return 0
    return 4 * request + 2 * int(carrier) + int(first_sending)


def event_request(code: int) -> tuple[int | None, bool, bool, int | None]:
    """The inverse of ``event_code``: (request number or None, first sending,
    carrying stream, request cancelled or None)."""
    if code < 0:
        return None, False, False, -code
    if code == 0:
        return None, False, False, None
    return code // 4, bool(code % 2), bool(code % 4 >= 2), None


@dataclass(frozen=True)
class Naming:
    """Which handles of a concrete state the positions of a session form stand for."""

    session: str
    streams: tuple[str, ...]  # in the form's stream order
    events: tuple[tuple[str, ...], ...]  # per stream, its event ids in order
    requests: tuple[str, ...]  # request number n is requests[n - 1]

    def handles(self, prefix_session: str, first_stream: int, first_event: int, first_request: int) -> dict[str, str]:
        """Map the handles ``decode`` gives this form (starting at the given numbers) to these."""
        mapping = {prefix_session: self.session}
        event_number = first_event
        for index, stream in enumerate(self.streams):
            mapping[f"T{first_stream + index}"] = stream
            for event in self.events[index]:
                mapping[f"E{event_number}"] = event
                event_number += 1
        for index, request in enumerate(self.requests):
            mapping[f"R{first_request + index}"] = request
        return mapping


def session_form(state: State, session_id: str) -> SessionForm:
    """The canonical form of one session of ``state``.

    ``state`` must be a state of the spec (every cursor names an event of its own
    stream, every request was first sent on a stream of its session).
    """
    if len(state.sessions) == 1 and state.sessions[0].id == session_id:
        if len(state.requests) <= 1:
            return _alone_form(state)
        if len(state.requests) == 2:
            return _pair_form(state)
    return _form(state, session_id, naming=False)[0]


def _alone_form(state: State) -> SessionForm:
    """``session_form`` of a state with one session and at most one server request
    (what the fast explorer meets most): no filtering, no permutation."""
    session = state.sessions[0]
    client = state.client
    entry = client[0] if client else None
    requests = state.requests
    if requests:
        request = requests[0]
        carrier = request.stream
        origin = request.issued_on or carrier
    else:
        request = carrier = origin = None
    cursors = dict(entry.cursors) if entry is not None and entry.cursors else None
    events = state.events
    streams = []
    for stream in state.streams:
        stream_id = stream.id
        held = cursors.get(stream_id) if cursors else None
        codes: list[int] = []
        cursor = 0
        for event in events:
            if event.stream != stream_id:
                continue
            if event.cancels is not None:
                codes.append(-1)
            elif event.request is not None:
                codes.append(4 + 2 * (carrier == stream_id) + (origin == stream_id))
            else:
                codes.append(0)
            if event.id == held:
                cursor = len(codes)
        streams.append((KIND_CODES[stream.kind], STREAM_CODES[stream.status], int(stream.connected), cursor,
                        tuple(codes), stream.evicted))
    streams.sort()
    return (
        SESSION_CODES[session.status],
        0 if entry is None else 1,
        tuple(streams),
        (REQUEST_CODES[request.status],) if request is not None else (),
        (1,) if entry is not None and entry.seen else (),
    )


def _pair_form(state: State) -> SessionForm:
    """``session_form`` of a state with one session and two server requests: both
    numberings of the requests are written side by side in one pass over the events
    (``_pair_streams``), and the smaller form is the canonical one, as ``_form``
    would choose it among its permutations."""
    entry = state.client[0] if state.client else None
    first, second = state.requests
    as_is, swapped = _pair_streams(state, entry, first, second)
    as_is.sort()
    swapped.sort()
    one, two = REQUEST_CODES[first.status], REQUEST_CODES[second.status]
    if entry is None:
        body = min((tuple(as_is), (one, two), ()), (tuple(swapped), (two, one), ()))
    else:
        numbers = sorted([1 if r == first.id else 2 for r in entry.seen])
        body = min((tuple(as_is), (one, two), tuple(numbers)),
                   (tuple(swapped), (two, one), tuple(sorted([3 - n for n in numbers]))))
    return (SESSION_CODES[state.sessions[0].status], 0 if entry is None else 1) + body


def _pair_streams(state: State, entry: ClientSession | None, first: ServerRequest,
                  second: ServerRequest) -> tuple[list[tuple], list[tuple]]:
    """The stream codes (unsorted) of a one-session ``state`` with the two requests
    ``first`` and ``second``: numbered 1 and 2, and numbered 2 and 1."""
    first_id, second_id = first.id, second.id
    cursors = dict(entry.cursors) if entry is not None and entry.cursors else None
    events = state.events
    as_is, swapped = [], []
    for stream in state.streams:
        stream_id = stream.id
        held = cursors.get(stream_id) if cursors else None
        one = 2 * (first.stream == stream_id) + ((first.issued_on or first.stream) == stream_id)
        two = 2 * (second.stream == stream_id) + ((second.issued_on or second.stream) == stream_id)
        codes: list[int] = []
        other: list[int] = []
        cursor = 0
        for event in events:
            if event.stream != stream_id:
                continue
            if event.cancels is not None:
                number = 1 if event.cancels == first_id else 2
                codes.append(-number)
                other.append(number - 3)
            elif event.request == first_id:
                codes.append(4 + one)
                other.append(8 + one)
            elif event.request == second_id:
                codes.append(8 + two)
                other.append(4 + two)
            else:
                codes.append(0)
                other.append(0)
            if event.id == held:
                cursor = len(codes)
        kind, status, connected = KIND_CODES[stream.kind], STREAM_CODES[stream.status], int(stream.connected)
        as_is.append((kind, status, connected, cursor, tuple(codes), stream.evicted))
        swapped.append((kind, status, connected, cursor, tuple(other), stream.evicted))
    return as_is, swapped


def server_key(form: SessionForm) -> tuple:
    """The server's side of a session form, in the form's stream order: two forms with the
    same key ``decode`` to states that differ only in the client's memory (``held``, the
    cursors, ``seen``), with the same handles."""
    status, _, streams, requests, _ = form
    return status, tuple([(kind, state, connected, codes, evicted)
                          for kind, state, connected, _, codes, evicted in streams]), requests


def decode_beside(form: SessionForm, base: State) -> State:
    """``decode([form])`` from ``base``, the ``decode`` of one form with the same ``server_key``:
    the handles are minted alike, so only the client's memory is built."""
    _, held, streams, _, seen = form
    client: tuple[ClientSession, ...] = ()
    if held:
        cursors, first = [], 0
        for stream, (_, _, _, cursor, codes, _) in zip(base.streams, streams):
            if cursor:
                cursors.append((stream.id, base.events[first + cursor - 1].id))
            first += len(codes)
        session = base.sessions[0].id
        client = (ClientSession(session, tuple(cursors), tuple([base.requests[n - 1].id for n in seen])),)
    return State(base.sessions, base.streams, base.events, base.requests, client)


def session_naming(state: State, session_id: str) -> tuple[SessionForm, Naming]:
    """The canonical form of one session of ``state``, and which handles its positions name."""
    return _form(state, session_id, naming=True)


def _form(state: State, session_id: str, naming: bool) -> tuple[SessionForm, Naming | None]:
    session = state.session(session_id)
    streams = [s for s in state.streams if s.session == session_id]
    events: dict[str, list] = {s.id: [] for s in streams}
    for event in state.events:
        if event.stream in events:
            events[event.stream].append(event)
    requests = [r for r in state.requests if r.session == session_id]
    carrier = {r.id: r.stream for r in requests}
    issued = {r.id: r.origin for r in requests}
    entry = state.client_session(session_id)
    cursors = dict(entry.cursors) if entry else {}
    shapes = []  # per stream: its code without the event codes, its id, its events, their requests
    for stream in streams:
        stream_id, cursor_event = stream.id, cursors.get(stream.id)
        cursor, marks = 0, []  # marks: (request carried, first sending, carrier, request cancelled) per event
        for position, event in enumerate(events[stream_id], start=1):
            if event.id == cursor_event:
                cursor = position
            request = event.request
            marks.append((request, request is not None and issued[request] == stream_id,
                          request is not None and carrier[request] == stream_id, event.cancels))
        head = (KIND_CODES[stream.kind], STREAM_CODES[stream.status], int(stream.connected), cursor)
        shapes.append((head, stream_id, events[stream_id], marks, stream.evicted))
    best: tuple[SessionForm, list, tuple] | None = None
    for order in permutations(requests) if len(requests) > 1 else (requests,):
        number = {r.id: index + 1 for index, r in enumerate(order)}
        coded = sorted(
            (head + (tuple([_code(number, mark) for mark in marks]), evicted), index)
            for index, (head, _, _, marks, evicted) in enumerate(shapes)
        )
        form = (
            SESSION_CODES[session.status],
            1 if entry else 0,
            tuple(code for code, _ in coded),
            tuple(REQUEST_CODES[r.status] for r in order),
            tuple(sorted(number[r] for r in entry.seen)) if entry else (),
        )
        if best is None or form < best[0]:
            best = (form, coded, order)
    assert best is not None
    form, coded, order = best
    if not naming:
        return form, None
    return form, Naming(
        session_id,
        tuple(shapes[index][1] for _, index in coded),
        tuple(tuple(e.id for e in shapes[index][2]) for _, index in coded),
        tuple(r.id for r in order),
    )


def _code(number: dict[str, int], mark) -> int:
    request, first, carrier, cancels = mark
    if cancels is not None:
        return -number[cancels]
    return 4 * number[request] + 2 * carrier + first if request else 0  # event_code


def canonical_key(state: State) -> tuple[SessionForm, ...]:
    """The canonical form of ``state``: its session forms, sorted."""
    return tuple(sorted(session_form(state, s.id) for s in state.sessions))


def decode(forms: Sequence[SessionForm]) -> State:
    """A spec state whose sessions have ``forms``, in that order.

    Handles are minted in order: sessions ``S1, S2, ...``, then the streams of
    each session in form order, their events stream by stream, and the requests
    of each session by number.
    """
    sessions, streams, events, requests, client = [], [], [], [], []
    for form in forms:
        status, held, stream_forms, request_codes, seen = form
        session = f"S{len(sessions) + 1}"
        sessions.append(Session(session, _SESSIONS[status]))
        first_request = len(requests) + 1
        request_ids = [f"R{first_request + n}" for n in range(len(request_codes))]
        carrier: dict[str, str] = {}
        origin: dict[str, str] = {}
        cursors = []
        for kind, stream_status, connected, cursor, codes, evicted in stream_forms:
            stream = f"T{len(streams) + 1}"
            streams.append(Stream(stream, session, _KINDS[kind], _STREAMS[stream_status], bool(connected), evicted))
            for position, code in enumerate(codes, start=1):
                number, first, carries, cancelled = event_request(code)
                request = request_ids[number - 1] if number else None
                event = f"E{len(events) + 1}"
                events.append(Event(event, stream, request, request_ids[cancelled - 1] if cancelled else None))
                if carries:
                    carrier[request] = stream
                if first:
                    origin[request] = stream
                if position == cursor:
                    cursors.append((stream, event))
        for request, code in zip(request_ids, request_codes):
            issued_on = origin[request] if origin[request] != carrier[request] else None
            requests.append(ServerRequest(request, session, carrier[request], _REQUESTS[code], issued_on))
        if held:
            client.append(ClientSession(session, tuple(cursors), tuple(request_ids[n - 1] for n in seen)))
    return State(tuple(sessions), tuple(streams), tuple(events), tuple(requests), tuple(client))
