"""Classes of the two reconnect headers, relative to a state.

The decision (``decision.py``) branches on the *class* of each header, never on
its raw value: a finite domain that Z3 can enumerate (``proofs``).
"""

from __future__ import annotations

from enum import Enum

from .state import SessionStatus, State


class SessionClass(str, Enum):
    """What an ``Mcp-Session-Id`` value names."""

    ABSENT = "absent"
    MALFORMED = "malformed"  # outside 0x21-0x7E or empty (MCP B30/D35)
    UNKNOWN = "unknown"  # well-formed, never issued
    ENDED = "ended"  # issued, then expired or deleted (MCP B33)
    LIVE = "live"


class EventClass(str, Enum):
    """What a ``Last-Event-ID`` value names, relative to the session header."""

    ABSENT = "absent"
    MALFORMED = "malformed"  # empty or outside 0x21-0x7E
    UNKNOWN = "unknown"  # well-formed, names no event ever issued
    RETAINED = "retained"  # an event of a retained stream of the named session
    EVICTED = "evicted"  # an event of a retained stream of the named session, discarded by its ring buffer
    EXPIRED = "expired"  # an event of an expired stream of the named session
    FOREIGN = "foreign"  # an event of another session (or of any session, when none is named)


def is_well_formed(value: str) -> bool:
    """True when ``value`` is non-empty visible ASCII, 0x21-0x7E (MCP B30/D35)."""
    # isprintable() on ASCII accepts 0x20-0x7E; excluding the space leaves 0x21-0x7E
    return bool(value) and value.isascii() and value.isprintable() and " " not in value


def classify_session(state: State, value: str | None) -> SessionClass:
    if value is None:
        return SessionClass.ABSENT
    if not is_well_formed(value):
        return SessionClass.MALFORMED
    session = state.session(value)
    if session is None:
        return SessionClass.UNKNOWN
    if session.status is SessionStatus.LIVE:
        return SessionClass.LIVE
    return SessionClass.ENDED


def classify_event(state: State, session_value: str | None, value: str | None) -> EventClass:
    if value is None:
        return EventClass.ABSENT
    if not is_well_formed(value):
        return EventClass.MALFORMED
    event = state.event(value)
    stream = state.stream(event.stream) if event is not None else None
    if event is None or stream is None:
        return EventClass.UNKNOWN
    if stream.session != session_value:
        return EventClass.FOREIGN
    if not stream.retained:
        return EventClass.EXPIRED
    if state.position_in_stream(event) >= stream.evicted:
        return EventClass.RETAINED  # a ring buffer discards a stream's oldest events first
    return EventClass.EVICTED


# -- header values that name nothing ----------------------------------------------------
# A client may send any Mcp-Session-Id and Last-Event-ID: these are the values that are
# not handles of the spec (S1, E2 ...). The malformed ones contain a space, outside
# 0x21-0x7E (MCP B30/D35); the unknown ones are well formed and never issued. Every
# checker that makes up requests takes them from here.

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


# -- MCP-Protocol-Version values -------------------------------------------------------

FIRST_REVISION = "2024-11-05"
"""The first MCP revision's date: no protocol version is older."""


def names_no_revision(version: str) -> bool:
    """True when the ``MCP-Protocol-Version`` value ``version`` is one no server can support: a
    date (YYYY-MM-DD) before ``FIRST_REVISION`` (C40, D45: such a request gets 400). Any other
    value is not judged: a later date or a draft's name may be a revision newer than this spec,
    which the server may support."""
    return _is_date(version) and version < FIRST_REVISION


def _is_date(value: str) -> bool:
    parts = value.split("-")
    return [len(p) for p in parts] == [4, 2, 2] and all(p.isascii() and p.isdigit() for p in parts)
