"""The explored graph as a picture: every state and transition at a small bound, the
five branches visible, a faulty design's counterexample in red."""

import pydot
import pytest

from mcp_resume.model.explore.server import explore_server
from mcp_resume.spec.space import NAMED_BOUNDS
from mcp_resume.model.explore.plain import explore_spec
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.model.explore.state_graph import (
    ACTION_COLOURS,
    COUNTEREXAMPLE,
    GraphTooLarge,
    add_counterexample,
    explore_graph,
    to_dot,
)
from mcp_resume.model.explore.graph_parts import split_parts
from mcp_resume.spec.profiles import Profile


def _parse(text):
    (graph,) = pydot.graph_from_dot_data(text)
    return graph


def test_the_graph_has_every_explored_state_and_the_five_branches():
    data = explore_graph()
    assert len(data.states) == explore_spec(NAMED_BOUNDS["graph"]).states
    graph = _parse(to_dot(data, "spec"))
    labels = " ".join(e.get("tooltip") or "" for e in graph.get_edges())
    labels += " ".join(n.get("tooltip") or "" for n in graph.get_nodes())  # each state's merged loops
    for number in ("(1)", "(2)", "(3)", "(4)", "(5)"):
        assert number in labels
    colours = {e.get("color").strip('"') for e in graph.get_edges()}
    assert colours <= set(ACTION_COLOURS.values())
    assert COUNTEREXAMPLE not in colours
    parts = " ".join(part.dot_text for part in split_parts(data, "spec"))
    for number in ("(1)", "(2)", "(3)", "(4)", "(5)"):
        assert number in parts


def test_a_counterexample_is_drawn_in_red_and_ends_in_the_rule_it_breaks():
    data = explore_graph()
    trace = explore_server(DESIGNS[7], NAMED_BOUNDS["kill"], Profile.BOUNDARY).first.trace
    add_counterexample(data, trace, DESIGNS[7]())
    graph = _parse(to_dot(data, "design 7"))
    red = [e for e in graph.get_edges() if e.get("color").strip('"') == COUNTEREXAMPLE]
    assert len(red) == len(trace.actions)  # the path, and the failing step into the violation node
    violation = graph.get_node("violation")[0]
    assert "replay-suffix" in violation.get("label")


def test_a_bound_too_large_to_draw_is_refused():
    with pytest.raises(GraphTooLarge):
        explore_graph(NAMED_BOUNDS["kill"])
