"""BoundedEventStore, the store to ship: the kit passes it in both deployments (where a plain store
shared by all sessions fails), the real SDK keeps two sessions apart with it over HTTP, and verify
finds nothing wrong with the store of such a server under any profile.

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_event_store.py``.
"""

from __future__ import annotations

import asyncio

from tests.helpers import event_stores as stores
import httpx
import pytest
import uvicorn
from mcp.server.mcpserver import MCPServer

from mcp_resume.event_store import BoundedEventStore, scope_sessions
from mcp_resume.testing import DEPLOYMENTS, SHARED, ReferenceEventStore, check_event_store


KIT_EXAMPLES = 60


@pytest.mark.covers("no-cross-session", "replay-suffix", "event-id-unique")
@pytest.mark.parametrize("deployment", DEPLOYMENTS)
def test_the_kit_passes_it_in_every_deployment(deployment):
    report = check_event_store(BoundedEventStore, deployment=deployment, examples=KIT_EXAMPLES)
    assert report.passed, report.explain()
    assert report.isolation == "held (a view per session)" and not report.skipped.get("reconnect")
    limits = {p.name: p.held for p in report.limits}
    assert limits["foreign-cursor"] and limits["request-id-collision"] and limits["shared-standalone-key"]


@pytest.mark.parametrize("store", [ReferenceEventStore, stores.MemoryEventStore])
def test_a_plain_store_shared_by_all_sessions_fails_the_kit(store):
    report = check_event_store(store, deployment=SHARED, examples=KIT_EXAMPLES)
    assert not report.passed and report.isolation == "broken"
    assert "BoundedEventStore" in report.explain()


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


@pytest.mark.covers("no-cross-session")
def test_with_the_real_sdk_another_sessions_event_id_replays_nothing():
    server = MCPServer("shared-store server")

    @server.tool()
    async def echo(text: str) -> str:
        return text

    app = server.streamable_http_app(event_store=BoundedEventStore(), host="127.0.0.1")
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


STORE_RULES = ("replay-suffix", "no-cross-session", "event-id-unique", "expiry-independent",
               "no-replay-on-session-resume", "reject-orphan-event-id")
"""The rules an EventStore decides in a Python SDK server; the others are the SDK transport's."""
TRANSPORT_FAILS = {"reemit-pending", "reject-foreign-event-id", "malformed-session-400"}
"""What the SDK's transport FAILs under boundary whatever its store (docs/compatibility.md)."""


@pytest.mark.timeout(400)
@pytest.mark.covers("replay-suffix", "no-cross-session", "event-id-unique", "expiry-independent",
                    "no-replay-on-session-resume", "reject-orphan-event-id")
def test_verify_finds_nothing_wrong_with_the_store_of_a_real_server(tmp_path):
    """The README's server with BoundedEventStore, verified under the MCP profile and boundary."""
    import json

    from mcp_resume.cli import main
    from tests.helpers.servers.sdk_readme import readme_app, serving_app

    verdicts, reasons = {}, {}
    with serving_app(readme_app(fixtures=True, bounded=True)) as url:
        for profile in ("auto", "boundary"):
            out = tmp_path / profile
            out.mkdir()
            main(["verify", url, "--profile", profile, "--timeout", "2", "--json", str(out / "r.json"),
                  "--out", str(out / "findings")])
            report = json.loads((out / "r.json").read_text())
            verdicts[profile] = {r["rule"]: r["verdict"] for r in report["verdicts"]}
            reasons[profile] = {r["rule"]: r["evidence"]["reason"] for r in report["verdicts"]}
    assert {rule: verdicts["auto"][rule] for rule in STORE_RULES} == dict.fromkeys(STORE_RULES, "PASS")
    assert {rule: verdicts["boundary"][rule] for rule in STORE_RULES} == dict.fromkeys(STORE_RULES, "PASS")
    assert [rule for rule, verdict in verdicts["auto"].items() if verdict in ("FAIL", "WARN")] == []
    assert {rule for rule, verdict in verdicts["boundary"].items() if verdict == "FAIL"} <= TRANSPORT_FAILS
    # the SDK answers another session's event id 200 (no replay): what the MCP revision allows, said so
    assert reasons["auto"]["reject-foreign-event-id"].startswith("allowed under mcp-2025-11-25 (MAY): ")
