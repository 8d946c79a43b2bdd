"""What every explorer shares, in ``spec/``: the breadth-first walk (a search utility, not
part of the spec), the bounds, the candidate actions; and ``spec/`` imports only the
standard library and itself."""

from __future__ import annotations

import ast
import sys

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.space import NAMED_BOUNDS, Bounds, named_bound, within
from mcp_resume.spec.space import ANY_HEADERS, ISSUED_HEADERS, acting_session, candidate_actions
from mcp_resume.spec.headers import EVENT_LITERALS, SESSION_LITERALS, UNKNOWN_REQUEST
from mcp_resume.spec.walk import BreadthFirst, StopWalk, breadth_first, path_to

from tests.helpers import ROOT
from tests.helpers.spec_steps import run

SPEC = ROOT / "spec"


def _line(limit: int):
    """A walk on the integers 0..limit, each n going to n+1 and n+2."""

    def successors(key, node):
        for move in (1, 2):
            if node + move <= limit:
                yield f"+{move}", node + move, node + move

    return successors


def test_the_walk_finds_every_node_once_by_a_shortest_path():
    walk = breadth_first(0, 0, _line(6))
    assert set(walk.parents) == set(range(7))
    assert walk.levels == [1, 2, 2, 2] and walk.depth == 3 and walk.expanded == 7 and not walk.stopped
    assert walk.path_to(0) == () and walk.path_to(5) == ("+1", "+2", "+2")
    assert path_to(walk.parents, 6) == ("+2", "+2", "+2")


def test_the_walk_stops_at_a_depth_and_at_stop_walk():
    assert set(breadth_first(0, 0, _line(10), depth=2).parents) == {0, 1, 2, 3, 4}
    assert breadth_first(0, 0, _line(10), depth=0).levels == [1]

    def until_three(key, node):
        for step_, successor_key, successor in _line(10)(key, node):
            yield step_, successor_key, successor
            if successor_key == 3:
                raise StopWalk

    walk = BreadthFirst(0, 0).run(until_three)
    assert walk.stopped and walk.path_to(3) == ("+1", "+2") and 4 not in walk.parents
    with pytest.raises(ValueError):
        breadth_first(0, 0, _line(1), depth=-1)
    with pytest.raises(KeyError):
        path_to(walk.parents, 99)


def test_an_order_sorts_each_level_and_keeps_every_path_shortest():
    expanded = []

    def successors(key, node):
        expanded.append(node)
        yield from _line(6)(key, node)

    walk = BreadthFirst(0, 0).run(successors, order=lambda node: -node)
    assert expanded == [0, 2, 1, 4, 3, 6, 5]  # each level largest first
    assert walk.levels == breadth_first(0, 0, _line(6)).levels
    assert all(len(walk.path_to(n)) == (n + 1) // 2 for n in range(7))


def test_bounds_are_checked_and_named():
    with pytest.raises(ValueError):
        Bounds(sessions=-1, streams=0, events=0, requests=0)
    with pytest.raises(ValueError, match="known bounds"):
        named_bound("huge")
    assert named_bound("default") is NAMED_BOUNDS["default"]
    state = run(a.Initialize(), a.CallTool("S1"), a.CallTool("S1"))
    assert within(state, Bounds(sessions=1, streams=2, events=0, requests=0))
    assert not within(state, Bounds(sessions=1, streams=1, events=0, requests=0))  # two streams of S1


def test_candidate_actions_try_the_literals_or_only_what_was_issued():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))
    every = candidate_actions(state)
    assert candidate_actions(state, ANY_HEADERS) == every
    assert {x.session for x in every if isinstance(x, a.CallTool)} == {"S1", *SESSION_LITERALS}
    assert {x.last_event_id for x in every if isinstance(x, a.Reconnect) and x.session == "S1"} == {"E1", *EVENT_LITERALS}
    assert a.AnswerRequest("S1", UNKNOWN_REQUEST) in every and a.RestartClient() in every
    issued = candidate_actions(state, ISSUED_HEADERS)
    assert set(issued) < set(every)
    assert {x.session for x in issued if hasattr(x, "session")} == {"S1"}
    assert a.Reconnect("S1", None) in issued and a.AnswerRequest("S1", UNKNOWN_REQUEST) not in issued
    assert [acting_session(state, x) for x in (a.EmitEvent("T1"), a.CancelRequest("R1"), a.CallTool(None),
                                               a.Initialize(), a.EndStream("T9"))] == ["S1", "S1", None, None, None]


def test_spec_imports_only_the_standard_library_and_itself():
    for path in sorted(SPEC.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "__future__", f"{path.name} imports {name}"
