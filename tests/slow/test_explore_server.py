"""The design explorer: the reference server agrees with the spec everywhere within a
bound; every faulty design is caught by the rule it breaks, with a trace that no
shorter one beats and that replays."""

import pickle
from dataclasses import replace

import pytest

from mcp_resume.model.explore import server as product
from mcp_resume.model.harness.checker import Checker
from mcp_resume.model.harness.runs import confirm
from mcp_resume.model.explore.server import explore_server
from mcp_resume.spec.space import NAMED_BOUNDS, Bounds
from mcp_resume.spec.space import candidate_actions
from mcp_resume.model.explore.plain import explore_spec
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.spec.designs import NUMBERS, design as spec_design
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.invariants import check_transition
from mcp_resume.spec.state import INITIAL_STATE, SessionStatus
from mcp_resume.spec.transitions import Delivered, enabled, step
from mcp_resume.model.explore.canonical import canonical_key


KILL = NAMED_BOUNDS["kill"]


@pytest.fixture(scope="session")
def boundary_result(shared_runs):
    """``boundary_result(number)``: design ``number`` explored under boundary within its
    widening of the kill bound, once for the session (every worker shares it)."""
    def explored(number: int):
        return shared_runs.get(f"explore-design-{number}-boundary",
                               lambda: explore_server(DESIGNS[number], spec_design(number).widened(KILL), Profile.BOUNDARY))

    return explored


def test_the_reference_server_agrees_with_the_spec_in_every_state_of_the_bound():
    bounds = NAMED_BOUNDS["small"]
    result = explore_server(ReferenceServer, bounds, Profile.BOUNDARY)
    server_sides = {canonical_key(INITIAL_STATE)}
    spec = explore_spec(bounds, record=lambda source, t, target: server_sides.add(canonical_key(product._server_side(t.after))))
    assert result.holds and result.exhausted and not result.warnings
    # at least one product state per spec state up to what no server is judged on (the
    # reference server may tell a deleted session from an expired one), at most one per
    # spec state: the fingerprint forgets only what the spec forgets
    assert len(server_sides) <= result.states < spec.states
    assert result.transitions < spec.transitions


def test_nothing_a_server_is_judged_on_reads_what_product_keys_leave_out():
    """The design explorer keys product states without the client's cursors and held
    requests, and without how an ended session ended, its streams' kinds and its
    requests' statuses (``_server_side``): every step from a state and from the same
    state without them is enabled alike, decides the same, answers the same and is
    judged the same, on the spec's answer and on wrong ones that deliver events of
    ended sessions (its ``after`` differs only there)."""
    bounds = Bounds(sessions=2, streams=2, events=2, requests=1, depth=5)
    states = {INITIAL_STATE}
    explore_spec(bounds, record=lambda source, t, target: states.add(t.after))
    compared = ended = 0
    for state in states:
        bare = product._server_side(state)
        if bare == state:
            continue
        ended += any(s.status is not SessionStatus.LIVE for s in state.sessions)
        others = tuple(Delivered(e.id, e.request, e.stream, e.cancels) for e in state.events)
        for action in candidate_actions(state):
            assert enabled(state, action) == enabled(bare, action), action
            if not enabled(state, action):
                continue
            full, plain = step(state, action), step(bare, action)
            assert (full.outcome, full.observation) == (plain.outcome, plain.observation), action
            assert product._server_side(full.after) == product._server_side(plain.after)
            for wrong in (replace(full.observation, status=404, events=full.observation.events[:1]),
                          replace(full.observation, status=200, events=others),
                          replace(full.observation, events=tuple(replace(d, event="E99") for d in others))):
                assert check_transition(replace(full, observation=wrong)) == check_transition(replace(plain, observation=wrong))
            compared += 1
    assert compared > 5000 and ended > 100


@pytest.mark.parametrize("number", NUMBERS)
def test_each_design_is_caught_under_boundary_by_a_rule_it_breaks(boundary_result, number):
    result = boundary_result(number)
    assert result.caught and not result.exhausted
    assert result.first.rule in spec_design(number).rules, result.first.trace.describe()
    assert result.first.trace.source == "explorer"


@pytest.mark.parametrize("number", NUMBERS)
def test_no_shorter_trace_catches_the_design(boundary_result, number):
    steps = boundary_result(number).first.steps
    bound = spec_design(number).widened(KILL)
    shallower = Bounds(bound.sessions, bound.streams, bound.events, bound.requests, depth=steps - 1)
    assert not explore_server(DESIGNS[number], shallower, Profile.BOUNDARY).caught


@pytest.mark.parametrize("number", NUMBERS)
def test_the_trace_replays_fails_on_the_design_and_holds_on_the_reference(boundary_result, number):
    assert confirm(boundary_result(number).first.trace, DESIGNS[number]) == (True, True)


def test_design_11_is_caught_under_boundary_and_passes_mcp_2025_11_25_within_the_kill_bound():
    boundary = explore_server(DESIGNS[11], KILL, Profile.BOUNDARY)
    mcp = explore_server(DESIGNS[11], KILL, Profile.MCP_2025_11_25)
    assert boundary.first.rule == "reject-foreign-event-id" and boundary.first.steps == 2
    assert not mcp.caught and mcp.exhausted and mcp.coverage.complete
    # its one warning: an evicted cursor whose later events are all kept, answered with nothing (a gap, B25 MAY)
    assert set(mcp.warnings) <= {"replay-suffix"}
    assert all("evicted cursor" in w.message for w in mcp.warnings.values())


def test_design_9_needs_seven_steps_under_mcp_2025_11_25():
    result = explore_server(DESIGNS[9], KILL, Profile.MCP_2025_11_25)
    assert result.first.rule == "no-cross-session" and result.first.steps == 7
    assert confirm(result.first.trace, DESIGNS[9]) == (True, True)


def test_the_memoised_checker_judges_every_step_as_the_checker_does():
    """Every step from every product state of a bound: same report, same next state."""
    bounds = Bounds(sessions=2, streams=1, events=2, requests=1, depth=4)
    for design in (2, 5, 9, 12):
        frontier = [(Checker(DESIGNS[design]()), ())]
        for _ in range(3):
            next_frontier = []
            for checker, path in frontier:
                snapshot = pickle.dumps((checker.server, checker.ids))
                for action in candidate_actions(checker.state):
                    if not enabled(checker.state, action):
                        continue
                    plain = Checker(*[pickle.loads(snapshot)[0]], Profile.BOUNDARY)
                    plain.state, plain.ids = checker.state, pickle.loads(snapshot)[1]
                    memo = product._checker(pickle.loads(snapshot), checker.state, Profile.BOUNDARY)
                    outcomes = []
                    for judge in (plain, memo):
                        try:
                            report = judge.apply(action)
                            outcomes.append(("ok", report.findings, report.observed, judge.state))
                        except product.Counterexample as found:
                            outcomes.append(("fail", found.report.failing, found.report.observed, None))
                    assert outcomes[0] == outcomes[1], (design, path, action)
                    if outcomes[0][0] == "ok" and len(next_frontier) < 40:
                        next_frontier.append((plain, path + (action,)))
            frontier = next_frontier
    assert bounds.depth == 4


@pytest.mark.parametrize("target", ["variation-cancel", "design-3", "design-12"])
def test_every_product_step_is_the_checkers_step(target):
    """``_steps`` (the walk's own judgement, with its shortcut for a server that answers as
    the spec does) leaves the spec, the server and the id map exactly where the plain
    checker leaves them, and fails exactly where the checker fails, from every product
    state of a small walk: a cancelled request (an alternative the checker picks, with
    its own copy of the id map) included."""
    from mcp_resume.model.servers.inprocess import server_factory

    factory = server_factory(target)
    bounds = Bounds(sessions=1, streams=2, events=2, requests=1, depth=6)
    keys = product._Keys()
    frontier = [(INITIAL_STATE, product._snapshot(factory(), product.IdMap()))]
    compared = 0
    for _ in range(bounds.depth):
        next_frontier = []
        for state, snapshot in frontier:
            steps = product._steps(state, snapshot, Profile.BOUNDARY, bounds, keys, True, lambda key: False)
            for step_ in steps:
                if step_[0] not in (product._NEXT, product._FAIL):
                    continue
                server, ids = pickle.loads(snapshot)
                checker = Checker(server, Profile.BOUNDARY)
                checker.state, checker.ids = state, ids
                try:
                    checker.apply(step_[1])
                except product.Counterexample as failure:
                    assert step_[0] == product._FAIL and step_[2] == failure.report.failing, step_
                    continue
                assert step_[0] == product._NEXT, step_
                after_state, after_snapshot = step_[3]
                assert after_state == checker.state
                assert after_snapshot == product._snapshot(checker.server, checker.ids), (target, step_[1])
                compared += 1
                next_frontier.append(step_[3])
        frontier = next_frontier[:400]
    assert compared > 1000
