"""Every alternative the spec accepts, walked: the cancel (and, under the MCP profiles,
the leave) choices of a session resumption keep every state invariant and pass every
server and sanity check, as the reference's re-emission does (docs/design.md §2 branch 2).

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_spec_alternatives_walk.py``, whose docstring says more.
"""

from __future__ import annotations

import pytest

from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import candidate_actions
from mcp_resume.spec.state import INITIAL_STATE
from mcp_resume.spec.transitions import alternatives, enabled
from mcp_resume.spec.walk import path_to

from tests.helpers.spec_alternatives_walk import walk_with_alternatives


@pytest.mark.parametrize("profile", [Profile.BOUNDARY, Profile.MCP_2025_11_25])
def test_every_alternative_keeps_the_invariants(profile):
    walk, findings, choices = walk_with_alternatives(profile)
    assert findings == []
    # the walk did reach the choices it is about: two requests pending at one session
    # resumption give 3 alternatives beside the reference under boundary (re-emit or
    # cancel each), 8 under the MCP profiles (re-emit, cancel or leave each)
    assert choices["resumptions with a choice"] > 0
    assert choices["most alternatives"] == (3 if profile is Profile.BOUNDARY else 8)


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
    walk, _, _ = walk_with_alternatives(profile)
    for key in list(walk.parents):
        state = INITIAL_STATE
        for action, number in path_to(walk.parents, key):
            state = alternatives(state, action, profile)[number].after
        yield state
