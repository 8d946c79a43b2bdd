"""The transition relation: what one action does to a state, and what the client sees.

``step(state, action, profile)`` is deterministic: it is the reference behaviour
(the canonical status of every outcome). ``enabled(state, action)`` says whether a
server or network action can happen at all; client actions are always enabled,
whatever their headers say.

Only the session-era profiles are modelled here; ``mcp-2026-07-28`` has its own
state machine, with its own actions (``sessionless``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from itertools import product

from .actions import (
    Action,
    AnswerRequest,
    CallTool,
    CancelRequest,
    CloseConnection,
    DeleteSession,
    DropConnection,
    EmitEvent,
    EndStream,
    EvictEvent,
    ExpireSession,
    ExpireStream,
    Initialize,
    IssueServerRequest,
    Reconnect,
    RestartClient,
)
from .decision import Branch, HttpRequest, Method, Outcome, decide
from .profiles import SESSION_ERA, Profile
from .state import (
    ClientSession,
    Event,
    RequestStatus,
    ServerRequest,
    Session,
    SessionStatus,
    State,
    Stream,
    StreamKind,
    StreamStatus,
)


@dataclass(frozen=True, slots=True)
class Delivered:
    """One event that reached the client.

    ``event``: its id; ``request``: the server request it carries; ``stream``: the
    stream whose connection delivered it (so its session is the one the client
    opened that connection under); ``cancels``: the server request a
    ``notifications/cancelled`` event cancels.
    """

    event: str
    request: str | None = None
    stream: str | None = None
    cancels: str | None = None


@dataclass(frozen=True, slots=True)
class Observation:
    """What the client (or a white-box harness) saw of one action.

    - ``status``: the HTTP status of a client request; ``None`` for server and
      network actions; ``error``: the JSON-RPC error code of a refusal's body;
    - ``session``: the session id minted by ``initialize``;
    - ``stream``: the stream a response opened or resumed;
    - ``event`` / ``request``: the event / server request a server action created;
    - ``events``: events delivered to the client by this action, in order;
    - ``closed``: streams whose connection this action ended (the client sees
      its SSE response end).
    """

    status: int | None = None
    session: str | None = None
    stream: str | None = None
    event: str | None = None
    request: str | None = None
    events: tuple[Delivered, ...] = ()
    closed: tuple[str, ...] = ()
    error: int | None = None


class Pending(str, Enum):
    """What a session resumption does with one pending server request (DESIGN.md §2)."""

    REEMIT = "re-emit"  # sent again on the new stream, same id; the new stream carries it
    CANCEL = "cancel"  # notifications/cancelled on the new stream; the request ends
    LEAVE = "leave"  # neither (the MCP revisions allow it, rules §3.7)


@dataclass(frozen=True, slots=True)
class Transition:
    before: State
    action: Action
    outcome: Outcome | None  # None for server and network actions
    observation: Observation
    after: State


class NotModelled(ValueError):
    """Raised for a profile whose state machine the spec does not model."""


def enabled(state: State, action: Action) -> bool:
    """True when ``action`` can happen in ``state``.

    Client requests are always enabled (servers must answer any headers); a
    server action needs its target open in a live session; a connection can only
    drop while connected.
    """
    if isinstance(action, (EmitEvent, IssueServerRequest, EndStream)):
        stream = state.stream(action.stream)
        return stream is not None and stream.status is StreamStatus.OPEN and _live(state, stream.session)
    if isinstance(action, ExpireStream):
        stream = state.stream(action.stream)
        return stream is not None and stream.retained and _live(state, stream.session)
    if isinstance(action, EvictEvent):
        stream = state.stream(action.stream)
        return stream is not None and _live(state, stream.session) and bool(state.retained_events(stream.id))
    if isinstance(action, CloseConnection):
        stream = state.stream(action.stream)
        return stream is not None and stream.connected and _live(state, stream.session)
    if isinstance(action, DropConnection):
        stream = state.stream(action.stream)
        return stream is not None and stream.connected
    if isinstance(action, CancelRequest):
        request = state.request(action.request)
        return request is not None and request.status is RequestStatus.PENDING and _live(state, request.session)
    if isinstance(action, ExpireSession):
        return _live(state, action.session)
    return True


def step(state: State, action: Action, profile: Profile = Profile.BOUNDARY) -> Transition:
    """The reference transition for ``action`` in ``state``.

    Raises ``NotModelled`` for a sessionless profile and ``ValueError`` when a
    server or network action is not ``enabled``.
    """
    if profile not in SESSION_ERA:
        raise NotModelled(f"{profile.value} has no sessions: its state machine is spec.sessionless, with its own actions")
    if not enabled(state, action):
        raise ValueError(f"action {action} is not enabled in this state")
    handler = _HANDLERS[type(action)]
    outcome, observation, after = handler(state, action, profile)
    return _finish(state, action, outcome, observation, after)


def alternatives(state: State, action: Action, profile: Profile = Profile.BOUNDARY) -> tuple[Transition, ...]:
    """Every transition ``profile`` accepts for ``action``, the reference's first.

    Status alternatives (a refusal where the reference proceeds) are not listed:
    a refused request changes nothing. The alternatives of content are a session
    resumption's choices for each request it must deal with (``Pending``):
    re-emit or cancel it (DESIGN.md §2 branch 2), or, under the MCP revisions,
    which do not require either (rules §3.7), leave it pending.
    """
    canonical = step(state, action, profile)
    outcome = canonical.outcome
    if outcome is None or outcome.branch is not Branch.SESSION_RESUMPTION or not outcome.reemit:
        return (canonical,)
    variants = [canonical]
    for plan in product(pending_choices(profile), repeat=len(outcome.reemit)):
        if all(choice is Pending.REEMIT for choice in plan):
            continue
        variants.append(_resumption_with(state, action, outcome, plan))
    return tuple(variants)


def pending_choices(profile: Profile) -> tuple[Pending, ...]:
    """What ``profile`` accepts for each request a session resumption must deal with."""
    return (Pending.REEMIT, Pending.CANCEL) if profile is Profile.BOUNDARY else tuple(Pending)


def alternative(state: State, action: Action, profile: Profile, plan: tuple[Pending, ...]) -> Transition | None:
    """The one transition of a session resumption that deals with the requests it must
    (``step(...).outcome.reemit``, in that order) as ``plan`` says: the reference's when
    every choice is re-emit, ``None`` when ``action`` is no such resumption, ``plan`` has
    another length, or ``profile`` does not accept one of its choices. Where
    ``alternatives`` lists every plan (their number grows as 2^n or 3^n), this builds one.
    """
    canonical = step(state, action, profile)
    outcome = canonical.outcome
    if outcome is None or outcome.branch is not Branch.SESSION_RESUMPTION or len(plan) != len(outcome.reemit):
        return None
    if any(choice not in pending_choices(profile) for choice in plan):
        return None
    if all(choice is Pending.REEMIT for choice in plan):
        return canonical
    return _resumption_with(state, action, outcome, plan)


def _resumption_with(state: State, action: Action, outcome, plan: tuple[Pending, ...]) -> Transition:
    observation, after = _resume_session(state, action.session, outcome, plan)
    return _finish(state, action, outcome, observation, after)


def _finish(state: State, action: Action, outcome, observation: Observation, after: State) -> Transition:
    closed = tuple(dict.fromkeys(observation.closed + _closed_connections(state, after)))
    if closed != observation.closed:
        observation = replace(observation, closed=closed)
    if outcome is not None and outcome.error is not None and observation.status == outcome.status:
        observation = replace(observation, error=outcome.error)
    return Transition(state, action, outcome, observation, after)


# -- client requests ------------------------------------------------------------


def _initialize(state: State, action: Initialize, profile: Profile):
    outcome = decide(state, HttpRequest(Method.POST_INITIALIZE), profile)
    if outcome.branch is not Branch.NEW_SESSION:
        return outcome, Observation(outcome.status), state
    session = state.next_session_id()
    after = state.with_session(Session(session)).with_client_session(ClientSession(session))
    return outcome, Observation(outcome.status, session=session), after


def _call_tool(state: State, action: CallTool, profile: Profile):
    outcome = decide(state, HttpRequest(Method.POST_REQUEST, action.session), profile)
    if outcome.branch is not Branch.SESSION_REQUEST:
        return outcome, Observation(outcome.status), state
    stream = state.next_stream_id()
    after = state.with_stream(Stream(stream, action.session, StreamKind.POST))
    return outcome, Observation(outcome.status, stream=stream), after


def _reconnect(state: State, action: Reconnect, profile: Profile):
    request = HttpRequest(Method.GET, action.session, action.last_event_id)
    outcome = decide(state, request, profile)
    if outcome.branch is Branch.STREAM_RESUMPTION:
        return outcome, *_resume_stream(state, action.session, outcome)
    if outcome.branch is Branch.SESSION_RESUMPTION:
        return outcome, *_resume_session(state, action.session, outcome)
    return outcome, Observation(outcome.status), state


def _resume_stream(state: State, session: str, outcome: Outcome):
    """Branch 1: the replay, then the stream continues on the new connection; a
    connection still open to it closes first (never two connections to one
    stream, DESIGN.md §2)."""
    stream = state.stream(outcome.stream)
    after = state.with_stream(replace(stream, connected=stream.status is StreamStatus.OPEN))
    delivered = tuple(_delivered(state.event(e)) for e in outcome.replay)
    after = _receive(after, session, delivered)
    superseded = (stream.id,) if stream.connected else ()
    return Observation(outcome.status, stream=stream.id, events=delivered, closed=superseded), after


def _resume_session(state: State, session: str, outcome: Outcome, plan: tuple[Pending, ...] | None = None):
    """Branch 2: a fresh GET stream; each request of ``outcome.reemit`` re-emitted
    on it, cancelled on it, or left, as ``plan`` says (all re-emitted by default)."""
    stream = state.next_stream_id()
    after = state.with_stream(Stream(stream, session, StreamKind.GET))
    delivered = []
    for request_id, choice in zip(outcome.reemit, plan or (Pending.REEMIT,) * len(outcome.reemit)):
        if choice is Pending.LEAVE:
            continue
        request = after.request(request_id)
        if choice is Pending.REEMIT:
            event = Event(after.next_event_id(), stream, request_id)
            after = after.with_event(event).with_request(replace(request, stream=stream, issued_on=request.origin))
        else:
            event = Event(after.next_event_id(), stream, cancels=request_id)
            after = after.with_event(event).with_request(replace(request, status=RequestStatus.CANCELLED))
            after = _forget_request(after, session, request_id)
        delivered.append(_delivered(event))
    after = _receive(after, session, tuple(delivered))
    return Observation(outcome.status, stream=stream, events=tuple(delivered)), after


def _answer_request(state: State, action: AnswerRequest, profile: Profile):
    http = HttpRequest(Method.POST_RESPONSE, action.session, request=action.request)
    outcome = decide(state, http, profile)
    if outcome.branch is not Branch.SESSION_REQUEST:
        return outcome, Observation(outcome.status), state
    after = _forget_request(state, action.session, action.request)
    request = state.request(action.request)
    if request is not None and request.session == action.session and request.status is RequestStatus.PENDING:
        after = after.with_request(replace(request, status=RequestStatus.ANSWERED))
    return outcome, Observation(outcome.status), after


def _delete_session(state: State, action: DeleteSession, profile: Profile):
    outcome = decide(state, HttpRequest(Method.DELETE, action.session), profile)
    if outcome.branch is not Branch.SESSION_TERMINATION:
        return outcome, Observation(outcome.status), state
    return outcome, Observation(outcome.status), _end_session(state, action.session, SessionStatus.DELETED)


def _restart_client(state: State, action: RestartClient, profile: Profile):
    forgotten = tuple(ClientSession(entry.session) for entry in state.client)
    return None, Observation(), state.with_client(forgotten)


# -- network and server actions -------------------------------------------------


def _drop_connection(state: State, action: DropConnection | CloseConnection, profile: Profile):
    stream = state.stream(action.stream)
    return None, Observation(), state.with_stream(replace(stream, connected=False))


def _evict_event(state: State, action: EvictEvent, profile: Profile):
    stream = state.stream(action.stream)
    return None, Observation(), state.with_stream(replace(stream, evicted=stream.evicted + 1))


def _emit_event(state: State, action: EmitEvent, profile: Profile):
    return _send_on_stream(state, action.stream, request=None)


def _issue_server_request(state: State, action: IssueServerRequest, profile: Profile):
    stream = state.stream(action.stream)
    request = ServerRequest(state.next_request_id(), stream.session, stream.id)
    return _send_on_stream(state.with_request(request), stream.id, request=request.id)


def _send_on_stream(state: State, stream_id: str, request: str | None):
    stream = state.stream(stream_id)
    event = Event(state.next_event_id(), stream_id, request)
    after = state.with_event(event)
    delivered = (_delivered(event),) if stream.connected else ()
    after = _receive(after, stream.session, delivered)
    return None, Observation(event=event.id, request=request, events=delivered), after


def _cancel_request(state: State, action: CancelRequest, profile: Profile):
    request = state.request(action.request)
    after = state.with_request(replace(request, status=RequestStatus.CANCELLED))
    return None, Observation(), _forget_request(after, request.session, request.id)


def _end_stream(state: State, action: EndStream, profile: Profile):
    stream = state.stream(action.stream)
    ended = replace(stream, status=StreamStatus.ENDED, connected=False)
    return None, Observation(), state.with_stream(ended)


def _expire_stream(state: State, action: ExpireStream, profile: Profile):
    stream = state.stream(action.stream)
    expired = replace(stream, status=StreamStatus.EXPIRED, connected=False)
    return None, Observation(), state.with_stream(expired)


def _expire_session(state: State, action: ExpireSession, profile: Profile):
    return None, Observation(), _end_session(state, action.session, SessionStatus.EXPIRED)


# -- helpers --------------------------------------------------------------------


def _closed_connections(before: State, after: State) -> tuple[str, ...]:
    """Streams connected in ``before`` and not in ``after``."""
    if after.streams is before.streams:
        return ()
    return tuple(s.id for s in before.streams if s.connected and not after.stream(s.id).connected)


def _live(state: State, session_id: str) -> bool:
    session = state.session(session_id)
    return session is not None and session.status is SessionStatus.LIVE


def _end_session(state: State, session_id: str, status: SessionStatus) -> State:
    """A session ends with all its streams and their event ids (DESIGN.md §2)."""
    after = state.with_session(Session(session_id, status))
    for stream in state.streams_of(session_id):
        after = after.with_stream(replace(stream, status=StreamStatus.EXPIRED, connected=False))
    return after


def _delivered(event: Event) -> Delivered:
    return Delivered(event.id, event.request, event.stream, event.cancels)


def _receive(state: State, session_id: str, delivered: tuple[Delivered, ...]) -> State:
    """The client records the events it received under ``session_id``."""
    entry = state.client_session(session_id)
    if entry is None or not delivered:
        return state
    cursors = dict(entry.cursors)
    seen = list(entry.seen)
    for item in delivered:
        cursors[state.event(item.event).stream] = item.event
        request = state.request(item.request)
        if request is not None and request.status is RequestStatus.PENDING and request.id not in seen:
            seen.append(request.id)
    return state.with_client_session(ClientSession(session_id, tuple(cursors.items()), tuple(seen)))


def _forget_request(state: State, session_id: str | None, request_id: str) -> State:
    entry = state.client_session(session_id) if session_id else None
    if entry is None or request_id not in entry.seen:
        return state
    seen = tuple(r for r in entry.seen if r != request_id)
    return state.with_client_session(replace(entry, seen=seen))


_HANDLERS = {
    Initialize: _initialize,
    CallTool: _call_tool,
    Reconnect: _reconnect,
    AnswerRequest: _answer_request,
    DeleteSession: _delete_session,
    RestartClient: _restart_client,
    DropConnection: _drop_connection,
    CloseConnection: _drop_connection,
    EvictEvent: _evict_event,
    EmitEvent: _emit_event,
    IssueServerRequest: _issue_server_request,
    CancelRequest: _cancel_request,
    EndStream: _end_stream,
    ExpireStream: _expire_stream,
    ExpireSession: _expire_session,
}
