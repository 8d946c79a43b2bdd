"""SharedEventStore: one store for all sessions of the SDK's session manager, each session through its
own view whose event ids carry the session. The kit passes it in the shared deployment, where a plain
store (the kit's ReferenceEventStore, a naive in-memory store) fails; with the real SDK it keeps two
sessions apart over HTTP."""

from __future__ import annotations

import asyncio

import event_stores as stores
import httpx
import pytest
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from mcp_resume.testing import (
    SHARED,
    ReferenceEventStore,
    ScopedSessionManager,
    SharedEventStore,
    check_event_store,
    scope_sessions,
)
from mcp_resume.testing.sdk import notification

KIT_EXAMPLES = 60


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


@pytest.mark.slow
@pytest.mark.covers("no-cross-session", "replay-suffix", "event-id-unique")
def test_the_kit_passes_it_in_the_shared_deployment():
    report = check_event_store(SharedEventStore, deployment=SHARED, examples=KIT_EXAMPLES)
    assert report.passed, report.explain()
    assert report.isolation == "held (a view per session)" and not report.skipped.get("reconnect")
    limits = {p.name: p.held for p in report.limits}
    assert limits["foreign-cursor"] and limits["request-id-collision"] and limits["shared-standalone-key"]


@pytest.mark.slow
@pytest.mark.parametrize("store", [ReferenceEventStore, stores.MemoryEventStore])
def test_a_plain_store_shared_by_all_sessions_fails_the_kit(store):
    report = check_event_store(store, deployment=SHARED, examples=KIT_EXAMPLES)
    assert not report.passed and report.isolation == "broken"
    assert "SharedEventStore" in report.explain()


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


INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _event_ids(text: str) -> list[str]:
    return [line[3:].strip() for line in text.splitlines() if line.startswith("id:")]


async def _session(client: httpx.AsyncClient, url: str) -> tuple[str, list[str]]:
    init = await client.post(url, json=INIT, headers=HEADERS)
    session = init.headers["mcp-session-id"]
    headers = {**HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    await client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    listed = await client.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=headers)
    return session, _event_ids(listed.text)


@pytest.mark.slow
@pytest.mark.covers("no-cross-session")
def test_with_the_real_sdk_another_sessions_event_id_replays_nothing():
    server = MCPServer("shared-store server")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    app = server.streamable_http_app(event_store=SharedEventStore(), host="127.0.0.1")
    scope_sessions(server.session_manager)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
    web = uvicorn.Server(config)

    async def scenario():
        serving = asyncio.create_task(web.serve())
        try:
            for _ in range(100):
                if web.started:
                    break
                await asyncio.sleep(0.05)
            port = web.servers[0].sockets[0].getsockname()[1]
            url = f"http://127.0.0.1:{port}/mcp"
            async with httpx.AsyncClient(timeout=10) as client:
                a, a_ids = await _session(client, url)
                b, b_ids = await _session(client, url)
                headers = {"accept": "text/event-stream", "mcp-session-id": b, "mcp-protocol-version": "2025-11-25",
                           "last-event-id": a_ids[0]}
                async with client.stream("GET", url, headers=headers) as stream:
                    status, body = stream.status_code, b""
                    try:
                        async with asyncio.timeout(1.0):
                            async for chunk in stream.aiter_bytes():
                                body += chunk
                    except TimeoutError:
                        pass
                return a_ids, b_ids, status, body.decode()
        finally:
            web.should_exit = True
            await asyncio.wait_for(serving, 10)

    a_ids, b_ids, status, body = asyncio.run(scenario())
    assert a_ids and b_ids and a_ids[0].split(".")[0] != b_ids[0].split(".")[0]
    assert "result" not in body and not [i for i in _event_ids(body) if i.split(".")[0] == a_ids[0].split(".")[0]]
