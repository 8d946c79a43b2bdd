"""Every alternative the spec accepts, walked: the cancel (and, under the MCP profiles,
the leave) choices of a session resumption keep every state invariant and pass every
server and sanity check, as the reference's re-emission does (docs/design.md §2 branch 2).

The spec explorers walk ``spec.transitions.step``, the reference's choice, whose
state space the manifest counts; this walk follows ``spec.transitions.alternatives``
instead, within a bound with two pending server requests, so that every combination
of re-emit and cancel at one session resumption is reached.
"""

from __future__ import annotations

from mcp_resume.spec.profiles import Profile

from tests.helpers.spec_alternatives_walk import walk_with_alternatives


def test_the_cancel_alternative_reaches_states_the_reference_never_does():
    walk, _, _ = walk_with_alternatives(Profile.BOUNDARY)
    assert any(entry and entry[1][1] > 0 for entry in walk.parents.values()), "no alternative led to a new state"
