"""A correct in-memory ``EventStore``, written to the SDK's interface.

The kit replays every counterexample it finds against this store too: a trace
that fails on the user's store and holds here shows a fault of the user's store,
not of the harness.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from .sdk import EventMessage, EventStore


@dataclass(frozen=True)
class _Event:
    stream_id: str
    message: object  # None for a priming event


class ReferenceEventStore(EventStore):
    """One ordered list of event ids per stream key, all state in the instance.

    Event ids are ``<instance>-<n>`` with a random instance prefix, so they never
    repeat across instances (MCP B23/D27) and cannot be guessed (D50). Replay
    sends the later events of the cursor's own stream in order, skipping priming
    events, and names that stream even when nothing follows the cursor, so the
    SDK continues it live.
    """

    def __init__(self) -> None:
        self._prefix = uuid.uuid4().hex[:12]
        self._count = 0
        self._events: dict[str, _Event] = {}
        self._streams: dict[str, list[str]] = {}

    async def store_event(self, stream_id, message):
        self._count += 1
        event_id = f"{self._prefix}-{self._count}"
        self._events[event_id] = _Event(stream_id, message)
        self._streams.setdefault(stream_id, []).append(event_id)
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        cursor = self._events.get(last_event_id)
        if cursor is None:
            return None
        stream = self._streams[cursor.stream_id]
        for event_id in stream[stream.index(last_event_id) + 1 :]:
            message = self._events[event_id].message
            if message is not None:
                await send_callback(EventMessage(message, event_id))
        return cursor.stream_id
