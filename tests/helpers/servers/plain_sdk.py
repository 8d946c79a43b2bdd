"""A server written as the official Python SDK's README shows: an ``MCPServer`` with one
tool, served over Streamable HTTP with no event store, started here on 127.0.0.1 with
uvicorn (the SDK's session manager needs the app's lifespan)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from mcp_resume.model.serving.facade import serving


def plain_app():
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("Demo")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return server.streamable_http_app()


@contextmanager
def serving_plain() -> Iterator[str]:
    """The plain server on a free port of 127.0.0.1; yields its MCP endpoint URL."""
    with serving(plain_app(), lifespan="on") as url:
        yield url
