"""``check_transition`` skips a check on a step outside its scope: each scope must be true.

``DELIVERY_ONLY`` checks must find nothing on a step that delivers no event, and
``RESUMPTION_ONLY`` checks nothing on a step that is not a reconnect answered 200
in branches 1-3. These tests call every such check directly on every step of a
small exploration of the spec and on wrong observations made from them (other
statuses, other events, events taken away), and hold each to its scope; then
they hold ``check_transition`` to calling every check unscoped.
"""

from dataclasses import replace

import pytest

from mcp_resume.spec import invariants as inv
from mcp_resume.spec.decision import Branch
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import Bounds, candidate_actions, within
from mcp_resume.spec.state import INITIAL_STATE
from mcp_resume.spec.transitions import Delivered, step_if_enabled
from mcp_resume.spec.walk import breadth_first

BOUNDS = Bounds(sessions=2, streams=2, events=2, requests=1, depth=5)
RESUMPTIONS = (Branch.STREAM_RESUMPTION, Branch.SESSION_RESUMPTION, Branch.REJECT_FOREIGN_EVENT_ID)


def _transitions(profile: Profile):
    found = []

    def successors(state, _node):
        for action in candidate_actions(state):
            transition = step_if_enabled(state, action, profile)
            if transition is None or not within(transition.after, BOUNDS):
                continue
            found.append(transition)
            yield action, transition.after, None

    breadth_first(INITIAL_STATE, INITIAL_STATE, successors, BOUNDS.depth)
    return found


def _wrong_observations(transition, others):
    """``transition`` with what a faulty server could have answered instead."""
    observation = transition.observation
    yield transition
    for status in (200, 204, 400, 404, 409, None):
        yield replace(transition, observation=replace(observation, status=status))
    yield replace(transition, observation=replace(observation, events=()))
    for other in others:
        events = other.observation.events + (Delivered("E9", "R1", observation.stream),)
        for status in (observation.status, 200):
            yield replace(transition, observation=replace(observation, status=status, events=events))


def _in_scope(t, check) -> bool:
    delivered = bool(t.observation.events)
    resumed = t.outcome is not None and t.outcome.branch in RESUMPTIONS and t.observation.status == 200
    return (delivered or check not in inv.DELIVERY_ONLY) and (resumed or check not in inv.RESUMPTION_ONLY)


@pytest.mark.parametrize("profile", [Profile.BOUNDARY, Profile.MCP_2025_03_26])
def test_every_scoped_check_finds_nothing_outside_its_scope(profile):
    transitions = _transitions(profile)
    delivering = [t for t in transitions if t.observation.events][:: 97]
    scoped = inv.DELIVERY_ONLY | inv.RESUMPTION_ONLY
    judged = outside = 0
    for transition in transitions[:: 7]:
        for wrong in _wrong_observations(transition, delivering[:3]):
            for check in scoped:
                judged += 1
                if not _in_scope(wrong, check):
                    outside += 1
                    assert check(wrong) == [], f"{check.__name__} found something outside its scope: {wrong}"
    assert outside > 1000 and judged > outside  # the steps reach both sides of every scope


def test_check_transition_reports_what_the_unscoped_checks_report():
    transitions = _transitions(Profile.BOUNDARY)
    delivering = [t for t in transitions if t.observation.events][:: 97]
    for transition in transitions[:: 13]:
        for wrong in _wrong_observations(transition, delivering[:2]):
            every = [_finding(wrong, rule, problem) for rule, check in inv.SERVER_CHECKS for problem in check(wrong)]
            if not every:
                every = [inv.Finding(rule, m) for rule, check in inv.GENERIC_CHECKS for m in check(wrong)]
            assert inv.check_transition(wrong) == every


def _finding(t, rule: str, problem) -> inv.Finding:
    """What ``check_transition`` files ``problem`` of ``rule``'s check as, worked out apart."""
    message, case = problem if isinstance(problem, tuple) else (problem, None)
    if rule != "status":
        return inv.Finding(rule, message, case)
    status = t.observation.status
    return inv.Finding(inv._status_rule(t), message, case or t.outcome.case, status is None or not 100 <= status < 500)
