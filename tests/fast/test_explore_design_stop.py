"""When the design explorer stops: once every rule the design breaks has its shortest
trace, at the latest at the end of the first level with a counterexample (``explore
--design N``), at the first failing step (``--first``), or never (``--exhaustive``);
the early stops keep exactly the shortest traces the whole walk finds."""

import json

import pytest

from mcp_resume.cli import main
from mcp_resume.model.explore.server import Stop, explore_server
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec.designs import design as spec_design
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import NAMED_BOUNDS, Bounds

from tests.helpers.explore_design_stop import same_walk, steps_by_rule


KILL = NAMED_BOUNDS["kill"]


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
    assert steps_by_rule(level) == steps_by_rule(to_depth) and set(steps_by_rule(level).values()) == {depth}


def test_first_stops_inside_the_level_that_the_level_stop_finishes():
    first = explore_server(DESIGNS[2], KILL, Profile.BOUNDARY, stop=Stop.FIRST)
    level = explore_server(DESIGNS[2], KILL, Profile.BOUNDARY, stop=Stop.LEVEL)
    assert first.depth == level.depth and first.first.steps == level.first.steps
    assert first.transitions < level.transitions and set(first.violations) <= set(level.violations)


def test_an_expected_rule_the_shortest_depth_does_not_break_lets_the_level_finish():
    expect = frozenset({"reemit-pending", "no-cross-session"})  # design 4 breaks neither
    level = explore_server(DESIGNS[4], KILL, Profile.BOUNDARY, stop=Stop.LEVEL, expect=expect)
    assert level.caught and level.notes["expanded"] == sum(level.levels[:level.depth])


def test_a_design_that_breaks_nothing_is_walked_to_the_end_of_the_bound():
    bounds = Bounds(sessions=2, streams=1, events=1, requests=1, depth=5)
    level = explore_server(DESIGNS[11], bounds, Profile.MCP_2025_11_25, stop=Stop.LEVEL)
    whole = explore_server(DESIGNS[11], bounds, Profile.MCP_2025_11_25, stop=Stop.NEVER)
    assert not level.caught and level.exhausted and level.depth == bounds.depth
    assert (level.states, level.transitions, level.levels) == (whole.states, whole.transitions, whole.levels)


def test_explore_design_stops_at_the_level_and_says_how_many_states_it_needed(tmp_path, capsys):
    out = tmp_path / "design.json"
    assert main(["explore-design", "4", "--json", str(out), "--quiet"]) == 1
    data = json.loads(out.read_text())
    assert data["notes"]["stop"] == "level" and not data["exhausted"] and data["depth"] == 4
    assert {v["steps"] for v in data["violations"].values()} == {4}
    assert "no-replay-on-session-resume" in data["violations"]
    assert f"needed {data['states']:,} states, {data['notes']['expanded']:,} of them expanded" in capsys.readouterr().out


def test_explore_design_exhaustive_walks_the_whole_bound(tmp_path):
    level, whole = tmp_path / "level.json", tmp_path / "whole.json"
    assert main(["explore-design", "4", "--depth", "5", "--json", str(level), "--quiet"]) == 1
    assert main(["explore-design", "4", "--depth", "5", "--exhaustive", "--json", str(whole), "--quiet"]) == 1
    level, whole = json.loads(level.read_text()), json.loads(whole.read_text())
    assert (level["depth"], level["exhausted"]) == (4, False)
    assert (whole["depth"], whole["exhausted"], whole["notes"]["stop"]) == (5, True, "never")
    assert whole["states"] > level["states"] and set(level["violations"]) <= set(whole["violations"])


@pytest.mark.parametrize("argv, message", [
    (["explore-design", "4", "--first", "--exhaustive"], "argument --exhaustive: not allowed with argument --first"),
    (["explore", "--exhaustive"], "use 'mcp-resume explore-design N --exhaustive'"),
])
def test_stop_options_that_make_no_sense_are_usage_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        main([*argv, "--quiet"])
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


def test_a_level_whose_worker_fails_is_expanded_again_in_this_process(monkeypatch):
    """A worker that dies (here: every forked expansion raises) costs time, not results."""
    import mcp_resume.model.explore.server as product
    from mcp_resume.model.explore import forked

    monkeypatch.setattr(product, "FORK_AT", 4)
    calls, expand_level = [], forked.expand_level

    def failing(frontier, expand, workers, enough, *rest):
        calls.append(len(frontier))
        return expand_level(frontier, lambda key, node, late: 1 / 0, workers, enough, *rest)

    monkeypatch.setattr(forked, "expand_level", failing)
    alone = explore_server(DESIGNS[4], KILL, Profile.BOUNDARY, stop=Stop.LEVEL, workers=1)
    tried = explore_server(DESIGNS[4], KILL, Profile.BOUNDARY, stop=Stop.LEVEL, workers=2)
    assert calls and same_walk(tried) == same_walk(alone)


def test_workers_stop_once_one_of_them_has_what_the_walk_needs(tmp_path):
    """``forked.expand_level``: a worker whose results suffice publishes its index, and
    no worker claims a node past it; every node up to it has its result. (The worker
    holding node 10 waits there until the other has had enough at node 9: node 10 is
    the only one past it that may have been claimed before.)"""
    import time

    from mcp_resume.model.explore import forked

    enough_at_9 = tmp_path / "nine"

    def expand(key, node, late):
        if node == 10:
            deadline = time.monotonic() + 20
            while not enough_at_9.exists() and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(0.05)  # worker 1 publishes index 9 microseconds after touching the file
        return node

    def enough(result):
        if result == 9:
            enough_at_9.touch()
            return True
        return False

    frontier = [(index, index) for index in range(400)]
    results = forked.expand_level(frontier, expand, 2, enough)
    assert results is not None and all(index in results for index in range(10))
    assert max(results) <= 10  # each worker checks the published index before its next node


def test_a_worker_knows_when_a_node_before_its_own_failed(tmp_path):
    """``late`` is True for a node after one whose result failed, whichever worker had it.
    (The worker holding node 4 waits there until the other has failed at node 3, so node 5
    is claimed after that.)"""
    import time

    from mcp_resume.model.explore import forked

    failed_at_3 = tmp_path / "three"

    def expand(key, node, late):
        if node == 3:
            failed_at_3.touch()
        if node == 4:
            deadline = time.monotonic() + 20
            while not failed_at_3.exists() and time.monotonic() < deadline:
                time.sleep(0.005)
            time.sleep(0.05)  # worker 1 publishes index 3 microseconds after touching the file
        return node, late

    frontier = [(index, index) for index in range(8)]
    results = forked.expand_level(frontier, expand, 2, lambda result: False, lambda result: result[0] == 3)
    assert results is not None and sorted(results) == list(range(8))
    assert {index: results[index][1] for index in (0, 1, 2, 3, 5, 6, 7)} == \
           {0: False, 1: False, 2: False, 3: False, 5: True, 6: True, 7: True}


def test_a_free_worker_claims_the_next_nodes_while_the_other_is_busy():
    """Nodes are claimed as workers come free, not dealt in turn: while one worker spends
    a long time on node 0, the other expands every other node (dealt in turn, the slow
    worker would have had the even ones)."""
    import os
    import time

    from mcp_resume.model.explore import forked

    def expand(key, node, late):
        if node == 0:
            time.sleep(0.5)
        return os.getpid()

    frontier = [(index, index) for index in range(40)]
    results = forked.expand_level(frontier, expand, 2, lambda result: False)
    assert results is not None and sorted(results) == list(range(40))
    slow = results[0]
    assert [index for index, pid in results.items() if pid == slow] == [0]


class _Blind:
    """A value whose ``==`` ignores its state."""

    def __init__(self):
        self.count = 0

    def __eq__(self, other):
        return True


class _CountsRefusals(ReferenceServer):
    """Counts its refusals where ``==`` cannot see, and says so."""

    attributes_are_state = False

    def __init__(self):
        super().__init__()
        self.refusals = _Blind()

    def refuse(self, *args):
        self.refusals.count += 1
        return super().refuse(*args)


def test_a_step_that_changes_only_what_equality_ignores_is_still_seen_by_its_pickle(monkeypatch):
    """A server that says ``attributes_are_state`` False is compared by its pickles only: a
    refusal that changes only state ``==`` cannot see makes a new product state."""
    import mcp_resume.model.explore.server as product

    bounds = Bounds(sessions=1, streams=1, events=1, requests=0, depth=3)
    plain = explore_server(ReferenceServer, bounds, Profile.BOUNDARY, stop=Stop.NEVER, workers=1)
    counted = explore_server(_CountsRefusals, bounds, Profile.BOUNDARY, stop=Stop.NEVER, workers=1)
    monkeypatch.setattr(product._Unchanged, "attributes", lambda self, work: False)
    by_pickles = explore_server(_CountsRefusals, bounds, Profile.BOUNDARY, stop=Stop.NEVER, workers=1)
    assert counted.states > plain.states
    assert same_walk(counted) == same_walk(by_pickles)
