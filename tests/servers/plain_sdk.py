"""A server written as the official Python SDK's README shows: an ``MCPServer`` with one
tool, served over Streamable HTTP with no event store, started here on 127.0.0.1 with
uvicorn (the SDK's session manager needs the app's lifespan)."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from typing import Iterator

HOST = "127.0.0.1"


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
    import uvicorn

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((HOST, 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(plain_app(), log_level="error", lifespan="on", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    try:
        if not server.started:
            raise RuntimeError("the plain SDK server did not start within 10 s")
        yield f"http://{HOST}:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(5)
        listener.close()
