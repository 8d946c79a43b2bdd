"""The explored state graph in parts that each read on one screen, every arrow labelled.

``split_parts(data, title)`` cuts the arrows of ``graph_edges.drawn_edges`` by
their source state: the sources, in breadth-first order (``graph_edges.depths``)
then discovery order, are taken greedily into a part while its tallest column
stays within ``LINE_BUDGET`` text lines and it spans at most ``MAX_COLUMNS``
depths. Each part is laid out left to right, one column per depth: its source
states, then the states they step to. An arrow to a state no deeper than its
source (a step back or sideways, e.g. an expiry that two states share) ends at a
dashed copy of that state in the next column, so no arrow runs backwards and no
column is crossed. Labels are ordinary edge labels, which Graphviz lays out
beside the nodes, never over them (``proofs.diagrams.measure.label_overlaps``
checks this on the rendered layout). A state may appear in several parts; its
name ``s<i>`` is the overview's (``state_graph.to_dot``).

A single source whose arrows alone exceed the budget still gets one part (taller
than a screen): the budget bounds the graph bound's parts, not every bound's.
"""

from __future__ import annotations

from dataclasses import dataclass

import pydot

from mcp_resume.model.explore.graph_edges import (
    COUNTEREXAMPLE, PREFIX, VIOLATION, DrawnEdge, depths, drawn_edges, html, legend_rows, loop_text, quoted, state_names,
    wrap_title,
)
from mcp_resume.model.explore.state_graph import GraphData, describe_state

LINE_BUDGET = 44
"""Text lines (of the 9 pt font) the tallest column of a part may hold, padding included:
with the title and legend, a part then stays under 1080 px high."""

MAX_COLUMNS = 4
"""Depths one part may span: four columns of states and three of labels fit 1920 px."""

NODE_PADDING = 1.4
"""The lines a state's border, margin and the gap to the next state take."""

LABEL_PADDING = 0.6
"""The lines the gap between two edge labels takes."""


@dataclass(frozen=True)
class GraphPart:
    """One picture: ``number`` (1-based) of ``count``; ``sources`` the states (``s<i>``) whose
    arrows it draws, spanning breadth-first ``depths`` (first, last); ``dot_text`` its DOT."""

    number: int
    count: int
    sources: tuple[str, ...]
    depths: tuple[int, int]
    dot_text: str

    @property
    def caption(self) -> str:
        """``"part 2 of 9: the steps from s2, s3 (depth 2)"``."""
        first, last = self.depths
        span = f"depth {first}" if first == last else f"depths {first} to {last}"
        return f"part {self.number} of {self.count}: the steps from {', '.join(self.sources)} ({span})"


@dataclass
class _Layout:
    """A part's nodes before drawing: node id -> (state key or ``VIOLATION``, column, is a copy)."""

    nodes: dict
    arrows: list  # (tail node id, head node id, DrawnEdge)


def split_parts(data: GraphData, title: str) -> list[GraphPart]:
    """Every arrow of ``data`` in parts of at most ``LINE_BUDGET`` lines and ``MAX_COLUMNS`` depths."""
    arrows, loops = drawn_edges(data)
    names, depth = state_names(data), depths(data)
    by_source: dict = {}
    for arrow in arrows:
        by_source.setdefault(arrow.source, []).append(arrow)
    order = sorted(by_source, key=lambda key: (depth[key], int(names[key][1:])))
    groups = _group(order, by_source, depth, data, loops)
    parts = []
    for number, group in enumerate(groups, 1):
        layout = _layout(group, by_source, depth, names)
        span = (min(depth[k] for k in group), max(depth[k] for k in group))
        part = GraphPart(number, len(groups), tuple(names[k] for k in group), span, "")
        dot_text = _to_dot(layout, data, loops, f"{title}; {part.caption}")
        parts.append(GraphPart(number, len(groups), part.sources, span, dot_text))
    return parts


def _group(order: list, by_source: dict, depth: dict, data: GraphData, loops: dict) -> list[list]:
    groups: list[list] = []
    for source in order:
        trial = (groups[-1] if groups else []) + [source]
        fits = (groups and _height(trial, by_source, depth, data, loops) <= LINE_BUDGET
                and max(depth[k] for k in trial) - min(depth[k] for k in trial) + 2 <= MAX_COLUMNS)
        if fits:
            groups[-1] = trial
        else:
            groups.append([source])
    return groups


def _height(group: list, by_source: dict, depth: dict, data: GraphData, loops: dict) -> float:
    """The lines of the part's tallest column, of states or of labels."""
    layout = _layout(group, by_source, depth, state_names(data))
    columns: dict = {}
    for key, column, copy in layout.nodes.values():
        lines = 2 if key == VIOLATION else len(describe_state(data.states[key])) + (key in loops and not copy)
        columns[("states", column)] = columns.get(("states", column), 0) + lines + NODE_PADDING
    for tail, _, arrow in layout.arrows:
        gap = ("labels", layout.nodes[tail][1])
        columns[gap] = columns.get(gap, 0) + len(arrow.labels) + LABEL_PADDING
    return max(columns.values())


def _layout(group: list, by_source: dict, depth: dict, names: dict) -> _Layout:
    nodes = {names[key]: (key, depth[key], False) for key in group}
    arrows = []
    for source in group:
        for arrow in by_source[source]:
            if arrow.target == VIOLATION:
                head = VIOLATION
                nodes[head] = (VIOLATION, depth[source] + 1, False)
            elif depth[arrow.target] == depth[source] + 1:
                head = names[arrow.target]
                nodes.setdefault(head, (arrow.target, depth[arrow.target], False))
            else:
                head = f"{names[arrow.target]}_again"
                column = max(depth[source] + 1, nodes.get(head, (None, 0))[1])
                nodes[head] = (arrow.target, column, True)
            arrows.append((names[source], head, arrow))
    return _Layout(nodes, arrows)


def _to_dot(layout: _Layout, data: GraphData, loops: dict, title: str) -> str:
    on_path = {key for _, _, arrow in layout.arrows if arrow.marked for key in (arrow.source, arrow.target)}
    graph = pydot.Dot("explored_part", graph_type="digraph", rankdir="LR", labelloc="t", fontname="Helvetica",
                      nodesep="0.12", ranksep="0.3", label=_title(title, layout))
    graph.set_node_defaults(fontname="Helvetica", fontsize="9", shape="box", style="rounded", margin="0.08,0.04")
    graph.set_edge_defaults(fontname="Helvetica", fontsize="9", arrowsize="0.7")
    columns: dict = {}
    for node_id, (key, column, copy) in layout.nodes.items():
        columns.setdefault(column, []).append(node_id)
        graph.add_node(_node(node_id, key, copy, data, loops, key in on_path))
    for column, members in sorted(columns.items()):
        same = pydot.Subgraph(f"column_{column}", rank="same")
        for node_id in members:
            same.add_node(pydot.Node(node_id))
        graph.add_subgraph(same)
    for tail, head, arrow in layout.arrows:
        graph.add_edge(_edge(tail, head, arrow))
    return graph.to_string()


def _node(node_id: str, key, copy: bool, data: GraphData, loops: dict, marked: bool) -> pydot.Node:
    if key == VIOLATION:
        return pydot.Node(VIOLATION, label=quoted(f"broken:\n{data.failure[2]}"), shape="octagon",
                          color=COUNTEREXAMPLE, fontcolor=COUNTEREXAMPLE, penwidth="2")
    name = node_id.removesuffix("_again")
    lines = describe_state(data.states[key])
    text = f"<B>{name}</B>&nbsp;{html(lines[0])}" + "".join(f'<BR ALIGN="LEFT"/>&nbsp;{html(line)}' for line in lines[1:])
    if key in loops and not copy:
        text += f'<BR ALIGN="LEFT"/><FONT COLOR="gray40">{html(loop_text(loops[key]))}</FONT>'
    style = {"style": "rounded,dashed", "color": "gray50"} if copy else {"color": "gray30"}
    if marked and not copy:
        style = {"color": COUNTEREXAMPLE, "penwidth": "2.5"}
    if name == "s0":
        style.update(style="rounded,filled", fillcolor="gray90")
    return pydot.Node(node_id, label=f'<{text}<BR ALIGN="LEFT"/>>', **style)


def _edge(tail: str, head: str, arrow: DrawnEdge) -> pydot.Edge:
    return pydot.Edge(tail, head, label=quoted("\n".join(arrow.labels)), color=arrow.colour, fontcolor=arrow.colour,
                      penwidth=arrow.penwidth, style=arrow.style)


def _title(title: str, layout: _Layout) -> str:
    arrows = [arrow for _, _, arrow in layout.arrows]
    kinds = list(dict.fromkeys(kind for arrow in arrows for kind in arrow.kinds))
    extra = [("(n):", "branch n of the decision (docs/design.md §2)"),
             ("k loops:", "requests that change nothing")]
    if any(copy for _, _, copy in layout.nodes.values()):
        extra.append(("dashed:", "a state drawn again, no deeper than the state that steps to it"))
    if any(arrow.marked and arrow.colour == COUNTEREXAMPLE for arrow in arrows):
        extra.append((f'<FONT COLOR="{COUNTEREXAMPLE}">&#9632;</FONT>', "the counterexample (a lasso's cycle)"))
    if any(arrow.marked and arrow.colour == PREFIX for arrow in arrows):
        extra.append((f'<FONT COLOR="{PREFIX}">&#9632;</FONT>', "a lasso's prefix"))
    rows = "".join(f"<TR><TD>{html(line)}</TD></TR>" for line in wrap_title(title, 120))
    return (f'<<TABLE BORDER="0" CELLSPACING="1">{rows}'
            f"{legend_rows(kinds, extra, per_row=5)}</TABLE>>")
