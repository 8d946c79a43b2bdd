"""The pictures a reader opens first, the decision flowchart and the explored state graph,
read on a 1920x1080 screen at 100%: each SVG Graphviz writes is at most 1920 x 1080 px
(pt * 4/3), and in its layout (``dot -Tjson``) no edge label's box meets a node's box.
The explored graph is an overview without text on its arrows plus parts that label
every arrow; each of them is held to this, with a counterexample and with a lasso."""

import pydot
import pytest

from mcp_resume.model.explore.graph_parts import split_parts
from mcp_resume.model.explore.state_graph import explore_graph
from mcp_resume.proofs.diagrams import measure
from mcp_resume.proofs.diagrams.decision_flow import decision_flow
from mcp_resume.proofs.diagrams.render import spec_diagrams
from mcp_resume.proofs.diagrams.render import to_dot as diagram_dot

from tests.helpers.pictures import DOT, assert_reads_on_one_screen, needs_dot


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


@needs_dot
def test_the_decision_flowchart_reads_on_one_screen_left_to_right():
    width, height = assert_reads_on_one_screen(diagram_dot(decision_flow()), "decision-flow")
    assert width > height  # one column per question, not one long page


@needs_dot
def test_every_spec_diagram_reads_on_one_screen():
    for diagram in spec_diagrams():
        assert_reads_on_one_screen(diagram_dot(diagram), diagram.name)


def test_the_flowchart_explains_its_branch_numbers_and_wraps_long_answers():
    (graph,) = pydot.graph_from_dot_data(diagram_dot(decision_flow()))
    assert "branch n of the decision" in graph.get_label()
    labels = [e.get("label") or "" for e in graph.get_edges()]
    assert all(len(line) <= 24 for label in labels for line in label.strip('"').split("\\n"))


def test_a_part_stays_within_its_budget_of_columns():
    data = explore_graph()
    for part in split_parts(data, "spec"):
        first, last = part.depths
        assert last - first + 2 <= 4, part.caption
