"""How a picture reads on a screen: its size in pixels, and whether an edge label covers a node.

- ``svg_size_px(svg)``: the ``(width, height)`` of an SVG that Graphviz wrote, in CSS
  pixels at 100% zoom (Graphviz gives points; 1 pt = 4/3 px at 96 dpi);
- ``fits_screen(svg)``: whether that size fits ``SCREEN`` (1920 x 1080 px);
- ``layout(dot_text, dot_program)``: Graphviz's layout (``dot -Tjson``) as a dict;
- ``label_overlaps(layout)``: every edge label whose text box meets a node's box,
  as readable sentences (an empty list when none does).

Boxes are in points, in Graphviz's coordinates (y grows upwards). A node's box is
its bounding box (``pos``, ``width`` and ``height``); a label's box is one box per
text line, from the line's drawn width and its font size (``_ldraw_`` operations).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from mcp_resume.proofs.diagrams.graphviz import run_dot

SCREEN = (1920, 1080)
"""A laptop or desktop screen at 100% zoom, in CSS pixels."""

PX_PER_PT = 4 / 3
"""CSS pixels per point: 96 dpi / 72 points per inch."""

_SVG_SIZE = re.compile(rb'<svg\s[^>]*?width="([\d.]+)pt"[^>]*?height="([\d.]+)pt"')


@dataclass(frozen=True)
class Box:
    """An axis-aligned box in points: ``left <= right``, ``bottom <= top``."""

    left: float
    bottom: float
    right: float
    top: float

    def meets(self, other: "Box") -> bool:
        """True when the two boxes share more than an edge."""
        return (self.left < other.right and other.left < self.right
                and self.bottom < other.top and other.bottom < self.top)


def svg_size_px(svg: bytes | str) -> tuple[float, float]:
    """``(width, height)`` in px of an SVG whose ``<svg>`` element gives its size in pt.

    Raises ``ValueError`` when the size is not in points (not an SVG from Graphviz).
    """
    data = svg.encode("utf-8") if isinstance(svg, str) else svg
    found = _SVG_SIZE.search(data)
    if found is None:
        raise ValueError("no <svg width=...pt height=...pt> element: not an SVG written by Graphviz")
    return float(found[1]) * PX_PER_PT, float(found[2]) * PX_PER_PT


def fits_screen(svg: bytes | str, screen: tuple[int, int] = SCREEN) -> bool:
    """True when the SVG, shown at 100%, is no wider and no taller than ``screen`` (px)."""
    width, height = svg_size_px(svg)
    return width <= screen[0] and height <= screen[1]


def layout(dot_text: str, dot_program: str) -> dict:
    """Graphviz's layout of ``dot_text``: the JSON that ``dot -Tjson`` prints, parsed.

    Raises ``graphviz.GraphvizError`` (a ``RuntimeError``) when ``dot`` fails.
    """
    return json.loads(run_dot(dot_text, "json", dot_program))


def node_boxes(laid_out: dict) -> dict[str, Box]:
    """Node name -> its bounding box (clusters and subgraphs, which have no ``pos``, left out)."""
    boxes = {}
    for item in laid_out.get("objects", ()):
        if "pos" not in item or "width" not in item:
            continue
        x, y = (float(v) for v in item["pos"].split(",")[:2])
        half_w, half_h = float(item["width"]) * 36, float(item["height"]) * 36  # inches -> pt, halved
        boxes[item["name"]] = Box(x - half_w, y - half_h, x + half_w, y + half_h)
    return boxes


def text_boxes(operations: list[dict]) -> list[tuple[str, Box]]:
    """The box of each text line drawn by xdot ``operations`` (``T`` after its ``F``)."""
    size = 14.0
    boxes = []
    for op in operations:
        if op.get("op") == "F":
            size = float(op["size"])
        elif op.get("op") == "T":
            x, y = op["pt"]
            width = float(op["width"])
            left = {"l": x, "r": x - width}.get(op.get("align", "c"), x - width / 2)
            boxes.append((op["text"], Box(left, y - 0.2 * size, left + width, y + 0.8 * size)))
    return boxes


def label_overlaps(laid_out: dict) -> list[str]:
    """Each edge label line that meets a node's box, as ``"label 'x' of a -> b covers node n"``."""
    names = {item["_gvid"]: item["name"] for item in laid_out.get("objects", ())}
    nodes = node_boxes(laid_out)
    found = []
    for edge in laid_out.get("edges", ()):
        ends = f"{names.get(edge['tail'])} -> {names.get(edge['head'])}"
        for key in ("_ldraw_", "_hldraw_", "_tldraw_"):
            for text, box in text_boxes(edge.get(key, [])):
                found += [f"label {text!r} of {ends} covers node {name}"
                          for name, node in nodes.items() if box.meets(node)]
    return found
