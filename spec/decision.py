"""The decision of docs/design.md §2: what a server must do with one HTTP request.

Two layers:

- ``decide_class(method, session_class, event_class, profile)`` is the table over
  header *classes*: a total function on a finite domain, which ``proofs`` encodes
  independently in Z3 and checks for totality, exclusivity, reachability and
  agreement with this function.
- ``decide(state, request, profile)`` classifies the headers against a state,
  looks the table up, and refines the answer with what the state knows: which
  events must be replayed, which server requests re-emitted, and the alternative
  statuses a connected stream allows.

Sources: guards MCP B30/B33/B34 (D35/D39); branch 1 B24-B26, D29-D31; branch 2
B15, B21 (a request still on an open connection is not sent again), rules §3.7;
branch 3 rules §3.2 (#1939, typescript-sdk PR #2068);
branch 4 B32; branch 5 B28, B32; sessionless revision F17.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .headers import EventClass, SessionClass, classify_event, classify_session
from .profiles import SESSION_ERA, Profile
from .state import RequestStatus, State, StreamKind, StreamStatus


class Method(str, Enum):
    GET = "GET"
    POST_INITIALIZE = "POST initialize"
    POST_REQUEST = "POST request"
    POST_RESPONSE = "POST response"
    DELETE = "DELETE"


class Branch(str, Enum):
    """Where a request lands. The first five are docs/design.md §2's numbered branches."""

    STREAM_RESUMPTION = "stream-resumption"  # 1
    SESSION_RESUMPTION = "session-resumption"  # 2
    REJECT_FOREIGN_EVENT_ID = "reject-foreign-event-id"  # 3
    REJECT_ORPHAN_EVENT_ID = "reject-orphan-event-id"  # 4
    NEW_SESSION = "new-session"  # 5, POST initialize
    MISSING_SESSION = "missing-session"  # 5, anything else without a session
    MALFORMED_SESSION = "malformed-session"  # guard
    UNKNOWN_SESSION = "unknown-session"  # guard
    REINITIALIZE = "reinitialize"
    SESSION_REQUEST = "session-request"
    SESSION_TERMINATION = "session-termination"
    METHOD_NOT_ALLOWED = "method-not-allowed"  # sessionless revision
    SESSIONLESS_REQUEST = "sessionless-request"  # sessionless revision


NUMBERED_BRANCHES = {
    Branch.STREAM_RESUMPTION: 1,
    Branch.SESSION_RESUMPTION: 2,
    Branch.REJECT_FOREIGN_EVENT_ID: 3,
    Branch.REJECT_ORPHAN_EVENT_ID: 4,
    Branch.NEW_SESSION: 5,
    Branch.MISSING_SESSION: 5,
}
"""The branch number of docs/design.md §2's table, for the branches that have one."""

BRANCH_RULE: dict[Branch, str] = {
    Branch.STREAM_RESUMPTION: "replay-suffix",
    Branch.SESSION_RESUMPTION: "session-identity-stable",
    Branch.REJECT_FOREIGN_EVENT_ID: "reject-foreign-event-id",
    Branch.REJECT_ORPHAN_EVENT_ID: "reject-orphan-event-id",
    Branch.NEW_SESSION: "new-session-on-initialize",
    Branch.MISSING_SESSION: "missing-session-400",
    Branch.MALFORMED_SESSION: "malformed-session-400",
    Branch.UNKNOWN_SESSION: "unknown-session-404",
    Branch.REINITIALIZE: "session-identity-stable",
    Branch.SESSION_REQUEST: "session-identity-stable",
    Branch.SESSION_TERMINATION: "session-delete",
    Branch.METHOD_NOT_ALLOWED: "sessionless-get-405",
    Branch.SESSIONLESS_REQUEST: "sessionless-ignores-headers",
}
"""The catalog rule that judges the status of a request landing in each branch."""

SUCCESSES = frozenset(range(200, 300))
CLIENT_ERRORS = frozenset(range(400, 500))
RESUMPTION_ERRORS = CLIENT_ERRORS - {404}
"""Branch 3: a 4xx that is not 404, because 404 tells a client its session is gone (B34)."""

UNRESUMABLE_LENIENT = CLIENT_ERRORS | {200}
"""What the MCP profiles accept for a Last-Event-ID the session cannot resume: any 4xx, or 200
(the stricter ``boundary`` takes ``RESUMPTION_ERRORS``)."""
TERMINATION_STATUSES = SUCCESSES | {405}
"""What a DELETE of a live session may be answered: any 2xx, or 405 from a server that does not
let clients end sessions."""

RESUMPTION_ERROR_CODE = -32001
"""The JSON-RPC error code of the reference's branch-3 rejection. MCP defines none;
what matters is that a client can tell it from the missing-session error
(docs/design.md §2 row 3), so the two differ."""

MISSING_SESSION_ERROR_CODE = -32000
"""The JSON-RPC error code of the reference's missing-session 400 (MCP B32)."""

CONFLICT = 409
"""Refusal of a GET stream (rules §3.3, typescript-sdk: one GET stream per session)."""

METHOD_NOT_ALLOWED = 405
"""A GET answered by a server that offers no standalone stream (B15)."""

SECOND_CONNECTION_REFUSALS = RESUMPTION_ERRORS
"""Refusals of a second connection to a connected stream, or of a second GET stream: any 4xx
but 404 (409 from the TypeScript SDK, 400 from another official SDK; rules §3.3)."""

NO_CONTENT = 204
"""Answer to a reconnect to a terminated stream, by SSE convention (rules §3.5)."""


@dataclass(frozen=True, slots=True)
class ClassDecision:
    """An entry of the decision table: the branch and the acceptable statuses.

    ``status`` is the one the reference server answers; ``statuses`` every status
    the profile accepts.
    """

    branch: Branch
    statuses: frozenset[int]
    status: int


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One request's method and its two header values (``None`` = header absent).

    ``request`` names the server request a ``POST_RESPONSE`` answers.
    """

    method: Method
    session: str | None = None
    last_event_id: str | None = None
    request: str | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the server must do with one request in one state, under one profile.

    - ``branch``, ``statuses`` (acceptable), ``status`` (the reference's answer);
    - ``stream``: the stream resumed (branch 1), else ``None``;
    - ``replay``: event ids to replay, in order (branch 1), else empty;
    - ``reemit``: server requests to re-emit or cancel, in issue order (branch 2):
      the pending ones whose carrying stream has no open connection (MCP B21);
    - ``error``: the JSON-RPC error code of the reference's refusal, if it has one;
    - ``strands``: a refusal would leave ``reemit`` stranded where the profile requires
      re-emission (``boundary``): such a refusal breaks ``reemit-pending``;
    - ``rule``: the catalog rule that judges the status, and ``case`` the case of
      that rule the catalog may level differently (a never-issued session id).

    Branch 3 with ``stream`` set is a cursor whose own event a ring buffer evicted while
    every later event of its stream is retained: besides the refusal, the exact replay
    ``replay`` of that stream is accepted (200; docs/design.md §2, partial retention).
    """

    branch: Branch
    statuses: frozenset[int]
    status: int
    session_class: SessionClass
    event_class: EventClass
    stream: str | None = None
    replay: tuple[str, ...] = ()
    reemit: tuple[str, ...] = ()
    error: int | None = None
    strands: bool = False

    @property
    def rule(self) -> str:
        return BRANCH_RULE[self.branch]

    @property
    def case(self) -> str | None:
        """``"never-issued"`` for a session id no session ever had: MCP B33 requires
        404 only for sessions the server ended (rules §3.8)."""
        if self.branch is Branch.UNKNOWN_SESSION and self.session_class is SessionClass.UNKNOWN:
            return NEVER_ISSUED
        return None


NEVER_ISSUED = "never-issued"
"""The case of ``unknown-session-404`` for a session id that was never issued."""


def decide_class(
    method: Method, session: SessionClass, event: EventClass, profile: Profile
) -> ClassDecision:
    """The decision table over header classes (total on its domain)."""
    if profile not in SESSION_ERA:
        return _decide_sessionless(method)
    strict = profile is Profile.BOUNDARY
    if session is SessionClass.MALFORMED:
        return ClassDecision(Branch.MALFORMED_SESSION, frozenset({400}) if strict else frozenset({400, 404}), 400)
    if session in (SessionClass.UNKNOWN, SessionClass.ENDED):
        return ClassDecision(Branch.UNKNOWN_SESSION, frozenset({404}), 404)
    if session is SessionClass.ABSENT:
        return _decide_without_session(method, event)
    return _decide_in_live_session(method, event, strict)


def decide(state: State, request: HttpRequest, profile: Profile) -> Outcome:
    """The outcome of ``request`` in ``state`` under ``profile``."""
    return decide_headers(state, request.method, request.session, request.last_event_id, request.request, profile)


def decide_headers(state: State, method: Method, session: str | None, last_event_id: str | None,
                   request: str | None, profile: Profile) -> Outcome:
    """``decide`` for the request ``HttpRequest(method, session, last_event_id, request)``,
    without building it (the transitions decide on every client step)."""
    session_class = classify_session(state, session)
    event_class = classify_event(state, session, last_event_id)
    outcome = _class_outcome(method, session_class, event_class, profile)
    branch, statuses = outcome.branch, outcome.statuses
    if branch is Branch.STREAM_RESUMPTION:
        assert last_event_id is not None  # a retained event's id, by classify_event
        statuses, stream, replay = _refine_stream_resumption(state, last_event_id, statuses)
        return Outcome(branch, statuses, outcome.status, session_class, event_class, stream, replay, (), outcome.error)
    if branch is Branch.SESSION_RESUMPTION:
        assert session is not None  # a live session's id, by classify_session
        statuses, reemit, strands = _refine_session_resumption(state, session, statuses, profile is Profile.BOUNDARY)
        return Outcome(branch, statuses, outcome.status, session_class, event_class, None, (), reemit, outcome.error,
                       strands)
    if branch is Branch.REJECT_FOREIGN_EVENT_ID and event_class is EventClass.EVICTED:
        assert last_event_id is not None  # an evicted event's id, by classify_event
        exact = _exact_after_eviction(state, last_event_id)
        if exact is not None:
            stream, replay = exact
            return Outcome(branch, statuses | {200}, outcome.status, session_class, event_class, stream, replay, (),
                           outcome.error)
    if branch is Branch.SESSION_REQUEST and method is Method.POST_RESPONSE:
        refined = _refine_response(state, session, request, statuses)
        if refined != statuses:
            return Outcome(branch, refined, outcome.status, session_class, event_class, error=outcome.error)
    return outcome


def _class_outcome(method: Method, session: SessionClass, event: EventClass, profile: Profile) -> Outcome:
    """The outcome of the table entry alone, before the state refines it."""
    entry = decide_class(method, session, event, profile)
    error = _ERRORS.get(entry.branch)
    return Outcome(entry.branch, entry.statuses, entry.status, session, event, error=error)


_ERRORS = {
    Branch.REJECT_FOREIGN_EVENT_ID: RESUMPTION_ERROR_CODE,
    Branch.MISSING_SESSION: MISSING_SESSION_ERROR_CODE,
}
"""The JSON-RPC error code of the reference's refusal in each branch that has one."""


def _decide_sessionless(method: Method) -> ClassDecision:
    if method in (Method.GET, Method.DELETE):
        return ClassDecision(Branch.METHOD_NOT_ALLOWED, frozenset({405}), 405)
    if method is Method.POST_RESPONSE:
        return ClassDecision(Branch.SESSIONLESS_REQUEST, frozenset({202, 400}), 400)
    return ClassDecision(Branch.SESSIONLESS_REQUEST, frozenset({200}), 200)


def _decide_without_session(method: Method, event: EventClass) -> ClassDecision:
    """No session header: 400 (B32), or, for a GET or DELETE, 405 from a server that offers no
    GET stream (B15) or lets no client end a session (B35)."""
    refusals = frozenset({400, 405}) if method in (Method.GET, Method.DELETE) else frozenset({400})
    if method is Method.POST_INITIALIZE:
        return ClassDecision(Branch.NEW_SESSION, frozenset({200}), 200)
    if method is Method.GET and event is not EventClass.ABSENT:
        return ClassDecision(Branch.REJECT_ORPHAN_EVENT_ID, refusals, 400)
    return ClassDecision(Branch.MISSING_SESSION, refusals, 400)


def _decide_in_live_session(method: Method, event: EventClass, strict: bool) -> ClassDecision:
    if method is Method.GET:
        if event is EventClass.ABSENT:
            return ClassDecision(Branch.SESSION_RESUMPTION, frozenset({200}) if strict else frozenset({200, 405, 409}), 200)
        if event is EventClass.RETAINED:
            return ClassDecision(Branch.STREAM_RESUMPTION, frozenset({200}) if strict else frozenset({200, 405}), 200)
        statuses = RESUMPTION_ERRORS if strict else UNRESUMABLE_LENIENT
        return ClassDecision(Branch.REJECT_FOREIGN_EVENT_ID, statuses, 400)
    if method is Method.POST_INITIALIZE:
        return ClassDecision(Branch.REINITIALIZE, frozenset({200, 400}), 400)
    if method is Method.POST_REQUEST:
        return ClassDecision(Branch.SESSION_REQUEST, frozenset({200}), 200)
    if method is Method.POST_RESPONSE:
        return ClassDecision(Branch.SESSION_REQUEST, frozenset({202}), 202)
    return ClassDecision(Branch.SESSION_TERMINATION, TERMINATION_STATUSES, 200)


def _refine_stream_resumption(state: State, last_event_id: str, statuses: frozenset[int]) -> tuple[frozenset[int], str, tuple[str, ...]]:
    """Branch 1: the accepted statuses, the stream resumed and the events to replay."""
    event = state.held_event(last_event_id)  # classified RETAINED
    stream = state.held_stream(event.stream)
    events = state.retained_events(event.stream)
    after = tuple(e.id for e in events[events.index(event) + 1 :])
    if stream.connected:
        statuses = statuses | SECOND_CONNECTION_REFUSALS
    if stream.status is StreamStatus.ENDED and not after:
        statuses = statuses | {NO_CONTENT}
    return statuses, event.stream, after


def _refine_session_resumption(state: State, session: str, statuses: frozenset[int],
                               strict: bool) -> tuple[frozenset[int], tuple[str, ...], bool]:
    """Branch 2: the accepted statuses, the pending requests to re-emit or cancel, and
    whether a refusal would strand them.

    A GET stream may be refused with 405 (the server offers none, B15) or 409 (rules
    §3.3); a session already holding a connected GET stream may refuse another with any
    non-404 4xx (docs/design.md §2, a second connection). Under ``boundary`` a refusal is
    accepted only while no pending request of the session has lost its connection: one
    that has would be stranded, which is ``reemit-pending``'s finding, not a change of the
    session's identity."""
    reemit = tuple(r.id for r in state.pending_requests(session) if not state.held_stream(r.stream).connected)
    get_connected = any(s.kind is StreamKind.GET and s.connected for s in state.streams_of(session))
    refusals = SECOND_CONNECTION_REFUSALS | {METHOD_NOT_ALLOWED} if get_connected else frozenset({METHOD_NOT_ALLOWED, CONFLICT})
    strands = strict and bool(reemit)
    return (statuses if strands else statuses | refusals), reemit, strands


def _exact_after_eviction(state: State, last_event_id: str) -> tuple[str, tuple[str, ...]] | None:
    """For a cursor a ring buffer evicted: its stream and the events after it, when every one
    of them is still retained (the cursor is the last event evicted); else ``None``."""
    event = state.held_event(last_event_id)  # classified EVICTED
    stream = state.held_stream(event.stream)
    if state.position_in_stream(event) != stream.evicted - 1:
        return None
    return stream.id, tuple(e.id for e in state.retained_events(stream.id))


def _refine_response(state: State, session: str | None, request: str | None, statuses: frozenset[int]) -> frozenset[int]:
    """An answer to a server request: 400 is accepted too unless it answers a pending
    request of the session."""
    answered = state.request(request)
    pending = answered is not None and answered.session == session and answered.status is RequestStatus.PENDING
    return statuses if pending else frozenset({202, 400})

