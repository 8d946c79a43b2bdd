"""Time and weigh ``BoundedEventStore``: ``python benchmarks/bench_event_store.py [--events N]``.

Prints, for ``mcp_resume.event_store.BoundedEventStore`` and, for comparison, the Python SDK's
example ``InMemoryEventStore`` (no bounds, no sessions):

- store: ``store_event`` calls per second over ``--events`` log notifications spread over 10
  sessions and 3 streams each (one event loop, as the SDK calls it);
- evicting: the same with retention bounded below the events stored (``max_events`` a tenth of
  them), so that every store also evicts;
- replay: events per second a ``replay_events_after`` sends from the first event of a 10,000-event
  stream;
- memory: bytes held per 10,000 stored events (``tracemalloc``, messages included), the messages'
  own share measured apart.

Figures vary with the machine and its load.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import tracemalloc

from mcp.server.streamable_http import EventMessage
from mcp_types import JSONRPCNotification

from mcp_resume.event_store import BoundedEventStore
from mcp_resume.model.targets.python_sdk_server import InMemoryEventStore

SESSIONS = 10
STREAMS = 3
REPLAYED = 10_000
WEIGHED = 10_000


def log_message(n: int) -> JSONRPCNotification:
    """A log notification as a tool's ``ctx.info`` sends it (about 120 bytes of JSON)."""
    return JSONRPCNotification(jsonrpc="2.0", method="notifications/message",
                               params={"level": "info", "data": f"log line {n} of the export job"})


def sessions_of(store) -> list:
    views = getattr(store, "for_session", None)
    return [views() for _ in range(SESSIONS)] if callable(views) else [store] * SESSIONS


async def store_many(store, messages) -> float:
    sessions = sessions_of(store)
    start = time.perf_counter()
    for n, message in enumerate(messages):
        await sessions[n % SESSIONS].store_event(str(n % STREAMS), message)
    return len(messages) / (time.perf_counter() - start)


async def replay_rate(store) -> float:
    session = sessions_of(store)[0]
    first = await session.store_event("1", log_message(0))
    for n in range(1, REPLAYED):
        await session.store_event("1", log_message(n))
    sent = 0

    async def count(event: EventMessage) -> None:
        nonlocal sent
        sent += 1

    start = time.perf_counter()
    await session.replay_events_after(first, count)
    assert sent == REPLAYED - 1, sent
    return sent / (time.perf_counter() - start)


def weigh(make_store) -> tuple[int, int]:
    """(bytes the store holds for WEIGHED events, bytes of the messages alone)."""
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    messages = [log_message(n) for n in range(WEIGHED)]
    only_messages = tracemalloc.take_snapshot()
    store = make_store()
    asyncio.run(store_many(store, messages))
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()

    def size(snapshot, base) -> int:
        return sum(stat.size_diff for stat in snapshot.compare_to(base, "filename"))

    return size(after, before), size(only_messages, before)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000, help="events stored per run (default 200,000)")
    args = parser.parse_args()
    messages = [log_message(n) for n in range(args.events)]
    stores = [
        ("BoundedEventStore", lambda: BoundedEventStore(max_events=None, max_events_per_session=None)),
        ("BoundedEventStore, evicting", lambda: BoundedEventStore(max_events=args.events // 10)),
        ("SDK example InMemoryEventStore", InMemoryEventStore),
    ]
    print(f"{'store':32} {'stored/s':>10} {'replayed/s':>11} {'bytes/10k':>11} {'of which messages':>18}")
    for label, make in stores:
        stored = asyncio.run(store_many(make(), messages))
        replayed = asyncio.run(replay_rate(make()))
        held, message_bytes = weigh(make)
        print(f"{label:32} {stored:10,.0f} {replayed:11,.0f} {held:11,} {message_bytes:18,}")
    print(f"({args.events:,} events over {SESSIONS} sessions and {STREAMS} streams each; replay of a "
          f"{REPLAYED:,}-event stream; weighed {WEIGHED:,} events; python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
