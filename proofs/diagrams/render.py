"""Rendering diagrams (``diagram_model.Diagram``) as DOT with pydot and as Mermaid.

- ``to_dot``: DOT text, built with pydot (always available);
- ``to_mermaid``: a Mermaid ``flowchart`` or ``stateDiagram-v2`` for Markdown pages;
- ``write_diagrams``: every diagram of the spec (``spec_diagrams``) in the
  requested formats; SVG and PNG go through Graphviz's ``dot``.
"""

from __future__ import annotations

from pathlib import Path

import pydot

from mcp_resume.proofs.diagrams.decision_flow import decision_flow
from mcp_resume.proofs.diagrams.model import Diagram, Node
from mcp_resume.proofs.diagrams.exploration import explore
from mcp_resume.proofs.diagrams.graphviz import RENDERED_FORMATS, render
from mcp_resume.proofs.diagrams.lifecycle import session_lifecycle, stream_lifecycle

FORMATS = ("dot", "svg", "png", "mermaid")

_DOT_SHAPES = {
    "start": {"shape": "oval", "style": "filled", "fillcolor": "gray90"},
    "question": {"shape": "diamond"},
    "outcome": {"shape": "box", "style": "rounded"},
    "state": {"shape": "box", "style": "rounded"},
}


def spec_diagrams() -> list[Diagram]:
    """The decision flowchart and the stream and session lifecycles, all derived from the spec."""
    explored = explore()
    return [decision_flow(), stream_lifecycle(explored=explored), session_lifecycle(explored=explored)]


# -- DOT -------------------------------------------------------------------------


FLOW_LEGEND = (
    "[n]: branch n of the decision (docs/design.md §2)",
    "rule: the catalog rule that judges the answer",
    "mcp-2025-*: mcp-2025-03-26, mcp-2025-06-18 and mcp-2025-11-25",
    "accepts: other statuses a server may answer",
)
"""The flowchart's legend."""

MCP_2025 = "mcp-2025-03-26, mcp-2025-06-18, mcp-2025-11-25"


def to_pydot(diagram: Diagram) -> pydot.Dot:
    if diagram.kind == "flowchart":
        return _flowchart(diagram)
    graph = pydot.Dot(diagram.name.replace("-", "_"), graph_type="digraph", rankdir="TB", label=diagram.title,
                      labelloc="t", fontname="Helvetica")
    graph.set_node_defaults(fontname="Helvetica", fontsize="11")
    graph.set_edge_defaults(fontname="Helvetica", fontsize="10")
    for node in diagram.nodes:
        graph.add_node(pydot.Node(node.id, label=_dot_text(node.lines), **_DOT_SHAPES[node.shape]))
    for edge in diagram.edges:
        attributes = {"label": _dot_text(edge.labels)} if edge.labels else {}
        graph.add_edge(pydot.Edge(edge.source, edge.target, **attributes))
    return graph


def _flowchart(diagram: Diagram) -> pydot.Dot:
    """Left to right, so that it fits a 1920x1080 screen at 100% (about 1,600 x 750 px):
    each question is a column, its answers fan out to its right, long answer lists
    wrap, the 2025 revisions are one name (``FLOW_LEGEND``). Edge labels are
    ordinary labels, which Graphviz lays out beside the nodes, never over them."""
    graph = pydot.Dot(diagram.name.replace("-", "_"), graph_type="digraph", rankdir="LR",
                      label=_dot_text((diagram.title,) + FLOW_LEGEND), labelloc="t", fontname="Helvetica",
                      fontsize="12", nodesep="0.15", ranksep="0.3")
    graph.set_node_defaults(fontname="Helvetica", fontsize="10")
    graph.set_edge_defaults(fontname="Helvetica", fontsize="9")
    for node in diagram.nodes:
        lines = tuple(line.replace(MCP_2025, "mcp-2025-*") for line in node.lines)
        graph.add_node(pydot.Node(node.id, label=_dot_text(lines), **_DOT_SHAPES[node.shape]))
    for edge in diagram.edges:
        attributes = {"label": _dot_text(_wrap(edge.labels))} if edge.labels else {}
        graph.add_edge(pydot.Edge(edge.source, edge.target, **attributes))
    return graph


def _wrap(labels: tuple[str, ...], width: int = 16) -> tuple[str, ...]:
    """Each label cut at its commas into lines of about ``width`` characters."""
    lines = []
    for label in labels:
        line = ""
        for part in label.replace("mcp-2025-03-26, mcp-2025-06-18, mcp-2025-11-25", "mcp-2025-*").split(", "):
            if line and len(line) + len(part) + 2 > width:
                lines.append(line + ",")
                line = part
            else:
                line = f"{line}, {part}" if line else part
        lines.append(line)
    return tuple(lines)


def to_dot(diagram: Diagram) -> str:
    """The DOT text of ``diagram`` (deterministic: nodes and edges in diagram order)."""
    return to_pydot(diagram).to_string()


def _dot_text(lines: tuple[str, ...]) -> str:
    return "\\n".join(line.replace("\\", "\\\\").replace('"', '\\"') for line in lines)


# -- Mermaid -----------------------------------------------------------------------


def to_mermaid(diagram: Diagram) -> str:
    """Mermaid source: a ``flowchart TD`` or, for state diagrams, a ``stateDiagram-v2``."""
    header = ["---", f"title: {diagram.title}", "---"]
    body = _mermaid_states(diagram) if diagram.kind == "state" else _mermaid_flowchart(diagram)
    return "\n".join(header + body) + "\n"


def _mermaid_flowchart(diagram: Diagram) -> list[str]:
    lines = ["flowchart TD"]
    for node in diagram.nodes:
        lines.append(f"    {node.id}{_mermaid_shape(node)}")
    for edge in diagram.edges:
        label = f'|"{_mermaid_text(edge.labels)}"|' if edge.labels else ""
        lines.append(f"    {edge.source} -->{label} {edge.target}")
    return lines


def _mermaid_shape(node: Node) -> str:
    text = f'"{_mermaid_text(node.lines)}"'
    return {"start": f"([{text}])", "question": f"{{{text}}}"}.get(node.shape, f"[{text}]")


def _mermaid_states(diagram: Diagram) -> list[str]:
    lines = ["stateDiagram-v2"]
    for node in diagram.nodes:
        if node.shape != "start":
            lines.append(f'    state "{_mermaid_text(node.lines)}" as {node.id}')
    for edge in diagram.edges:
        source = "[*]" if diagram.node(edge.source).shape == "start" else edge.source
        label = f" : {_mermaid_text(edge.labels)}" if edge.labels else ""
        lines.append(f"    {source} --> {edge.target}{label}")
    return lines


def _mermaid_text(lines: tuple[str, ...]) -> str:
    return "<br/>".join(line.replace('"', "#quot;") for line in lines)


def mermaid_markdown(diagram: Diagram) -> str:
    """A small Markdown page embedding the Mermaid source of ``diagram``."""
    return f"# {diagram.title}\n\nGenerated from the spec by `mcp-resume diagram`.\n\n```mermaid\n{to_mermaid(diagram)}```\n"


# -- files -------------------------------------------------------------------------


def write_diagrams(out_dir: Path, formats: list[str], dot_program: str | None) -> list[Path]:
    """Write every spec diagram into ``out_dir`` and return the paths written.

    ``<name>.dot`` is always written; ``"svg"``/``"png"`` add ``<name>.svg``/
    ``.png`` rendered by ``dot_program``; ``"mermaid"`` adds ``<name>.mmd`` and
    ``<name>.md``. Raises ``ValueError`` for an unknown format or for svg/png
    without ``dot_program``, ``GraphvizError`` when ``dot`` fails, ``OSError``
    when a file cannot be written.
    """
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ValueError(f"unknown diagram format(s) {', '.join(unknown)}; known: {', '.join(FORMATS)}")
    rendered = [f for f in RENDERED_FORMATS if f in formats]
    if rendered and dot_program is None:
        raise ValueError(f"{'/'.join(rendered)} needs Graphviz's dot")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for diagram in spec_diagrams():
        dot_text = to_dot(diagram)
        written.append(_write(out_dir / f"{diagram.name}.dot", dot_text.encode("utf-8")))
        for fmt in rendered:
            written.append(_write(out_dir / f"{diagram.name}.{fmt}", render(dot_text, fmt, dot_program)))
        if "mermaid" in formats:
            written.append(_write(out_dir / f"{diagram.name}.mmd", to_mermaid(diagram).encode("utf-8")))
            written.append(_write(out_dir / f"{diagram.name}.md", mermaid_markdown(diagram).encode("utf-8")))
    return written


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
