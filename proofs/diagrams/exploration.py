"""A small bounded exploration of the spec's transition relation.

Breadth-first from ``INITIAL_STATE`` through ``transitions.step``, trying every
action on the handles the state already has (and ``enabled`` for server and
network actions), within bounds on depth and on how many sessions, streams,
events and server requests a state may hold. Used to draw lifecycles from the
spec itself; ``model`` owns the exhaustive explorer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from mcp_resume.spec.actions import (
    Action,
    AnswerRequest,
    CallTool,
    CancelRequest,
    DeleteSession,
    DropConnection,
    EmitEvent,
    EndStream,
    ExpireSession,
    ExpireStream,
    Initialize,
    IssueServerRequest,
    Reconnect,
)
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import INITIAL_STATE, State
from mcp_resume.spec.transitions import Transition, enabled, step


@dataclass(frozen=True)
class Bounds:
    """Exploration limits: steps from the initial state, and entities per state."""

    depth: int = 6
    sessions: int = 1
    streams: int = 2
    events: int = 2
    requests: int = 1


def candidate_actions(state: State) -> Iterator[Action]:
    """Every action on the state's own handles, client requests first, in a fixed order."""
    sessions = [s.id for s in state.sessions]
    yield Initialize()
    for session in sessions:
        yield CallTool(session)
        yield Reconnect(session, None)
        for event in state.events:
            yield Reconnect(session, event.id)
        for request in state.requests:
            yield AnswerRequest(session, request.id)
        yield DeleteSession(session)
    for stream in state.streams:
        for kind in (DropConnection, EmitEvent, IssueServerRequest, EndStream, ExpireStream):
            yield kind(stream.id)
    for request in state.requests:
        yield CancelRequest(request.id)
    for session in sessions:
        yield ExpireSession(session)


def within(state: State, bounds: Bounds) -> bool:
    return (
        len(state.sessions) <= bounds.sessions
        and len(state.streams) <= bounds.streams
        and len(state.events) <= bounds.events
        and len(state.requests) <= bounds.requests
    )


def explore(bounds: Bounds = Bounds(), profile: Profile = Profile.BOUNDARY) -> list[Transition]:
    """Every transition from a state reached within ``bounds.depth`` steps, staying within bounds.

    Transitions are listed in breadth-first discovery order, each state expanded
    once. Raises ``NotModelled`` (from ``step``) for a sessionless profile.
    """
    seen = {INITIAL_STATE}
    frontier = [INITIAL_STATE]
    transitions: list[Transition] = []
    for _ in range(bounds.depth):
        next_frontier = []
        for state in frontier:
            for action in candidate_actions(state):
                if not enabled(state, action):
                    continue
                transition = step(state, action, profile)
                if not within(transition.after, bounds):
                    continue
                transitions.append(transition)
                if transition.after not in seen:
                    seen.add(transition.after)
                    next_frontier.append(transition.after)
        frontier = next_frontier
    return transitions
