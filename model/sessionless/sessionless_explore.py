"""Exhaustive exploration of the 2026-07-28 machine within bounds, alone or beside a server.

``explore_sessionless(bounds)`` walks every state of ``spec/sessionless/machine.py`` with
the breadth-first walk the explorers share (``spec.walk``), trying every candidate
action, and checks each state with the machine's sanity checks and each
transition with the server checks (the machine must pass its own checks).
``explore_server(factory, bounds)`` walks the same graph and plays every
transition's path against a fresh server: the first failing finding is a
shortest counterexample.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp_resume.spec.sessionless.machine import (
    INITIAL,
    SessionlessBounds,
    candidate_actions,
    enabled,
    sanity_check,
    step,
)
from mcp_resume.spec.sessionless.checks import check_observation
from mcp_resume.spec.walk import BreadthFirst, StopWalk

from mcp_resume.model.sessionless.sessionless_checker import STRICT, SessionlessCounterexample, replay

BOUNDS = SessionlessBounds(calls=3, notifications=1)
"""The default bound: three requests (a request, its retry, one more), one notification each."""


@dataclass
class SessionlessExploration:
    bounds: SessionlessBounds
    states: int = 0
    transitions: int = 0
    depth: int = 0
    problems: list[tuple[tuple, str]] = field(default_factory=list)
    """(path, message) of every sanity-check or server-check finding on the machine itself."""
    counterexample: SessionlessCounterexample | None = None
    """The first failure of a server explored beside the machine."""


def _successors(bounds: SessionlessBounds, on_transition):
    def successors(key, state):
        for action in candidate_actions(state):
            if not enabled(state, action):
                continue
            t = step(state, action)
            if not bounds.within(t.after):
                continue
            on_transition(key, t)
            yield action, t.after, t.after

    return successors


def explore_sessionless(bounds: SessionlessBounds = BOUNDS) -> SessionlessExploration:
    """Every state and transition of the machine within ``bounds``, each checked."""
    result = SessionlessExploration(bounds)

    def on_transition(key, t):
        result.transitions += 1
        path = walk.path_to(key) + (t.action,)
        result.problems += [(path, f"[{f.rule}] {f.message}") for f in check_observation(t.before, t.action, t.observation)]
        if t.after not in walk.parents:
            result.problems += [(path, f"[sanity] {m}") for m in sanity_check(t.after)]

    walk = BreadthFirst(INITIAL, INITIAL)
    walk.run(_successors(bounds, on_transition), bounds.depth)
    result.states, result.depth = len(walk.parents), walk.depth
    return result


def explore_server(factory, bounds: SessionlessBounds = BOUNDS, fail_on=STRICT) -> SessionlessExploration:
    """The machine's graph within ``bounds``, every transition played against a fresh
    server from ``factory``; stops at the first failure (a shortest one)."""
    result = SessionlessExploration(bounds)

    def on_transition(key, t):
        result.transitions += 1
        try:
            replay(walk.path_to(key) + (t.action,), factory(), fail_on)
        except SessionlessCounterexample as found:
            result.counterexample = found
            raise StopWalk from None

    walk = BreadthFirst(INITIAL, INITIAL)
    walk.run(_successors(bounds, on_transition), bounds.depth)
    result.states, result.depth = len(walk.parents), walk.depth
    return result

