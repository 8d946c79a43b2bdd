"""The state of one server and its client, as immutable values.

Entities are named by handles minted in creation order: sessions ``S1, S2, ...``,
streams ``T1, ...``, events ``E1, ...`` and server requests ``R1, ...``. Nothing is
ever removed from a state, so the next handle is derived from a count, and two
states are equal exactly when they describe the same history.

Vocabulary (docs/design.md §1): a *session* outlives its *streams*; a stream is
delivered over at most one *connection* at a time; an *event id* is a position in
one stream; a *server request* belongs to its session and is pending until it is
answered or cancelled.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Protocol, TypeVar


class SessionStatus(str, Enum):
    LIVE = "live"
    EXPIRED = "expired"
    DELETED = "deleted"


class StreamKind(str, Enum):
    POST = "post"
    GET = "get"


class StreamStatus(str, Enum):
    OPEN = "open"  # the server may still send events on it
    ENDED = "ended"  # terminated by the server; its events are retained for replay
    EXPIRED = "expired"  # its events are discarded; its event ids resume nothing


class RequestStatus(str, Enum):
    PENDING = "pending"
    ANSWERED = "answered"
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    status: SessionStatus = SessionStatus.LIVE


@dataclass(frozen=True, slots=True)
class Stream:
    id: str
    session: str
    kind: StreamKind
    status: StreamStatus = StreamStatus.OPEN
    connected: bool = True
    evicted: int = 0  # how many of its oldest events a ring buffer has discarded (docs/design.md §2)

    @property
    def retained(self) -> bool:
        """True while the server keeps the stream's events for replay."""
        return self.status is not StreamStatus.EXPIRED


@dataclass(frozen=True, slots=True)
class Event:
    """One SSE event; ``request`` is the server request it carries, if any,
    ``cancels`` the server request a ``notifications/cancelled`` event cancels, and
    ``response`` whether it is the JSON-RPC response to the call whose POST stream
    carries it (MCP B8, C8, D11)."""

    id: str
    stream: str
    request: str | None = None
    cancels: str | None = None
    response: bool = False


@dataclass(frozen=True, slots=True)
class ServerRequest:
    """A server-to-client JSON-RPC request; ``stream`` is its *carrying* stream: the
    one it was issued on, or the last one it was re-emitted on (docs/design.md §2)."""

    id: str
    session: str
    stream: str
    status: RequestStatus = RequestStatus.PENDING
    issued_on: str | None = None  # the stream it was first sent on, when not ``stream``

    @property
    def origin(self) -> str:
        """The stream the request was first sent on."""
        return self.issued_on or self.stream

    @property
    def reemitted(self) -> bool:
        """True once a session resumption re-emitted it on another stream."""
        return self.origin != self.stream


@dataclass(frozen=True, slots=True)
class ClientSession:
    """What the client remembers of one session it holds.

    ``cursors`` maps a stream to the last event id received on it (what it would
    send as ``Last-Event-ID``); ``seen`` lists the server requests it received
    and has not answered. A client restart forgets both, but keeps the session id.
    """

    session: str
    cursors: tuple[tuple[str, str], ...] = ()
    seen: tuple[str, ...] = ()

    def cursor(self, stream: str) -> str | None:
        for stream_id, event_id in self.cursors:
            if stream_id == stream:
                return event_id
        return None


@dataclass(frozen=True, slots=True)
class State:
    sessions: tuple[Session, ...] = ()
    streams: tuple[Stream, ...] = ()
    events: tuple[Event, ...] = ()
    requests: tuple[ServerRequest, ...] = ()
    client: tuple[ClientSession, ...] = ()

    # -- lookups (return None when the handle names nothing) -----------------

    def session(self, session_id: str | None) -> Session | None:
        return _find(self.sessions, session_id)

    def stream(self, stream_id: str | None) -> Stream | None:
        return _find(self.streams, stream_id)

    def event(self, event_id: str | None) -> Event | None:
        return _find(self.events, event_id)

    def request(self, request_id: str | None) -> ServerRequest | None:
        return _find(self.requests, request_id)

    # -- lookups of handles the state holds (``KeyError`` naming the handle otherwise) --

    def held_stream(self, stream_id: str | None) -> Stream:
        """The stream ``stream_id``, which the caller knows the state holds."""
        stream = _find(self.streams, stream_id)
        if stream is None:
            raise KeyError(f"the state holds no stream {stream_id}")
        return stream

    def held_event(self, event_id: str | None) -> Event:
        """The event ``event_id``, which the caller knows the state holds."""
        event = _find(self.events, event_id)
        if event is None:
            raise KeyError(f"the state holds no event {event_id}")
        return event

    def held_request(self, request_id: str | None) -> ServerRequest:
        """The server request ``request_id``, which the caller knows the state holds."""
        request = _find(self.requests, request_id)
        if request is None:
            raise KeyError(f"the state holds no server request {request_id}")
        return request

    def client_session(self, session_id: str) -> ClientSession | None:
        for entry in self.client:
            if entry.session == session_id:
                return entry
        return None

    # -- derived views --------------------------------------------------------

    def session_of_event(self, event_id: str | None) -> str | None:
        event = self.event(event_id)
        stream = self.stream(event.stream) if event else None
        return stream.session if stream else None

    def events_of(self, stream_id: str) -> tuple[Event, ...]:
        """The events of one stream, in stream order."""
        return tuple(e for e in self.events if e.stream == stream_id)

    def position_in_stream(self, event: Event) -> int:
        """The 0-based position of ``event`` among the events of its stream."""
        position = 0
        for other in self.events:
            if other is event or other == event:
                return position
            if other.stream == event.stream:
                position += 1
        raise ValueError(f"event {event.id} is not in this state")

    def answered(self, stream_id: str) -> bool:
        """True once the POST stream ``stream_id`` carries its call's response."""
        return any(e.response for e in self.events_of(stream_id))

    def retained_events(self, stream_id: str) -> tuple[Event, ...]:
        """The events of one stream the server still keeps: none once the stream
        expired, and not the oldest ``evicted`` ones of a ring buffer."""
        stream = self.stream(stream_id)
        if stream is None or not stream.retained:
            return ()
        return self.events_of(stream_id)[stream.evicted :]

    def streams_of(self, session_id: str | None) -> tuple[Stream, ...]:
        """The session's streams, in creation order (none for ``None``)."""
        return tuple(s for s in self.streams if s.session == session_id)

    def pending_requests(self, session_id: str | None) -> tuple[ServerRequest, ...]:
        """The session's pending server requests, in the order they were issued (none for ``None``)."""
        return tuple(
            r for r in self.requests if r.session == session_id and r.status is RequestStatus.PENDING
        )

    def live_sessions(self) -> tuple[Session, ...]:
        return tuple(s for s in self.sessions if s.status is SessionStatus.LIVE)

    def open_streams(self) -> tuple[Stream, ...]:
        """Streams the server may still send on: open, in a live session."""
        live = {s.id for s in self.live_sessions()}
        return tuple(s for s in self.streams if s.status is StreamStatus.OPEN and s.session in live)

    # -- next handles -------------------------------------------------------

    def next_session_id(self) -> str:
        return f"S{len(self.sessions) + 1}"

    def next_stream_id(self) -> str:
        return f"T{len(self.streams) + 1}"

    def next_event_id(self) -> str:
        return f"E{len(self.events) + 1}"

    def next_request_id(self) -> str:
        return f"R{len(self.requests) + 1}"

    # -- functional updates ---------------------------------------------------

    # (built field by field rather than with ``dataclasses.replace``: these run on
    # every step of the explorer, and ``replace`` is several times slower)

    def with_session(self, session: Session) -> "State":
        return State(_upsert(self.sessions, session), self.streams, self.events, self.requests, self.client)

    def with_stream(self, stream: Stream) -> "State":
        return State(self.sessions, _upsert(self.streams, stream), self.events, self.requests, self.client)

    def with_request(self, request: ServerRequest) -> "State":
        return State(self.sessions, self.streams, self.events, _upsert(self.requests, request), self.client)

    def with_event(self, event: Event) -> "State":
        return State(self.sessions, self.streams, self.events + (event,), self.requests, self.client)

    def with_client_session(self, entry: ClientSession) -> "State":
        kept = tuple(c for c in self.client if c.session != entry.session)
        if not kept:
            return State(self.sessions, self.streams, self.events, self.requests, (entry,))
        ordered = sorted(kept + (entry,), key=lambda c: _handle_order(c.session))
        return State(self.sessions, self.streams, self.events, self.requests, tuple(ordered))

    def with_client(self, client: tuple[ClientSession, ...]) -> "State":
        return State(self.sessions, self.streams, self.events, self.requests, client)


INITIAL_STATE = State()


class _Handled(Protocol):
    """An entity of the state's tables: named by its handle."""

    @property
    def id(self) -> str: ...


_T = TypeVar("_T", bound=_Handled)


def _find(items: tuple[_T, ...], handle: str | None) -> _T | None:
    """The item named ``handle``, None when none is.

    Handles are minted in creation order and nothing is removed (the module's note), so
    the n-th handle of a table sits at position n-1: a long table is looked up there
    alone, for a hit or a miss, so that a recorded log's thousands of events need no
    scan. A short table (up to ``SHORT_TABLE`` items, as in a state written by hand) and
    a handle with no number are scanned."""
    if handle is not None and len(items) > SHORT_TABLE:
        digits = handle[1:]
        if 0 < len(digits) < 9 and digits.isascii() and digits.isdigit() and digits[0] != "0":
            position = int(digits) - 1
            item = items[position] if position < len(items) else None
            return item if item is not None and item.id == handle else None
    for item in items:
        if item.id == handle:
            return item
    return None


SHORT_TABLE = 16
"""Up to this many items a table is scanned: a scan of a few items costs less than reading a
handle's number."""


def _upsert(items: tuple[_T, ...], new: _T) -> tuple[_T, ...]:
    for index, item in enumerate(items):
        if item.id == new.id:
            return items[:index] + (new,) + items[index + 1 :]
    return items + (new,)


def _handle_order(handle: str) -> tuple[str, int]:
    prefix, digits = handle[:1], handle[1:]
    return (prefix, int(digits) if digits.isdigit() else -1)
