"""Event stores written to the SDK's ``EventStore`` interface, correct and faulty.

The correct ones are what a server author would write: one in memory, one on a
real SQLite file (stdlib ``sqlite3``). The faulty ones are designs 1, 2 and 7 of
docs/design.md §5 written as stores; the test kit must catch each.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import uuid

from mcp.server.streamable_http import EventMessage, EventStore
from mcp_types import jsonrpc_message_adapter


class MemoryEventStore(EventStore):
    """Correct: events per stream key, ids ``<uuid>``, all state in the instance.

    The faulty stores below change one part of it: ``new_event_id`` (the ids it mints),
    ``after`` (a cursor's stream and the events replayed) or ``send`` (how they are sent)."""

    def __init__(self) -> None:
        self.streams: dict[str, list[tuple[str, object]]] = {}
        self.where: dict[str, str] = {}  # event id -> stream key

    async def store_event(self, stream_id, message):
        event_id = self.new_event_id(stream_id)
        self.streams.setdefault(stream_id, []).append((event_id, message))
        self.where[event_id] = stream_id
        return event_id

    def new_event_id(self, stream_id) -> str:
        return uuid.uuid4().hex

    def after(self, last_event_id, skip: int = 1) -> tuple[str, list[tuple[str, object]]] | None:
        """``(stream key, its events from the cursor's position + skip)``; None for an unknown cursor."""
        stream_id = self.where.get(last_event_id)
        if stream_id is None:
            return None
        events = self.streams[stream_id]
        position = [event_id for event_id, _ in events].index(last_event_id)
        return stream_id, events[position + skip :]

    async def replay_events_after(self, last_event_id, send_callback):
        found = self.after(last_event_id)
        if found is None:
            return None
        stream_id, later = found
        await self.send(later, send_callback)
        return stream_id

    async def send(self, events, send_callback) -> None:
        """Send each of ``events`` that has a message (a priming event has none)."""
        for event_id, message in events:
            if message is not None:
                await send_callback(EventMessage(message, event_id))


_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL,
    stream_id TEXT NOT NULL,
    message TEXT
)
"""


class SqliteEventStore(EventStore):
    """Correct: one SQLite file for every instance, each row scoped by its instance.

    ``scoped=False`` drops the scope from lookups: one table shared by every
    session, which is design 2 (one global log).
    """

    def __init__(self, path, scoped: bool = True) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.execute(_SCHEMA)
        self.db.commit()
        self.scope = uuid.uuid4().hex
        self.scoped = scoped

    async def store_event(self, stream_id, message):
        text = None if message is None else message.model_dump_json(by_alias=True, exclude_none=True)
        event_id = uuid.uuid4().hex
        with self.db:
            self.db.execute(
                "INSERT INTO events (event_id, scope, stream_id, message) VALUES (?, ?, ?, ?)",
                (event_id, self.scope, stream_id, text),
            )
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        scope_filter = " AND scope = ?" if self.scoped else ""
        extra = (self.scope,) if self.scoped else ()
        row = self.db.execute(
            "SELECT seq, stream_id, scope FROM events WHERE event_id = ?" + scope_filter, (last_event_id, *extra)
        ).fetchone()
        if row is None:
            return None
        seq, stream_id, scope = row
        later = self.db.execute(
            "SELECT event_id, message FROM events WHERE stream_id = ? AND seq > ?"
            + scope_filter + " ORDER BY seq",
            (stream_id, seq, *extra),
        ).fetchall()
        for event_id, text in later:
            if text is not None:
                await send_callback(EventMessage(jsonrpc_message_adapter.validate_json(text), event_id))
        return stream_id

    def count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM events").fetchone()[0]


class PerSessionCursorStore(MemoryEventStore):
    """Design 1: one log per store (so per session), the cursor a position in it:
    replay sends every later event of the session, whatever its stream."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, object]] = []

    async def store_event(self, stream_id, message):
        event_id = await super().store_event(stream_id, message)
        self.log.append((event_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        stream_id = self.where.get(last_event_id)
        if stream_id is None:
            return None
        position = [event_id for event_id, _ in self.log].index(last_event_id)
        await self.send(self.log[position + 1 :], send_callback)
        return stream_id


def global_log_stores():
    """Design 2: a factory whose stores share one log across all sessions; the
    cursor is looked up there and the later events of its stream key replayed."""
    shared = MemoryEventStore()

    class GlobalLogStore(EventStore):
        async def store_event(self, stream_id, message):
            return await shared.store_event(stream_id, message)

        async def replay_events_after(self, last_event_id, send_callback):
            return await shared.replay_events_after(last_event_id, send_callback)

    return GlobalLogStore


class OffByOneStore(MemoryEventStore):
    """Design 7: the replay starts with the cursor's own event."""

    def after(self, last_event_id, skip: int = 1):
        return super().after(last_event_id, skip=0)


# -- smaller faults, one each ------------------------------------------------------


class CountingIdStore(MemoryEventStore):
    """Correct, with ids ``1, 2, 3 ...`` counted per instance (they repeat across sessions)."""

    def __init__(self) -> None:
        super().__init__()
        self.counter = itertools.count(1)

    def new_event_id(self, stream_id) -> str:
        return str(next(self.counter))


class RepeatingIdStore(MemoryEventStore):
    """Each stream counts its own ids ``1, 2 ...``: the same id in two streams."""

    def new_event_id(self, stream_id) -> str:
        return str(len(self.streams.get(stream_id, [])) + 1)


class PrimingReplayStore(MemoryEventStore):
    """Replays priming events too (messages of ``None``)."""

    async def send(self, events, send_callback) -> None:
        for event_id, message in events:
            await send_callback(EventMessage(message, event_id) if message is not None else _Bare(event_id))


class _Bare:
    def __init__(self, event_id: str) -> None:
        self.message, self.event_id = None, event_id


class ForgetsPrimingStore(MemoryEventStore):
    """Returns an id for a priming event but keeps nothing: resuming from it finds nothing."""

    async def store_event(self, stream_id, message):
        if message is None:
            return uuid.uuid4().hex
        return await super().store_event(stream_id, message)


class SyncStore:
    """Plain methods where the SDK awaits coroutines."""

    def store_event(self, stream_id, message):
        return "1"

    def replay_events_after(self, last_event_id, send_callback):
        return None


def sqlite_rows(path) -> list[dict]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT event_id, scope, stream_id, message FROM events ORDER BY seq").fetchall()
    finally:
        db.close()
    return [{"event_id": e, "scope": s, "stream_id": k, "message": None if m is None else json.loads(m)} for e, s, k, m in rows]
