"""A client session recorded through the proxy: one reference scenario run against any
in-process server served over HTTP on 127.0.0.1 (shared by the traffic tests)."""

from __future__ import annotations

import asyncio
import time

from mcp_resume.model.http.client import StreamableHttpClient, Timeouts
from mcp_resume.model.http.facade import serving, serving_design
from mcp_resume.model.traffic.proxy import RecordingProxy
from mcp_resume.model.traffic.records import Record
from mcp_resume.model.traffic.recording import MemoryRecorder

BOUNDS = Timeouts(connect=5.0, first_byte=5.0, idle=5.0, exchange=30.0, settle=0.3)
ANSWER = {"action": "accept", "content": {"answer": "mcp-resume"}}


async def scenario(url: str) -> None:
    """Two sessions: a history call resumed from a middle event id, an elicitation
    dropped at its request, a session resumption, the answer, and a second session
    presenting the first one's event id."""
    async with StreamableHttpClient(url, BOUNDS) as client:
        first = (await client.initialize()).session_header
        await client.notify(first, "notifications/initialized", label="initialized")
        call = await client.call_tool(first, "test_tool_with_logging", label="history")
        cursor = next((e for e in call.events if e.id is not None and not e.is_priming), None)
        assert cursor is not None, f"the history call carried no event with an id: {call.one_line()}"
        await client.get(label="stream resumption", session=first, last_event_id=cursor.id)
        elicit = await client.call_tool(first, "test_elicitation", label="drop at the request", stop=lambda e: e.is_server_request)
        await asyncio.sleep(0.3)
        await client.get(label="session resumption", session=first, stop=lambda e: e.is_server_request, idle=1.0)
        await client.respond(first, elicit.events[-1].request_id, ANSWER, label="answer")
        second = (await client.initialize()).session_header
        await client.notify(second, "notifications/initialized", label="initialized")
        await client.get(label="foreign event id", session=second, last_event_id=cursor.id, idle=0.5)


def recorded(name: str) -> list[Record]:
    """The records of ``scenario`` through the proxy to the server ``name``."""
    memory = MemoryRecorder()
    with _upstream(name) as upstream, serving(RecordingProxy(upstream, memory)) as front:
        asyncio.run(scenario(front))
        deadline = time.monotonic() + 5
        while any(r.ended is None for r in memory.records) and time.monotonic() < deadline:
            time.sleep(0.02)
    return memory.records


def _upstream(name: str):
    """An in-process server over HTTP, or an embedded target (``python-sdk`` ...) started for real."""
    from mcp_resume.model.targets.embedded import running_target

    if name == "reference" or name.startswith(("design-", "variation-")):
        return serving_design(name)
    return running_target(name)
