"""A small bounded exploration of the spec's transition relation, for the lifecycles.

Breadth-first from ``INITIAL_STATE`` through ``transitions.step`` (the walk of
``spec.walk``), trying ``spec.space.candidate_actions`` on the handles the
state already has (``ISSUED_HEADERS``: the life of the ids a server gave out,
not the refusals of ids it never did), within ``LIFECYCLE_BOUNDS``. Used to draw
lifecycles from the spec itself; ``model.explore`` owns the exhaustive explorer.
"""

from __future__ import annotations

from mcp_resume.spec.space import Bounds, within
from mcp_resume.spec.space import ISSUED_HEADERS, candidate_actions
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import INITIAL_STATE, State
from mcp_resume.spec.transitions import Transition, enabled, step
from mcp_resume.spec.walk import breadth_first

LIFECYCLE_BOUNDS = Bounds(sessions=1, streams=2, events=2, requests=1, depth=6)
"""Enough to see every abstract edge: a deeper run (depth 8) sees no new one."""


def explore(bounds: Bounds = LIFECYCLE_BOUNDS, profile: Profile = Profile.BOUNDARY) -> list[Transition]:
    """Every transition from a state reached within ``bounds.depth`` steps, staying within bounds.

    Transitions are listed in breadth-first discovery order, each state expanded
    once. Raises ``NotModelled`` (from ``step``) for a sessionless profile.
    """
    transitions: list[Transition] = []

    def successors(_key: State, state: State):
        for action in candidate_actions(state, ISSUED_HEADERS):
            if not enabled(state, action, profile):
                continue
            transition = step(state, action, profile)
            if not within(transition.after, bounds):
                continue
            transitions.append(transition)
            yield action, transition.after, transition.after

    breadth_first(INITIAL_STATE, INITIAL_STATE, successors, bounds.depth)
    return transitions
