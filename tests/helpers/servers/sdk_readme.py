"""Servers written as the official Python SDK's README shows (an ``MCPServer`` with a tool
or two, its Streamable HTTP app with an ``EventStore``), started here on 127.0.0.1 with
uvicorn, in three forms:

- ``readme_app(fixtures=True)``: plus one call of ``add_fixture_tools``; ``bounded=True`` gives it
  ``BoundedEventStore`` with ``scope_sessions`` instead of the SDK's example store;
- ``readme_app(fixtures=False)``: its own tools only, among them ``book_flight``, which
  asks the user to confirm (elicitation) before it answers, and ``tail_logs``, which
  sends log notifications before its answer;
- ``lowlevel_app()``: the SDK's low-level ``Server`` with its own tool and the fixture tools.
"""

from __future__ import annotations

import asyncio
import warnings
from contextlib import contextmanager
from typing import Iterator

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from mcp_resume.event_store import BoundedEventStore, scope_sessions
from mcp_resume.fixtures import add_fixture_tools
from mcp_resume.model.serving.facade import serving
from mcp_resume.model.targets.python_sdk_server import InMemoryEventStore

BOOKING = {"destination": "Oslo", "seats": 2}
"""Arguments of ``book_flight`` the tests pass with ``--tool server-request=book_flight:...``."""


class Confirmation(BaseModel):
    """What ``book_flight`` asks the user."""

    confirm: bool
    seat: str = "aisle"


def readme_app(*, fixtures: bool, event_store: bool = True, bounded: bool = False):
    server = MCPServer("Demo")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @server.tool()
    async def book_flight(destination: str, seats: int, ctx: Context) -> str:
        """Book seats to a destination once the user confirms."""
        answer = await ctx.elicit(f"Book {seats} seat(s) to {destination}?", Confirmation)
        confirmed = answer.action == "accept" and answer.data.confirm
        return f"booked {seats} to {destination}" if confirmed else "not booked"

    @server.tool()
    async def tail_logs(lines: int, ctx: Context) -> str:
        """Stream the last lines of the log as notifications."""
        for number in range(lines):
            with warnings.catch_warnings():  # the SDK warns that logging is deprecated as of 2026-07-28
                warnings.simplefilter("ignore")
                await ctx.info(f"log line {number + 1}")
            await asyncio.sleep(0.02)
        return f"{lines} lines"

    if fixtures:
        add_fixture_tools(server)
    if bounded:
        app = server.streamable_http_app(event_store=BoundedEventStore(), retry_interval=1000)  # as docs/fixtures.md
        scope_sessions(server.session_manager)
        return app
    return server.streamable_http_app(event_store=InMemoryEventStore() if event_store else None)


def lowlevel_app():
    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=[types.Tool(name="echo", input_schema={"type": "object"})])

    async def call_tool(ctx, params):
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"echo {params.arguments}")])

    server = Server("Demo low-level", on_list_tools=list_tools, on_call_tool=call_tool)
    add_fixture_tools(server)
    return server.streamable_http_app(event_store=InMemoryEventStore())


@contextmanager
def serving_app(app, tls: tuple[str, str] | None = None) -> Iterator[str]:
    """``app`` on a free port of 127.0.0.1 (``https`` with ``tls``, certificate and key files);
    yields its MCP endpoint URL."""
    with serving(app, lifespan="on", tls=tls) as url:
        yield url
