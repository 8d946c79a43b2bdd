"""An ``EventStore`` for the official Python SDK that keeps sessions apart while one store serves them all.

The SDK's ``EventStore`` interface tells the store neither the session that stores an event nor the
session that presents a ``Last-Event-ID``, and ``StreamableHTTPSessionManager`` gives one store to every
session: a store used that way replays one session's events to another (rule ``no-cross-session``,
MCP B26). ``SharedEventStore`` is one store for the whole server that every session sees through its own
view (``for_session()``); a view's event ids carry its session, and a view refuses (replays nothing for,
returns ``None``) an event id of another session, an unknown one or a malformed one.

Use it with the SDK (``MCPServer``, or the low-level ``Server``):

    from mcp_resume.testing import SharedEventStore, scope_sessions

    app = server.streamable_http_app(event_store=SharedEventStore())
    scope_sessions(server.session_manager)   # each new session gets its own view

or build the manager yourself: ``ScopedSessionManager(app=server, event_store=SharedEventStore())``.
``scope_sessions`` relies on what the SDK's manager does (1.x and 2.x alike): it reads its
``event_store`` once for every session it creates, to hand to that session's transport.

All events live in the ``SharedEventStore`` instance, in memory, until the process ends; a store over a
database does the same by scoping every row by the view's session token. Checked by the test kit in
the shared deployment: ``check_event_store(SharedEventStore, deployment="shared")``.
"""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass, field
from typing import Any

from mcp.server.streamable_http import EventMessage, EventStore
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

SEPARATOR = "."
"""Between the session token and the event's number in an event id: ``<token>.<n>``."""

_UNSCOPED = ("SharedEventStore is shared by all sessions and must be reached through a session's view: call "
             "mcp_resume.testing.scope_sessions(server.session_manager) after streamable_http_app(), or build "
             "the manager as ScopedSessionManager (docs/testing.md)")


@dataclass
class _SessionLog:
    """One session's events: ``events`` maps an event id to (stream key, position, message or None)."""

    events: dict[str, tuple[str, int, Any]] = field(default_factory=dict)
    streams: dict[str, list[str]] = field(default_factory=dict)
    numbers: Any = field(default_factory=lambda: itertools.count(1))


class SharedEventStore(EventStore):
    """The events of every session of a server, each session's apart.

    ``for_session()`` makes a new session's view (a ``SessionEventStore``); the store itself is no
    ``EventStore`` to call: its ``store_event`` and ``replay_events_after`` raise ``RuntimeError``
    saying how to reach it through views, so a store given to the SDK's manager without
    ``scope_sessions`` fails loudly instead of mixing sessions.
    """

    def __init__(self) -> None:
        self._logs: dict[str, _SessionLog] = {}

    def for_session(self) -> "SessionEventStore":
        """A view for one new session, under a fresh random session token (16 hex digits, MCP D27)."""
        return SessionEventStore(self, secrets.token_hex(8))

    def log(self, token: str) -> _SessionLog:
        """The events of the session ``token`` (created empty on first use)."""
        return self._logs.setdefault(token, _SessionLog())

    def known(self, token: str) -> bool:
        return token in self._logs

    @property
    def sessions(self) -> int:
        """How many sessions stored an event."""
        return len(self._logs)

    async def store_event(self, stream_id, message):
        raise RuntimeError(_UNSCOPED)

    async def replay_events_after(self, last_event_id, send_callback):
        raise RuntimeError(_UNSCOPED)


class SessionEventStore(EventStore):
    """One session's view of a ``SharedEventStore``.

    Event ids are ``<token>.<n>``: the session's token and a counter of the session, so they are
    unique across all its streams (MCP B23, D27) and never repeat across sessions. Replay sends the
    events of the cursor's own stream stored after it, in order, priming events (no message, MCP D8)
    left out, and names that stream; an id of another session, unknown or malformed gets ``None``
    (nothing replayed, MCP B26).
    """

    def __init__(self, shared: SharedEventStore, token: str) -> None:
        self.shared = shared
        self.token = token

    async def store_event(self, stream_id, message):
        log = self.shared.log(self.token)
        event_id = f"{self.token}{SEPARATOR}{next(log.numbers)}"
        stream = log.streams.setdefault(stream_id, [])
        log.events[event_id] = (stream_id, len(stream), message)
        stream.append(event_id)
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        token, _, _ = str(last_event_id).rpartition(SEPARATOR)
        if token != self.token or not self.shared.known(token):
            return None
        log = self.shared.log(token)
        cursor = log.events.get(last_event_id)
        if cursor is None:
            return None
        stream_id, position, _ = cursor
        for event_id in log.streams[stream_id][position + 1:]:
            message = log.events[event_id][2]
            if message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id


def session_store(store: Any) -> Any:
    """The store one new session uses: a view of ``store`` when it hands out views (``for_session``),
    else ``store`` itself."""
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
    """The SDK's ``StreamableHTTPSessionManager`` giving each session its own view of a ``SharedEventStore``."""


_SCOPED: dict[type, type] = {StreamableHTTPSessionManager: ScopedSessionManager}


def scope_sessions(manager: Any) -> Any:
    """Make ``manager`` (the SDK's ``StreamableHTTPSessionManager``, or a subclass of it, built with a
    ``SharedEventStore`` and not yet running) hand every session it creates from now on its own view
    of that store; returns ``manager``. Raises ``TypeError`` when ``manager`` is no such manager or its
    store hands out no views (``for_session``)."""
    if isinstance(manager, _ScopesSessions):
        return manager
    if not isinstance(manager, StreamableHTTPSessionManager):
        raise TypeError(f"scope_sessions needs the SDK's StreamableHTTPSessionManager, not {type(manager).__name__!r}")
    store = manager.__dict__.get("event_store")
    if not callable(getattr(store, "for_session", None)):
        raise TypeError(f"the manager's event store is {type(store).__name__!r}, which hands out no per-session "
                        "views: build it with event_store=SharedEventStore()")
    cls = type(manager)
    if cls not in _SCOPED:
        _SCOPED[cls] = type(f"Scoped{cls.__name__}", (_ScopesSessions, cls), {"__module__": __name__})
    del manager.__dict__["event_store"]
    manager.__class__ = _SCOPED[cls]
    manager.event_store = store
    return manager
