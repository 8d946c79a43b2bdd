"""The python-sdk-2026 fixture server: the official MCP Python SDK 2.x serving protocol revision 2026-07-28 only.

A standalone script (it imports only ``mcp`` 2.x, Starlette and uvicorn, never mcp_resume):
``python python_sdk_2026_server.py --port N`` binds 127.0.0.1 only and serves ``/mcp``.

The SDK has no modern-only switch: ``MCPServer.streamable_http_app`` mounts one
``StreamableHTTPSessionManager``, which serves both eras on one endpoint and routes by
header alone (``mcp/server/streamable_http_manager.py``, ``_handle_request``): a request
whose ``MCP-Protocol-Version`` names a version outside ``HANDSHAKE_PROTOCOL_VERSIONS``
goes to the single-exchange 2026-07-28 entry (``mcp/server/_streamable_http_modern.py``,
``handle_modern_request``), every other one (no header, or 2025-11-25 and older) to the
session era. Served as it is, the SDK answers ``initialize`` and opens a 2025-11-25
session (what the ``python-sdk`` target already checks). ``ModernOnly`` therefore lets
through exactly what the SDK itself routes to its 2026-07-28 entry and refuses the rest
the way that entry and the TypeScript SDK's modern-only endpoint
(``createMcpHandler(factory, {legacy: "reject"})``) refuse them:

- a GET, DELETE or any method but POST: 405 with ``Allow: POST``;
- a POST of a request (``initialize`` included): 400 with JSON-RPC error -32022
  (``UNSUPPORTED_PROTOCOL_VERSION``) built by the SDK's own
  ``unsupported_protocol_version_rejection``: ``data = {"supported": ["2026-07-28"],
  "requested": <the header, else initialize's protocolVersion, else "">}``, the request's id;
- a POST of a notification (no ``id``): 202, nothing dispatched.

Tools (the conformance fixture tools 2026-07-28 allows: no server requests on a response
stream, no resumable streams): ``test_simple_text``, ``test_tool_with_logging`` (three
``notifications/message``, sent only when the request's ``_meta`` carries
``io.modelcontextprotocol/logLevel``: ``mcp/server/connection.py``, ``allowed_log_levels``),
``test_tool_with_progress`` (three ``notifications/progress`` when the call's ``_meta`` has a
``progressToken``). No event store: the 2026-07-28 entry never resumes a stream.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import warnings

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER, unsupported_protocol_version_rejection
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

HOST = "127.0.0.1"
MCP_PATH = "/mcp"
STEP_SECONDS = 0.05
"""Pause after each notification of a fixture tool, in seconds."""
MAX_REFUSED_BODY_BYTES = 1 << 20
"""Most bytes of a refused POST's body read for its id and version (longer: refused with id null)."""


def build_server() -> MCPServer:
    """The MCP server with the fixture tools 2026-07-28 allows."""
    server = MCPServer("mcp-resume python-sdk-2026 target", version="1.0.0", log_level="WARNING")

    @server.tool()
    async def test_simple_text() -> str:
        """Answer one text block."""
        return "This is a simple text response for testing."

    @server.tool()
    async def test_tool_with_logging(ctx: Context) -> str:
        """Send three log notifications (when the request asked for them with a logLevel), then answer."""
        for step in (1, 2, 3):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await ctx.info(f"logging step {step}")
            await asyncio.sleep(STEP_SECONDS)
        return "logged three messages"

    @server.tool()
    async def test_tool_with_progress(ctx: Context) -> str:
        """Report progress three times (when the client sent a progress token), then answer."""
        for step in (1, 2, 3):
            await ctx.report_progress(step, 3, f"step {step}")
            await asyncio.sleep(STEP_SECONDS)
        return "progress reported"

    return server


class ModernOnly:
    """ASGI middleware: ``app`` (the SDK's Starlette app) for what the SDK serves in its 2026-07-28 entry,
    the refusals of the module docstring for everything the SDK would route to the session era."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != MCP_PATH or _modern_header(scope) is not None:
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST":
            await Response(status_code=405, headers={"Allow": "POST"})(scope, receive, send)
            return
        body = await _read_body(receive)
        if isinstance(body, dict) and "method" in body and "id" not in body:
            await Response(status_code=202)(scope, receive, send)
            return
        requested = _header(scope) or _initialize_version(body) or ""
        rejection = unsupported_protocol_version_rejection(requested)
        assert rejection is not None  # requested is never a 2026-07-28 version here
        request_id = body.get("id") if isinstance(body, dict) and isinstance(body.get("id"), (str, int)) else None
        error = {"code": rejection.code, "message": rejection.message, "data": rejection.data}
        await JSONResponse({"jsonrpc": "2.0", "id": request_id, "error": error}, status_code=400)(scope, receive, send)


def _header(scope: Scope) -> str | None:
    name = MCP_PROTOCOL_VERSION_HEADER.encode("ascii")
    return next((value.decode("latin-1") for key, value in scope["headers"] if key == name), None)


def _modern_header(scope: Scope) -> str | None:
    """The ``MCP-Protocol-Version`` value when the SDK's manager routes it to its 2026-07-28 entry."""
    value = _header(scope)
    return value if value is not None and value not in HANDSHAKE_PROTOCOL_VERSIONS else None


def _initialize_version(body: object) -> str | None:
    if isinstance(body, dict) and body.get("method") == "initialize" and isinstance(body.get("params"), dict):
        version = body["params"].get("protocolVersion")
        return version if isinstance(version, str) else None
    return None


async def _read_body(receive: Receive) -> object:
    """The POST body as decoded JSON; None when it is not JSON or longer than ``MAX_REFUSED_BODY_BYTES``."""
    chunks, size, more = [], 0, True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_REFUSED_BODY_BYTES:
            return None
        chunks.append(chunk)
        more = message.get("more_body", False)
    try:
        return json.loads(b"".join(chunks))
    except (ValueError, RecursionError):
        return None


def build_app() -> ASGIApp:
    """The SDK's Starlette app at ``/mcp`` (SSE responses, DNS-rebinding guard for 127.0.0.1) behind ``ModernOnly``.
    ``ModernOnly`` wraps the Starlette app, so the app's lifespan (the session manager's ``run``) still starts."""
    return ModernOnly(build_server().streamable_http_app(streamable_http_path=MCP_PATH, host=HOST))


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description="Serve the MCP Python SDK 2.x, 2026-07-28 only, on 127.0.0.1.")
    parser.add_argument("--port", type=int, required=True, help="TCP port on 127.0.0.1")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    uvicorn.run(build_app(), host=HOST, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
