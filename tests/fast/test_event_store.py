"""BoundedEventStore: one store for all sessions of the SDK's session manager, each session through
its own view whose event ids carry the session, retention bounded by count and age, safe for threads.
What the kit and a real server say of it is in ``tests/slow/test_event_store.py``."""

from __future__ import annotations

import asyncio
import threading

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from mcp_resume.event_store import BoundedEventStore, ScopedSessionManager, scope_sessions
from mcp_resume.testing import ReferenceEventStore
from mcp_resume.testing.sdk import notification


def _run(coroutine):
    return asyncio.new_event_loop().run_until_complete(coroutine)


async def _replay(view, cursor) -> tuple[str | None, list[str]]:
    sent = []

    async def collect(item):
        sent.append(item.event_id)

    return await view.replay_events_after(cursor, collect), sent


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_view_replays_its_own_stream_and_refuses_another_sessions_event_id():
    async def scenario():
        store = BoundedEventStore()
        a, b = store.for_session(), store.for_session()
        priming = await a.store_event("1", None)
        first = await a.store_event("1", notification("a1"))
        await b.store_event("1", notification("b1"))  # same stream key, another session
        await a.store_event("2", notification("a-other-stream"))
        second = await a.store_event("1", notification("a2"))
        return (priming, first, second, await _replay(a, priming), await _replay(a, first),
                await _replay(b, first), await _replay(a, b.token + ".1"), await _replay(a, "garbage"),
                await _replay(a, a.token + ".x"), store.sessions)

    priming, first, second, from_priming, own, foreign, forged, garbage, malformed, sessions = _run(scenario())
    assert from_priming == ("1", [first, second]), "a priming event is never replayed, the stream's events are"
    assert own == ("1", [second])
    assert foreign == (None, []) and forged == (None, []) and garbage == (None, []) and malformed == (None, [])
    assert sessions == 2 and first.rpartition(".")[0] != ""


def test_a_cursor_with_nothing_after_it_still_names_its_stream():
    async def scenario():
        view = BoundedEventStore().for_session()
        last = await view.store_event("_GET_stream", notification("g1"))
        return await _replay(view, last)

    assert _run(scenario()) == ("_GET_stream", [])


def test_a_session_keeps_its_newest_events_and_an_evicted_cursor_replays_nothing():
    async def scenario():
        store = BoundedEventStore(max_events_per_session=3)
        view = store.for_session()
        ids = [await view.store_event("1", notification(f"n{i}")) for i in range(5)]
        return ids, store.retained, await _replay(view, ids[0]), await _replay(view, ids[1]), await _replay(view, ids[2])

    ids, retained, evicted, evicted_too, kept = _run(scenario())
    assert retained == 3
    assert evicted == (None, []) and evicted_too == (None, []), "never a replay that skips events"
    assert kept == ("1", ids[3:])


def test_the_bound_over_all_sessions_evicts_the_oldest_first():
    async def scenario():
        store = BoundedEventStore(max_events=4, max_events_per_session=None)
        a, b = store.for_session(), store.for_session()
        a1 = await a.store_event("1", notification("a1"))
        a2 = await a.store_event("1", notification("a2"))
        b1 = await b.store_event("1", notification("b1"))
        b2 = await b.store_event("1", notification("b2"))
        b3 = await b.store_event("1", notification("b3"))
        return (a2, b2, b3), store.retained, await _replay(a, a1), await _replay(a, a2), await _replay(b, b1)

    (a2, b2, b3), retained, gone, kept_a, kept_b = _run(scenario())
    assert retained == 4 and gone == (None, [])
    assert kept_a == ("1", []) and kept_b == ("1", [b2, b3])


def test_events_older_than_the_age_bound_are_evicted_and_their_sessions_forgotten():
    clock = Clock()

    async def scenario():
        store = BoundedEventStore(max_age_seconds=60, clock=clock)
        old, young = store.for_session(), store.for_session()
        stale = await old.store_event("1", notification("old"))
        clock.now = 50
        kept = await young.store_event("1", notification("young"))
        clock.now = 61
        after_age = (await _replay(old, stale), await _replay(young, kept), store.sessions)
        clock.now = 200
        later = await old.store_event("1", notification("again"))
        return stale, later, after_age, store.sessions

    stale, later, (expired, alive, sessions_then), sessions_now = _run(scenario())
    assert expired == (None, []) and alive == ("1", []) and sessions_then == 1
    assert sessions_now == 1 and later != stale, "a session's numbering goes on after its events expired"


def test_bounds_must_be_positive():
    for bad in ({"max_events": 0}, {"max_events_per_session": -1}, {"max_age_seconds": 0.0}):
        with pytest.raises(ValueError, match="must be positive or None"):
            BoundedEventStore(**bad)


def test_threads_storing_at_once_get_unique_ids_and_the_bounds_hold():
    store = BoundedEventStore(max_events=500, max_events_per_session=None)
    views = [store.for_session() for _ in range(8)]
    ids: list[list[str]] = [[] for _ in views]

    def work(n: int) -> None:
        loop = asyncio.new_event_loop()
        for i in range(400):
            ids[n].append(loop.run_until_complete(views[n].store_event(str(i % 3), notification(f"{n}-{i}"))))
        loop.close()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(len(views))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    every = [event_id for batch in ids for event_id in batch]
    assert len(every) == 3200 and len(set(every)) == 3200
    assert store.retained == 500
    for view, batch in zip(views, ids):
        kept = [_run(_replay(view, event_id))[0] is not None for event_id in batch]
        assert kept == sorted(kept), "what a session keeps is the tail of what it stored"


def test_the_store_itself_refuses_to_be_used_without_views():
    with pytest.raises(RuntimeError, match="scope_sessions"):
        _run(BoundedEventStore().store_event("1", None))


def test_scope_sessions_gives_every_session_of_the_sdks_manager_its_own_view():
    server = MCPServer("bounded-store test")
    server.streamable_http_app(event_store=BoundedEventStore())
    manager = scope_sessions(server.session_manager)
    assert isinstance(manager, StreamableHTTPSessionManager)
    first, second = manager.event_store, manager.event_store
    assert first.store is second.store and first.token != second.token
    assert scope_sessions(manager) is manager
    assert ScopedSessionManager(app=server, event_store=None).event_store is None
    with pytest.raises(TypeError, match="BoundedEventStore"):
        scope_sessions(StreamableHTTPSessionManager(app=server, event_store=ReferenceEventStore()))
    with pytest.raises(TypeError):
        scope_sessions(object())


def test_the_names_of_earlier_releases_still_resolve_with_a_warning():
    import mcp_resume.testing as testing

    with pytest.warns(DeprecationWarning, match="mcp_resume.event_store.BoundedEventStore"):
        assert testing.SharedEventStore is BoundedEventStore
    with pytest.warns(DeprecationWarning):
        assert testing.scope_sessions is scope_sessions
