"""The rule catalog, as data.

One ``Rule`` per id: its statement, its ``Level`` in every profile, the MCP rule
ids it comes from (ids of ``shared/reference/mcp-transport-rules.md``: ``B`` =
2025-03-26, ``C`` = 2025-06-18, ``D`` = 2025-11-25, ``F`` = 2026-07-28; ``§`` =
a section of that file's open questions) and the invariants (``invariants.py``)
that check it. The first fourteen ids are DESIGN.md §4's and never change.
"""

from __future__ import annotations

from dataclasses import dataclass

from .profiles import Level, Profile

MUST, SHOULD, MAY, NA = Level.MUST, Level.SHOULD, Level.MAY, Level.NOT_APPLICABLE

_PROFILE_ORDER = (
    Profile.MCP_2025_03_26,
    Profile.MCP_2025_06_18,
    Profile.MCP_2025_11_25,
    Profile.BOUNDARY,
    Profile.MCP_2026_07_28,
)


@dataclass(frozen=True)
class Rule:
    id: str
    statement: str
    levels: tuple[Level, ...]  # in the order of _PROFILE_ORDER
    sources: tuple[str, ...]
    invariants: tuple[str, ...]
    origin: str  # "design" (DESIGN.md §4) or "mcp" (an MCP-only rule)

    def level(self, profile: Profile) -> Level:
        return self.levels[_PROFILE_ORDER.index(profile)]


def _rule(id, statement, levels, sources, invariants=None, origin="design"):
    return Rule(id, statement, levels, tuple(sources), tuple(invariants or (id,)), origin)


RULES: tuple[Rule, ...] = (
    _rule(
        "replay-suffix",
        "Stream resumption replays exactly the events of the resumed stream after the cursor: "
        "no gap, no reorder, no duplicate, nothing at or before the cursor.",
        (SHOULD, SHOULD, SHOULD, MUST, NA),
        ("B24", "B25", "B27", "C22-C27", "D29", "D30", "D32"),
    ),
    _rule(
        "no-cross-session",
        "Nothing delivered under a session belongs to another session, and nothing replayed "
        "belongs to another stream.",
        (MUST, MUST, MUST, MUST, NA),
        ("B23", "B26", "C22-C27", "D27", "D28", "D30", "D50"),
    ),
    _rule(
        "no-replay-on-session-resume",
        "Session resumption (a GET with the session id and no Last-Event-ID) replays no past event.",
        (MUST, MUST, MUST, MUST, NA),
        ("B25", "B26", "D30", "D31"),
    ),
    _rule(
        "no-reemit-on-stream-resume",
        "Stream resumption sends nothing but the replay suffix and the stream's own new events.",
        (SHOULD, SHOULD, SHOULD, MUST, NA),
        ("B21", "B26", "D24-D25", "D30"),
    ),
    _rule(
        "reemit-pending",
        "After a session resumption every server request then pending is re-emitted on the new "
        "stream (same JSON-RPC id) or cancelled; none is stranded.",
        (NA, NA, NA, MUST, NA),
        ("B12", "B39", "D47", "§3.7"),
    ),
    _rule(
        "reemit-keeps-pending",
        "Re-emission leaves a server request pending; only an answer or a cancellation resolves it.",
        (SHOULD, SHOULD, SHOULD, MUST, NA),
        ("B12", "B39", "D15", "§3.7"),
    ),
    _rule(
        "reject-orphan-event-id",
        "A Last-Event-ID without a session id is rejected with 400 and creates nothing.",
        (SHOULD, SHOULD, SHOULD, MUST, NA),
        ("B23", "B32", "D27", "D37-D41"),
    ),
    _rule(
        "reject-foreign-event-id",
        "A Last-Event-ID not valid for the live session named (malformed, unknown, another "
        "session's, an expired stream's) is rejected with a 4xx other than 404 and changes nothing.",
        (MAY, MAY, MAY, MUST, NA),
        ("B26", "D30", "§3.2"),
    ),
    _rule(
        "unknown-session-404",
        "A well-formed session id that names no live session gets 404, and nothing is replayed.",
        (MUST, MUST, MUST, MUST, NA),
        ("B33", "B34", "C28-C36", "D37-D41", "§3.8"),
    ),
    _rule(
        "session-identity-stable",
        "Resumption of either kind never changes the session's identity nor resets its state; "
        "a live session keeps answering.",
        (MUST, MUST, MUST, MUST, NA),
        ("B31", "B33", "D33", "D37-D41"),
    ),
    _rule(
        "expiry-independent",
        "Stream expiry never ends the session; session end invalidates every event id of it.",
        (SHOULD, SHOULD, SHOULD, MUST, NA),
        ("B10", "B23", "B33", "D13", "D27"),
    ),
    _rule(
        "event-id-unique",
        "Event ids are unique across the session's streams, and each resolves to exactly one "
        "(session, stream, position).",
        (MUST, MUST, MUST, MUST, NA),
        ("B23", "C22-C27", "D27", "D28"),
    ),
    _rule(
        "server-request-ownership",
        "Every server request delivered under a session is one that session issued.",
        (MUST, MUST, MUST, MUST, NA),
        ("B23", "B26", "B41", "D27", "§3.7"),
    ),
    _rule(
        "no-duplicate-tool-call",
        "End to end: with a client that follows MCP, no tools/call runs twice.",
        (SHOULD, SHOULD, SHOULD, MUST, NA),
        ("B12", "B34", "D15", "§3.8"),
    ),
    _rule(
        "no-broadcast",
        "A server message is on one connected stream at a time: a pending server request whose "
        "stream still has an open connection is not sent again on another stream.",
        (MUST, MUST, MUST, MUST, NA),
        ("B21",),
    ),
    _rule(
        "missing-session-400",
        "A server that requires sessions answers a request without Mcp-Session-Id (other than "
        "initialize) with 400.",
        (SHOULD, SHOULD, SHOULD, MUST, NA),
        ("B32", "D37-D41"),
        invariants=("status",),
        origin="mcp",
    ),
    _rule(
        "malformed-session-400",
        "A session id outside 0x21-0x7E names no session; boundary answers 400, MCP accepts 400 or 404.",
        (SHOULD, SHOULD, SHOULD, MUST, NA),
        ("B30", "D34-D35"),
        invariants=("status",),
        origin="mcp",
    ),
    _rule(
        "new-session-on-initialize",
        "An initialize request without a session id gets 200 and a new session id.",
        (MAY, MAY, MAY, MUST, NA),
        ("B28", "B31", "D33"),
        invariants=("status",),
        origin="mcp",
    ),
    _rule(
        "session-delete",
        "DELETE with a live session id ends it (2xx) or is refused with 405; afterwards the id gets 404.",
        (MAY, MAY, MAY, MAY, NA),
        ("B33", "B35", "B36", "D37-D41"),
        invariants=("status",),
        origin="mcp",
    ),
    _rule(
        "sessionless-get-405",
        "A server of the sessionless revision answers GET and DELETE with 405.",
        (NA, NA, NA, NA, SHOULD),
        ("F1", "F17"),
        invariants=("status",),
        origin="mcp",
    ),
    _rule(
        "sessionless-ignores-headers",
        "A server of the sessionless revision ignores Mcp-Session-Id and Last-Event-ID and never "
        "mints a session id.",
        (NA, NA, NA, NA, SHOULD),
        ("F10", "F17"),
        invariants=("status",),
        origin="mcp",
    ),
    _rule(
        "priming-event",
        "A POST SSE stream starts with an event carrying an id and empty data.",
        (NA, NA, SHOULD, SHOULD, NA),
        ("D8", "§3.6"),
        invariants=(),
        origin="mcp",
    ),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}

DESIGN_RULE_IDS: tuple[str, ...] = tuple(r.id for r in RULES if r.origin == "design")

AGREEMENT = "agreement"
"""Pseudo rule of a finding where a server under test and the spec disagree on
something no catalog rule names (e.g. an event delivered on a dropped connection)."""


def rule(rule_id: str) -> Rule:
    """The rule called ``rule_id``; ``KeyError`` naming the known ids otherwise."""
    try:
        return RULES_BY_ID[rule_id]
    except KeyError:
        raise KeyError(f"unknown rule {rule_id!r}; known rules: {', '.join(RULES_BY_ID)}") from None


def level(rule_id: str, profile: Profile) -> Level:
    """The level of ``rule_id`` under ``profile``; ``agreement`` is always MUST."""
    if rule_id == AGREEMENT:
        return Level.MUST
    return rule(rule_id).level(profile)
