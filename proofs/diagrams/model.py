"""Diagrams as plain data, before any rendering (DOT, Mermaid)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Node:
    """One node: ``id`` is a stable identifier (``[a-z0-9_]``), ``lines`` its label.

    ``shape`` is ``"start"``, ``"question"``, ``"outcome"`` or ``"state"``.
    """

    id: str
    lines: tuple[str, ...]
    shape: str


@dataclass(frozen=True)
class Edge:
    """A directed edge; ``labels`` are shown one per line (an edge may carry several)."""

    source: str
    target: str
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Diagram:
    """A named diagram: ``kind`` is ``"flowchart"`` or ``"state"``; nodes and edges in drawing order."""

    name: str
    title: str
    kind: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]

    def node(self, node_id: str) -> Node:
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)
