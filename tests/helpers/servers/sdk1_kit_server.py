"""A server written as the Python SDK 1.x README shows (``FastMCP`` with one tool and an
``EventStore``) plus one call of ``add_fixture_tools``; run by the virtualenv of an SDK 1.x
release with ``mcp_resume`` on its path: ``python sdk1_kit_server.py --port N`` (127.0.0.1)."""

import argparse

from mcp.server.fastmcp import FastMCP

from mcp_resume.fixtures import add_fixture_tools
from mcp_resume.model.targets.sdk_fixtures.python_sdk1_server import InMemoryEventStore


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port
    server = FastMCP("Demo", host="127.0.0.1", event_store=InMemoryEventStore(), log_level="WARNING")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    add_fixture_tools(server)
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
