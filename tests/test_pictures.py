"""The two pictures a reader opens first, the decision flowchart and the explored state
graph, fit a laptop screen: at most 1,600 px wide when Graphviz renders them with its
defaults (PNG at 96 dpi), top to bottom, with a legend and one loop line per state."""

import struct

import pydot
import pytest

from mcp_resume.model.explore.liveness import DESIGN_BOUNDS, check, design_graph
from mcp_resume.model.explore.state_graph import GRAPH_BOUNDS, add_counterexample, add_lasso, explore_graph, to_dot
from mcp_resume.model.explore.server import explore_server
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.proofs.diagrams import graphviz
from mcp_resume.proofs.diagrams.decision_flow import decision_flow
from mcp_resume.proofs.diagrams.render import to_dot as diagram_dot
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import NAMED_BOUNDS

MAX_WIDTH = 1600

DOT = graphviz.find_dot()
needs_dot = pytest.mark.skipif(DOT is None, reason=f"Graphviz's dot is not installed ({graphviz.INSTALL_HINT})")


def _size(dot_text: str) -> tuple[int, int]:
    png = graphviz.render(dot_text, "png", DOT)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


@needs_dot
def test_the_decision_flowchart_is_at_most_1600_px_wide():
    width, height = _size(diagram_dot(decision_flow()))
    assert width <= MAX_WIDTH, (width, height)
    assert height > width / 2  # top to bottom, not one long row


def test_the_flowchart_explains_its_branch_numbers_and_wraps_long_answers():
    (graph,) = pydot.graph_from_dot_data(diagram_dot(decision_flow()))
    assert "branch n of the decision" in graph.get_label()
    labels = [e.get("label") or "" for e in graph.get_edges()]
    assert all(len(line) <= 24 for label in labels for line in label.strip('"').split("\\n"))


@needs_dot
def test_the_explored_state_graph_is_at_most_1600_px_wide():
    width, _ = _size(to_dot(explore_graph(), "spec"))
    assert width <= MAX_WIDTH, width


def test_each_state_has_at_most_one_loop_line_and_no_loop_edge():
    data = explore_graph()
    (graph,) = pydot.graph_from_dot_data(to_dot(data, "spec"))
    ends = [(e.get_source().split(":")[-1], e.get_destination().split(":")[-1]) for e in graph.get_edges()]
    assert not [pair for pair in ends if pair[0] == pair[1]]
    assert any(source == target for source, target, _, _ in data.edges)  # the loops exist, as lines
    assert "legend" in {n.get_name() for n in graph.get_nodes()}


@needs_dot
@pytest.mark.slow
def test_the_graph_with_a_counterexample_is_at_most_1600_px_wide():
    data = explore_graph()
    trace = explore_server(DESIGNS[4], NAMED_BOUNDS["kill"], Profile.BOUNDARY).first.trace
    add_counterexample(data, trace, DESIGNS[4]())
    width, _ = _size(to_dot(data, "design 4"))
    assert width <= MAX_WIDTH, width


@needs_dot
@pytest.mark.slow
def test_the_graph_with_a_lasso_is_at_most_1600_px_wide_and_draws_its_cycle_in_red():
    (lasso,) = check(design_graph(DESIGNS[3], DESIGN_BOUNDS)).lassos
    data = explore_graph(GRAPH_BOUNDS)
    add_lasso(data, lasso, DESIGNS[3]())
    text = to_dot(data, "design 3's lasso")
    assert len(data.cycle) == len(lasso.cycle) and data.closing is not None
    width, _ = _size(text)
    assert width <= MAX_WIDTH, width
