"""Time the EventStore test kit: ``python benchmarks/bench_event_store_kit.py [--examples N]``.

Prints, for the kit's ``ReferenceEventStore`` (in memory, per-session and shared
deployments), for ``BoundedEventStore`` (shared) and for a store on a real SQLite file, the wall time of one
``check_event_store`` run (seconds), the actions driven and the actions per
second, then the time of one run that catches an off-by-one store (shrinking
included). Figures vary with the machine and its load.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
import uuid
from pathlib import Path

from mcp.server.streamable_http import EventMessage, EventStore
from mcp_types import jsonrpc_message_adapter

from mcp_resume.event_store import BoundedEventStore
from mcp_resume.testing import PER_SESSION, SHARED, ReferenceEventStore, check_event_store
from mcp_resume.testing.kit import DEFAULT_STORE_EXAMPLES


class SqliteStore(EventStore):
    """One SQLite file for every instance; rows scoped by instance."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, id TEXT UNIQUE, scope TEXT, "
                        "stream TEXT, message TEXT)")
        self.scope = uuid.uuid4().hex

    async def store_event(self, stream_id, message):
        event_id = uuid.uuid4().hex
        text = None if message is None else message.model_dump_json(by_alias=True, exclude_none=True)
        with self.db:
            self.db.execute("INSERT INTO events (id, scope, stream, message) VALUES (?, ?, ?, ?)",
                            (event_id, self.scope, stream_id, text))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        row = self.db.execute("SELECT seq, stream FROM events WHERE id = ? AND scope = ?",
                              (last_event_id, self.scope)).fetchone()
        if row is None:
            return None
        for event_id, text in self.db.execute("SELECT id, message FROM events WHERE scope = ? AND stream = ? AND "
                                              "seq > ? ORDER BY seq", (self.scope, row[1], row[0])):
            if text is not None:
                await send_callback(EventMessage(jsonrpc_message_adapter.validate_json(text), event_id))
        return row[1]


class OffByOne(ReferenceEventStore):
    async def replay_events_after(self, last_event_id, send_callback):
        cursor = self._events.get(last_event_id)
        if cursor is None:
            return None
        stream = self._streams[cursor.stream_id]
        for event_id in stream[stream.index(last_event_id):]:
            if self._events[event_id].message is not None:
                await send_callback(EventMessage(self._events[event_id].message, event_id))
        return cursor.stream_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=DEFAULT_STORE_EXAMPLES)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        runs = [
            ("ReferenceEventStore, per-session", ReferenceEventStore, {"deployment": PER_SESSION}),
            ("ReferenceEventStore, shared", ReferenceEventStore, {"deployment": SHARED}),
            ("BoundedEventStore, shared", BoundedEventStore, {"deployment": SHARED}),
            ("SQLite file, per-session", lambda: SqliteStore(Path(scratch) / "events.db"), {"deployment": PER_SESSION}),
            ("off-by-one (caught, shrunk)", OffByOne, {"deployment": PER_SESSION}),
        ]
        print(f"{'store':36} {'verdict':20} {'seconds':>8} {'actions':>8} {'actions/s':>10}")
        for label, factory, options in runs:
            start = time.perf_counter()
            report = check_event_store(factory, examples=args.examples, **options)
            seconds = time.perf_counter() - start
            verdict = "PASS" if report.passed else f"FAIL {report.failure.rule if report.failure else ''}"
            print(f"{label:36} {verdict:20} {seconds:8.2f} {report.actions_run:8} {report.actions_run / seconds:10.0f}")
    print(f"({args.examples} examples per run; python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
