"""The transition relation: what one action does to a state, and what the client sees.

``step(state, action, profile)`` is deterministic: it is the reference behaviour
(the canonical status of every outcome). ``enabled(state, action)`` says whether a
server or network action can happen at all; client actions are always enabled,
whatever their headers say.

Only the session-era profiles are modelled here; ``mcp-2026-07-28`` has its own
state machine, with its own actions (``sessionless.machine``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from itertools import product
from typing import Any, Callable, Protocol

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
    Respond,
    RestartClient,
)
from .decision import Branch, Method, Outcome, decide_headers
from .profiles import MCP_SESSION_REVISIONS, SESSION_ERA, Profile
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
      its SSE response end);
    - ``primed``: for a response that opened an SSE stream (a POST's, or a session
      resumption's GET), whether its first event was a priming event (an event id and
      empty data, MCP D8); ``None`` when not seen (the spec's own observations, a JSON
      answer);
    - ``version_refused``: for a request that carried the negotiated
      ``MCP-Protocol-Version``, whether it was refused for that header (400, where
      the same request without it was served); ``False`` when it was served;
      ``None`` when not known (C40);
    - ``about``: for a server message read off recorded traffic, the stream of the client
      request it is about, when the traffic tells: a call's server request on the standalone
      GET stream (B17), a response or a progress notification (by the client's own request id
      or progress token) wherever it came; ``None`` when nobody can tell;
    - ``response``: that message is the JSON-RPC response to the request on ``about``;
    - ``version_unsupported``: the client request carried an ``MCP-Protocol-Version`` no server
      can support (``headers.names_no_revision``), which it must refuse with 400 (C40, D45);
    - ``retry``: for a server's close of a stream's connection (``CloseConnection``), whether an
      event of that stream carried the SSE ``retry`` field before it (D10, D23); ``None`` when
      not seen (the spec's own observations);
    - ``cursor``: for the same close, whether an event of that stream with an id (a
      ``Last-Event-ID`` to resume from) came before it (D9); ``None`` when not seen.
    """

    status: int | None = None
    session: str | None = None
    stream: str | None = None
    event: str | None = None
    request: str | None = None
    events: tuple[Delivered, ...] = ()
    closed: tuple[str, ...] = ()
    error: int | None = None
    primed: bool | None = None
    version_refused: bool | None = None
    about: str | None = None
    response: bool = False
    version_unsupported: bool = False
    retry: bool | None = None
    cursor: bool | None = None


class Pending(str, Enum):
    """What a session resumption does with one pending server request (docs/design.md §2)."""

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


Handled = tuple["Outcome | None", Observation, State]
"""What a step's handler gives: the decision's outcome (``None`` for a server or network action),
what the client saw, and the state after."""


class NotModelled(ValueError):
    """Raised for a profile whose state machine the spec does not model."""


def enabled(state: State, action: Action, profile: Profile = Profile.BOUNDARY) -> bool:
    """True when ``action`` can happen in ``state`` under ``profile``.

    Client requests are always enabled (servers must answer any headers); a
    server action needs its target open in a live session; a connection can only
    drop while connected. Only ``CloseConnection`` depends on ``profile``
    (``SERVER_CLOSES_POST_CONNECTIONS``).
    """
    condition = _conditions(profile).get(type(action))
    return True if condition is None else condition(state, action)


class _OnStream(Protocol):
    """A server or network action on one stream."""

    @property
    def stream(self) -> str: ...


def _stream_open(state: State, action: _OnStream) -> bool:
    stream = state.stream(action.stream)
    return stream is not None and stream.status is StreamStatus.OPEN and _live(state, stream.session)


def _of_kind(kind: StreamKind, condition: Callable[[State, _OnStream], bool]) -> Callable[[State, _OnStream], bool]:
    """``condition``, for an action whose stream is of ``kind``."""

    def on_stream_of_kind(state: State, action: _OnStream) -> bool:
        stream = state.stream(action.stream)
        return stream is not None and stream.kind is kind and condition(state, action)

    return on_stream_of_kind


def _stream_retained(state: State, action: _OnStream) -> bool:
    stream = state.stream(action.stream)
    return stream is not None and stream.retained and _live(state, stream.session)


def _stream_has_retained_events(state: State, action: _OnStream) -> bool:
    stream = state.stream(action.stream)
    return stream is not None and _live(state, stream.session) and bool(state.retained_events(stream.id))


def _stream_connected_live(state: State, action: _OnStream) -> bool:
    stream = state.stream(action.stream)
    return stream is not None and stream.connected and _live(state, stream.session)


def _stream_connected(state: State, action: _OnStream) -> bool:
    stream = state.stream(action.stream)
    return stream is not None and stream.connected


def _request_pending_on_open_stream(state: State, action: CancelRequest) -> bool:
    """A pending request whose carrying stream is open: where its cancellation goes (a request
    whose stream is gone is cancelled on the next session resumption instead, ``Pending.CANCEL``)."""
    request = state.request(action.request)
    if request is None or request.status is not RequestStatus.PENDING or not _live(state, request.session):
        return False
    carrier = state.stream(request.stream)
    return carrier is not None and carrier.status is StreamStatus.OPEN


def _session_live(state: State, action: ExpireSession) -> bool:
    return _live(state, action.session)


_ENABLED: dict[type, Callable[[State, Any], bool]] = {
    EmitEvent: _stream_open,
    IssueServerRequest: _stream_open,
    Respond: _of_kind(StreamKind.POST, _stream_open),
    EndStream: _of_kind(StreamKind.GET, _stream_open),
    ExpireStream: _stream_retained,
    EvictEvent: _stream_has_retained_events,
    CloseConnection: _stream_connected_live,
    DropConnection: _stream_connected,
    CancelRequest: _request_pending_on_open_stream,
    ExpireSession: _session_live,
}
"""The condition each server and network action needs (``enabled``); client requests need none."""

SERVER_CLOSES_POST_CONNECTIONS = frozenset({Profile.MCP_2025_11_25, Profile.BOUNDARY})
"""The profiles under which a server may close a POST stream's connection before the response, for
the client to poll (MCP D9, D10). Before 2025-11-25 it closes only a GET stream's (B19, C13-C19):
a POST stream is not closed before its response (B10, C10 SHOULD NOT), and the response ends it."""

_ENABLED_BEFORE_POLLING = {**_ENABLED, CloseConnection: _of_kind(StreamKind.GET, _stream_connected_live)}


def _conditions(profile: Profile) -> dict[type, Callable[[State, Any], bool]]:
    return _ENABLED if profile in SERVER_CLOSES_POST_CONNECTIONS else _ENABLED_BEFORE_POLLING


def step(state: State, action: Action, profile: Profile = Profile.BOUNDARY) -> Transition:
    """The reference transition for ``action`` in ``state``.

    Raises ``NotModelled`` for a sessionless profile and ``ValueError`` when a
    server or network action is not ``enabled``.
    """
    transition = step_if_enabled(state, action, profile)
    if transition is None:
        raise ValueError(f"action {action} is not enabled in this state")
    return transition


def step_if_enabled(state: State, action: Action, profile: Profile = Profile.BOUNDARY) -> Transition | None:
    """``step``, or ``None`` when ``action`` is not ``enabled`` in ``state`` (what an
    explorer that tries every candidate action asks, with one look at the state).

    Raises ``NotModelled`` for a sessionless profile.
    """
    if profile not in SESSION_ERA:
        raise NotModelled(f"{profile.value} has no sessions: its state machine is spec.sessionless.machine, with its own actions")
    condition = _conditions(profile).get(type(action))
    if condition is not None and not condition(state, action):
        return None
    outcome, observation, after = _HANDLERS[type(action)](state, action, profile)
    return _finish(state, action, outcome, observation, after)


def alternatives(state: State, action: Action, profile: Profile = Profile.BOUNDARY) -> tuple[Transition, ...]:
    """Every transition ``profile`` accepts for ``action``, the reference's first.

    Status alternatives (a refusal where the reference proceeds) are not listed:
    a refused request changes nothing. The alternatives of content are a session
    resumption's choices for each request it must deal with (``Pending``):
    re-emit or cancel it (docs/design.md §2 branch 2), or, under the MCP revisions,
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
    if any(choice not in pending_choices(profile) for choice in plan):
        return None
    return planned(state, action, profile, plan)


def planned(state: State, action: Action, profile: Profile, plan: tuple[Pending, ...],
            primed: bool = False) -> Transition | None:
    """``alternative`` whether or not ``profile`` accepts the plan: the state a session
    resumption leaves when a server dealt with the requests so (a checker follows the server
    there after judging it; a request left pending stays carried by its old stream).
    ``primed``: the new stream opened with a priming event (MCP D8), its first event, sent
    before whatever the resumption re-emits or cancels (so a cursor on a re-emission has
    nothing after it, and one on the priming event has the re-emissions after it)."""
    canonical = step(state, action, profile)
    outcome = canonical.outcome
    if outcome is None or outcome.branch is not Branch.SESSION_RESUMPTION or len(plan) != len(outcome.reemit):
        return None
    if all(choice is Pending.REEMIT for choice in plan) and not primed:
        return canonical
    return _resumption_with(state, action, outcome, plan, primed)


def exact_after_eviction(state: State, action: Action, profile: Profile = Profile.BOUNDARY) -> Transition | None:
    """The stream resumption a server may answer instead of branch 3's refusal when
    ``action`` names a cursor its ring buffer evicted while every later event of the stream
    is retained (``Outcome.stream`` set on branch 3): 200, the exact replay, the stream
    continued (docs/design.md §2, partial retention; MCP D28). ``None`` for any other step."""
    outcome = step(state, action, profile).outcome
    if outcome is None or outcome.branch is not Branch.REJECT_FOREIGN_EVENT_ID or outcome.stream is None:
        return None
    observation, after = _resume_stream(state, outcome, status=200)
    return _finish(state, action, outcome, observation, after)


def ended_at_will(state: State, action: Action, status: int | None, profile: Profile) -> str | None:
    """The session a server shows it ended on its own by answering ``action`` with 404, or ``None``.

    MCP B33: a server may end a session at any time and then answers its id with 404 for
    good. Under an MCP revision a 404 to a request naming a live session is read so (a
    later answer other than 404 for it breaks ``unknown-session-404``); not a 404 to a
    ``Last-Event-ID``, which may refuse the cursor (MCP leaves that open, rules §3.2;
    a checker cannot always see a stream expire), nor while a call of
    the session is unfinished (its client would send the call again: judged as it stands,
    ``no-duplicate-tool-call``). Under ``boundary`` it is not: the session's life is the
    boundary's (``expiry-independent``).
    """
    if status != 404 or profile not in MCP_SESSION_REVISIONS or action.side != "client":
        return None
    session: str | None = getattr(action, "session", None)
    if session is None or not _live(state, session) or getattr(action, "last_event_id", None) is not None:
        return None  # a 404 to a cursor may refuse the cursor: branch 3's refusal, MCP's silence (rules §3.2)
    if any(s.kind is StreamKind.POST and s.status is StreamStatus.OPEN for s in state.streams_of(session)):
        return None  # a call of it is unfinished: the 404 is judged as it stands (no-duplicate-tool-call)
    return session


def _resumption_with(state: State, action: Action, outcome: Outcome, plan: tuple[Pending, ...], primed: bool = False) -> Transition:
    session = getattr(action, "session", None)
    assert session is not None  # a session resumption names its live session
    observation, after = _resume_session(state, session, outcome, plan, primed)
    return _finish(state, action, outcome, observation, after)


def _finish(state: State, action: Action, outcome: Outcome | None, observation: Observation, after: State) -> Transition:
    closed = observation.closed
    ended = _closed_connections(state, after)
    if ended:
        closed = tuple(dict.fromkeys(closed + ended))
    error = observation.error
    if outcome is not None and outcome.error is not None and observation.status == outcome.status:
        error = outcome.error
    if closed != observation.closed or error != observation.error:
        # built field by field: ``dataclasses.replace`` costs several times more, on every step
        o = observation
        observation = Observation(o.status, o.session, o.stream, o.event, o.request, o.events, closed, error, o.primed,
                                  o.version_refused, o.about, o.response, o.version_unsupported, o.retry,
                                  o.cursor)
    return Transition(state, action, outcome, observation, remember(state, after, observation))


def remember(before: State, after: State, observation: Observation) -> State:
    """``after`` with the client's memory brought up to date by the step from ``before``
    that showed the client ``observation``.

    ``after`` is the server's side of the step: its client memory is still ``before``'s
    (every handler of ``step`` but ``initialize`` and ``restart_client`` leaves it so).
    The client stops holding each server request that stopped being pending (answered
    or cancelled), then records each delivered event: the cursor of its stream moves
    to it, and a pending request it carries is held (once). Nothing else about the
    client changes, and nothing the server decides depends on it, so one server step
    serves every client memory beside it (the fast explorer relies on this).
    """
    if after.requests is not before.requests:
        for request in before.requests:
            if request.status is RequestStatus.PENDING and after.held_request(request.id).status is not RequestStatus.PENDING:
                after = _forget_request(after, request.session, request.id)
    if observation.events:
        after = _receive(after, observation.events)
    return after


# -- client requests ------------------------------------------------------------


_NOTHING = Observation()
"""What a server or network action shows the client when it delivers nothing."""


def _answer(status: int, error: int | None) -> Observation:
    """The reference's answer without a body of interest: its status, and a refusal's
    error code."""
    return Observation(status, error=error)


def _initialize(state: State, action: Initialize, profile: Profile) -> Handled:
    outcome = decide_headers(state, Method.POST_INITIALIZE, None, None, None, profile)
    if outcome.branch is not Branch.NEW_SESSION:
        return outcome, _answer(outcome.status, outcome.error), state
    session = state.next_session_id()
    after = state.with_session(Session(session)).with_client_session(ClientSession(session))
    return outcome, Observation(outcome.status, session=session), after


def _call_tool(state: State, action: CallTool, profile: Profile) -> Handled:
    outcome = decide_headers(state, Method.POST_REQUEST, action.session, None, None, profile)
    if outcome.branch is not Branch.SESSION_REQUEST:
        return outcome, _answer(outcome.status, outcome.error), state
    assert action.session is not None  # a live session's id, by the decision
    stream = state.next_stream_id()
    after = state.with_stream(Stream(stream, action.session, StreamKind.POST))
    return outcome, Observation(outcome.status, stream=stream), after


def _reconnect(state: State, action: Reconnect, profile: Profile) -> Handled:
    outcome = decide_headers(state, Method.GET, action.session, action.last_event_id, None, profile)
    if outcome.branch is Branch.STREAM_RESUMPTION:
        return outcome, *_resume_stream(state, outcome)
    if outcome.branch is Branch.SESSION_RESUMPTION:
        assert action.session is not None  # a live session's id, by the decision
        return outcome, *_resume_session(state, action.session, outcome)
    return outcome, _answer(outcome.status, outcome.error), state


def _resume_stream(state: State, outcome: Outcome, status: int | None = None) -> tuple[Observation, State]:
    """Branch 1: the replay, then the stream continues on the new connection; a
    connection still open to it closes first (never two connections to one
    stream, docs/design.md §2). ``status``: the answer's, when not the outcome's."""
    stream = state.held_stream(outcome.stream)
    after = state.with_stream(_stream_with(stream, connected=stream.status is StreamStatus.OPEN))
    delivered = tuple(_delivered(state.held_event(e)) for e in outcome.replay)
    superseded = (stream.id,) if stream.connected else ()
    status = outcome.status if status is None else status
    return Observation(status, stream=stream.id, events=delivered, closed=superseded), after


def _resume_session(state: State, session: str, outcome: Outcome, plan: tuple[Pending, ...] | None = None,
                    primed: bool = False) -> tuple[Observation, State]:
    """Branch 2: a fresh GET stream; each request of ``outcome.reemit`` re-emitted
    on it, cancelled on it, or left, as ``plan`` says (all re-emitted by default);
    ``primed``: a priming event first (MCP D8)."""
    stream = state.next_stream_id()
    after = state.with_stream(Stream(stream, session, StreamKind.GET))
    delivered = []
    if primed:
        priming = Event(after.next_event_id(), stream)
        after = after.with_event(priming)
        delivered.append(_delivered(priming))
    for request_id, choice in zip(outcome.reemit, plan or (Pending.REEMIT,) * len(outcome.reemit)):
        if choice is Pending.LEAVE:
            continue
        request = after.held_request(request_id)
        if choice is Pending.REEMIT:
            event = Event(after.next_event_id(), stream, request_id)
            reemitted = ServerRequest(request.id, request.session, stream, request.status, request.origin)
            after = after.with_event(event).with_request(reemitted)
        else:
            event = Event(after.next_event_id(), stream, cancels=request_id)
            after = after.with_event(event).with_request(_request_with(request, RequestStatus.CANCELLED))
        delivered.append(_delivered(event))
    return Observation(outcome.status, stream=stream, events=tuple(delivered)), after


def _answer_request(state: State, action: AnswerRequest, profile: Profile) -> Handled:
    outcome = decide_headers(state, Method.POST_RESPONSE, action.session, None, action.request, profile)
    if outcome.branch is not Branch.SESSION_REQUEST:
        return outcome, _answer(outcome.status, outcome.error), state
    after = state
    request = state.request(action.request)
    if request is not None and request.session == action.session and request.status is RequestStatus.PENDING:
        after = state.with_request(_request_with(request, RequestStatus.ANSWERED))
    return outcome, _answer(outcome.status, outcome.error), after


def _delete_session(state: State, action: DeleteSession, profile: Profile) -> Handled:
    outcome = decide_headers(state, Method.DELETE, action.session, None, None, profile)
    if outcome.branch is not Branch.SESSION_TERMINATION:
        return outcome, _answer(outcome.status, outcome.error), state
    assert action.session is not None  # a live session's id, by the decision
    return outcome, _answer(outcome.status, outcome.error), _end_session(state, action.session, SessionStatus.DELETED)


def _restart_client(state: State, action: RestartClient, profile: Profile) -> Handled:
    forgotten = tuple(ClientSession(entry.session) for entry in state.client)
    return None, _NOTHING, state.with_client(forgotten)


# -- network and server actions -------------------------------------------------


def _drop_connection(state: State, action: DropConnection | CloseConnection, profile: Profile) -> Handled:
    stream = state.held_stream(action.stream)
    return None, _NOTHING, state.with_stream(_stream_with(stream, connected=False))


def _evict_event(state: State, action: EvictEvent, profile: Profile) -> Handled:
    stream = state.held_stream(action.stream)
    return None, _NOTHING, state.with_stream(_stream_with(stream, evicted=stream.evicted + 1))


def _emit_event(state: State, action: EmitEvent, profile: Profile) -> Handled:
    return _send_on_stream(state, action.stream, request=None)


def _issue_server_request(state: State, action: IssueServerRequest, profile: Profile) -> Handled:
    stream = state.held_stream(action.stream)
    request = ServerRequest(state.next_request_id(), stream.session, stream.id)
    return _send_on_stream(state.with_request(request), stream.id, request=request.id)


def _send_on_stream(state: State, stream_id: str, request: str | None = None, **event_fields: Any) -> Handled:
    """One event on ``stream_id`` (carrying ``request``, or ``Event``'s other ``event_fields``),
    delivered if the stream is connected, stored for replay either way."""
    stream = state.held_stream(stream_id)
    event = Event(state.next_event_id(), stream_id, request, **event_fields)
    after = state.with_event(event)
    delivered = (_delivered(event),) if stream.connected else ()
    return None, Observation(event=event.id, request=request, events=delivered), after


def _cancel_request(state: State, action: CancelRequest, profile: Profile) -> Handled:
    """``notifications/cancelled`` on the request's carrying stream; the request ends."""
    request = state.held_request(action.request)
    _, observed, after = _send_on_stream(state, request.stream, cancels=request.id)
    return None, observed, after.with_request(_request_with(request, RequestStatus.CANCELLED))


def _respond(state: State, action: Respond, profile: Profile) -> Handled:
    """The call's response as the POST stream's last event, then the stream ends (MCP B8, B11, D11)."""
    stream = state.held_stream(action.stream)
    _, observed, after = _send_on_stream(state, stream.id, response=True)
    ended = _stream_with(stream, status=StreamStatus.ENDED, connected=False)
    answered = Observation(event=observed.event, events=observed.events, about=stream.id, response=True)
    return None, answered, after.with_stream(ended)


def _end_stream(state: State, action: EndStream, profile: Profile) -> Handled:
    stream = state.held_stream(action.stream)
    ended = _stream_with(stream, status=StreamStatus.ENDED, connected=False)
    return None, _NOTHING, state.with_stream(ended)


def _expire_stream(state: State, action: ExpireStream, profile: Profile) -> Handled:
    stream = state.held_stream(action.stream)
    expired = _stream_with(stream, status=StreamStatus.EXPIRED, connected=False)
    return None, _NOTHING, state.with_stream(expired)


def _expire_session(state: State, action: ExpireSession, profile: Profile) -> Handled:
    return None, _NOTHING, _end_session(state, action.session, SessionStatus.EXPIRED)


# -- helpers --------------------------------------------------------------------


def _closed_connections(before: State, after: State) -> tuple[str, ...]:
    """Streams connected in ``before`` and not in ``after``."""
    if after.streams is before.streams:
        return ()
    return tuple(s.id for s in before.streams if s.connected and not after.held_stream(s.id).connected)


def _live(state: State, session_id: str | None) -> bool:
    session = state.session(session_id)
    return session is not None and session.status is SessionStatus.LIVE


def _end_session(state: State, session_id: str, status: SessionStatus) -> State:
    """A session ends with all its streams and their event ids (docs/design.md §2)."""
    streams = tuple(_stream_with(s, status=StreamStatus.EXPIRED, connected=False) if s.session == session_id else s
                    for s in state.streams)
    return State(state.sessions, streams, state.events, state.requests, state.client).with_session(
        Session(session_id, status))


# Entities with a field or two changed are built directly, not with ``dataclasses.replace``,
# which costs several times more on every step of the explorers.


def _stream_with(stream: Stream, status: StreamStatus | None = None, connected: bool | None = None,
                 evicted: int | None = None) -> Stream:
    """``stream`` with the given fields changed."""
    return Stream(stream.id, stream.session, stream.kind, stream.status if status is None else status,
                  stream.connected if connected is None else connected, stream.evicted if evicted is None else evicted)


def _request_with(request: ServerRequest, status: RequestStatus) -> ServerRequest:
    """``request`` with another status."""
    return ServerRequest(request.id, request.session, request.stream, status, request.issued_on)


def _delivered(event: Event) -> Delivered:
    return Delivered(event.id, event.request, event.stream, event.cancels)


def _receive(state: State, delivered: tuple[Delivered, ...]) -> State:
    """The client records the events it received, each under the session of its stream."""
    memories: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {}  # session -> its cursors and held requests
    for item in delivered:  # every delivered event names its stream (_delivered)
        stream = state.held_stream(item.stream)
        session_id = stream.session
        memory = memories.get(session_id)
        if memory is None:
            entry = state.client_session(session_id)
            if entry is None:
                continue
            memory = memories[session_id] = (dict(entry.cursors), entry.seen)
        cursors, seen = memory
        cursors[stream.id] = item.event
        request = state.request(item.request)
        if request is not None and request.status is RequestStatus.PENDING and request.id not in seen:
            memories[session_id] = (cursors, seen + (request.id,))
    for session_id, (cursors, seen) in memories.items():
        state = state.with_client_session(ClientSession(session_id, tuple(cursors.items()), seen))
    return state


def _forget_request(state: State, session_id: str | None, request_id: str) -> State:
    entry = state.client_session(session_id) if session_id else None
    if entry is None or request_id not in entry.seen:
        return state
    seen = tuple(r for r in entry.seen if r != request_id)
    return state.with_client_session(ClientSession(entry.session, entry.cursors, seen))


_HANDLERS: dict[type, Callable[..., Handled]] = {
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
    Respond: _respond,
    EndStream: _end_stream,
    ExpireStream: _expire_stream,
    ExpireSession: _expire_session,
}
