"""The design explorer: the reference server agrees with the spec everywhere within a
bound; every faulty design is caught by the rule it breaks, with a trace that no
shorter one beats and that replays."""

from mcp_resume.model.explore import server as product
from mcp_resume.model.harness.checker import Checker
from mcp_resume.model.explore.server import explore_server
from mcp_resume.spec.space import NAMED_BOUNDS, Bounds
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.spec.designs import design as spec_design
from mcp_resume.model.explore.fingerprint import canonical_names, server_fingerprint
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import Profile


KILL = NAMED_BOUNDS["kill"]


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


def test_a_design_whose_counterexample_lies_beyond_the_kill_bound_says_how_far():
    # design 16's gap needs two evicted events before a retained one: three events, eight steps
    assert spec_design(16).widened(KILL) == Bounds(KILL.sessions, KILL.streams, 3, KILL.requests, depth=8)
    assert spec_design(3).widened(KILL) == KILL
    assert spec_design(16).widened(Bounds(2, 2, 4, 2, depth=None)) == Bounds(2, 2, 4, 2, depth=None)
