"""What the explorer enumerates: the bounds of a run, and every action worth trying.

A ``Bounds`` limits how many sessions a state may hold, how many streams each
session, how many events each stream and how many server requests each session,
and optionally how many steps a state may lie from the initial state. A
transition whose target breaks a bound is *pruned*: it is neither counted as a
transition nor checked, and its target is not explored (TLC's state constraint).

``candidate_actions`` lists, for one state, every client request with every
meaningful header combination (each session of the state, live or ended, and an
unknown, a malformed and an absent session id; each event of the state, own,
foreign or expired relative to that session, and an unknown, a malformed and an
absent event id) and every server and network action on the state's own streams,
requests and sessions. The explorer keeps the ones ``spec.transitions.enabled``
allows.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from mcp_resume.spec import actions as a
from mcp_resume.spec.state import State

from mcp_resume.spec.literals import EVENT_LITERALS, SESSION_LITERALS, UNKNOWN_REQUEST

SERVER_STREAM_ACTIONS = (a.EmitEvent, a.IssueServerRequest, a.DropConnection, a.EndStream, a.ExpireStream)


@dataclass(frozen=True)
class Bounds:
    """Limits of one exploration; ``depth=None`` explores until no new state appears."""

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

    def to_json(self) -> dict:
        return asdict(self)


NAMED_BOUNDS: dict[str, Bounds] = {
    "graph": Bounds(sessions=1, streams=1, events=1, requests=1, depth=4),
    "tiny": Bounds(sessions=1, streams=1, events=2, requests=1),
    "small": Bounds(sessions=2, streams=1, events=2, requests=1, depth=6),
    "kill": Bounds(sessions=2, streams=2, events=2, requests=1, depth=7),
    "default": Bounds(sessions=2, streams=2, events=3, requests=1, depth=10),
    "deep": Bounds(sessions=2, streams=2, events=3, requests=1, depth=11),
}
"""The bounds a user can name on the command line. ``default`` is what ``mcp-resume
check`` exhausts; ``kill`` is where the kill matrix explores each faulty design
(the deepest design needs 7 steps and two streams of one session); ``graph`` is
small enough to draw."""

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
    """True when ``state`` respects every entity bound (depth is the explorer's business)."""
    if len(state.sessions) > bounds.sessions:
        return False
    return (
        _most(s.session for s in state.streams) <= bounds.streams
        and _most(e.stream for e in state.events) <= bounds.events
        and _most(r.session for r in state.requests) <= bounds.requests
    )


def _most(owners) -> int:
    """How many items the most frequent owner has (0 for none)."""
    counts: dict[str, int] = {}
    for owner in owners:
        counts[owner] = counts.get(owner, 0) + 1
    return max(counts.values(), default=0)


def candidate_actions(state: State) -> list[a.Action]:
    """Every action worth trying in ``state``, in a fixed order (client requests first).

    Server and network actions are listed for every target; ``enabled`` decides.
    """
    sessions = [s.id for s in state.sessions]
    events = [e.id for e in state.events]
    requests = [r.id for r in state.requests]
    actions: list[a.Action] = [a.Initialize()]
    for session in sessions + list(SESSION_LITERALS):
        actions.append(a.CallTool(session))
        actions += [a.Reconnect(session, event) for event in events + list(EVENT_LITERALS)]
        actions += [a.AnswerRequest(session, request) for request in requests + [UNKNOWN_REQUEST]]
        actions.append(a.DeleteSession(session))
    actions.append(a.RestartClient())
    for stream in state.streams:
        actions += [kind(stream.id) for kind in SERVER_STREAM_ACTIONS]
    actions += [a.CancelRequest(request) for request in requests]
    actions += [a.ExpireSession(session) for session in sessions]
    return actions
