"""The framework target ``fastmcp-python``: FastMCP (PyPI ``fastmcp``) over Streamable HTTP.

A standalone script run by the virtualenv that holds the pinned ``fastmcp``
(it never imports mcp_resume): ``python fastmcp_python_server.py --port N``
binds 127.0.0.1 only. Wired as FastMCP's documentation wires resumability:
``mcp.http_app(event_store=EventStore(), retry_interval=...)`` with FastMCP's
own in-memory ``fastmcp.server.event_store.EventStore``. FastMCP 4 has no
sampling helper on ``Context``, so ``test_sampling`` goes through the SDK
session the context exposes, as a FastMCP user would.
"""

from __future__ import annotations

import argparse
import asyncio

from fastmcp import Context, FastMCP
from fastmcp.server.event_store import EventStore
from mcp_types import SamplingMessage, TextContent
from pydantic import BaseModel

HOST = "127.0.0.1"
STEP_SECONDS = 0.05
RECONNECT_PAUSE_SECONDS = 0.3
RETRY_MILLISECONDS = 1000


class Answer(BaseModel):
    answer: str


def build_server() -> FastMCP:
    mcp = FastMCP("mcp-resume fastmcp-python target")

    @mcp.tool
    async def test_tool_with_logging(ctx: Context) -> str:
        """Send three log notifications, then answer."""
        for step in (1, 2, 3):
            await ctx.info(f"logging step {step}")
            await asyncio.sleep(STEP_SECONDS)
        return "logged three messages"

    @mcp.tool
    async def test_tool_with_progress(ctx: Context) -> str:
        """Report progress three times, then answer."""
        for step in (1, 2, 3):
            await ctx.report_progress(step, 3, f"step {step}")
            await asyncio.sleep(STEP_SECONDS)
        return "progress reported"

    @mcp.tool
    async def test_sampling(ctx: Context, prompt: str = "Say hello") -> str:
        """Ask the client for a sampling/createMessage completion."""
        message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
        result = await ctx.session.create_message([message], max_tokens=32, related_request_id=ctx.request_id)
        return result.content.text if isinstance(result.content, TextContent) else "sampled"

    @mcp.tool
    async def test_elicitation(ctx: Context, message: str = "Please answer") -> str:
        """Send an elicitation/create request and wait for the answer."""
        result = await ctx.elicit(message, Answer)
        return f"elicitation {result.action}"

    @mcp.tool
    async def test_reconnection(ctx: Context) -> str:
        """Log, close this call's SSE connection, log again, answer."""
        await ctx.info("before the connection closes")
        await asyncio.sleep(STEP_SECONDS)
        await ctx.close_sse_stream()
        await asyncio.sleep(RECONNECT_PAUSE_SECONDS)
        await ctx.info("after the connection closed")
        return "reconnection test finished"

    return mcp


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description="Serve FastMCP on 127.0.0.1 for mcp-resume.")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    app = build_server().http_app(path="/mcp", event_store=EventStore(), retry_interval=RETRY_MILLISECONDS)
    uvicorn.run(app, host=HOST, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
