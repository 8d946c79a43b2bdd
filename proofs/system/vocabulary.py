"""The signature of the transition system: state, rigid attributes, one step.

Entities are elements of four uninterpreted sorts (``ts_logic.SORTS``); an
element is *issued* once the server has minted it, so a header naming an element
that is not issued is a well-formed id that names nothing ("unknown").

- ``State``: the relations a step may change (statuses, connections, the
  client's memory), one copy per time frame;
- ``Rigid``: the attributes an entity gets when it is minted and keeps for ever
  (a stream's session and kind, an event's stream and the request it carries,
  the order of events, a server request's session and first stream);
- ``Params``: one action: its kind, its headers, its target, and the elements
  it may mint;
- ``Observation``: what the client sees of one step: the status, the events
  delivered, the server requests they carry, the connections closed.

Function symbols only point from events to streams, from streams to sessions
and from requests to sessions, streams and (re-emission) events, so the sort
graph is acyclic (Request -> Event -> Stream -> Session) and the proof queries
stay in many-sorted EPR with stratified functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Callable

from mcp_resume.spec.decision import Method

from mcp_resume.proofs.system.logic import EVENT, REQUEST, SESSION, STREAM, Logic


class ActionKind(str, Enum):
    """The spec's sixteen actions (``spec.actions.ACTION_TYPES``), by kind."""

    INITIALIZE = "initialize"
    CALL_TOOL = "call_tool"
    RECONNECT = "reconnect"
    ANSWER_REQUEST = "answer_request"
    DELETE_SESSION = "delete_session"
    DROP_CONNECTION = "drop_connection"
    RESTART_CLIENT = "restart_client"
    CLOSE_CONNECTION = "close_connection"
    EVICT_EVENT = "evict_event"
    EMIT_EVENT = "emit_event"
    ISSUE_SERVER_REQUEST = "issue_server_request"
    CANCEL_REQUEST = "cancel_request"
    RESPOND = "respond"
    END_STREAM = "end_stream"
    EXPIRE_STREAM = "expire_stream"
    EXPIRE_SESSION = "expire_session"


METHOD_OF: dict[ActionKind, Method] = {
    ActionKind.INITIALIZE: Method.POST_INITIALIZE,
    ActionKind.CALL_TOOL: Method.POST_REQUEST,
    ActionKind.RECONNECT: Method.GET,
    ActionKind.ANSWER_REQUEST: Method.POST_RESPONSE,
    ActionKind.DELETE_SESSION: Method.DELETE,
}
"""The HTTP request each client action sends; the other actions send none."""

CLIENT_REQUESTS = tuple(METHOD_OF)
"""Actions that are HTTP requests and get a status."""

STATE_RELATIONS: dict[str, tuple[str, ...]] = {
    "s_issued": (SESSION,),
    "s_live": (SESSION,),
    "t_issued": (STREAM,),
    "t_open": (STREAM,),
    "t_expired": (STREAM,),
    "t_connected": (STREAM,),
    "e_issued": (EVENT,),
    "e_evicted": (EVENT,),
    "r_issued": (REQUEST,),
    "r_pending": (REQUEST,),
    "r_carrier": (REQUEST, STREAM),
    "cursor": (SESSION, STREAM, EVENT),
    "seen": (SESSION, REQUEST),
}
"""Mutable relations. A stream is open, ended (issued, neither open nor expired)
or expired; ``e_evicted(e)``: a ring buffer discarded ``e`` (docs/design.md §2);
``r_carrier(r, t)``: ``t`` is the stream that carries ``r`` (where it was issued,
or last re-emitted: ``ServerRequest.stream``); ``cursor(s, t, e)``: the client
holds ``e`` as its last event id of stream ``t`` under session ``s``;
``seen(s, r)``: it holds server request ``r``."""

CLIENT_RELATIONS = ("cursor", "seen")
"""The client's memory: no server observation depends on it."""


@dataclass(frozen=True)
class State:
    tag: str
    s_issued: Callable
    s_live: Callable
    t_issued: Callable
    t_open: Callable
    t_expired: Callable
    t_connected: Callable
    e_issued: Callable
    e_evicted: Callable
    r_issued: Callable
    r_pending: Callable
    r_carrier: Callable
    cursor: Callable | None
    seen: Callable | None


def state(L: Logic, tag: str, client: bool = True) -> State:
    """The state relations of frame ``tag`` (SMT names ``<tag>.<relation>``)."""
    made = {
        name: (L.relation(f"{tag}.{name}", sorts) if client or name not in CLIENT_RELATIONS else None)
        for name, sorts in STATE_RELATIONS.items()
    }
    return State(tag, **made)


RIGID_FUNCTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "owner": ((STREAM,), SESSION),
    "stream_of": ((EVENT,), STREAM),
    "r_session": ((REQUEST,), SESSION),
    "r_stream": ((REQUEST,), STREAM),
}
RIGID_RELATIONS: dict[str, tuple[str, ...]] = {
    "t_get": (STREAM,),
    "carries": (EVENT, REQUEST),
    "cancels": (EVENT, REQUEST),
    "lt": (EVENT, EVENT),
}


NO_ANSWER_STATUS = 0
"""The status of a client request the server never answers (``spec.transitions.Observation.status``
``None``; a server action's status too): no status the decision accepts."""


@dataclass(frozen=True)
class Rigid:
    """Attributes fixed when an entity is minted: ``owner(t)`` the stream's session,
    ``t_get(t)`` a standalone GET stream (else a POST stream), ``stream_of(e)``,
    ``carries(e, r)``, ``cancels(e, r)`` (``e`` is a ``notifications/cancelled`` of
    ``r``), ``lt(e1, e2)`` (e1 was sent before e2; stream order is this
    order restricted to one stream), ``r_session(r)``, ``r_stream(r)`` (where the
    request was first sent)."""

    owner: Callable
    stream_of: Callable
    r_session: Callable
    r_stream: Callable
    t_get: Callable
    carries: Callable
    cancels: Callable
    lt: Callable


def rigid(L: Logic) -> Rigid:
    made = {name: L.function(name, sorts, result) for name, (sorts, result) in RIGID_FUNCTIONS.items()}
    made.update({name: L.relation(name, sorts) for name, sorts in RIGID_RELATIONS.items()})
    return Rigid(**made)


@dataclass(frozen=True)
class Params:
    """One action.

    Headers: ``sh_present`` / ``sh_malformed`` / ``sh`` for ``Mcp-Session-Id``
    (``sh`` is the session it names when present and well-formed; an element not
    issued is an unknown id), the same for ``Last-Event-ID`` with ``eh``. Targets
    of server and network actions: ``target_stream``, ``target_request``,
    ``target_session``; ``target_request`` is also the request an answer names.
    ``target_event``: the event a ring buffer evicts. Minted elements:
    ``new_session``, ``new_stream``, ``new_event``, ``new_request``, and
    ``reemit(r)``, the event that re-emits or cancels request ``r`` on a session
    resumption. A session resumption's choice per request it must deal with
    (``spec.transitions.Pending``): ``cancel(r)`` cancels it, ``leave(r)`` leaves
    it pending (the MCP revisions only, rules §3.7), neither re-emits it.
    ``stranded(r)``: no open connection carries ``r`` before the step (defined by
    the reconnect formula; a relation, so that no formula quantifies a stream
    under a session and the sort graph stays acyclic).
    """

    tag: str
    kind: object
    sh_present: object
    sh_malformed: object
    sh: object
    eh_present: object
    eh_malformed: object
    eh: object
    target_stream: object
    target_request: object
    target_session: object
    target_event: object
    new_session: object
    new_stream: object
    new_event: object
    new_request: object
    reemit: Callable
    stranded: Callable
    cancel: Callable
    leave: Callable


def params(L: Logic, tag: str) -> Params:
    return Params(
        tag=tag,
        kind=L.enum_constant(f"{tag}.kind", ActionKind),
        sh_present=L.boolean(f"{tag}.sh_present"),
        sh_malformed=L.boolean(f"{tag}.sh_malformed"),
        sh=L.constant(f"{tag}.sh", SESSION),
        eh_present=L.boolean(f"{tag}.eh_present"),
        eh_malformed=L.boolean(f"{tag}.eh_malformed"),
        eh=L.constant(f"{tag}.eh", EVENT),
        target_stream=L.constant(f"{tag}.target_stream", STREAM),
        target_request=L.constant(f"{tag}.target_request", REQUEST),
        target_session=L.constant(f"{tag}.target_session", SESSION),
        target_event=L.constant(f"{tag}.target_event", EVENT),
        new_session=L.constant(f"{tag}.new_session", SESSION),
        new_stream=L.constant(f"{tag}.new_stream", STREAM),
        new_event=L.constant(f"{tag}.new_event", EVENT),
        new_request=L.constant(f"{tag}.new_request", REQUEST),
        reemit=L.function(f"{tag}.reemit", (REQUEST,), EVENT),
        stranded=L.relation(f"{tag}.stranded", (REQUEST,)),
        cancel=L.relation(f"{tag}.cancel", (REQUEST,)),
        leave=L.relation(f"{tag}.leave", (REQUEST,)),
    )


@dataclass(frozen=True)
class Observation:
    """What one step shows the client.

    ``status`` (an HTTP status; 0 for server and network actions),
    ``delivered(e)``, ``on(e, t)`` (``e`` went out on a connection of stream ``t``: where a
    message was sent, apart from which event it is, so one event sent on several streams, or
    on a connection of another session, can be stated), ``requests(r)`` (some delivered event carries ``r``),
    ``closed(t)`` (the step ended ``t``'s connection), ``any`` (something was
    delivered), ``last`` (the last event delivered, when ``any``) and ``stream``
    (the stream a reconnect answered 200 names: the resumed one, or the new one
    of a session resumption; unconstrained on other steps).
    """

    tag: str
    status: object
    delivered: Callable
    on: Callable
    requests: Callable
    closed: Callable
    any: object
    last: object
    stream: object


def observation(L: Logic, tag: str) -> Observation:
    return Observation(
        tag=tag,
        status=L.integer(f"{tag}.status"),
        delivered=L.relation(f"{tag}.delivered", (EVENT,)),
        on=L.relation(f"{tag}.on", (EVENT, STREAM)),
        requests=L.relation(f"{tag}.requests", (REQUEST,)),
        closed=L.relation(f"{tag}.closed", (STREAM,)),
        any=L.boolean(f"{tag}.any"),
        last=L.constant(f"{tag}.last", EVENT),
        stream=L.constant(f"{tag}.stream", STREAM),
    )
