"""Header values that name nothing, shared by every checker that makes up requests.

A client may send any ``Mcp-Session-Id`` and ``Last-Event-ID``: these literals are
the ones that are not handles of the spec (``S1``, ``E2`` ...). The malformed ones
contain a space, outside 0x21-0x7E (MCP B30/D35); the unknown ones are well formed
and never issued.
"""

MALFORMED_SESSION = "bad session"
UNKNOWN_SESSION = "unknown-session"
MALFORMED_EVENT = "bad event"
UNKNOWN_EVENT = "unknown-event"
UNKNOWN_REQUEST = "unknown-request"
"""A JSON-RPC id that names no server request (a response the server never asked for)."""

SESSION_LITERALS: tuple[str | None, ...] = (UNKNOWN_SESSION, MALFORMED_SESSION, None)
"""Session headers that name no session: unknown, malformed, absent."""

EVENT_LITERALS: tuple[str | None, ...] = (UNKNOWN_EVENT, MALFORMED_EVENT, None)
"""Event headers that name no event: unknown, malformed, absent."""
