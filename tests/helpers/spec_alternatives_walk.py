"""What tests/fast/test_spec_alternatives_walk.py and tests/slow/test_spec_alternatives_walk.py share."""

from __future__ import annotations

import functools

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
def walk_with_alternatives(profile: Profile):
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
