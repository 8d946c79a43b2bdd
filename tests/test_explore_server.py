"""The design explorer: the reference server agrees with the spec everywhere within a
bound; every faulty design is caught by the rule it breaks, with a trace that no
shorter one beats and that replays."""

import pickle

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
from mcp_resume.model.explore.fingerprint import canonical_names, server_fingerprint
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.transitions import enabled

KILL = NAMED_BOUNDS["kill"]


@pytest.fixture(scope="module")
def boundary_results():
    return {n: explore_server(DESIGNS[n], KILL, Profile.BOUNDARY) for n in NUMBERS}


def test_the_reference_server_agrees_with_the_spec_in_every_state_of_the_bound():
    bounds = NAMED_BOUNDS["small"]
    result = explore_server(ReferenceServer, bounds, Profile.BOUNDARY)
    spec = explore_spec(bounds)
    assert result.holds and result.exhausted and not result.warnings
    # one product state per spec state: the fingerprint forgets only what the spec forgets
    assert result.states == spec.states and result.transitions == spec.transitions


@pytest.mark.parametrize("number", NUMBERS)
def test_each_design_is_caught_under_boundary_by_a_rule_it_breaks(boundary_results, number):
    result = boundary_results[number]
    assert result.caught and not result.exhausted
    assert result.first.rule in spec_design(number).rules, result.first.trace.describe()
    assert result.first.trace.source == "explorer"


@pytest.mark.parametrize("number", NUMBERS)
def test_no_shorter_trace_catches_the_design(boundary_results, number):
    steps = boundary_results[number].first.steps
    shallower = Bounds(KILL.sessions, KILL.streams, KILL.events, KILL.requests, depth=steps - 1)
    assert not explore_server(DESIGNS[number], shallower, Profile.BOUNDARY).caught


@pytest.mark.parametrize("number", NUMBERS)
def test_the_trace_replays_fails_on_the_design_and_holds_on_the_reference(boundary_results, number):
    assert confirm(boundary_results[number].first.trace, DESIGNS[number]) == (True, True)


@pytest.mark.slow
def test_design_11_is_caught_under_boundary_and_passes_mcp_2025_11_25_within_the_kill_bound():
    boundary = explore_server(DESIGNS[11], KILL, Profile.BOUNDARY)
    mcp = explore_server(DESIGNS[11], KILL, Profile.MCP_2025_11_25)
    assert boundary.first.rule == "reject-foreign-event-id" and boundary.first.steps == 2
    assert not mcp.caught and mcp.exhausted and not mcp.warnings and mcp.coverage.complete


def test_design_9_needs_seven_steps_under_mcp_2025_11_25():
    result = explore_server(DESIGNS[9], KILL, Profile.MCP_2025_11_25)
    assert result.first.rule == "no-cross-session" and result.first.steps == 7
    assert confirm(result.first.trace, DESIGNS[9]) == (True, True)


def test_exploring_on_after_a_failure_keeps_the_shortest_trace_of_every_rule():
    result = explore_server(DESIGNS[1], Bounds(sessions=1, streams=2, events=2, requests=1, depth=6), Profile.BOUNDARY,
                            stop=product.Stop.NEVER)
    assert result.exhausted
    assert {"reemit-pending", "no-cross-session"} <= set(result.violations)
    assert result.violations["reemit-pending"].steps <= result.violations["no-cross-session"].steps


def test_a_should_broken_under_an_mcp_profile_is_a_warning_and_stops_that_path():
    result = explore_server(DESIGNS[7], NAMED_BOUNDS["small"], Profile.MCP_2025_11_25)
    assert not result.caught and "replay-suffix" in result.warnings


def test_fingerprints_forget_the_servers_ids_but_not_its_tables():
    def drive(actions):
        checker = Checker(ReferenceServer())
        for action in actions:
            checker.apply(action)
        return checker

    # the same spec state reached with other server ids (a tool call in between mints one)
    one = drive([a.Initialize(), a.Initialize(), a.CallTool("S2")])
    other = drive([a.Initialize(), a.CallTool("S1"), a.Initialize()])
    form_one, names_one = canonical_names(one.state)
    form_other, names_other = canonical_names(other.state)
    assert form_one == form_other
    assert server_fingerprint(one.server, one.ids, names_one) == server_fingerprint(other.server, other.ids, names_other)
    dropped = drive([a.Initialize(), a.Initialize(), a.CallTool("S2")])
    dropped.server.streams[next(iter(dropped.server.streams))].connected = False  # the server alone changed
    assert server_fingerprint(dropped.server, dropped.ids, names_one) != server_fingerprint(one.server, one.ids, names_one)


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
                    memo = product._restore(snapshot, checker.state, Profile.BOUNDARY)
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
