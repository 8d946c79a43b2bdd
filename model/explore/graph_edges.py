"""What the pictures of the explored state graph draw, before any layout.

``drawn_edges(data)`` turns a ``state_graph.GraphData`` into the edges both
pictures draw (the one-screen overview ``state_graph.to_dot`` and the readable
parts ``graph_parts.split_parts``): the transitions between two states merged
into one edge with one short label per action kind (``SHORT``; ``(n)`` a numbered
branch of docs/design.md §2; ``×k`` k transitions), a counterexample's steps on
their own in red, a lasso's closing step dashed, and a failing step into
``VIOLATION``. Transitions that change nothing (refused requests, guards) are
no edges: ``loop_text`` sums them up per state.

Also the vocabulary the pictures share: action colours, state names
(``s<i>``, in discovery order), breadth-first depths, the legend and DOT/HTML
escaping.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_resume.spec.decision import NUMBERED_BRANCHES

ACTION_COLOURS = {
    "initialize": "#1b9e77",
    "call_tool": "#7570b3",
    "reconnect": "#1f78b4",
    "answer_request": "#66a61e",
    "delete_session": "#a6761d",
    "restart_client": "#666666",
    "drop_connection": "#e6ab02",
    "close_connection": "#fdbf6f",
    "evict_event": "#b15928",
    "emit_event": "#17becf",
    "issue_server_request": "#984ea3",
    "cancel_request": "#8c564b",
    "respond": "#2ca02c",
    "end_stream": "#bcbd22",
    "expire_stream": "#ff7f0e",
    "expire_session": "#7f3b08",
}
COUNTEREXAMPLE = "#d62728"
PREFIX = "#222222"
"""The colour of a lasso's prefix (its cycle is red)."""

SHORT = {
    "initialize": "init", "call_tool": "call", "reconnect": "reconnect", "answer_request": "answer",
    "delete_session": "delete", "restart_client": "restart", "drop_connection": "drop",
    "close_connection": "close", "evict_event": "evict", "emit_event": "emit",
    "issue_server_request": "request", "cancel_request": "cancel", "respond": "respond", "end_stream": "end",
    "expire_stream": "expire stream", "expire_session": "expire session",
}
"""The short edge label of each action kind; the legend gives the full name."""

VIOLATION = "violation"
"""The target of a counterexample's failing step: a node that names the broken rule."""


@dataclass(frozen=True)
class DrawnEdge:
    """One arrow: ``source`` and ``target`` are state keys (``target`` may be ``VIOLATION``);
    ``labels`` one line per action kind; ``kinds`` the action kinds it stands for."""

    source: object
    target: object
    labels: tuple[str, ...]
    colour: str
    penwidth: str = "1"
    style: str = "solid"
    kinds: tuple[str, ...] = ()
    marked: bool = False  # a step of the counterexample or lasso


def state_names(data) -> dict:
    """State key -> ``s<i>``, ``i`` its discovery order (``s0`` the initial state)."""
    return {key: f"s{index}" for index, key in enumerate(data.states)}


def depths(data) -> dict:
    """Each state's breadth-first distance from the first state (states off every path: after the last)."""
    keys = list(data.states)
    successors: dict = {}
    for source, target, _, _ in data.edges:
        successors.setdefault(source, []).append(target)
    depth = {keys[0]: 0}
    frontier = [keys[0]]
    while frontier:
        following = []
        for key in frontier:
            for target in successors.get(key, ()):
                if target not in depth:
                    depth[target] = depth[key] + 1
                    following.append(target)
        frontier = following
    last = max(depth.values()) + 1
    return {key: depth.get(key, last) for key in keys}


def drawn_edges(data) -> tuple[list[DrawnEdge], dict]:
    """The arrows of ``data`` in discovery order, and state key -> its loops ``[(kind, branch, count)]``."""
    marked = set(data.path) | set(data.cycle)
    loops: dict = {}
    merged: dict = {}
    arrows = []
    for edge, count in data.edges.items():
        source, target, kind, branch = edge
        if edge in marked:
            colour = COUNTEREXAMPLE if edge in data.cycle or not data.cycle else PREFIX
            arrows.append(DrawnEdge(source, target, (_label(kind, {NUMBERED_BRANCHES.get(branch)}, count),),
                                    colour, "3", kinds=(kind,), marked=True))
        elif source == target:
            loops.setdefault(source, []).append((kind, branch, count))
        else:
            merged.setdefault((source, target), []).append((kind, branch, count))
    arrows += [_merged(source, target, parts) for (source, target), parts in merged.items()]
    if data.closing:
        source, target, label = data.closing
        arrows.append(DrawnEdge(source, target, (label,), COUNTEREXAMPLE, "3", "dashed", marked=True))
    if data.failure:
        source, kind, _ = data.failure
        arrows.append(DrawnEdge(source, VIOLATION, (SHORT[kind],), COUNTEREXAMPLE, "2.5", kinds=(kind,), marked=True))
    return arrows, loops


def _merged(source, target, parts: list) -> DrawnEdge:
    kinds: dict = {}
    for kind, branch, count in parts:
        entry = kinds.setdefault(kind, [0, set()])
        entry[0] += count
        entry[1].add(NUMBERED_BRANCHES.get(branch) if branch is not None else None)
    labels = tuple(_label(kind, numbers, count) for kind, (count, numbers) in kinds.items())
    numbered = any(n for _, numbers in kinds.values() for n in numbers)
    return DrawnEdge(source, target, labels, ACTION_COLOURS[next(iter(kinds))], "2" if numbered else "1",
                     kinds=tuple(kinds))


def _label(kind: str, numbers: set, count: int) -> str:
    return (SHORT[kind] + "".join(f" ({n})" for n in sorted(n for n in numbers if n))
            + (f" ×{count}" if count > 1 else ""))


def loop_text(loops) -> str:
    """``"k loops (n)..."``: how many transitions change nothing, and their numbered branches."""
    total = sum(count for _, _, count in loops)
    numbers = sorted({NUMBERED_BRANCHES[b] for _, b, _ in loops if b in NUMBERED_BRANCHES})
    return f"{total} loop{'s' if total > 1 else ''}" + "".join(f" ({n})" for n in numbers)


def branch_numbers(arrows, loops) -> set[int]:
    """The numbered branches (1-5) that some arrow or loop of the picture takes."""
    found = {int(part[1:-1]) for arrow in arrows for label in arrow.labels for part in label.split()
             if part.startswith("(") and part[1:-1].isdigit()}
    return found | {NUMBERED_BRANCHES[b] for entries in loops.values() for _, b, _ in entries
                    if b in NUMBERED_BRANCHES}


def legend_rows(kinds, extra: list[tuple[str, str]], per_row: int = 4) -> str:
    """Rows for an HTML-like table: a table of coloured squares and ``short: full name``, one
    per action kind, ``per_row`` to a row; then the ``(mark, meaning)`` notes of ``extra``
    (``mark`` is HTML already), two to a line."""
    cells = [f'<TD><FONT COLOR="{ACTION_COLOURS[kind]}">&#9632;</FONT></TD>'
             f'<TD ALIGN="LEFT">{html(SHORT[kind])}: {kind}</TD>' for kind in kinds]
    rows = "".join("<TR>" + "".join(cells[i:i + per_row]) + "</TR>" for i in range(0, len(cells), per_row))
    notes = [f"{mark}&nbsp;{html(meaning)}" for mark, meaning in extra]
    lines = "<BR/>".join("&nbsp;&nbsp;·&nbsp;&nbsp;".join(notes[i:i + 2]) for i in range(0, len(notes), 2))
    colours = f'<TR><TD><TABLE BORDER="0" CELLSPACING="1">{rows}</TABLE></TD></TR>' if rows else ""
    return colours + (f"<TR><TD>{lines}</TD></TR>" if notes else "")


def wrap_title(title: str, width: int = 90) -> list[str]:
    """``title`` cut after its ``;`` and ``,`` into lines of about ``width`` characters."""
    lines, line = [], ""
    for part in title.replace("; ", ";\0").replace(", ", ",\0").split("\0"):
        if line and len(line) + len(part) + 1 > width:
            lines.append(line)
            line = part
        else:
            line = f"{line} {part}" if line else part
    return lines + [line]


def html(text: str) -> str:
    """``text`` escaped for a Graphviz HTML-like label."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoted(text: str) -> str:
    """``text`` as a quoted DOT string (newlines as ``\\n``)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
