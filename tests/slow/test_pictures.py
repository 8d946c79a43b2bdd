"""The pictures a reader opens first, the decision flowchart and the explored state graph,

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_pictures.py``, whose docstring says more.
"""

import pydot
import pytest

from mcp_resume.jobs.graph_drawing import DOCS_DESIGN, draw_graph, drawing
from mcp_resume.model.explore.graph_edges import VIOLATION, drawn_edges
from mcp_resume.model.explore.liveness_check import DESIGN_BOUNDS, check, design_graph
from mcp_resume.model.explore.state_graph import GRAPH_BOUNDS, add_lasso, explore_graph, to_dot
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.spec.profiles import DEFAULT_PROFILE

from tests.helpers.pictures import assert_reads_on_one_screen, needs_dot


@pytest.fixture(scope="module")
def docs_graph():
    """The picture of docs/state-graph: the graph bound, design 4's counterexample in red."""
    return draw_graph(GRAPH_BOUNDS, DEFAULT_PROFILE, DOCS_DESIGN)


@pytest.mark.xdist_group("test_pictures")  # shares a module-scoped fixture
@needs_dot
def test_the_explored_overview_and_every_part_read_on_one_screen(docs_graph):
    assert len(docs_graph.parts) > 1
    assert_reads_on_one_screen(docs_graph.dot_text, "explored")
    for part in docs_graph.parts:
        assert_reads_on_one_screen(part.dot_text, part.caption)


@pytest.mark.xdist_group("test_pictures")  # shares a module-scoped fixture
def test_the_parts_draw_every_arrow_once_with_its_labels(docs_graph):
    arrows, _ = drawn_edges(docs_graph.data)
    drawn = []
    for part in docs_graph.parts:
        (graph,) = pydot.graph_from_dot_data(part.dot_text)
        drawn += [(e.get_source(), e.get_destination(), e.get("label").strip('"')) for e in graph.get_edges()]
    assert len(drawn) == len(arrows)
    assert all(label for _, _, label in drawn)
    assert sum(1 for _, head, _ in drawn if head == VIOLATION) == 1
    sources = [name for part in docs_graph.parts for name in part.sources]
    assert len(sources) == len(set(sources))  # each state's arrows in one part


@pytest.mark.xdist_group("test_pictures")  # shares a module-scoped fixture
def test_the_overview_has_every_state_no_loop_edge_and_no_text_on_its_arrows(docs_graph):
    (graph,) = pydot.graph_from_dot_data(docs_graph.dot_text)
    names = {n.get_name() for n in graph.get_nodes()} - {"node", "edge", "graph"}
    assert names == {f"s{i}" for i in range(len(docs_graph.data.states))} | {VIOLATION}
    edges = graph.get_edges()
    assert not [e for e in edges if e.get_source() == e.get_destination()]
    assert not [e for e in edges if e.get("label") or e.get("xlabel")]
    assert all(e.get("tooltip") for e in edges)  # the labels, on hover


@needs_dot
def test_the_graph_with_a_lasso_reads_on_one_screen_and_draws_its_cycle_in_red():
    (lasso,) = check(design_graph(DESIGNS[3], DESIGN_BOUNDS)).lassos
    data = explore_graph(GRAPH_BOUNDS)
    add_lasso(data, lasso, DESIGNS[3]())
    drawn = drawing(data, "design 3's lasso")
    assert len(data.cycle) == len(lasso.cycle) and data.closing is not None
    assert "dashed" in to_dot(data, "lasso")
    assert_reads_on_one_screen(drawn.dot_text, "lasso overview")
    for part in drawn.parts:
        assert_reads_on_one_screen(part.dot_text, part.caption)
