"""The state space every explorer walks: its bounds, and the actions worth trying in a state.

Bounds.

How far an exploration of the spec goes: the bounds of a run, named bounds, ``within``.

A ``Bounds`` limits how many sessions a state may hold, how many streams each
session, how many events each stream and how many server requests each session,
and optionally how many steps a state may lie from the initial state. A
transition whose target breaks a bound is *pruned*: it is neither counted as a
transition nor checked, and its target is not explored (TLC's state constraint).
Every explorer of the project (``model.explore``, the lifecycle diagrams, the
agreement of the Z3 encoding with the spec) reads the same bounds the same way.

Candidate actions.

Every action worth trying in a state: the one list every explorer tries.

``candidate_actions`` lists, for one state, every client request with every
meaningful header combination (each session of the state, live or ended, and an
unknown, a malformed and an absent session id; each event of the state, own,
foreign or expired relative to that session, and an unknown, a malformed and an
absent event id; each server request of the state and one never issued) and
every server and network action on the state's own streams, requests and
sessions. An explorer keeps the ones ``transitions.enabled`` allows.

``acting_session`` says which session an action of that list acts on, so that an
explorer working session by session (``model.explore.fast``) can take its
per-session actions from this same list.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass

from . import actions as a
from .headers import EVENT_LITERALS, SESSION_LITERALS, UNKNOWN_REQUEST
from .state import State


@dataclass(frozen=True)
class Bounds:
    """Limits of one exploration; ``depth=None`` explores until no new state appears.

    Raises ``ValueError`` for a negative limit.
    """

    sessions: int
    streams: int
    events: int
    requests: int
    depth: int | None = None

    def __post_init__(self) -> None:
        for name in ("sessions", "streams", "events", "requests"):
            if getattr(self, name) < 0:
                raise ValueError(f"bound {name} must be 0 or more, got {getattr(self, name)}")
        if self.depth is not None and self.depth < 0:
            raise ValueError(f"bound depth must be 0 or more, got {self.depth}")

    def describe(self) -> str:
        depth = "unbounded depth" if self.depth is None else f"depth {self.depth}"
        return (
            f"{self.sessions} session(s), {self.streams} stream(s)/session, {self.events} event(s)/stream, "
            f"{self.requests} server request(s)/session, {depth}"
        )

    def to_json(self) -> dict[str, int]:
        return asdict(self)


NAMED_BOUNDS: dict[str, Bounds] = {
    "graph": Bounds(sessions=1, streams=1, events=2, requests=1, depth=4),
    "tiny": Bounds(sessions=1, streams=1, events=2, requests=1),
    "small": Bounds(sessions=2, streams=1, events=2, requests=1, depth=6),
    "kill": Bounds(sessions=2, streams=2, events=2, requests=2, depth=7),
    "default": Bounds(sessions=2, streams=2, events=3, requests=2, depth=10),
    "deep": Bounds(sessions=2, streams=2, events=3, requests=2, depth=11),
}
"""The bounds a user can name on the command line. ``default`` is what ``mcp-resume
explore`` exhausts unless told otherwise; ``kill`` is where ``mcp-resume check`` exhausts
the spec and the kill matrix explores each faulty design
(the deepest design needs 7 steps and two streams of one session); ``graph`` is
small enough to draw; ``deep`` goes four steps further than ``kill`` with a third event
per stream. ``default``, ``kill`` and ``deep`` hold two server requests per session:
the real failure had two requests pending on one dropped stream, re-emitted together
by a session resumption, and a pending table that keeps one request per session
(design 27) shows only once a second request overwrites the first."""

DEFAULT_BOUND = "default"
KILL_BOUND = "kill"
GRAPH_BOUND = "graph"


def named_bound(name: str) -> Bounds:
    """The bound called ``name``; ``ValueError`` naming the known bounds otherwise."""
    try:
        return NAMED_BOUNDS[name]
    except KeyError:
        raise ValueError(f"unknown bound {name!r}; known bounds: {', '.join(NAMED_BOUNDS)}") from None


def within(state: State, bounds: Bounds) -> bool:
    """True when ``state`` respects every entity bound (depth is the walk's business)."""
    if len(state.sessions) > bounds.sessions:
        return False
    if len(state.streams) <= bounds.streams and len(state.events) <= bounds.events \
            and len(state.requests) <= bounds.requests:
        return True  # no owner can hold more than there are
    return (
        _most(s.session for s in state.streams) <= bounds.streams
        and _most(e.stream for e in state.events) <= bounds.events
        and _most(r.session for r in state.requests) <= bounds.requests
    )


def _most(owners: Iterable[str]) -> int:
    """How many items the most frequent owner has (0 for none)."""
    counts: dict[str, int] = {}
    for owner in owners:
        counts[owner] = counts.get(owner, 0) + 1
    return max(counts.values(), default=0)


@dataclass(frozen=True)
class HeaderValues:
    """The values tried beyond the state's own handles: session headers, event
    headers and request ids that name nothing of the state."""

    sessions: tuple[str | None, ...]
    events: tuple[str | None, ...]
    requests: tuple[str, ...]


ANY_HEADERS = HeaderValues(SESSION_LITERALS, EVENT_LITERALS, (UNKNOWN_REQUEST,))
"""What a client may send: every literal of ``literals`` (what the explorers try)."""

ISSUED_HEADERS = HeaderValues((), (None,), ())
"""Only what the state issued, and an absent event id (what the lifecycle diagrams
try: the life of the ids a server gave out, not the refusals of ids it never did)."""

SERVER_STREAM_ACTIONS = (
    a.EmitEvent, a.IssueServerRequest, a.DropConnection, a.CloseConnection, a.Respond, a.EndStream, a.ExpireStream,
    a.EvictEvent,
)
"""The server and network actions on one stream, in the order they are tried."""

CLIENT_REQUESTS = (a.CallTool, a.Reconnect, a.AnswerRequest, a.DeleteSession)
"""The actions that are requests of the client, carrying a session header."""


def candidate_actions(state: State, headers: HeaderValues = ANY_HEADERS) -> list[a.Action]:
    """Every action worth trying in ``state``, in a fixed order (client requests first).

    For each session header (the state's sessions, then ``headers.sessions``):
    ``call_tool``, ``reconnect`` with each event header (the state's events, then
    ``headers.events``), ``answer_request`` with each request id (the state's,
    then ``headers.requests``), ``delete_session``; then ``restart_client``; the
    ``SERVER_STREAM_ACTIONS`` on each stream; ``cancel_request`` on each request;
    ``expire_session`` on each session. Server and network actions are listed for
    every target; ``enabled`` decides.
    """
    sessions = [s.id for s in state.sessions]
    events: list[str | None] = [e.id for e in state.events]
    requests = [r.id for r in state.requests]
    actions: list[a.Action] = [a.Initialize()]
    events += headers.events
    requests += headers.requests
    for session in sessions + list(headers.sessions):
        actions.append(a.CallTool(session))
        actions += [a.Reconnect(session, event) for event in events]
        actions += [a.AnswerRequest(session, request) for request in requests]
        actions.append(a.DeleteSession(session))
    actions.append(a.RestartClient())
    for stream in state.streams:
        actions += [kind(stream.id) for kind in SERVER_STREAM_ACTIONS]
    actions += [a.CancelRequest(request.id) for request in state.requests]
    actions += [a.ExpireSession(session) for session in sessions]
    return actions


def acting_session(state: State, action: a.Action) -> str | None:
    """The session of ``state`` that ``action`` acts on: the session header of a
    client request (which may name no session of the state), the owner of the
    stream or request a server action targets, the session that expires; None for
    ``initialize``, ``restart_client`` and a target the state does not hold."""
    if isinstance(action, CLIENT_REQUESTS) or isinstance(action, a.ExpireSession):
        return action.session
    if isinstance(action, SERVER_STREAM_ACTIONS):
        stream = state.stream(action.stream)
        return stream.session if stream is not None else None
    if isinstance(action, a.CancelRequest):
        request = state.request(action.request)
        return request.session if request is not None else None
    return None
