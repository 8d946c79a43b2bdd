"""``BoundedEventStore``: an ``EventStore`` for the official MCP Python SDK to run in production.

The SDK's ``EventStore`` interface tells the store neither the session that stores an event nor
the session that presents a ``Last-Event-ID``, and ``StreamableHTTPSessionManager`` gives one store
to every session: a plain store used that way replays one session's events to another (rule
``no-cross-session``, MCP B26). ``BoundedEventStore`` is one store for the whole server that every
session reaches through its own view (``for_session()``); ``scope_sessions`` makes the SDK's
manager hand each new session its view::

    from mcp_resume.event_store import BoundedEventStore, scope_sessions

    app = server.streamable_http_app(event_store=BoundedEventStore())
    scope_sessions(server.session_manager)   # each new session gets its own view

or build the manager yourself: ``ScopedSessionManager(app=server, event_store=BoundedEventStore())``.

What it guarantees (each checked by ``mcp_resume.testing.check_event_store`` in both deployments):

- event ids are ``<token>.<n>``: a random 64-bit session token (unguessable, MCP D50) and a
  counter of the session, so they are unique across the session's streams (B23, D27) and never
  repeat across sessions;
- a replay sends the events of the cursor's own stream stored after it, in order, priming events
  (no message, D8) left out, and names that stream (B25, D30); a cursor of another session, an
  unknown, malformed or evicted one gets ``None``: nothing replayed (B26);
- retention is bounded by count (``max_events`` in all, ``max_events_per_session``) and by age
  (``max_age_seconds``); the oldest events go first, so what a session keeps is always the tail
  of what it stored, and a cursor that is still kept is followed by every later event of its
  stream. A cursor whose event was evicted is answered with nothing, never with a replay that
  skips events; the SDK then answers the GET with an empty stream, and the client starts over
  (MCP leaves replay to the server: B25 MAY);
- every method holds one lock for a few dictionary operations and never across an ``await``:
  safe for the SDK's tasks on one event loop and for threads sharing the store.

``scope_sessions`` relies on one thing the SDK's manager does (``mcp`` 1.x and 2.x alike): it
reads its ``event_store`` attribute once for every session it creates, to hand to that session's
transport. Cost (``benchmarks/bench_event_store.py``, two-core machine): about 360,000
``store_event`` calls and over a million replayed events a second; about 300 bytes per event
beside its message (a log notification's message object itself weighs about 750 bytes), so
3 MB per 10,000 events plus the messages.
"""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from mcp.server.streamable_http import EventMessage, EventStore
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

__all__ = ["BoundedEventStore", "ScopedSessionManager", "SessionView", "scope_sessions", "session_store"]

SEPARATOR = "."
"""Between the session token and the event's number in an event id: ``<token>.<n>``."""

DEFAULT_MAX_EVENTS = 100_000
DEFAULT_MAX_EVENTS_PER_SESSION = 10_000
DEFAULT_MAX_AGE_SECONDS = 3600.0

_UNSCOPED = ("BoundedEventStore is shared by all sessions and must be reached through a session's view: call "
             "mcp_resume.event_store.scope_sessions(server.session_manager) after streamable_http_app(), or "
             "build the manager as ScopedSessionManager")


@dataclass
class _Event:
    stream_id: str
    message: Any  # None for a priming event
    stored_at: float


@dataclass
class _SessionLog:
    """One session's retained events, oldest first, and each stream's event numbers in order."""

    events: dict[int, _Event] = field(default_factory=dict)
    streams: dict[str, deque[int]] = field(default_factory=dict)

    def drop_oldest(self) -> None:
        number = next(iter(self.events))
        stream_id = self.events.pop(number).stream_id
        stream = self.streams[stream_id]
        stream.popleft()
        if not stream:
            del self.streams[stream_id]


class BoundedEventStore(EventStore):
    """The events of every session of one server, each session's apart, with bounded retention.

    ``max_events`` (all sessions) and ``max_events_per_session`` are counts of stored events,
    priming events included; ``max_age_seconds`` is how long an event is kept, in seconds of
    ``clock`` (``time.monotonic`` unless given, for tests). ``None`` lifts a bound. Raises
    ``ValueError`` for a bound that is not positive. The store itself is no ``EventStore`` to
    call: its ``store_event`` and ``replay_events_after`` raise ``RuntimeError`` saying how to
    reach it through views, so a store handed to the SDK's manager without ``scope_sessions``
    fails loudly instead of mixing sessions.
    """

    def __init__(self, *, max_events: int | None = DEFAULT_MAX_EVENTS,
                 max_events_per_session: int | None = DEFAULT_MAX_EVENTS_PER_SESSION,
                 max_age_seconds: float | None = DEFAULT_MAX_AGE_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        for name, bound in (("max_events", max_events), ("max_events_per_session", max_events_per_session),
                            ("max_age_seconds", max_age_seconds)):
            if bound is not None and not bound > 0:
                raise ValueError(f"{name} must be positive or None, got {bound!r}")
        self.max_events = max_events
        self.max_events_per_session = max_events_per_session
        self.max_age_seconds = max_age_seconds
        self.clock = clock
        self._lock = threading.Lock()
        self._logs: dict[str, _SessionLog] = {}
        self._order: deque[tuple[float, str, int]] = deque()  # (stored at, token, number), oldest first

    def for_session(self) -> "SessionView":
        """A view for one new session, under a fresh random session token (16 hex digits)."""
        return SessionView(self, secrets.token_hex(8))

    @property
    def sessions(self) -> int:
        """How many sessions have events retained."""
        return len(self._logs)

    @property
    def retained(self) -> int:
        """How many events are retained, over all sessions."""
        with self._lock:
            return sum(len(log.events) for log in self._logs.values())

    async def store_event(self, stream_id, message):
        raise RuntimeError(_UNSCOPED)

    async def replay_events_after(self, last_event_id, send_callback):
        raise RuntimeError(_UNSCOPED)

    def add(self, token: str, number: int, stream_id: str, message: Any) -> None:
        """Keep event ``number`` of session ``token``, then evict what the bounds no longer allow."""
        with self._lock:
            now = self.clock()
            log = self._logs.setdefault(token, _SessionLog())
            log.events[number] = _Event(stream_id, message, now)
            log.streams.setdefault(stream_id, deque()).append(number)
            self._order.append((now, token, number))
            if self.max_events_per_session is not None and len(log.events) > self.max_events_per_session:
                log.drop_oldest()
            self._evict(now)

    def after(self, token: str, number: int) -> tuple[str, list[tuple[int, Any]]] | None:
        """The stream of event ``number`` of session ``token`` and that stream's later events
        ``(number, message)``, in order; ``None`` when the event is not retained."""
        with self._lock:
            self._evict(self.clock())
            log = self._logs.get(token)
            cursor = log.events.get(number) if log else None
            if cursor is None:
                return None
            later = [(n, log.events[n].message) for n in log.streams[cursor.stream_id] if n > number]
            return cursor.stream_id, later

    def _evict(self, now: float) -> None:
        """Drop the oldest events over ``max_events`` or older than ``max_age_seconds`` (lock held).
        ``_order`` may still name events a session's own bound dropped; they count towards
        ``max_events`` until they leave it, which keeps ``_order`` itself bounded."""
        oldest_kept = None if self.max_age_seconds is None else now - self.max_age_seconds
        while self._order and ((self.max_events is not None and len(self._order) > self.max_events)
                               or (oldest_kept is not None and self._order[0][0] < oldest_kept)):
            _, token, number = self._order.popleft()
            log = self._logs.get(token)
            if log is None or number not in log.events:
                continue
            log.drop_oldest()
            if not log.events:
                del self._logs[token]


class SessionView(EventStore):
    """One session's view of a ``BoundedEventStore``: the ``EventStore`` the SDK's transport calls."""

    def __init__(self, store: BoundedEventStore, token: str) -> None:
        self.store = store
        self.token = token
        self._numbers = itertools.count(1)

    async def store_event(self, stream_id, message):
        """Store ``message`` (``None`` for a priming event) on stream ``stream_id``; returns its
        event id ``<token>.<n>``."""
        number = next(self._numbers)
        self.store.add(self.token, number, stream_id, message)
        return f"{self.token}{SEPARATOR}{number}"

    async def replay_events_after(self, last_event_id, send_callback):
        """Send each later event of the cursor's stream as ``EventMessage`` to ``send_callback``
        and return that stream's key; ``None`` (nothing sent) for an id of another session or one
        not retained."""
        token, _, number = str(last_event_id).rpartition(SEPARATOR)
        if token != self.token or not number.isdigit():
            return None
        found = self.store.after(token, int(number))
        if found is None:
            return None
        stream_id, later = found
        for event_number, message in later:
            if message is not None:
                await send_callback(EventMessage(message, f"{token}{SEPARATOR}{event_number}"))
        return stream_id


def session_store(store: Any) -> Any:
    """The store one new session uses: a view of ``store`` when it hands out views
    (``for_session``), else ``store`` itself."""
    views = getattr(store, "for_session", None)
    return views() if callable(views) else store


class _ScopesSessions:
    """A session manager whose ``event_store``, read once per new session, is that session's view."""

    @property
    def event_store(self):
        shared = self.__dict__.get("_shared_event_store")
        return None if shared is None else session_store(shared)

    @event_store.setter
    def event_store(self, store) -> None:
        self.__dict__["_shared_event_store"] = store


class ScopedSessionManager(_ScopesSessions, StreamableHTTPSessionManager):
    """The SDK's ``StreamableHTTPSessionManager`` giving each session its own view of its store."""


_SCOPED: dict[type, type] = {StreamableHTTPSessionManager: ScopedSessionManager}


def scope_sessions(manager: Any) -> Any:
    """Make ``manager`` (the SDK's ``StreamableHTTPSessionManager`` or a subclass, built with a
    store that hands out views, such as ``BoundedEventStore``, and not yet running) hand every
    session it creates from now on its own view of that store; returns ``manager``. Raises
    ``TypeError`` when ``manager`` is no such manager or its store hands out no views."""
    if isinstance(manager, _ScopesSessions):
        return manager
    if not isinstance(manager, StreamableHTTPSessionManager):
        raise TypeError(f"scope_sessions needs the SDK's StreamableHTTPSessionManager, not {type(manager).__name__!r}")
    store = manager.__dict__.get("event_store")
    if not callable(getattr(store, "for_session", None)):
        raise TypeError(f"the manager's event store is {type(store).__name__!r}, which hands out no per-session "
                        "views: build it with event_store=BoundedEventStore()")
    cls = type(manager)
    if cls not in _SCOPED:
        _SCOPED[cls] = type(f"Scoped{cls.__name__}", (_ScopesSessions, cls), {"__module__": __name__})
    del manager.__dict__["event_store"]
    manager.__class__ = _SCOPED[cls]
    manager.event_store = store
    return manager
