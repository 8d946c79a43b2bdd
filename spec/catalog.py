"""The rule catalog, as data.

One ``Rule`` per id: its statement, one ``Grade`` per profile (the ``Level``, the
ids it comes from and, where the text does not say it, the reason), optional
per-case grades, and the invariants (``invariants.py``) that check it.

Source ids are the MCP transport rule ids listed with their gist in ``docs/sources.md`` (``B`` =
2025-03-26, ``C`` = 2025-06-18, ``D`` = 2025-11-25, ``F`` = 2026-07-28; ``§3.x`` =
a question MCP leaves open) and ``decision-*`` for the
boundary's own decision (docs/design.md §2); ``sources.py`` describes each. The
first fourteen ids are docs/design.md §4's and never change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, Sequence

from .profiles import Level, Profile

MUST, SHOULD, MAY, NA = Level.MUST, Level.SHOULD, Level.MAY, Level.NOT_APPLICABLE

PROFILE_ORDER = (
    Profile.MCP_2025_03_26,
    Profile.MCP_2025_06_18,
    Profile.MCP_2025_11_25,
    Profile.BOUNDARY,
    Profile.MCP_2026_07_28,
)
"""The order of a rule's grades."""

SILENT = "MCP is silent; boundary requires it"
"""The reason of a grade the MCP text does not give (docs/design.md §4)."""


@dataclass(frozen=True)
class Grade:
    """A rule's level under one profile: ``sources`` are the ids it comes from,
    ``reason`` says why when the text does not state the level itself."""

    level: Level
    sources: tuple[str, ...]
    reason: str = ""

    @property
    def explanation(self) -> str:
        """``reason``, or where the level is stated: the MCP text or the boundary's decision."""
        if self.reason:
            return self.reason
        if any(s.startswith("decision-") for s in self.sources):
            return "set by the boundary's decision (docs/design.md §2)"
        return "the text says so"

    @property
    def silent(self) -> bool:
        """Whether the level rests on a place where MCP says nothing (its reason says so)."""
        return self.reason.startswith(SILENT)


@dataclass(frozen=True)
class Rule:
    id: str
    statement: str
    grades: tuple[Grade, ...]  # in the order of PROFILE_ORDER
    invariants: tuple[str, ...]
    origin: str  # "design" (docs/design.md §4) or "mcp" (an MCP-only rule)
    cases: Mapping[str, tuple[Grade, ...]] = field(default_factory=dict)

    def grade(self, profile: Profile, case: str | None = None) -> Grade:
        """The grade under ``profile``, the ``case``'s own when the rule has one for it."""
        grades = self.cases.get(case, self.grades) if case is not None else self.grades
        return grades[PROFILE_ORDER.index(profile)]

    def level(self, profile: Profile, case: str | None = None) -> Level:
        return self.grade(profile, case).level

    @property
    def levels(self) -> tuple[Level, ...]:
        return tuple(g.level for g in self.grades)

    @property
    def sources(self) -> tuple[str, ...]:
        """Every id any grade of the rule cites, cases included, first citation first."""
        cited = [s for grades in (self.grades, *self.cases.values()) for g in grades for s in g.sources]
        return tuple(dict.fromkeys(cited))


def _g(level: Level, *sources: str, why: str = "") -> Grade:
    return Grade(level, sources, why)


def _must_in_every_revision(b: str, c: str, d: str, why: str, not_applicable: Grade,
                            boundary: Grade | None = None) -> tuple[Grade, ...]:
    """The grades of a case that is a MUST in every session-era revision: the 2025-03-26 rule ``b``
    (with ``why``), the 2025-06-18 and 2025-11-25 ones ``c`` and ``d`` "as ``b``", ``boundary`` (by
    default as 2025-11-25), and the 2026-07-28 grade ``not_applicable``."""
    like_b = f"as {b}"
    return (_g(MUST, b, why=why), _g(MUST, c, why=like_b), _g(MUST, d, why=like_b),
            boundary or _g(MUST, d, why=like_b), not_applicable)


def _rule(id: str, statement: str, grades: Sequence[Grade], invariants: Sequence[str] | None = None, origin: str = "design",
          cases: Mapping[str, Sequence[Grade]] | None = None) -> Rule:
    assert len(grades) == len(PROFILE_ORDER), id
    frozen = MappingProxyType({name: tuple(g) for name, g in (cases or {}).items()})
    return Rule(id, statement, tuple(grades), tuple(invariants or (id,)), origin, frozen)


_NO_RESUMPTION = "2026-07-28 has no Last-Event-ID resumption (F10) and no sessions (F17)"
_NO_SESSIONS = "2026-07-28 has no sessions: the server ignores Mcp-Session-Id (F17)"
_NO_SERVER_REQUESTS = "2026-07-28 sends no server requests on streams (F7)"
_SESSION_ERA = "sessions and GET streams exist in this revision; the sessionless rules start with 2026-07-28"
_POLLING_IS_NEW = ("a server closes a connection for the client to poll, with the SSE retry field first, from "
                   "2025-11-25 on (D9, D10)")
_KEEPS_D = "outside the five-way decision: boundary keeps 2025-11-25's level"
_SESSIONLESS_ONLY = "a rule of the 2026-07-28 state machine (spec/sessionless/machine.py): sessions and server requests exist before it"
_VERSION_ELSEWHERE = (_SESSIONLESS_ONLY + "; the 400 the session era asks for an unsupported version (C40, D45) "
                      "is unsupported-version-400's")

EXTRA_EVENTS = "extra-events"
"""The case of ``replay-suffix`` for a replay that sends more than what followed the cursor on its
stream: the cursor's own event, earlier ones, duplicates, another order (B25/D30 allow replaying
what followed the id only: a SHOULD NOT under the MCP revisions, where leaving out is a MAY)."""

NO_ANSWER = "no-answer"
"""The case of ``replay-suffix`` and ``reject-foreign-event-id`` for a GET with ``Last-Event-ID`` in a
live session that the server never answers: no response head at all. A GET gets an SSE stream or 405
(B15/C15/D18, MUST), whether or not the server replays, and whatever it does with a cursor it cannot
resume."""

RESPONSE_ELSEWHERE = "response-elsewhere"
"""The case of ``standalone-stream-scope`` for a response sent on a stream other than its request's:
the standalone GET stream (B18, MUST NOT) or another request's stream."""

STRANDED = "stranded"
"""The case of ``replay-suffix`` for a resumed stream whose later events never reach the client
(its call's response among them: B8/C8/D11, SHOULD)."""

ENDED_SESSION_ID = "ended-session-id"
"""The case of ``expiry-independent`` for an ended session's event id answered as if it named a
stream (B23/D27: ids are the session's; a session's end ends them)."""

MALFORMED_ID = "malformed-id"
"""The case of ``new-session-on-initialize`` for a session id minted outside visible ASCII,
0x21-0x7E, or empty (B30/D35, MUST): minting one is optional (B28), minting a malformed one is not."""

AFTER_FINAL = "after-final"
"""The case of ``sessionless-request-scope`` for a message after the final response, or a stream held
open after it (F8: SHOULD)."""


RULES: tuple[Rule, ...] = (
    _rule(
        "replay-suffix",
        "Stream resumption replays exactly the events of the resumed stream after the cursor: "
        "no gap, no reorder, no duplicate, nothing at or before the cursor.",
        (
            _g(MAY, "B25", why="replaying is optional (B25); B26's MUST NOT is about other streams (no-cross-session)"),
            _g(MAY, "C22-C27", why="as B25: replaying is optional"),
            _g(MAY, "D30", why="as B25: replaying is optional"),
            _g(MUST, "D30", "decision-1"),
            _g(NA, "F10", why=_NO_RESUMPTION),
        ),
        cases={
            EXTRA_EVENTS: (
                _g(SHOULD, "§3.1", "B25", why=SILENT + " (§3.1): B25 lets a server replay what followed the id; "
                                                  "its own or earlier events, or one twice, re-deliver requests"),
                _g(SHOULD, "§3.1", "C22-C27", why=SILENT + " (§3.1): as B25"),
                _g(SHOULD, "§3.1", "D30", why=SILENT + " (§3.1): as B25"),
                _g(MUST, "§3.1", "D30", "decision-1"),
                _g(NA, "F10", why=_NO_RESUMPTION),
            ),
            NO_ANSWER: _must_in_every_revision(
                "B15", "C13-C19", "D16-D22",
                "a GET is answered with an SSE stream or 405 (B15); replaying is optional, answering is not",
                _g(NA, "F10", why=_NO_RESUMPTION)),
            STRANDED: (
                _g(SHOULD, "B8", "B25", why="the stream should in the end carry its call's response (B8)"),
                _g(SHOULD, "C8", "C22-C27", why="as B8"),
                _g(SHOULD, "D11", "D30", why="as B8"),
                _g(MUST, "D11", "D30", "decision-1"),
                _g(NA, "F10", why=_NO_RESUMPTION),
            ),
        },
    ),
    _rule(
        "no-cross-session",
        "Nothing delivered under a session belongs to another session, and nothing replayed "
        "belongs to another stream.",
        (
            _g(MUST, "B26", "B21", why="replay: never another stream's messages (B26); live delivery: each "
                                       "message on one stream of its own session (B21)"),
            _g(MUST, "C22-C27", "C20-C21", why="as B26, B21"),
            _g(MUST, "D30", "D24-D25", why="as B26, B21"),
            _g(MUST, "D30", "D24-D25", why="as B26, B21"),
            _g(NA, "F10", "F17", why=_NO_RESUMPTION),
        ),
    ),
    _rule(
        "no-replay-on-session-resume",
        "Session resumption (a GET with the session id and no Last-Event-ID) replays no past event.",
        (
            _g(MUST, "B26", why="a GET without Last-Event-ID opens a new stream: a past event is another "
                                "stream's, which B26 forbids replaying"),
            _g(MUST, "C22-C27", why="as B26"),
            _g(MUST, "D30", "D31", why="as B26; D31: resumption is a GET with Last-Event-ID"),
            _g(MUST, "D30", "D31", "decision-2"),
            _g(NA, "F10", "F17", why=_NO_RESUMPTION),
        ),
    ),
    _rule(
        "no-reemit-on-stream-resume",
        "Stream resumption sends nothing but the replay suffix and the stream's own new events.",
        (
            _g(MUST, "B21", "B26"),
            _g(MUST, "C20-C21", "C22-C27"),
            _g(MUST, "D24-D25", "D30"),
            _g(MUST, "D24-D25", "D30", "decision-1"),
            _g(NA, "F7", "F10", why=_NO_RESUMPTION),
        ),
    ),
    _rule(
        "reemit-pending",
        "After a session resumption every server request then pending is re-emitted on the new "
        "stream (same JSON-RPC id) or cancelled; none is stranded.",
        (
            _g(NA, "§3.7", "B39", why=SILENT + ": a session resumption owes a pending request nothing (re-emit, "
                                             "cancel with B39, or leave it pending): not a rule of this revision"),
            _g(NA, "§3.7", "C42", why=SILENT + ": as B39, not a rule of this revision"),
            _g(NA, "§3.7", "D51", why=SILENT + ": as B39, not a rule of this revision"),
            _g(MUST, "§3.7", "decision-2", "decision-pending"),
            _g(NA, "F7", "F20", why=_NO_SERVER_REQUESTS),
        ),
    ),
    _rule(
        "reemit-keeps-pending",
        "Re-emission leaves a server request pending; only an answer or a cancellation resolves it.",
        (
            _g(NA, "§3.7", "B39", why=SILENT + ": a session resumption owes a pending request nothing, re-emitted "
                                             "before or not; a server request ends only by its answer or the "
                                             "sender's cancellation (B39): not a rule of this revision"),
            _g(NA, "§3.7", "C42", why=SILENT + ": as in 2025-03-26, not a rule of this revision"),
            _g(NA, "§3.7", "D51", why=SILENT + ": as in 2025-03-26, not a rule of this revision"),
            _g(MUST, "§3.7", "D51", "decision-pending"),
            _g(NA, "F7", "F11", why=_NO_SERVER_REQUESTS),
        ),
    ),
    _rule(
        "reject-orphan-event-id",
        "A Last-Event-ID without a session id is rejected with 400 and creates nothing.",
        (
            _g(SHOULD, "B32", why="a request without a session id gets 400 from a server that requires sessions"),
            _g(SHOULD, "C28-C36", why="as B32"),
            _g(SHOULD, "D37-D41", why="as B32"),
            _g(MUST, "D37-D41", "decision-4"),
            _g(NA, "F17", why="2026-07-28 answers GET with 405 (sessionless-get-405)"),
        ),
    ),
    _rule(
        "reject-foreign-event-id",
        "A Last-Event-ID not valid for the live session named (malformed, unknown, another "
        "session's, an expired stream's) is rejected with a 4xx other than 404 and changes nothing.",
        (
            _g(MAY, "§3.2", "B15", why=SILENT + " (#1939); read literally, B15 allows only an SSE stream or 405"),
            _g(MAY, "§3.2", "C13-C19", why=SILENT + " (#1939); read literally, C15 allows only an SSE stream or 405"),
            _g(MAY, "§3.2", "D16-D22", why=SILENT + " (#1939); read literally, D18 allows only an SSE stream or 405"),
            _g(MUST, "§3.2", "decision-3"),
            _g(NA, "F17", why="2026-07-28 answers GET with 405 and ignores Last-Event-ID (F17)"),
        ),
        cases={
            NO_ANSWER: _must_in_every_revision(
                "B15", "C13-C19", "D16-D22",
                "a GET is answered with an SSE stream or 405 (B15); how a cursor the server cannot resume is "
                "refused is open, leaving the GET unanswered is not",
                _g(NA, "F17", why="2026-07-28 answers GET with 405 and ignores Last-Event-ID (F17)"),
                boundary=_g(MUST, "D16-D22", "decision-3", why="as B15")),
        },
    ),
    _rule(
        "unknown-session-404",
        "A well-formed session id that names no live session gets 404, and nothing is replayed.",
        (
            _g(MUST, "B33", why="for a session the server ended"),
            _g(MUST, "C28-C36", why="as B33"),
            _g(MUST, "D37-D41", why="as B33"),
            _g(MUST, "D37-D41", "decision-guards"),
            _g(NA, "F14", "F17", why=_NO_SESSIONS + "; 404 means an unknown method (F14)"),
        ),
        cases={
            "never-issued": (
                _g(SHOULD, "§3.8", "B33", why=SILENT + ": B33 covers sessions the server ended, not ids it never issued"),
                _g(SHOULD, "§3.8", "C28-C36", why=SILENT + ": as B33, ended sessions only"),
                _g(SHOULD, "§3.8", "D37-D41", why=SILENT + ": as B33, ended sessions only"),
                _g(MUST, "§3.8", "decision-guards"),
                _g(NA, "F14", "F17", why=_NO_SESSIONS + "; 404 means an unknown method (F14)"),
            ),
        },
    ),
    _rule(
        "session-identity-stable",
        "Resumption of either kind never changes the session's identity nor resets its state; "
        "a live session keeps answering.",
        (
            _g(MUST, "B7", "B15", "B31", why="a live session's request gets an SSE stream or JSON (B7), its GET an "
                                             "SSE stream or 405 (B15); the client keeps its id (B31)"),
            _g(MUST, "C7", "C13-C19", "C28-C36", why="as B7, B15, B31"),
            _g(MUST, "D3-D7", "D16-D22", "D37-D41", why="as B7, B15, B31"),
            _g(MUST, "D3-D7", "D16-D22", "D37-D41", "decision-1", "decision-2"),
            _g(NA, "F17", why=_NO_SESSIONS),
        ),
    ),
    _rule(
        "expiry-independent",
        "Stream expiry never ends the session; session end invalidates every event id of it.",
        (
            _g(MAY, "B33", "B23", why="B33 lets a server end a session at any time (then 404 for good), so "
                                      "ending it when a stream expires or a connection drops is allowed"),
            _g(MAY, "C28-C36", "C22-C27", why="as B33: a session may end at any time"),
            _g(MAY, "D37-D41", "D13", "D27", why="as B33: a session may end at any time; D13: session expiry may "
                                                 "end streams"),
            _g(MUST, "D13", "D27", "decision-expiry"),
            _g(NA, "F17", why=_NO_SESSIONS),
        ),
        cases={
            ENDED_SESSION_ID: (
                _g(SHOULD, "§3.8", "B23", "B33", why=SILENT + " (§3.8): event ids are the session's (B23); once it "
                                                         "ended (B33) they name nothing another session may resume"),
                _g(SHOULD, "§3.8", "C22-C27", "C28-C36", why=SILENT + " (§3.8): as B23, B33"),
                _g(SHOULD, "§3.8", "D27", "D37-D41", why=SILENT + " (§3.8): as B23, B33"),
                _g(MUST, "§3.8", "D13", "D27", "decision-expiry"),
                _g(NA, "F17", why=_NO_SESSIONS),
            ),
        },
    ),
    _rule(
        "event-id-unique",
        "Event ids are unique across the session's streams, and each resolves to exactly one "
        "(session, stream, position).",
        (
            _g(MUST, "B23"),
            _g(MUST, "C22-C27"),
            _g(MUST, "D27", why="D27 makes ids unique across the session's streams (MUST), so each resolves to one "
                                "event; D28 (an id should name its stream) is a SHOULD on how the server finds it, "
                                "not judged here"),
            _g(MUST, "D27", "D28", "decision-1"),
            _g(NA, "F10", why=_NO_RESUMPTION),
        ),
    ),
    _rule(
        "server-request-ownership",
        "Every server request delivered under a session is one that session issued.",
        (
            _g(MUST, "B26", "B41", why="no replay from another session's stream (B26); request ids mean something "
                                       "only in their session (B41)"),
            _g(MUST, "C22-C27", "C42", why="as B26, B41"),
            _g(MUST, "D30", "D51", why="as B26, B41"),
            _g(MUST, "D30", "D51"),
            _g(NA, "F7", why=_NO_SERVER_REQUESTS),
        ),
    ),
    _rule(
        "no-duplicate-tool-call",
        "End to end: with a client that follows MCP, no tools/call runs twice.",
        (
            _g(SHOULD, "§3.8", "B33", "B34", why=SILENT + ": a 404 ends the session (B33) and the client starts "
                                                  "over, re-sending the call (B34)"),
            _g(SHOULD, "§3.8", "C28-C36", why=SILENT + ": as B33, B34"),
            _g(SHOULD, "§3.8", "D37-D41", why=SILENT + ": as B33, B34"),
            _g(MUST, "§3.8", "D37-D41", "decision-client"),
            _g(NA, "F21", why="2026-07-28: a broken stream loses the call and the client re-issues it (F21)"),
        ),
    ),
    _rule(
        "no-broadcast",
        "A server message is sent on one connected stream at a time: a new message goes to one stream "
        "only, and a pending server request on an open connection is not re-emitted on another stream.",
        (
            _g(MUST, "B21"),
            _g(MUST, "C20-C21"),
            _g(MUST, "D24-D25"),
            _g(MUST, "D24-D25", "decision-2"),
            _g(NA, "F7", why=_NO_SERVER_REQUESTS),
        ),
    ),
    _rule(
        "standalone-stream-scope",
        "A message about a client request goes on that request's own stream: a server request or notification "
        "made while serving a tools/call, and the call's response, never on the standalone GET stream nor on "
        "another request's stream.",
        (
            _g(SHOULD, "B17", "B9"),
            _g(SHOULD, "C13-C19"),
            _g(SHOULD, "D16-D22", "D47", why="a message sent for a task (its _meta names the task) may come on "
                                             "any stream, the GET stream too (D47): it is no call's"),
            _g(MUST, "D16-D22", "D47", "decision-2", why="the carrying stream decides what a session resumption re-emits: "
                                                  "boundary keeps a call's server requests on the call's stream"),
            _g(NA, "F7", why=_NO_SERVER_REQUESTS),
        ),
        origin="mcp",
        cases={
            RESPONSE_ELSEWHERE: _must_in_every_revision(
                "B18", "C13-C19", "D16-D22",
                "no response on the GET stream unless it resumes the request's own stream (B18); a response "
                "belongs to its request's stream",
                _g(NA, "F7", why=_NO_SERVER_REQUESTS),
                boundary=_g(MUST, "D16-D22")),
        },
    ),
    _rule(
        "missing-session-400",
        "A server that requires sessions answers a request without Mcp-Session-Id (other than "
        "initialize) with 400.",
        (
            _g(SHOULD, "B32"),
            _g(SHOULD, "C28-C36"),
            _g(SHOULD, "D37-D41"),
            _g(MUST, "D37-D41", "decision-5"),
            _g(NA, "F17", why=_NO_SESSIONS),
        ),
        invariants=("status",),
        origin="mcp",
    ),
    _rule(
        "malformed-session-400",
        "A session id outside 0x21-0x7E names no session; boundary answers 400, MCP accepts 400 or 404.",
        (
            _g(SHOULD, "§3.8", "B30", why=SILENT + ": such an id was never issued (B30)"),
            _g(SHOULD, "§3.8", "C28-C36", why=SILENT + ": as B30"),
            _g(SHOULD, "§3.8", "D34-D35", why=SILENT + ": as B30"),
            _g(MUST, "D34-D35", "decision-guards"),
            _g(NA, "F17", why=_NO_SESSIONS),
        ),
        invariants=("status",),
        origin="mcp",
    ),
    _rule(
        "new-session-on-initialize",
        "An initialize request without a session id gets 200 and a new session id.",
        (
            _g(MAY, "B28"),
            _g(MAY, "C28-C36"),
            _g(MAY, "D33"),
            _g(MUST, "D33", "decision-5"),
            _g(NA, "F17", why="2026-07-28 never mints a session id (F17)"),
        ),
        invariants=("status",),
        cases={
            MALFORMED_ID: _must_in_every_revision(
                "B30", "C28-C36", "D34-D35",
                "a session id is visible ASCII only, 0x21-0x7E (B30); minting one is optional (B28), minting a "
                "malformed one is not",
                _g(NA, "F17", why="2026-07-28 never mints a session id (F17)")),
        },
        origin="mcp",
    ),
    _rule(
        "session-delete",
        "DELETE with a live session id ends it (2xx) or is refused with 405; afterwards the id gets 404.",
        (
            _g(MAY, "B35", "B36", why="the success status is not given; 405 is allowed (B36); the 404 afterwards "
                                      "is unknown-session-404's (B33)"),
            _g(MAY, "C28-C36", why="as B35, B36"),
            _g(MAY, "D37-D41", why="as B35, B36"),
            _g(MAY, "D37-D41", why=_KEEPS_D),
            _g(NA, "F17", why="2026-07-28 answers DELETE with 405 (sessionless-get-405)"),
        ),
        invariants=("status",),
        origin="mcp",
    ),
    _rule(
        "sessionless-get-405",
        "A server of the sessionless revision answers GET and DELETE with 405.",
        (
            _g(NA, "B15", why=_SESSION_ERA),
            _g(NA, "C13-C19", why=_SESSION_ERA),
            _g(NA, "D16-D22", why=_SESSION_ERA),
            _g(NA, "D16-D22", why=_SESSION_ERA),
            _g(SHOULD, "F17", "F1"),
        ),
        invariants=("status",),
        origin="mcp",
    ),
    _rule(
        "sessionless-ignores-headers",
        "A server of the sessionless revision ignores Mcp-Session-Id and Last-Event-ID and never "
        "mints a session id.",
        (
            _g(NA, "B28", why=_SESSION_ERA),
            _g(NA, "C28-C36", why=_SESSION_ERA),
            _g(NA, "D33", why=_SESSION_ERA),
            _g(NA, "D33", why=_SESSION_ERA),
            _g(SHOULD, "F17", "F10"),
        ),
        invariants=("status",),
        origin="mcp",
    ),
    _rule(
        "priming-event",
        "A POST SSE stream starts with an event carrying an id and empty data.",
        (
            _g(NA, "D8", why="priming is new in 2025-11-25 (D8)"),
            _g(NA, "D8", why="priming is new in 2025-11-25 (D8)"),
            _g(SHOULD, "D8", "§3.6", why="the specification says SHOULD; SEP-1699 said MUST (§3.6)"),
            _g(SHOULD, "D8", "§3.6", why=_KEEPS_D),
            _g(NA, "F10", why=_NO_RESUMPTION),
        ),
        invariants=(),
        origin="mcp",
    ),
    _rule(
        "protocol-version-accepted",
        "A request that carries the negotiated MCP-Protocol-Version is not refused for it: 400 is for an "
        "invalid or unsupported version only.",
        (
            _g(MUST, "B15", why="2025-03-26 has no MCP-Protocol-Version header: whatever else it carries, a GET of a "
                                "live session gets an SSE stream or 405 (B15)"),
            _g(MUST, "C40", "C13-C19", why="the negotiated version is a supported one (C40); a GET gets an SSE "
                                           "stream or 405 (C15)"),
            _g(MUST, "D42-D45", "D16-D22", why="as C40, C15"),
            _g(MUST, "D42-D45", "D16-D22", why=_KEEPS_D),
            _g(NA, "F17", why="2026-07-28 answers GET with 405 (F17); its headers are judged by "
                              "sessionless-ignores-headers"),
        ),
        invariants=(),
        origin="mcp",
    ),
    _rule(
        "unsupported-version-400",
        "A request after initialize whose MCP-Protocol-Version is one the server does not support gets 400.",
        (
            _g(NA, "C37", why="2025-03-26 has no MCP-Protocol-Version header: it begins with 2025-06-18 (C37)"),
            _g(MUST, "C40"),
            _g(MUST, "D42-D45", why="as C40"),
            _g(MUST, "D42-D45", why=_KEEPS_D),
            _g(NA, "F13", why="2026-07-28 refuses an unsupported version by its own rule, with its own error "
                              "(sessionless-request-validated, F13)"),
        ),
        invariants=(),
        origin="mcp",
    ),
    _rule(
        "retry-before-close",
        "A server that closes a stream's connection without ending the stream, for the client to poll, has "
        "sent the SSE retry field on that stream first, and on a call's POST stream an event with an id to "
        "resume from.",
        (
            _g(NA, "D9", "D10", why=_POLLING_IS_NEW),
            _g(NA, "D9", "D10", why=_POLLING_IS_NEW),
            _g(SHOULD, "D9", "D10", "D23", why="D9: the connection may close once an event with an id was sent; D10 "
                                               "for any stream, D23 for a GET stream"),
            _g(SHOULD, "D9", "D10", "D23", why=_KEEPS_D),
            _g(NA, "F10", why=_NO_RESUMPTION),
        ),
        invariants=(),
        origin="mcp",
    ),
    _rule(
        "call-answered",
        "A call's POST stream ends only with the call's response, stored for replay like its other events; a "
        "dropped connection does not end the call.",
        (
            _g(SHOULD, "B8", "B10", "B12", why="the stream should carry the response (B8), not end before it (B10); "
                                               "a disconnection should not be taken as a cancellation (B12)"),
            _g(SHOULD, "C8", "C10", "C12", why="as B8, B10, B12"),
            _g(SHOULD, "D11", "D15", why="as B8, B12"),
            _g(MUST, "D11", "D15", "decision-1", why=SILENT + ": a client whose connection dropped mid-call must "
                                                             "still get the result by resuming, or it calls the tool again"),
            _g(NA, "F8", "F11", why="2026-07-28 judges a request's stream by its own rules: the final response "
                                     "ends it (F8), a close cancels it (sessionless-close-cancels)"),
        ),
        origin="mcp",
    ),
    _rule(
        "cancel-notifies",
        "A server that gives up on a pending server request says so: notifications/cancelled for it, on the "
        "stream that carries it.",
        (
            _g(SHOULD, "B39"),
            _g(SHOULD, "C42", why="as B39"),
            _g(SHOULD, "D51", why="as B39"),
            _g(MUST, "D51", "decision-2", why=SILENT + ": a client never told keeps waiting on a request nobody "
                                                      "will read (docs/design.md §2 branch 2 cancels with "
                                                      "notifications/cancelled)"),
            _g(NA, "F7", why=_NO_SERVER_REQUESTS),
        ),
        origin="mcp",
    ),
    _rule(
        "sessionless-request-scope",
        "A response stream carries only messages about its own request, while that request is open: "
        "notifications, then one final response.",
        (
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(MUST, "F6", "F7"),
        ),
        origin="mcp",
        cases={
            AFTER_FINAL: (
                _g(NA, why=_SESSIONLESS_ONLY),
                _g(NA, why=_SESSIONLESS_ONLY),
                _g(NA, why=_SESSIONLESS_ONLY),
                _g(NA, why=_SESSIONLESS_ONLY),
                _g(SHOULD, "F8", why="the final response should end the stream (F8): a message after it, or the "
                                     "stream held open"),
            ),
        },
    ),
    _rule(
        "sessionless-no-server-requests",
        "A server of the sessionless revision sends no request of its own on any stream; sampling, "
        "elicitation and roots travel inside an InputRequiredResult.",
        (
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(MUST, "F7", "F20"),
        ),
        origin="mcp",
    ),
    _rule(
        "sessionless-close-cancels",
        "Closing a request's response stream cancels that request: the server sends nothing more about it, "
        "on any stream.",
        (
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(MUST, "F11", "F21"),
        ),
        origin="mcp",
    ),
    _rule(
        "sessionless-input-required-retry",
        "The client's retry with inputResponses is a new request under a new JSON-RPC id; the server answers "
        "it under that id, never under the id of the request it retries.",
        (
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(NA, why=_SESSIONLESS_ONLY),
            _g(MUST, "F20", why="the retry is a new request (F20), and a JSON-RPC response carries the id of "
                                "the request it answers"),
        ),
        origin="mcp",
    ),
    _rule(
        "sessionless-notification-202",
        "A notification POSTed in the 2026-07-28 request shape gets 202 with no body when the server accepts "
        "it, and an error status (4xx or 5xx) when it does not: never another success or a redirect.",
        (
            *(_g(NA, why=_SESSIONLESS_ONLY + "; the session era's notifications are no action of its machine"),) * 4,
            _g(MUST, "F4", why="an accepted notification gets 202 with no body, a refused one an error status (§2)"),
        ),
        origin="mcp",
    ),
    _rule(
        "sessionless-request-validated",
        "A POST the server cannot take as sent is refused and opens nothing: 400 with HeaderMismatch for an "
        "MCP-Protocol-Version or Mcp-Method header that differs from the body, 400 for a protocol version it "
        "does not implement, 404 with -32601 for a method it does not implement.",
        (
            *(_g(NA, why=_VERSION_ELSEWHERE),) * 4,
            _g(MUST, "F12", "F13", "F14", "F16", why="each refusal, its status and error are named by the text "
                                                     "(§6.1, §6.2)"),
        ),
        origin="mcp",
    ),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}

DESIGN_RULE_IDS: tuple[str, ...] = tuple(r.id for r in RULES if r.origin == "design")

AGREEMENT = "agreement"
"""Pseudo rule of a finding where a server under test and the spec disagree on
something no catalog rule names (e.g. an event delivered on a dropped connection):
a note in the report, never a verdict."""

_REFERENCE_ONLY = ("no rule of the catalog names the difference: it is a note in the report, never a verdict "
                   "(docs/design.md §3)")

AGREEMENT_GRADES: tuple[Grade, ...] = tuple(_g(NA, "decision-reference", why=_REFERENCE_ONLY) for _ in PROFILE_ORDER)
"""``agreement``'s grade per profile (in ``PROFILE_ORDER``): not applicable in every profile, so a
difference from the reference that no rule names never fails nor warns (docs/design.md §3)."""


def rule(rule_id: str) -> Rule:
    """The rule called ``rule_id``; ``KeyError`` naming the known ids otherwise."""
    try:
        return RULES_BY_ID[rule_id]
    except KeyError:
        raise KeyError(f"unknown rule {rule_id!r}; known rules: {', '.join(RULES_BY_ID)}") from None


def grade(rule_id: str, profile: Profile, case: str | None = None) -> Grade:
    """The grade of ``rule_id`` under ``profile`` (``case``'s own when the rule has one);
    ``KeyError`` for an unknown rule."""
    if rule_id == AGREEMENT:
        return AGREEMENT_GRADES[PROFILE_ORDER.index(profile)]
    return rule(rule_id).grade(profile, case)


def level(rule_id: str, profile: Profile, case: str | None = None) -> Level:
    """The level of ``rule_id`` under ``profile``, of its ``case`` when the rule has one
    (e.g. ``unknown-session-404``, case ``"never-issued"``: SHOULD under MCP, B33 covers
    ended sessions only); ``agreement`` is not applicable in every profile (a note)."""
    return grade(rule_id, profile, case).level
