"""What the test kit takes from the official SDK's ``EventStore`` interface.

Read from ``mcp/server/streamable_http.py`` of the ``mcp`` 2.3 SDK:

- ``store_event(stream_id, message) -> event_id`` is awaited for every message the
  transport sends, connected or not; ``message`` is ``None`` for a *priming*
  event, stored at the start of every POST SSE stream (clients of 2025-11-25 or
  later, MCP D8) and again when a resumed stream is registered anew;
- ``replay_events_after(last_event_id, send_callback) -> stream_id | None`` sends
  ``EventMessage(message, event_id)`` for each later event and names the stream
  it resumed, or ``None`` when it knows no such event;
- stream keys: ``str(id)`` of the JSON-RPC request whose response stream it is,
  and ``GET_STREAM_KEY`` (``"_GET_stream"``) for the standalone GET stream;
- ``StreamableHTTPSessionManager`` hands one store to the transport of every
  session, and neither method is told the session.

Messages the kit stores carry a unique *emission* mark in ``params._meta`` so
that whatever a store sends back can be traced to the call that stored it,
whatever event id the store attached.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, Callable

from mcp.server.streamable_http import GET_STREAM_KEY, EventMessage, EventStore
from mcp_types import JSONRPCNotification, JSONRPCRequest

__all__ = [
    "EMISSION_META", "GET_STREAM_KEY", "STORE_CALL_SECONDS", "EventMessage", "EventStore", "StoreCallError",
    "StoreRunner", "emission_of", "notification", "server_request",
]

EMISSION_META = "io.github.mcp-resume/emission"
"""The ``_meta`` key of the kit's mark on every message it stores."""

STORE_CALL_SECONDS = 5.0
"""How long one call into the store may take, in seconds."""


class StoreCallError(RuntimeError):
    """A store method could not be called as the SDK calls it (not a coroutine, too slow)."""


def notification(emission: str) -> JSONRPCNotification:
    """A log notification, as a tool's ``ctx.info`` sends it, marked ``emission``."""
    params = {"level": "info", "data": f"mcp-resume event {emission}", "_meta": {EMISSION_META: emission}}
    return JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params=params)


def server_request(jsonrpc_id: int, emission: str) -> JSONRPCRequest:
    """An ``elicitation/create`` request with JSON-RPC id ``jsonrpc_id``, marked ``emission``."""
    params = {
        "message": "mcp-resume asks",
        "requestedSchema": {"type": "object", "properties": {}},
        "_meta": {EMISSION_META: emission},
    }
    return JSONRPCRequest(jsonrpc="2.0", id=jsonrpc_id, method="elicitation/create", params=params)


def emission_of(message: Any) -> str | None:
    """The kit's mark on ``message``, or ``None`` when it carries none."""
    params = getattr(message, "params", None)
    meta = params.get("_meta") if isinstance(params, dict) else None
    mark = meta.get(EMISSION_META) if isinstance(meta, dict) else None
    return mark if isinstance(mark, str) else None


class StoreRunner:
    """Runs a store's coroutines on one private event loop, each bounded in time."""

    def __init__(self, seconds: float = STORE_CALL_SECONDS) -> None:
        self.seconds = seconds
        self.loop = asyncio.new_event_loop()

    def call(self, what: str, method: Callable[..., Any], *args: Any) -> Any:
        """``await method(*args)``; ``StoreCallError`` when it is no coroutine or takes too long."""
        result = method(*args)
        if not inspect.isawaitable(result):
            raise StoreCallError(f"{what} returned {type(result).__name__}, not an awaitable: the SDK awaits it (async def)")
        try:
            return self.loop.run_until_complete(asyncio.wait_for(result, self.seconds))
        except asyncio.TimeoutError:
            raise StoreCallError(f"{what} did not finish within {self.seconds:g} s") from None

    def close(self) -> None:
        if not self.loop.is_closed():
            self.loop.close()
