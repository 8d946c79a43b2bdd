"""The python-sdk 1.x fixture server: ``mcp.server.fastmcp.FastMCP`` over Streamable HTTP.

A standalone script (it imports only ``mcp`` 1.x and uvicorn, never mcp_resume),
run by the virtualenv that holds that SDK release:
``python python_sdk1_server.py --port N`` binds 127.0.0.1 only. Like the 2.x
target (``model.targets.python_sdk_server``) it has an in-memory ``EventStore`` written
to the SDK's interface and the conformance fixture tools (docs/design.md §7).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import warnings

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.streamable_http import EventMessage, EventStore
from mcp.types import SamplingMessage, TextContent
from pydantic import BaseModel

HOST = "127.0.0.1"
STEP_SECONDS = 0.05
RECONNECT_PAUSE_SECONDS = 0.3
RETRY_MILLISECONDS = 1000  # as the python-sdk 2.x target (model/targets/python_sdk_server.py)


class InMemoryEventStore(EventStore):
    """One ordered list of (event id, message) per stream key; ids from one counter."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)
        self._stream_of: dict[str, object] = {}
        self._streams: dict[object, list[tuple[str, object]]] = {}

    async def store_event(self, stream_id, message):
        event_id = f"ev-{next(self._counter)}"
        self._stream_of[event_id] = stream_id
        self._streams.setdefault(stream_id, []).append((event_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback):
        stream_id = self._stream_of.get(last_event_id)
        if stream_id is None:
            return None
        events = self._streams[stream_id]
        position = [event_id for event_id, _ in events].index(last_event_id)
        for event_id, message in events[position + 1 :]:
            if message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id


class Answer(BaseModel):
    answer: str


def build_server() -> FastMCP:
    server = FastMCP(
        "mcp-resume python-sdk 1.x target",
        host=HOST,
        streamable_http_path="/mcp",
        event_store=InMemoryEventStore(),
        retry_interval=RETRY_MILLISECONDS,  # the SSE retry field of its priming events (MCP D10)
        log_level="WARNING",
    )

    @server.tool()
    async def test_tool_with_logging(ctx: Context) -> str:
        """Send three log notifications, then answer."""
        for step in (1, 2, 3):
            await ctx.info(f"logging step {step}")
            await asyncio.sleep(STEP_SECONDS)
        return "logged three messages"

    @server.tool()
    async def test_tool_with_progress(ctx: Context) -> str:
        """Report progress three times, then answer."""
        for step in (1, 2, 3):
            await ctx.report_progress(step, 3, f"step {step}")
            await asyncio.sleep(STEP_SECONDS)
        return "progress reported"

    @server.tool()
    async def test_sampling(ctx: Context, prompt: str = "Say hello") -> str:
        """Ask the client for a sampling/createMessage completion."""
        message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
        result = await ctx.session.create_message([message], max_tokens=32, related_request_id=ctx.request_id)
        return result.content.text if isinstance(result.content, TextContent) else "sampled"

    @server.tool()
    async def test_elicitation(ctx: Context, message: str = "Please answer") -> str:
        """Send an elicitation/create request and wait for the answer."""
        result = await ctx.elicit(message, Answer)
        return f"elicitation {result.action}"

    @server.tool()
    async def test_reconnection(ctx: Context) -> str:
        """Log, close this call's SSE connection, log again, answer."""
        await ctx.info("before the connection closes")
        await asyncio.sleep(STEP_SECONDS)
        await ctx.close_sse_stream()
        await asyncio.sleep(RECONNECT_PAUSE_SECONDS)
        await ctx.info("after the connection closed")
        return "reconnection test finished"

    return server


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description="Serve the MCP Python SDK 1.x on 127.0.0.1 for mcp-resume.")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    uvicorn.run(build_server().streamable_http_app(), host=HOST, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
