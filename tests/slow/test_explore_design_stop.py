"""When the design explorer stops: once every rule the design breaks has its shortest

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_explore_design_stop.py``, whose docstring says more.
"""

import pytest

from mcp_resume.model.explore.server import Stop, explore_server
from mcp_resume.model.harness.runs import confirm
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec.designs import design as spec_design
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import NAMED_BOUNDS, Bounds

from tests.helpers.explore_design_stop import same_walk, steps_by_rule


KILL = NAMED_BOUNDS["kill"]
ONE_SESSION = Bounds(sessions=1, streams=2, events=1, requests=1, depth=6)


def test_the_level_stop_keeps_the_rules_broken_at_the_shortest_depth_and_drops_the_deeper_ones():
    level = explore_server(DESIGNS[1], ONE_SESSION, Profile.BOUNDARY, stop=Stop.LEVEL)
    whole = explore_server(DESIGNS[1], ONE_SESSION, Profile.BOUNDARY, stop=Stop.NEVER)
    shortest = min(steps_by_rule(whole).values())
    assert whole.exhausted and not level.exhausted
    assert level.depth == shortest and level.states < whole.states
    assert steps_by_rule(level) == {rule: steps for rule, steps in steps_by_rule(whole).items() if steps == shortest}
    assert set(whole.violations) > set(level.violations)  # design 1 breaks more rules, with longer traces
    for rule, violation in level.violations.items():
        assert violation.trace.actions == whole.violations[rule].trace.actions
        assert confirm(violation.trace, DESIGNS[1]) == (True, True)


def test_the_level_stop_ends_once_every_expected_rule_has_its_shortest_trace():
    design = spec_design(14)  # both of its rules are broken at its shortest depth
    level = explore_server(DESIGNS[14], KILL, Profile.BOUNDARY, stop=Stop.LEVEL)
    early = explore_server(DESIGNS[14], KILL, Profile.BOUNDARY, stop=Stop.LEVEL, expect=design.breaks(Profile.BOUNDARY))
    assert set(early.violations) >= design.rules and early.depth == level.depth
    assert {rule: steps_by_rule(early)[rule] for rule in design.rules} == {rule: steps_by_rule(level)[rule] for rule in design.rules}
    assert early.notes["expanded"] < level.notes["expanded"] == sum(level.levels[:level.depth])
    for violation in early.violations.values():
        assert confirm(violation.trace, DESIGNS[14]) == (True, True)


@pytest.mark.parametrize("stop", [Stop.FIRST, Stop.LEVEL, Stop.NEVER])
@pytest.mark.parametrize("number", [2, 3, 9, 12])
def test_a_walk_on_forked_workers_finds_exactly_what_one_process_finds(number, stop, monkeypatch):
    import mcp_resume.model.explore.server as product

    monkeypatch.setattr(product, "FORK_AT", 8)  # fork every level but the first few
    bounds = KILL if stop is not Stop.NEVER else Bounds(2, 2, 2, 1, 5)
    expect = spec_design(number).breaks(Profile.BOUNDARY)
    alone = explore_server(DESIGNS[number], bounds, Profile.BOUNDARY, stop=stop, expect=expect, workers=1)
    forked = explore_server(DESIGNS[number], bounds, Profile.BOUNDARY, stop=stop, expect=expect, workers=2)
    assert same_walk(forked) == same_walk(alone)


@pytest.mark.parametrize("number", [3, 8, 14])
def test_comparing_attributes_walks_exactly_as_comparing_pickles(number, monkeypatch):
    """A server whose attributes are its state (``attributes_are_state``) is told unchanged
    by ``==`` on its attributes; the walk is the one that compares pickles."""
    server = DESIGNS[number]
    by_attributes = explore_server(server, KILL, Profile.BOUNDARY, stop=Stop.LEVEL, workers=1)
    monkeypatch.setattr(ReferenceServer, "attributes_are_state", False)
    by_pickles = explore_server(server, KILL, Profile.BOUNDARY, stop=Stop.LEVEL, workers=1)
    assert same_walk(by_attributes) == same_walk(by_pickles)
