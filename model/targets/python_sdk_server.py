"""The embedded real target ``python-sdk``: the official MCP Python SDK over Streamable HTTP.

Run it with ``python -m mcp_resume.model.targets.python_sdk_server --port N`` (it binds
127.0.0.1 only). It is the SDK's own session manager (``MCPServer.streamable_http_app``)
with two things added, written the way an SDK user would write them, and a ``retry_interval`` for the
SSE retry field its priming events carry (MCP D10; the TypeScript target sets ``retryInterval``):

- ``InMemoryEventStore``, an implementation of the SDK's
  ``mcp.server.streamable_http.EventStore`` interface. That interface passes a
  stream key to ``store_event`` and nothing else: no session. The store therefore
  keys streams by what it is given, as the interface invites, and the checker
  reports what the SDK does with it (MCP B23/B26/D27/D28, rules §3.1);
- tools named after the MCP conformance suite's fixture tools (docs/design.md §7):
  ``test_tool_with_logging``, ``test_tool_with_progress``, ``test_sampling``,
  ``test_elicitation`` and ``test_reconnection``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import warnings
from dataclasses import dataclass

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp_types import JSONRPCMessage, SamplingMessage, TextContent
from pydantic import BaseModel

HOST = "127.0.0.1"
MCP_PATH = "/mcp"
STEP_SECONDS = 0.05
"""Pause between the notifications of one fixture tool call, in seconds."""
RECONNECT_PAUSE_SECONDS = 0.3
"""How long ``test_reconnection`` works on after closing its connection, in seconds."""
RETRY_MILLISECONDS = 1000
"""The SSE retry field of every priming event: how long a client waits before it reconnects to a
stream whose connection the server closed, in milliseconds (MCP D10)."""


@dataclass(frozen=True)
class _StoredEvent:
    event_id: EventId
    stream_id: StreamId
    message: JSONRPCMessage | None  # None: a priming event


class InMemoryEventStore(EventStore):
    """Events kept in memory, one ordered list per stream key.

    Event ids are a process-wide counter, so they are unique; stream keys are
    whatever the SDK passes (the JSON-RPC request id of a POST, or the key of the
    standalone GET stream). Replay sends the later events of the stream the given
    event belongs to, skipping priming events, which carry no message.
    """

    def __init__(self) -> None:
        self._counter = itertools.count(1)
        self._events: dict[EventId, _StoredEvent] = {}
        self._streams: dict[StreamId, list[EventId]] = {}

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        event_id = f"ev-{next(self._counter)}"
        self._events[event_id] = _StoredEvent(event_id, stream_id, message)
        self._streams.setdefault(stream_id, []).append(event_id)
        return event_id

    async def replay_events_after(self, last_event_id: EventId, send_callback: EventCallback) -> StreamId | None:
        cursor = self._events.get(last_event_id)
        if cursor is None:
            return None
        stream = self._streams[cursor.stream_id]
        for event_id in stream[stream.index(last_event_id) + 1 :]:
            event = self._events[event_id]
            if event.message is not None:
                await send_callback(EventMessage(event.message, event.event_id))
        return cursor.stream_id


class Answer(BaseModel):
    """The form ``test_elicitation`` asks the client to fill."""

    answer: str


def build_server() -> MCPServer:
    """The MCP server with the fixture tools registered."""
    server = MCPServer("mcp-resume python-sdk target", log_level="WARNING")

    @server.tool()
    async def test_tool_with_logging(ctx: Context) -> str:
        """Send three log notifications, then answer."""
        for step in (1, 2, 3):
            await _log(ctx, f"logging step {step}")
            await asyncio.sleep(STEP_SECONDS)
        return "logged three messages"

    @server.tool()
    async def test_tool_with_progress(ctx: Context) -> str:
        """Report progress three times (when the client sent a progress token), then answer."""
        for step in (1, 2, 3):
            await ctx.report_progress(step, 3, f"step {step}")
            await asyncio.sleep(STEP_SECONDS)
        return "progress reported"

    @server.tool()
    async def test_sampling(ctx: Context, prompt: str = "Say hello") -> str:
        """Ask the client for a sampling/createMessage completion and return its text."""
        message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = await ctx.session.create_message([message], max_tokens=32, related_request_id=ctx.request_id)
        content = result.content
        return content.text if isinstance(content, TextContent) else "sampled"

    @server.tool()
    async def test_elicitation(ctx: Context, message: str = "Please answer") -> str:
        """Send an elicitation/create request and wait until the client answers it."""
        result = await ctx.elicit(message, Answer)
        return f"elicitation {result.action}"

    @server.tool()
    async def test_reconnection(ctx: Context) -> str:
        """Log, close this call's SSE connection (keeping the stream), log again, answer."""
        await _log(ctx, "before the connection closes")
        await asyncio.sleep(STEP_SECONDS)
        await ctx.close_sse_stream()
        await asyncio.sleep(RECONNECT_PAUSE_SECONDS)
        await _log(ctx, "after the connection closed")
        return "reconnection test finished"

    return server


async def _log(ctx: Context, text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        await ctx.info(text)


def build_app():
    """The Starlette app: the SDK's session manager at ``/mcp`` with an ``InMemoryEventStore``."""
    return build_server().streamable_http_app(
        streamable_http_path=MCP_PATH, event_store=InMemoryEventStore(), retry_interval=RETRY_MILLISECONDS, host=HOST
    )


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description="Serve the official MCP Python SDK on 127.0.0.1 for mcp-resume.")
    parser.add_argument("--port", type=int, required=True, help="TCP port on 127.0.0.1")
    args = parser.parse_args(argv)
    uvicorn.run(build_app(), host=HOST, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
