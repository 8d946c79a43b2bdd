"""The pictures a reader opens first, the decision flowchart and the explored state graph,
read on a 1920x1080 screen at 100%: each SVG Graphviz writes is at most 1920 x 1080 px
(pt * 4/3), and in its layout (``dot -Tjson``) no edge label's box meets a node's box.
The explored graph is an overview without text on its arrows plus parts that label
every arrow; each of them is held to this, with a counterexample and with a lasso."""

import pydot
import pytest

from mcp_resume.jobs.state_graph import DOCS_DESIGN, draw_graph, drawing
from mcp_resume.model.explore.graph_edges import VIOLATION, drawn_edges
from mcp_resume.model.explore.graph_parts import split_parts
from mcp_resume.model.explore.liveness import DESIGN_BOUNDS, check, design_graph
from mcp_resume.model.explore.state_graph import GRAPH_BOUNDS, add_lasso, explore_graph, to_dot
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.proofs.diagrams import graphviz, measure
from mcp_resume.proofs.diagrams.decision_flow import decision_flow
from mcp_resume.proofs.diagrams.render import spec_diagrams
from mcp_resume.proofs.diagrams.render import to_dot as diagram_dot
from mcp_resume.spec.profiles import DEFAULT_PROFILE

DOT = graphviz.find_dot()
needs_dot = pytest.mark.skipif(DOT is None, reason=f"Graphviz's dot is not installed ({graphviz.INSTALL_HINT})")


def _assert_reads_on_one_screen(dot_text: str, name: str) -> tuple[float, float]:
    width, height = measure.svg_size_px(graphviz.render(dot_text, "svg", DOT))
    assert width <= measure.SCREEN[0] and height <= measure.SCREEN[1], (name, width, height)
    assert measure.label_overlaps(measure.layout(dot_text, DOT)) == [], name
    return width, height


@pytest.fixture(scope="module")
def docs_graph():
    """The picture of docs/state-graph: the graph bound, design 4's counterexample in red."""
    return draw_graph(GRAPH_BOUNDS, DEFAULT_PROFILE, DOCS_DESIGN)


# -- the measures themselves -------------------------------------------------------------


def test_an_svg_size_in_points_is_read_in_pixels_at_96_dpi():
    assert measure.svg_size_px('<svg width="1440pt" height="810pt" viewBox="0 0 1440 810">') == (1920, 1080)
    assert measure.fits_screen(b'<svg width="1440pt" height="810pt">')
    assert not measure.fits_screen(b'<svg width="1441pt" height="10pt">')
    with pytest.raises(ValueError):
        measure.svg_size_px("<svg width='100%'>")


@needs_dot
def test_a_label_drawn_over_a_node_is_found():
    """A long head label sits on its node; an ordinary label beside the nodes does not."""
    over = 'digraph { a -> b [headlabel="a long head label that runs over the node", labeldistance=0.5]; }'
    assert measure.label_overlaps(measure.layout(over, DOT)) == [
        "label 'a long head label that runs over the node' of a -> b covers node b"]
    crowd = "; ".join(f"n{i}" for i in range(12))
    beside = f'digraph {{ a -> b [label="a long label"]; {{rank=same; b; {crowd}}} }}'
    assert measure.label_overlaps(measure.layout(beside, DOT)) == []


# -- the decision flowchart and the lifecycles -------------------------------------------


@needs_dot
def test_the_decision_flowchart_reads_on_one_screen_left_to_right():
    width, height = _assert_reads_on_one_screen(diagram_dot(decision_flow()), "decision-flow")
    assert width > height  # one column per question, not one long page


@needs_dot
def test_every_spec_diagram_reads_on_one_screen():
    for diagram in spec_diagrams():
        _assert_reads_on_one_screen(diagram_dot(diagram), diagram.name)


def test_the_flowchart_explains_its_branch_numbers_and_wraps_long_answers():
    (graph,) = pydot.graph_from_dot_data(diagram_dot(decision_flow()))
    assert "branch n of the decision" in graph.get_label()
    labels = [e.get("label") or "" for e in graph.get_edges()]
    assert all(len(line) <= 24 for label in labels for line in label.strip('"').split("\\n"))


# -- the explored state graph --------------------------------------------------------------


@needs_dot
def test_the_explored_overview_and_every_part_read_on_one_screen(docs_graph):
    assert len(docs_graph.parts) > 1
    _assert_reads_on_one_screen(docs_graph.dot_text, "explored")
    for part in docs_graph.parts:
        _assert_reads_on_one_screen(part.dot_text, part.caption)


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


def test_the_overview_has_every_state_no_loop_edge_and_no_text_on_its_arrows(docs_graph):
    (graph,) = pydot.graph_from_dot_data(docs_graph.dot_text)
    names = {n.get_name() for n in graph.get_nodes()} - {"node", "edge", "graph"}
    assert names == {f"s{i}" for i in range(len(docs_graph.data.states))} | {VIOLATION}
    edges = graph.get_edges()
    assert not [e for e in edges if e.get_source() == e.get_destination()]
    assert not [e for e in edges if e.get("label") or e.get("xlabel")]
    assert all(e.get("tooltip") for e in edges)  # the labels, on hover


def test_a_part_stays_within_its_budget_of_columns():
    data = explore_graph()
    for part in split_parts(data, "spec"):
        first, last = part.depths
        assert last - first + 2 <= 4, part.caption


@needs_dot
@pytest.mark.slow
def test_the_graph_with_a_lasso_reads_on_one_screen_and_draws_its_cycle_in_red():
    (lasso,) = check(design_graph(DESIGNS[3], DESIGN_BOUNDS)).lassos
    data = explore_graph(GRAPH_BOUNDS)
    add_lasso(data, lasso, DESIGNS[3]())
    drawn = drawing(data, "design 3's lasso")
    assert len(data.cycle) == len(lasso.cycle) and data.closing is not None
    assert "dashed" in to_dot(data, "lasso")
    _assert_reads_on_one_screen(drawn.dot_text, "lasso overview")
    for part in drawn.parts:
        _assert_reads_on_one_screen(part.dot_text, part.caption)
