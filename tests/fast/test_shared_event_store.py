"""SharedEventStore: one store for all sessions of the SDK's session manager, each session through its
own view whose event ids carry the session. The kit passes it in the shared deployment, where a plain
store (the kit's ReferenceEventStore, a naive in-memory store) fails; with the real SDK it keeps two
sessions apart over HTTP."""

from __future__ import annotations

import asyncio

import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from mcp_resume.testing import ReferenceEventStore, ScopedSessionManager, SharedEventStore, scope_sessions
from mcp_resume.testing.sdk import notification


def _run(coroutine):
    return asyncio.new_event_loop().run_until_complete(coroutine)


def test_a_view_replays_its_own_stream_and_refuses_another_sessions_event_id():
    async def scenario():
        shared = SharedEventStore()
        a, b = shared.for_session(), shared.for_session()
        await a.store_event("1", None)
        first = await a.store_event("1", notification("a1"))
        await b.store_event("1", notification("b1"))  # same stream key, another session
        second = await a.store_event("1", notification("a2"))
        sent = []

        async def collect(item):
            sent.append(item.event_id)

        own = await a.replay_events_after(first, collect)
        foreign = await b.replay_events_after(first, collect)
        forged = await a.replay_events_after(b.token + ".1", collect)
        return first, second, own, foreign, forged, sent, shared.sessions

    first, second, own, foreign, forged, sent, sessions = _run(scenario())
    assert first.split(".")[0] != "" and own == "1" and sent == [second]
    assert foreign is None and forged is None and sessions == 2


def test_the_shared_store_itself_refuses_to_be_used_without_views():
    with pytest.raises(RuntimeError, match="scope_sessions"):
        _run(SharedEventStore().store_event("1", None))


def test_scope_sessions_gives_every_session_of_the_sdks_manager_its_own_view():
    server = MCPServer("shared-store test")
    server.streamable_http_app(event_store=SharedEventStore())
    manager = scope_sessions(server.session_manager)
    assert isinstance(manager, StreamableHTTPSessionManager)
    first, second = manager.event_store, manager.event_store
    assert first.shared is second.shared and first.token != second.token
    assert scope_sessions(manager) is manager
    assert ScopedSessionManager(app=server, event_store=None).event_store is None
    with pytest.raises(TypeError, match="SharedEventStore"):
        scope_sessions(StreamableHTTPSessionManager(app=server, event_store=ReferenceEventStore()))
    with pytest.raises(TypeError):
        scope_sessions(object())
