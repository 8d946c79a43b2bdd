"""When the design explorer stops: at the end of the first level with a counterexample
(``explore --design N``), at the first failing step (``--first``), or never
(``--exhaustive``); the early stops keep exactly the shortest traces the whole walk finds."""

import json

import pytest

from mcp_resume.cli import main
from mcp_resume.model.explore.server import Stop, explore_server
from mcp_resume.model.harness.runs import confirm
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.spec.designs import design as spec_design
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import NAMED_BOUNDS, Bounds

KILL = NAMED_BOUNDS["kill"]
ONE_SESSION = Bounds(sessions=1, streams=2, events=1, requests=1, depth=6)


def _steps(result):
    return {rule: violation.steps for rule, violation in result.violations.items()}


@pytest.mark.slow
def test_the_level_stop_keeps_the_rules_broken_at_the_shortest_depth_and_drops_the_deeper_ones():
    level = explore_server(DESIGNS[1], ONE_SESSION, Profile.BOUNDARY, stop=Stop.LEVEL)
    whole = explore_server(DESIGNS[1], ONE_SESSION, Profile.BOUNDARY, stop=Stop.NEVER)
    shortest = min(_steps(whole).values())
    assert whole.exhausted and not level.exhausted
    assert level.depth == shortest and level.states < whole.states
    assert _steps(level) == {rule: steps for rule, steps in _steps(whole).items() if steps == shortest}
    assert set(whole.violations) > set(level.violations)  # design 1 breaks more rules, with longer traces
    for rule, violation in level.violations.items():
        assert violation.trace.actions == whole.violations[rule].trace.actions
        assert confirm(violation.trace, DESIGNS[1]) == (True, True)


@pytest.mark.parametrize("number", [2, 4, 5, 6, 7, 8, 10, 13, 15, 17])
def test_the_default_walk_stops_early_with_traces_no_walk_of_the_bound_beats(number):
    level = explore_server(DESIGNS[number], KILL, Profile.BOUNDARY, stop=Stop.LEVEL)
    depth = level.depth
    assert level.caught and not level.exhausted and depth < KILL.depth
    assert level.first.rule in spec_design(number).rules
    assert level.notes["expanded"] == sum(level.levels[:depth])  # every level above the stop, no more
    to_depth = explore_server(DESIGNS[number], Bounds(KILL.sessions, KILL.streams, KILL.events, KILL.requests, depth),
                              Profile.BOUNDARY, stop=Stop.NEVER)
    shallower = Bounds(KILL.sessions, KILL.streams, KILL.events, KILL.requests, depth - 1)
    assert not explore_server(DESIGNS[number], shallower, Profile.BOUNDARY, stop=Stop.NEVER).caught
    assert _steps(level) == _steps(to_depth) and set(_steps(level).values()) == {depth}


def test_first_stops_inside_the_level_that_the_level_stop_finishes():
    first = explore_server(DESIGNS[2], KILL, Profile.BOUNDARY, stop=Stop.FIRST)
    level = explore_server(DESIGNS[2], KILL, Profile.BOUNDARY, stop=Stop.LEVEL)
    assert first.depth == level.depth and first.first.steps == level.first.steps
    assert first.transitions < level.transitions and set(first.violations) <= set(level.violations)


def test_a_design_that_breaks_nothing_is_walked_to_the_end_of_the_bound():
    bounds = Bounds(sessions=2, streams=1, events=1, requests=1, depth=5)
    level = explore_server(DESIGNS[11], bounds, Profile.MCP_2025_11_25, stop=Stop.LEVEL)
    whole = explore_server(DESIGNS[11], bounds, Profile.MCP_2025_11_25, stop=Stop.NEVER)
    assert not level.caught and level.exhausted and level.depth == bounds.depth
    assert (level.states, level.transitions, level.levels) == (whole.states, whole.transitions, whole.levels)


def test_explore_design_stops_at_the_level_and_says_how_many_states_it_needed(tmp_path, capsys):
    out = tmp_path / "design.json"
    assert main(["explore", "--design", "4", "--json", str(out), "--quiet"]) == 1
    data = json.loads(out.read_text())
    assert data["notes"]["stop"] == "level" and not data["exhausted"] and data["depth"] == 4
    assert {v["steps"] for v in data["violations"].values()} == {4}
    assert "no-replay-on-session-resume" in data["violations"]
    assert f"needed {data['states']:,} states, {data['notes']['expanded']:,} of them expanded" in capsys.readouterr().out


def test_explore_design_exhaustive_walks_the_whole_bound(tmp_path):
    level, whole = tmp_path / "level.json", tmp_path / "whole.json"
    assert main(["explore", "--design", "4", "--depth", "5", "--json", str(level), "--quiet"]) == 1
    assert main(["explore", "--design", "4", "--depth", "5", "--exhaustive", "--json", str(whole), "--quiet"]) == 1
    level, whole = json.loads(level.read_text()), json.loads(whole.read_text())
    assert (level["depth"], level["exhausted"]) == (4, False)
    assert (whole["depth"], whole["exhausted"], whole["notes"]["stop"]) == (5, True, "never")
    assert whole["states"] > level["states"] and set(level["violations"]) <= set(whole["violations"])


@pytest.mark.parametrize("argv, message", [
    (["--design", "4", "--first", "--exhaustive"], "give one"),
    (["--exhaustive"], "--exhaustive only applies with --design N"),
])
def test_stop_options_that_make_no_sense_are_usage_errors(argv, message, capsys):
    assert main(["explore", *argv, "--quiet"]) == 2
    assert message in capsys.readouterr().err
