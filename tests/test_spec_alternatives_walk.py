"""Every alternative the spec accepts, walked: the cancel (and, under the MCP profiles,
the leave) choices of a session resumption keep every state invariant and pass every
server and sanity check, as the reference's re-emission does (docs/design.md §2 branch 2).

The spec explorers walk ``spec.transitions.step``, the reference's choice, whose
state space the manifest counts; this walk follows ``spec.transitions.alternatives``
instead, within a bound with two pending server requests, so that every combination
of re-emit and cancel at one session resumption is reached.
"""

from __future__ import annotations

import functools

import pytest

from mcp_resume.model.explore.canonical import canonical_key
from mcp_resume.spec.invariants import check_spec_step, check_state
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import Bounds, candidate_actions, within
from mcp_resume.spec.state import INITIAL_STATE
from mcp_resume.spec.transitions import alternatives, enabled
from mcp_resume.spec.verdicts import Verdict, verdict_for_finding
from mcp_resume.spec.walk import BreadthFirst, path_to

BOUND = Bounds(sessions=1, streams=2, events=2, requests=2, depth=6)


@functools.cache
def _walk(profile: Profile):
    findings: list = []
    choices = {"resumptions with a choice": 0, "most alternatives": 0}
    walk = BreadthFirst(canonical_key(INITIAL_STATE), INITIAL_STATE)

    def successors(key, state):
        for action in candidate_actions(state):
            if not enabled(state, action):
                continue
            transitions = alternatives(state, action, profile)
            if len(transitions) > 1:
                choices["resumptions with a choice"] += 1
                choices["most alternatives"] = max(choices["most alternatives"], len(transitions) - 1)
            for number, transition in enumerate(transitions):
                if not within(transition.after, BOUND):
                    continue
                broken = [f for f in check_spec_step(transition) + check_state(transition.after)
                          if _breaks(verdict_for_finding(f, profile), profile)]
                if broken:
                    findings.append((path_to(walk.parents, key) + (action,), number, broken))
                yield (action, number), canonical_key(transition.after), transition.after

    walk.run(successors, BOUND.depth)
    return walk, findings, choices


def _breaks(verdict: Verdict, profile: Profile) -> bool:
    """A FAIL anywhere; under boundary a WARN too. Under an MCP revision a request left
    pending is WARNed (a MAY whose check failed, B39) but no alternative may FAIL."""
    return verdict is Verdict.FAIL or (verdict is Verdict.WARN and profile is Profile.BOUNDARY)


@pytest.mark.parametrize("profile", [Profile.BOUNDARY, Profile.MCP_2025_11_25])
def test_every_alternative_keeps_the_invariants(profile):
    walk, findings, choices = _walk(profile)
    assert findings == []
    # the walk did reach the choices it is about: two requests pending at one session
    # resumption give 3 alternatives beside the reference under boundary (re-emit or
    # cancel each), 8 under the MCP profiles (re-emit, cancel or leave each)
    assert choices["resumptions with a choice"] > 0
    assert choices["most alternatives"] == (3 if profile is Profile.BOUNDARY else 8)


def test_the_cancel_alternative_reaches_states_the_reference_never_does():
    walk, _, _ = _walk(Profile.BOUNDARY)
    assert any(entry and entry[1][1] > 0 for entry in walk.parents.values()), "no alternative led to a new state"


def test_a_cancelled_request_is_announced_on_the_new_stream_and_ends():
    """Each request a boundary alternative does not re-emit is cancelled: the new
    stream delivers a notifications/cancelled for it and it is no longer pending."""
    seen = 0
    for state in _resumption_states(Profile.BOUNDARY):
        for action in candidate_actions(state):
            if not enabled(state, action):
                continue
            reference, *others = alternatives(state, action, Profile.BOUNDARY)
            for transition in others:
                cancelled = {d.cancels for d in transition.observation.events if d.cancels}
                reemitted = {d.request for d in transition.observation.events if d.request}
                assert cancelled and cancelled.isdisjoint(reemitted)
                assert cancelled | reemitted == set(reference.outcome.reemit)
                pending = {r.id for r in transition.after.pending_requests(action.session)}
                assert cancelled.isdisjoint(pending) and reemitted <= pending
                seen += 1
    assert seen > 0


def _resumption_states(profile: Profile):
    walk, _, _ = _walk(profile)
    for key in list(walk.parents):
        state = INITIAL_STATE
        for action, number in path_to(walk.parents, key):
            state = alternatives(state, action, profile)[number].after
        yield state
