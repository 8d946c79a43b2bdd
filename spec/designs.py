"""The faulty designs of docs/design.md §5 and its correct variations, as data.

Each design is the correct server with one or more *deviations*: named changes
(``Deviation``) with any parameters they take. This module is the one place
that gives each design its number, name, summary, the rules whose violation
shows it, and the deviations it makes; the in-process servers
(``model/servers/faulty.py``) and the Z3 variations of the transition system
(``proofs/system/faulty_systems.py``) are both built from it, each keyed by deviation.

A design must be caught under a profile when one of its rules is a MUST there
(``Design.caught``, read from the catalog's levels); ``caught_under`` states the
profiles explicitly where that derivation would be wrong.

A *correct variation* (``VARIATIONS``) is a ``Design`` with no rules and no
number: a server that departs from the reference in a way docs/design.md §5 says a
checker must not blame (cancelling instead of re-emitting, a ring buffer that
rejects an evicted cursor, re-serialised replays, JSON answers to POST, a second GET
refused with 400, new events on a resumed stream, an exact replay after an evicted
cursor). Its target is ``variation-<slug>``.

Adding a design: one ``Design`` entry below, and, for a new ``Deviation``, its
behaviour in the server and in Z3.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Iterable
from enum import Enum

from .catalog import level
from .profiles import Level, Profile
from .space import Bounds


class Deviation(str, Enum):
    """One way a faulty server departs from the correct one."""

    PER_SESSION_CURSOR = "per-session-cursor"
    """The replay cursor is kept per session, not per stream: a session resumption
    counts as caught up and re-emits nothing; a stream resumption replays the
    session's whole log (every retained stream) after the cursor."""
    GLOBAL_EVENT_LOG = "global-event-log"
    """``Last-Event-ID`` is looked up in one log shared by all sessions."""
    REEMIT_DRAINS_PENDING = "reemit-drains-pending"
    """A session resumption re-emits the pending server requests and empties the
    pending table."""
    SESSION_ID_AS_CURSOR = "session-id-as-cursor"
    """A session resumption replays every event of the session's retained streams
    before the re-emissions."""
    EVENT_ID_AS_SESSION = "event-id-as-session"
    """A reconnect with no session header resumes the live session its
    ``Last-Event-ID`` came from."""
    STREAM_RESUME_REEMITS = "stream-resume-reemits"
    """A stream resumption of an open stream also sends every pending server
    request again, as new events."""
    OFF_BY_ONE_REPLAY = "off-by-one-replay"
    """The replay of a stream resumption starts with the cursor's own event."""
    EXPIRY_ENDS_SESSION = "expiry-ends-session"
    """Stream expiry ends the stream's session."""
    ENDED_SESSION_EVENTS_REPLAY = "ended-session-events-replay"
    """Ending a session keeps its streams' events replayable, from any session."""
    FOREIGN_EVENT_ID_STATUS = "foreign-event-id-status"
    """A ``Last-Event-ID`` the live session named may not resume is answered with
    the parameter ``status`` (instead of 400), no stream, nothing delivered."""
    SHARED_GET_STREAM_KEY = "shared-get-stream-key"
    """The standalone GET streams of all sessions share one stream key and one
    event buffer; a resumed GET stream replays every GET event after the cursor."""
    REEMIT_ON_OPEN_CONNECTION = "reemit-on-open-connection"
    """A session resumption re-emits every pending server request of the session,
    also those whose carrying stream still has an open connection (broadcast)."""
    SESSION_LOG_REPLAY = "session-log-replay"
    """A stream resumption replays every later event of the session's retained
    streams, in send order, whichever stream carried it."""
    RESUMED_STREAM_MISROUTED = "resumed-stream-misrouted"
    """The event store answers a stream resumption with an event id where the
    stream id belongs, so the new connection is filed under the wrong key: the
    stream's later events are stored but never delivered on it."""
    RING_BUFFER_GAP = "ring-buffer-gap"
    """A cursor naming an evicted event resumes its stream: the events the ring
    buffer still holds are replayed, with a gap where the evicted ones were."""
    ORPHAN_EVENT_ID_MINTS_SESSION = "orphan-event-id-mints-session"
    """A reconnect with ``Last-Event-ID`` and no session header is answered 200
    on a new GET stream of a newly minted session."""
    GET_STREAM_STORES_SESSION = "get-stream-stores-session"
    """The standalone GET stream's store records every event the session sends
    while that stream is retained, on whatever stream; resuming it replays them."""
    UNKNOWN_SESSION_400 = "unknown-session-400"
    """A well-formed session id that names no live session (unknown, ended) is answered 400."""
    STALE_CONNECTION_COUNT = "stale-connection-count"
    """A session's GET connection, once opened, counts as open for good: every later GET
    without ``Last-Event-ID`` of the session is refused with 409, also after it dropped."""
    BROADCAST_NEW_MESSAGES = "broadcast-new-messages"
    """Every new message (server request or notification) is delivered on every connected
    stream of every session, not only on the stream it was sent on."""
    UNSTORED_WHILE_DISCONNECTED = "unstored-while-disconnected"
    """An event sent while its stream has no open connection gets an id but is not stored."""
    DROP_ENDS_SESSION = "drop-ends-session"
    """A dropped connection ends its session: 404 from then on."""
    CONSTANT_FIRST_EVENT_ID = "constant-first-event-id"
    """The first event of every stream (the priming event, over HTTP) has the id ``0``."""
    CALL_REQUEST_ON_GET_STREAM = "call-request-on-get-stream"
    """A server request made on a POST stream (inside its tool call) is sent on the session's
    GET stream instead whenever that stream has an open connection."""
    SILENT_DROP_ON_RESUME = "silent-drop-on-resume"
    """A session resumption drops the pending requests it would re-emit, without
    ``notifications/cancelled``."""
    SINGLE_SLOT_PENDING = "single-slot-pending"
    """The pending table holds one request per session: a new server request overwrites it."""
    RETAINED_CURSOR_EMPTY = "retained-cursor-empty"
    """A stream resumption from a retained cursor is answered 200 with no replay (the store
    lost the stream's events); the stream goes on live."""
    DELETE_ENDS_ALL_SESSIONS = "delete-ends-all-sessions"
    """DELETE of one session ends every session of the server."""
    REPLAY_OUT_OF_ORDER = "replay-out-of-order"
    """A stream resumption replays the right events in the wrong order (newest first): the store
    orders them by ids that do not order events stored in the same millisecond (typescript-sdk
    PR 1978)."""
    DUPLICATE_AFTER_REPLAY = "duplicate-after-replay"
    """A stream resumption replays the suffix, then sends its last event once more: the event was
    stored before it was written to the old connection, and the write lands on the new one after
    the replay (the store-then-write race of typescript-sdk PR 2335)."""
    RESPONSE_ON_ANOTHER_STREAM = "response-on-another-stream"
    """A call's response goes out on the session's newest other connected stream (another call's,
    or the standalone GET stream) when there is one: responses keyed by session, not by call, so
    concurrent calls overwrite each other's (php-sdk issue 275)."""
    DISCONNECT_CANCELS = "disconnect-cancels"
    """A dropped connection of a POST stream ends its call: the stream is ended at once and the
    call's response is never sent (rust-sdk PR 967)."""
    RESPONSE_UNSTORED = "response-unstored"
    """A response produced while its stream has no open connection is neither sent nor stored: the
    stream ends without it, so the client that resumes finds nothing (cloudflare/agents PR 1607)."""
    UNKNOWN_CURSOR_PAST_END = "unknown-cursor-past-end"
    """A well-formed ``Last-Event-ID`` that names no event is taken as a position one past the end
    of the session's newest retained stream: 200, nothing replayed, the stream goes on live; a later
    replay of that stream skips every event up to that position (go-sdk issue 1131)."""
    EMPTY_REPLAY_NEVER_ANSWERED = "empty-replay-never-answered"
    """A stream resumption with nothing to replay is never answered: the GET gets no response head
    (java-sdk PR 1093)."""
    CURSOR_REFUSAL_NEVER_ANSWERED = "cursor-refusal-never-answered"
    """A ``Last-Event-ID`` the server cannot resume in a live session (never issued, another
    session's, an evicted or expired stream's) is never answered: where a correct server refuses
    it, the GET gets no response head (java-sdk PR 1093: no replay, no response)."""
    ENDED_STREAM_EMPTY_200 = "ended-stream-empty-200"
    """A stream resumption of a stream that has ended (its call answered) is answered 200 with an
    empty stream that ends at once: the server keeps the session but not the finished stream's
    channel, and answers the resumption it cannot serve as a success (rust-sdk issue 958)."""
    CANCEL_ON_SESSION_RESUME = "cancel-on-session-resume"
    """Correct: a session resumption cancels (``notifications/cancelled`` on the
    new stream) the pending requests it would re-emit, instead of re-emitting them."""
    RING_BUFFER_REJECTS = "ring-buffer-rejects"
    """Correct: each stream keeps its events in a ring buffer; a cursor naming an
    evicted event is rejected with 400 and the resumption error code."""
    RESERIALISED_REPLAY = "reserialised-replay"
    """Correct: replayed messages are re-serialised on the wire (other key order,
    other whitespace); the in-process server is the reference."""
    JSON_POST_RESPONSES = "json-post-responses"
    """Correct: a POST request is answered with one ``application/json`` body, not
    an SSE stream (MCP B13); the in-process server is the reference."""
    SECOND_GET_400 = "second-get-400"
    """Correct: a session that holds a connected GET stream refuses another GET without
    ``Last-Event-ID`` with 400, while no pending request of it has lost its connection."""
    PING_ON_RESUME = "ping-on-resume"
    """Correct: after the replay a resumed stream goes on with a new server request (a
    ``ping``) and a new notification."""
    EVICTED_CURSOR_EXACT = "evicted-cursor-exact"
    """Correct: a ring buffer answers a cursor whose own event it evicted, when it still
    holds every later event of the stream, with exactly those; an older cursor gets 400."""


PARAMETERS: dict[Deviation, tuple[str, ...]] = {
    Deviation.FOREIGN_EVENT_ID_STATUS: ("status",),
}
"""The parameters each deviation takes (none unless listed)."""


@dataclass(frozen=True)
class Design:
    """One faulty design: its number in docs/design.md §5, a short name (``slug``),
    a one-line summary, the catalog rules one of which must be the first broken
    when it is caught, and the deviations it makes, with their parameters.
    A correct variation has no number and no rules."""

    number: int | None
    slug: str
    summary: str
    rules: frozenset[str]
    deviations: tuple[Deviation, ...]
    parameters: tuple[tuple[str, object], ...] = ()
    caught_under: frozenset[Profile] | None = None
    """The profiles under which it must be caught, when not derived from ``rules``."""
    needs: tuple[tuple[str, int], ...] = ()
    """Bound fields (``spec.space.Bounds``) its shortest counterexample needs at least, where
    that lies beyond the kill bound (a gap needs three events and two evictions)."""

    def widened(self, bounds: Bounds) -> Bounds:
        """``bounds`` grown to what the design's shortest counterexample needs (``needs``)."""
        grown = {name: value for name, value in self.needs if getattr(bounds, name) is not None
                 and getattr(bounds, name) < value}  # an unbounded depth stays unbounded
        return replace(bounds, **grown) if grown else bounds

    @property
    def correct(self) -> bool:
        """A correct variation: no rule may be found broken on it."""
        return not self.rules

    @property
    def name(self) -> str:
        """``design-<number>-<slug>`` (``variation-<slug>``): the server's name in traces and reports."""
        return self.target if self.correct else f"design-{self.number}-{self.slug}"

    @property
    def target(self) -> str:
        """``design-<number>`` (``variation-<slug>``): how the CLI and the embedded targets name it."""
        return f"variation-{self.slug}" if self.correct else f"design-{self.number}"

    def parameter(self, name: str) -> object:
        """The value of parameter ``name``; ``KeyError`` when the design has none."""
        for key, value in self.parameters:
            if key == name:
                return value
        raise KeyError(f"design {self.number} has no parameter {name!r}")

    def breaks(self, profile: Profile) -> frozenset[str]:
        """Its rules that are a MUST under ``profile``: what a checker files as a FAIL (empty
        for a correct variation)."""
        return frozenset(rule for rule in self.rules if level(rule, profile) is Level.MUST)

    def caught(self, profile: Profile) -> bool:
        """Whether every checker must catch it under ``profile``: one of its rules is a MUST there."""
        if self.caught_under is not None:
            return profile in self.caught_under
        return bool(self.breaks(profile))


def _design(number: int, slug: str, summary: str, rules: Iterable[str], deviations: Iterable[Deviation],
            caught_under: frozenset[Profile] | None = None, needs: Iterable[tuple[str, int]] = (), **parameters: object) -> Design:
    return Design(number, slug, summary, frozenset(rules), tuple(deviations), tuple(sorted(parameters.items())),
                  caught_under, tuple(needs))


D = Deviation

DESIGNS: tuple[Design, ...] = (
    _design(1, "per-session-cursor",
            "replay cursor kept per session: a session resumption re-emits nothing, a stream "
            "resumption replays the session's whole log after the cursor",
            {"reemit-pending", "no-cross-session", "replay-suffix", "event-id-unique"},
            [D.PER_SESSION_CURSOR]),
    _design(2, "global-event-log",
            "Last-Event-ID looked up in one log shared by all sessions",
            {"no-cross-session", "reject-foreign-event-id", "server-request-ownership"},
            [D.GLOBAL_EVENT_LOG]),
    _design(3, "reemit-drains-pending",
            "re-emission removes requests from the pending table",
            {"reemit-keeps-pending"},
            [D.REEMIT_DRAINS_PENDING]),
    _design(4, "session-id-as-cursor",
            "Mcp-Session-Id used as a replay cursor: session resumption replays history",
            {"no-replay-on-session-resume"},
            [D.SESSION_ID_AS_CURSOR]),
    _design(5, "event-id-as-session",
            "Last-Event-ID used as a session identifier: an orphan event id resumes a session",
            {"reject-orphan-event-id"},
            [D.EVENT_ID_AS_SESSION]),
    _design(6, "stream-resume-reemits",
            "stream resumption re-emits pending requests too",
            {"no-reemit-on-stream-resume"},
            [D.STREAM_RESUME_REEMITS]),
    _design(7, "off-by-one-replay",
            "off-by-one replay: the replay starts with the cursor's own event",
            {"replay-suffix"},
            [D.OFF_BY_ONE_REPLAY]),
    _design(8, "expiry-ends-session",
            "stream expiry ends the session",
            # a Last-Event-ID then refused on the live session gets 404: reject-foreign-event-id
            # (spec.invariants._status_rule keeps a refused event id under its branch's rule)
            {"expiry-independent", "reject-foreign-event-id"},
            [D.EXPIRY_ENDS_SESSION]),
    _design(9, "ended-session-events-replay",
            "event ids of an ended session still replay in another session",
            {"no-cross-session", "reject-foreign-event-id", "server-request-ownership"},
            [D.ENDED_SESSION_EVENTS_REPLAY]),
    _design(10, "foreign-event-id-404",
            "a foreign event id on a live session answered with 404",
            {"reject-foreign-event-id"},
            [D.FOREIGN_EVENT_ID_STATUS], status=404),
    _design(11, "foreign-event-id-empty-200",
            "a foreign event id answered with an empty 200 stream",
            {"reject-foreign-event-id"},
            [D.FOREIGN_EVENT_ID_STATUS], status=200),
    _design(12, "shared-get-stream-key",
            "one stream key shared by the standalone GET streams of all sessions",
            {"no-cross-session", "server-request-ownership"},
            [D.SHARED_GET_STREAM_KEY]),
    _design(13, "broadcast-reemit",
            "pending requests re-emitted on a new GET while their carrying stream is still connected",
            {"no-broadcast"},
            [D.REEMIT_ON_OPEN_CONNECTION]),
    _design(14, "session-log-replay",
            "stream resumption replays every later event of the session, from any stream",
            {"no-cross-session", "replay-suffix"},
            [D.SESSION_LOG_REPLAY]),
    _design(15, "resumed-stream-misrouted",
            "after a stream resumption the stream's later events are never delivered (the store hands "
            "back an event id where the stream id belongs)",
            {"replay-suffix"},
            [D.RESUMED_STREAM_MISROUTED]),
    _design(16, "ring-buffer-gap",
            "ring buffer that replays what it still has after an evicted cursor, with a gap",
            {"replay-suffix"},
            [D.RING_BUFFER_GAP],
            # two evicted events before a retained one: the last evicted cursor is answered exactly (§2)
            needs=(("events", 3), ("depth", 8))),
    _design(17, "orphan-event-id-mints-session",
            "an orphan Last-Event-ID answered 200 with a newly minted session",
            {"reject-orphan-event-id"},
            [D.ORPHAN_EVENT_ID_MINTS_SESSION]),
    _design(18, "get-stream-stores-session",
            "the standalone GET stream stores every event of the session: resuming it re-delivers "
            "messages already delivered on POST streams",
            {"no-cross-session", "replay-suffix"},
            [D.GET_STREAM_STORES_SESSION]),
    _design(19, "unknown-session-400",
            "an unknown or expired session answered 400 instead of 404",
            {"unknown-session-404"},
            [D.UNKNOWN_SESSION_400]),
    _design(20, "stale-connection-count",
            "a dropped GET connection still counts as open: every later GET of the session is refused with 409, "
            "stranding pending requests",
            {"reemit-pending"},
            [D.STALE_CONNECTION_COUNT]),
    _design(21, "broadcast-new-messages",
            "every new message sent to every connected stream of every session",
            {"no-broadcast", "no-cross-session", "server-request-ownership"},
            [D.BROADCAST_NEW_MESSAGES]),
    _design(22, "unstored-while-disconnected",
            "events produced while no connection is open are never stored: the replay after a drop has a hole",
            {"replay-suffix"},
            [D.UNSTORED_WHILE_DISCONNECTED]),
    _design(23, "drop-ends-session",
            "a dropped connection ends the session (404 from then on): correct under MCP (B33), not under boundary",
            # a Last-Event-ID then refused on the live session gets 404: reject-foreign-event-id (as design 8)
            {"expiry-independent", "reject-foreign-event-id"},
            [D.DROP_ENDS_SESSION],
            caught_under=frozenset({Profile.BOUNDARY})),
    _design(24, "constant-event-id",
            "a constant event id: the first (priming) event of every stream is 0",
            {"event-id-unique"},
            [D.CONSTANT_FIRST_EVENT_ID]),
    _design(25, "call-request-on-get-stream",
            "a server request made inside a tool call sent on the standalone GET stream instead of the call's stream",
            {"standalone-stream-scope"},
            [D.CALL_REQUEST_ON_GET_STREAM]),
    _design(26, "silent-drop-on-resume",
            "pending requests dropped without notifications/cancelled on session resumption",
            {"reemit-pending"},
            [D.SILENT_DROP_ON_RESUME]),
    _design(27, "single-slot-pending",
            "a single-slot pending table: a second server request overwrites the first, which is never re-emitted",
            {"reemit-pending"},
            [D.SINGLE_SLOT_PENDING]),
    _design(28, "retained-cursor-empty-200",
            "a retained cursor answered with an empty 200 (the store lost the stream's events)",
            {"replay-suffix"},
            [D.RETAINED_CURSOR_EMPTY]),
    _design(29, "delete-ends-all-sessions",
            "DELETE of one session ends every session: the others answer 404 while live",
            {"session-identity-stable", "unknown-session-404", "expiry-independent", "no-duplicate-tool-call",
             "reject-foreign-event-id"},
            [D.DELETE_ENDS_ALL_SESSIONS],
            caught_under=frozenset({Profile.BOUNDARY})),
    _design(30, "duplicate-after-replay",
            "a resumed stream gets its last replayed event twice (stored, then written after the replay)",
            {"replay-suffix"},
            [D.DUPLICATE_AFTER_REPLAY]),
    _design(31, "replay-out-of-order",
            "a replay sends the right events in the wrong order (ids that do not order events of one millisecond)",
            {"replay-suffix"},
            [D.REPLAY_OUT_OF_ORDER],
            needs=(("events", 3), ("depth", 8))),  # two events after the cursor
    _design(32, "response-on-another-stream",
            "a call's response goes out on another connected stream of the session (another call's, or the GET stream)",
            {"standalone-stream-scope"},
            [D.RESPONSE_ON_ANOTHER_STREAM],
            # a response off its request's stream breaks the MUST NOT of B18/D21 (the case RESPONSE_ELSEWHERE)
            caught_under=frozenset({Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25,
                                    Profile.BOUNDARY})),
    _design(33, "disconnect-cancels",
            "a dropped connection ends the call: its response is never sent, nor stored for a resumption",
            {"call-answered", "replay-suffix"},
            [D.DISCONNECT_CANCELS]),
    _design(34, "response-unstored",
            "a response produced while the call's connection is gone is neither sent nor stored",
            {"call-answered", "replay-suffix"},
            [D.RESPONSE_UNSTORED]),
    _design(35, "unknown-cursor-past-end",
            "an event id never issued is taken as a position past the end of a stream: accepted, and the stream's "
            "next events are never replayed",
            {"reject-foreign-event-id", "replay-suffix"},
            [D.UNKNOWN_CURSOR_PAST_END]),
    _design(36, "empty-replay-never-answered",
            "a stream resumption with nothing to replay never gets an answer: the GET hangs",
            {"replay-suffix"},
            [D.EMPTY_REPLAY_NEVER_ANSWERED],
            # a GET left unanswered breaks the MUST of B15/C15/D18 (replay-suffix's case NO_ANSWER)
            caught_under=frozenset({Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25,
                                    Profile.BOUNDARY})),
    _design(37, "ended-stream-empty-200",
            "resuming a stream that has ended gets 200 and an empty stream that ends at once: nothing replayed",
            {"replay-suffix"},
            [D.ENDED_STREAM_EMPTY_200]),
    _design(38, "cursor-refusal-never-answered",
            "a Last-Event-ID the server cannot resume (unknown, another session's, evicted) never gets an answer: "
            "the GET hangs",
            {"reject-foreign-event-id"},
            [D.CURSOR_REFUSAL_NEVER_ANSWERED],
            # a GET left unanswered breaks the MUST of B15/C15/D18 (reject-foreign-event-id's case NO_ANSWER)
            caught_under=frozenset({Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25,
                                    Profile.BOUNDARY})),
)


def _variation(slug: str, summary: str, deviations: Iterable[Deviation]) -> Design:
    return Design(None, slug, summary, frozenset(), tuple(deviations))


VARIATIONS: tuple[Design, ...] = (
    _variation("cancel", "pending requests cancelled on session resumption instead of re-emitted",
               [D.CANCEL_ON_SESSION_RESUME]),
    _variation("ring-buffer", "a ring buffer per stream that rejects an evicted cursor with 400",
               [D.RING_BUFFER_REJECTS]),
    _variation("reserialised", "replayed messages re-serialised (other key order, other whitespace)",
               [D.RESERIALISED_REPLAY]),
    _variation("json-response", "POST requests answered with application/json instead of SSE",
               [D.JSON_POST_RESPONSES]),
    _variation("second-get-400", "a second concurrent GET stream refused with 400",
               [D.SECOND_GET_400]),
    _variation("ping-on-resume", "a resumed stream goes on with a new ping and a new notification after the replay",
               [D.PING_ON_RESUME]),
    _variation("evicted-cursor-exact", "a ring buffer replays the exact suffix after a cursor whose own event it "
               "evicted", [D.EVICTED_CURSOR_EXACT]),
)
"""The correct variations of docs/design.md §5: no checker may blame them."""

del D

BY_NUMBER: dict[int, Design] = {design.number: design for design in DESIGNS if design.number is not None}

NUMBERS: tuple[int, ...] = tuple(BY_NUMBER)


def design(number: int) -> Design:
    """Design ``number``; ``KeyError`` naming the known numbers otherwise."""
    try:
        return BY_NUMBER[number]
    except KeyError:
        raise KeyError(f"unknown design {number}; designs are {', '.join(map(str, NUMBERS))}") from None


def caught_under(profile: Profile) -> frozenset[int]:
    """The numbers of the designs every checker must catch under ``profile``."""
    return frozenset(d.number for d in DESIGNS if d.number is not None and d.caught(profile))


BY_TARGET: dict[str, Design] = {d.target: d for d in DESIGNS + VARIATIONS}

WIRE_ONLY: frozenset[Deviation] = frozenset({Deviation.RESERIALISED_REPLAY, Deviation.JSON_POST_RESPONSES})
"""Deviations that change only the bytes on the wire: in process, and in Z3, they are the reference."""


def variation(slug: str) -> Design:
    """The correct variation ``variation-<slug>``; ``KeyError`` naming the known ones otherwise."""
    found = BY_TARGET.get(f"variation-{slug}")
    if found is None:
        raise KeyError(f"unknown variation {slug!r}; variations are {', '.join(v.slug for v in VARIATIONS)}")
    return found


def by_target(name: str) -> Design | None:
    """The design or correct variation named ``name`` (``design-<n>``, ``variation-<slug>``), or ``None``."""
    return BY_TARGET.get(name)


def target_number(name: str) -> int | None:
    """The number ``n`` of a target named ``design-<n>``, or ``None`` when ``name`` names no design."""
    digits = name[7:] if name.startswith("design-") else ""
    return int(digits) if digits.isdigit() and int(digits) in BY_NUMBER else None


def numbers_text() -> str:
    """``1-31``: the design numbers for help texts."""
    return f"{NUMBERS[0]}-{NUMBERS[-1]}" if NUMBERS == tuple(range(NUMBERS[0], NUMBERS[-1] + 1)) else ", ".join(map(str, NUMBERS))
