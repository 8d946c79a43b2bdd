"""Profiles (which revision of MCP a server is held to) and rule levels.

A profile names a set of obligations; every rule of the catalog carries one
``Level`` per profile (docs/design.md §3).
"""

from __future__ import annotations

from enum import Enum


class Profile(str, Enum):
    """A set of obligations a server is held to."""

    MCP_2025_03_26 = "mcp-2025-03-26"
    MCP_2025_06_18 = "mcp-2025-06-18"
    MCP_2025_11_25 = "mcp-2025-11-25"
    BOUNDARY = "boundary"
    MCP_2026_07_28 = "mcp-2026-07-28"

    @classmethod
    def parse(cls, name: str) -> "Profile":
        """Return the profile called ``name``.

        Raises ``ValueError`` naming the known profiles when there is none.
        """
        for profile in cls:
            if profile.value == name:
                return profile
        known = ", ".join(p.value for p in cls)
        raise ValueError(f"unknown profile {name!r}; known profiles: {known}")


DEFAULT_PROFILE = Profile.BOUNDARY

SESSION_ERA = frozenset(
    {Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25, Profile.BOUNDARY}
)
"""Profiles in which sessions, GET streams and ``Last-Event-ID`` exist."""

MCP_SESSION_REVISIONS = frozenset(
    {Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25}
)
"""Profiles that hold a server to the normative text of one revision only."""


PROFILE_OF_REVISION: dict[str, Profile] = {
    "2025-03-26": Profile.MCP_2025_03_26,
    "2025-06-18": Profile.MCP_2025_06_18,
    "2025-11-25": Profile.MCP_2025_11_25,
    "2026-07-28": Profile.MCP_2026_07_28,
}
"""The profile of each MCP revision a server may negotiate (``--profile auto``)."""


class Level(str, Enum):
    """How strongly a profile requires a rule (RFC 2119 keywords)."""

    MUST = "MUST"
    SHOULD = "SHOULD"
    MAY = "MAY"
    NOT_APPLICABLE = "n/a"


PROFILE_NOTES: dict[Profile, str] = {
    Profile.MCP_2025_03_26: (
        "First Streamable HTTP revision. Same reconnect rules as 2025-06-18 (B15, B23-B27, "
        "B30-B36); no MCP-Protocol-Version header, no priming events, no retry field. "
        "Silent on foreign event ids and on pending server requests."
    ),
    Profile.MCP_2025_06_18: (
        "Same reconnect rules as 2025-03-26 (C13-C36); adds the MCP-Protocol-Version header "
        "(C37-C40) and removes batching (C5). No priming events."
    ),
    Profile.MCP_2025_11_25: (
        "Adds priming events (D8), the retry field and polling (D9, D10, D23), event ids that "
        "encode their stream (D28), resumption always via GET (D31). Still silent on foreign "
        "event ids (#1939) and on pending server requests (rules file §3.7)."
    ),
    Profile.BOUNDARY: (
        "mcp-2025-11-25 plus the five-way reconnect decision (docs/decision.md) as MUSTs: "
        "foreign event ids rejected with a non-404 4xx, pending server requests re-emitted "
        "on session resumption, nothing replayed without Last-Event-ID."
    ),
    Profile.MCP_2026_07_28: (
        "Sessionless revision: GET and DELETE SHOULD get 405, Mcp-Session-Id and "
        "Last-Event-ID SHOULD be ignored (F17), no server requests on streams (F7), closing a "
        "request's stream cancels it (F11), input asked for with InputRequiredResult and a retry "
        "under a new id (F20). Its state machine is spec/sessionless/machine.py, apart from the session era's."
    ),
}
