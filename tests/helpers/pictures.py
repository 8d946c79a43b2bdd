"""What tests/fast/test_pictures.py and tests/slow/test_pictures.py share."""

import pytest

from mcp_resume.proofs.diagrams import graphviz, measure


DOT = graphviz.find_dot()
needs_dot = pytest.mark.skipif(DOT is None, reason=f"Graphviz's dot is not installed ({graphviz.INSTALL_HINT})")


def assert_reads_on_one_screen(dot_text: str, name: str) -> tuple[float, float]:
    width, height = measure.svg_size_px(graphviz.render(dot_text, "svg", DOT))
    assert width <= measure.SCREEN[0] and height <= measure.SCREEN[1], (name, width, height)
    assert measure.label_overlaps(measure.layout(dot_text, DOT)) == [], name
    return width, height
