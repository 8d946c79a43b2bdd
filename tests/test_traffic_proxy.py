"""The recording proxy in front of the reference server served over HTTP on 127.0.0.1:
it forwards unchanged, streams SSE events as they come, and records every exchange
(JSON lines that ``records.read`` reads back the same)."""

from __future__ import annotations

import asyncio
import time

import pytest

from mcp_resume.model.http.client import StreamableHttpClient, Timeouts
from mcp_resume.model.http.evidence import End
from mcp_resume.model.http.facade import serving, serving_design
from mcp_resume.model.traffic.proxy import RecordingProxy
from mcp_resume.model.traffic.records import read
from mcp_resume.model.traffic.recording import Fanout, JsonLinesRecorder, MemoryRecorder

BOUNDS = Timeouts(connect=2.0, first_byte=2.0, idle=2.0, exchange=10.0, settle=0.3)


async def _session_with_history(url: str):
    async with StreamableHttpClient(url, BOUNDS) as client:
        init = await client.initialize()
        session = init.session_header
        await client.notify(session, "notifications/initialized", label="initialized")
        call = await client.call_tool(session, "test_tool_with_logging", label="call")
        cursor = next(e for e in call.events if e.id is not None and not e.is_priming)
        resumed = await client.get(label="resume", session=session, last_event_id=cursor.id)
        await client.call_tool(session, "test_elicitation", label="drop at the request", stop=lambda e: e.is_server_request)
        return client.exchanges, call, resumed


def _kind(event):
    """What an event is, without the ids that differ between two clients' runs."""
    return event.is_priming, event.method, event.message.get("params") if event.method else "result" in (event.message or {})


def _until_every_exchange_ended(memory, seconds: float = 5.0) -> None:
    """The proxy writes a record once it sees its exchange end (a client's drop a moment late)."""
    deadline = time.monotonic() + seconds
    while any(r.ended is None for r in memory.records) and time.monotonic() < deadline:
        time.sleep(0.02)


@pytest.fixture
def proxied(tmp_path):
    memory = MemoryRecorder()
    path = tmp_path / "run.jsonl"
    lines = JsonLinesRecorder(path)
    with serving_design("reference") as upstream:
        proxy = RecordingProxy(upstream, Fanout(memory, lines))
        with serving(proxy) as front:
            yield upstream, front, memory, path
    lines.close()


def test_the_proxy_forwards_unchanged_and_records_every_exchange(proxied):
    upstream, front, memory, path = proxied
    direct, direct_call, direct_resumed = asyncio.run(_session_with_history(upstream))
    through, call, resumed = asyncio.run(_session_with_history(front))
    assert [x.status for x in through] == [x.status for x in direct]
    assert [_kind(e) for e in call.events] == [_kind(e) for e in direct_call.events]
    assert [_kind(e) for e in resumed.events] == [_kind(e) for e in direct_resumed.events] != []
    _until_every_exchange_ended(memory)
    recorded = read(path)
    assert [r.exchange.method for r in recorded] == [x.method for x in through]
    assert [r.exchange.status for r in recorded] == [x.status for x in through]
    tool = next(r for r in recorded if r.exchange.request_body and r.exchange.request_body.get("method") == "tools/call")
    assert [e.id for e in tool.exchange.events] == [e.id for e in call.events]
    assert tool.arrivals == sorted(tool.arrivals) and tool.started <= tool.arrivals[0]
    get = next(r for r in recorded if r.exchange.method == "GET")
    assert get.exchange.request_headers["last-event-id"] == resumed.request_headers["last-event-id"]
    assert get.exchange.end is End.CLOSED  # the call had ended: the server closes the replay
    elicitation = recorded[-1].exchange
    assert elicitation.events[-1].is_server_request and elicitation.end is End.DROPPED  # the client went away
    assert {r.number for r in recorded} == {r.number for r in memory.records}
