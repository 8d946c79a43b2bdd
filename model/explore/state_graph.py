"""The explored state graph as a picture: DOT text built with pydot.

``state_graph(bounds, profile, counterexample)`` explores the spec within a small
bound (``explorer.explore_spec``, with symmetry reduction) and draws every state
reached as a node and every transition as an edge, coloured by action kind.
Parallel transitions of one kind are drawn once with their count; an edge of a
client request names the decision branch it took, and the five numbered
branches of docs/design.md §2 are drawn bold with their number. Refused requests
change nothing: they are the loops. Loops of the numbered branches are drawn
(branches 3 and 4 refuse, and a resumption may change nothing); the others
(guards, answers to nothing, restarts with nothing to forget) are gathered into
one grey loop per state with their count.

A counterexample (a trace from any checker, e.g. the explorer's shortest for a
faulty design) is drawn in red: the spec states it passes through (added to the
picture when they lie beyond the bound) and its last step, which ends in a red
node naming the broken rule. Rendering to SVG is the caller's business
(``proofs.graphviz.render``: Graphviz's ``dot``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pydot

from mcp_resume.spec.decision import NUMBERED_BRANCHES, Branch
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.state import INITIAL_STATE, State
from mcp_resume.spec.trace import Trace
from mcp_resume.spec.transitions import Transition, step

from mcp_resume.model.servers.adapter import ServerUnderTest
from mcp_resume.model.explore.canonical import canonical_key
from mcp_resume.model.harness.checker import Checker
from mcp_resume.spec.space import GRAPH_BOUND, NAMED_BOUNDS, Bounds
from mcp_resume.model.explore.plain import explore_spec

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
    "end_stream": "#bcbd22",
    "expire_stream": "#ff7f0e",
    "expire_session": "#7f3b08",
}
COUNTEREXAMPLE = "#d62728"

GRAPH_BOUNDS = NAMED_BOUNDS[GRAPH_BOUND]
"""Small enough to read: one session, one stream, one event, one request, four steps."""

MAX_STATES = 1500
"""Larger graphs are refused: Graphviz takes minutes and nobody can read them."""


@dataclass
class GraphData:
    """States (canonical key -> representative state, first reached first) and
    edges ((source, target, kind, branch) -> how many transitions)."""

    states: dict = field(default_factory=dict)
    edges: Counter = field(default_factory=Counter)
    path: list[tuple] = field(default_factory=list)  # (source key, target key, kind, branch) of the counterexample
    failure: tuple | None = None  # (source key, kind, rule) of its failing step
    cycle: list[tuple] = field(default_factory=list)  # the edges of a lasso's cycle (``path`` is then its prefix)
    closing: tuple | None = None  # (source key, target key, label): a cycle's step beyond the bound, drawn back

    def add(self, source, transition: Transition, target) -> None:
        self.states.setdefault(source, transition.before)
        self.states.setdefault(target, transition.after)
        branch = transition.outcome.branch if transition.outcome else None
        self.edges[(source, target, transition.action.kind, branch)] += 1


class GraphTooLarge(ValueError):
    """The bound reaches more states than a picture can hold."""


def explore_graph(bounds: Bounds = GRAPH_BOUNDS, profile: Profile = DEFAULT_PROFILE) -> GraphData:
    """Every state and transition of the spec within ``bounds``.

    Raises ``GraphTooLarge`` beyond ``MAX_STATES`` states.
    """
    data = GraphData()
    data.states[canonical_key(INITIAL_STATE)] = INITIAL_STATE

    def record(source, transition: Transition, target) -> None:
        data.add(source, transition, target)
        if len(data.states) > MAX_STATES:
            raise GraphTooLarge(f"more than {MAX_STATES} states within {bounds.describe()}; too many to draw")

    explore_spec(bounds, profile, record=record)
    return data


def add_counterexample(data: GraphData, trace: Trace, server: ServerUnderTest | None = None) -> None:
    """Mark ``trace``'s spec states in red, adding those outside the graph; its last
    step (the failing one) ends in a node that names the broken rule.

    With ``server`` (a fresh instance of the server the trace was found on) the
    spec states are those a ``Checker`` follows beside it (an accepted
    alternative, such as a session resumption that re-emits nothing under an
    MCP profile, moves the spec its way); otherwise those of ``step``.
    """
    steps = trace.actions[:-1] if trace.failure else trace.actions
    states = _spec_states(steps, trace.profile, server)
    keys = [canonical_key(state) for state in states]
    for key, state in zip(keys, states):
        data.states.setdefault(key, state)
    for index, action in enumerate(steps):
        branch = decide_branch(states[index], action, trace.profile)
        edge = (keys[index], keys[index + 1], action.kind, branch)
        data.edges.setdefault(edge, 1)
        data.path.append(edge)
    if trace.failure:
        data.failure = (keys[-1], trace.actions[-1].kind, trace.failure.rule)


def add_lasso(data: GraphData, lasso, server: ServerUnderTest | None = None) -> None:
    """Draw ``lasso`` (``liveness.Lasso``): its prefix dark, one round of its cycle red,
    and a dashed red edge back to the cycle's first state; the states are the spec's
    view beside ``server`` (a fresh instance), as ``liveness.design_graph`` walks it."""
    from mcp_resume.model.explore.liveness import tracking_checker

    states = [INITIAL_STATE]
    checker = tracking_checker(server) if server is not None else None
    for action in lasso.prefix + lasso.cycle:
        if checker is None:
            states.append(step(states[-1], action).after)
        else:
            checker.apply(action)
            states.append(checker.state)
    keys = [canonical_key(state) for state in states]
    for key, state in zip(keys, states):
        data.states.setdefault(key, state)
    for index, action in enumerate(lasso.prefix + lasso.cycle):
        branch = step(states[index], action).outcome
        edge = (keys[index], keys[index + 1], action.kind, branch.branch if branch else None)
        data.edges.setdefault(edge, 1)
        (data.path if index < len(lasso.prefix) else data.cycle).append(edge)
    start = keys[len(lasso.prefix)]
    if keys[-1] != start:
        data.closing = (keys[-1], start, f"again: {lasso.request} still stranded")


def _spec_states(actions, profile: Profile, server: ServerUnderTest | None) -> list[State]:
    states = [INITIAL_STATE]
    if server is None:
        for action in actions:
            states.append(step(states[-1], action, profile).after)
        return states
    checker = Checker(server, profile)
    for action in actions:
        checker.apply(action)
        states.append(checker.state)
    return states


def decide_branch(state: State, action, profile: Profile) -> Branch | None:
    outcome = step(state, action, profile).outcome
    return outcome.branch if outcome else None


SHORT = {
    "initialize": "init", "call_tool": "call", "reconnect": "reconnect", "answer_request": "answer",
    "delete_session": "delete", "restart_client": "restart", "drop_connection": "drop",
    "close_connection": "close", "evict_event": "evict", "emit_event": "emit",
    "issue_server_request": "request", "cancel_request": "cancel", "end_stream": "end",
    "expire_stream": "expire stream", "expire_session": "expire session",
}
"""The short edge label of each action kind; the legend gives the full name."""

ROW = 5
"""States per row of the picture: a breadth-first level wider than this wraps onto more rows."""


def to_dot(data: GraphData, title: str) -> str:
    """The DOT text of the graph (deterministic: states and edges in discovery order).

    Laid out top to bottom to be read on a laptop: each breadth-first level is one
    table of states, at most ``ROW`` to a row (edges meet a state at its cell);
    the transitions between two states are one edge with short labels (``SHORT``;
    ``(n)`` a numbered branch of docs/design.md §2) placed beside it; a state's loops
    (requests that change nothing) are one line in its cell; a legend.
    """
    graph = pydot.Dot("explored", graph_type="digraph", rankdir="TB", label=title, labelloc="t",
                      fontname="Helvetica", fontsize="14", nodesep="0.3", ranksep="0.6", forcelabels="true")
    graph.set_node_defaults(fontname="Helvetica", fontsize="9", shape="plaintext")
    graph.set_edge_defaults(fontname="Helvetica", fontsize="8")
    names = {key: f"s{index}" for index, key in enumerate(data.states)}
    depth = _depths(data)
    at = {key: f"L{depth[key]}:{names[key]}" for key in data.states}
    marked = set(data.path) | set(data.cycle)
    loops: dict = {}
    merged: dict = {}
    for edge, count in data.edges.items():
        source, target, kind, branch = edge
        if edge in marked:
            colour = COUNTEREXAMPLE if edge in data.cycle or not data.cycle else PREFIX
            graph.add_edge(pydot.Edge(at[source], at[target], **_edge_style(kind, branch, count, colour)))
        elif source == target:
            loops.setdefault(source, []).append((kind, branch, count))
        else:
            merged.setdefault((source, target), []).append((kind, branch, count))
    _add_levels(graph, data, names, depth, loops)
    for (source, target), parts in merged.items():
        graph.add_edge(pydot.Edge(at[source], at[target], **_merged_style(parts, False)))
    if data.closing:
        source, target, label = data.closing
        graph.add_edge(pydot.Edge(at[source], at[target], xlabel=_escape(label), color=COUNTEREXAMPLE,
                                  fontcolor=COUNTEREXAMPLE, penwidth="3", style="dashed", constraint="false"))
    if data.failure:
        source, kind, rule = data.failure
        graph.add_node(pydot.Node("violation", label=_escape(f"broken: {rule}"), shape="octagon",
                                  color=COUNTEREXAMPLE, fontcolor=COUNTEREXAMPLE, penwidth="2"))
        graph.add_edge(pydot.Edge(at[source], "violation", xlabel=SHORT[kind], color=COUNTEREXAMPLE,
                                  fontcolor=COUNTEREXAMPLE, penwidth="2.5"))
    _add_legend(graph, data)
    return graph.to_string()


PREFIX = "#222222"
"""The colour of a lasso's prefix (its cycle is red)."""


def _depths(data: GraphData) -> dict:
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


def _add_levels(graph: pydot.Dot, data: GraphData, names: dict, depth: dict, loops: dict) -> None:
    """One table node ``L<d>`` per breadth-first level, a cell (port ``s<i>``) per state."""
    marked = {k for s, t, _, _ in data.path + data.cycle for k in (s, t)}
    cycle = {k for s, t, _, _ in data.cycle for k in (s, t)}
    levels: dict = {}
    for key in data.states:
        levels.setdefault(depth[key], []).append(key)
    for level, keys in sorted(levels.items()):
        rows = []
        for start in range(0, len(keys), ROW):
            cells = "".join(_cell(data.states[key], names[key], loops.get(key, ()), key in marked,
                                  key in cycle or not data.cycle)
                            for key in keys[start:start + ROW])
            rows.append(f"<TR>{cells}</TR>")
        table = f'<<TABLE BORDER="0" CELLSPACING="6" CELLPADDING="3">{"".join(rows)}</TABLE>>'
        graph.add_node(pydot.Node(f"L{level}", label=table))


def _cell(state: State, name: str, loops, marked: bool, red: bool) -> str:
    lines = [_html(line) for line in describe_state(state)]
    if loops:
        lines.append(f'<FONT COLOR="gray40">{_html(_loop_text(loops))}</FONT>')
    colour = (COUNTEREXAMPLE if red else PREFIX) if marked else "gray50"
    fill = ' BGCOLOR="gray90"' if name == "s0" else ""
    width = "3" if marked else "1"
    return (f'<TD PORT="{name}" BORDER="{width}" COLOR="{colour}" STYLE="rounded"{fill}>'
            + "<BR/>".join(lines) + "</TD>")


def _loop_text(loops) -> str:
    total = sum(count for _, _, count in loops)
    numbers = sorted({NUMBERED_BRANCHES[b] for _, b, _ in loops if b in NUMBERED_BRANCHES})
    return f"{total} loop{'s' if total > 1 else ''}" + "".join(f" ({n})" for n in numbers)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace(" ", "&nbsp;", 1)


def _merged_style(parts: list, loop: bool) -> dict:
    """One edge for every transition between two states: its labels, one per action kind."""
    kinds: dict = {}
    for kind, branch, count in parts:
        number = NUMBERED_BRANCHES.get(branch) if branch is not None else None
        entry = kinds.setdefault(kind, [0, set()])
        entry[0] += count
        if number:
            entry[1].add(number)
    if loop:
        total = sum(count for count, _ in kinds.values())
        numbers = sorted({n for _, ns in kinds.values() for n in ns})
        label = f"{total} loop{'s' if total > 1 else ''}" + "".join(f" ({n})" for n in numbers)
        return {"label": _escape(label), "color": "gray60", "fontcolor": "gray40", "style": "dashed"}
    labels = []
    for kind, (count, numbers) in kinds.items():
        labels.append(SHORT[kind] + "".join(f" ({n})" for n in sorted(numbers)) + (f" ×{count}" if count > 1 else ""))
    first = next(iter(kinds))
    colour = ACTION_COLOURS[first]
    style = {"xlabel": _escape("\n".join(labels)), "color": colour, "fontcolor": colour}
    if any(numbers for _, numbers in kinds.values()):
        style["penwidth"] = "2"
    return style


def _edge_style(kind: str, branch: Branch | None, count: int, colour: str) -> dict:
    label = SHORT[kind]
    if branch is not None and NUMBERED_BRANCHES.get(branch):
        label += f" ({NUMBERED_BRANCHES[branch]})"
    if count > 1:
        label += f" ×{count}"
    return {"xlabel": _escape(label), "color": colour, "fontcolor": colour, "penwidth": "3"}


def _add_legend(graph: pydot.Dot, data: GraphData) -> None:
    kinds = list(dict.fromkeys(kind for _, _, kind, _ in data.edges))
    rows = "".join(
        f'<TR><TD><FONT COLOR="{ACTION_COLOURS[kind]}">&#9632;</FONT></TD><TD ALIGN="LEFT">{SHORT[kind]}: {kind}</TD></TR>'
        for kind in kinds
    )
    rows += ('<TR><TD>(n)</TD><TD ALIGN="LEFT">branch n of the decision (docs/design.md §2)</TD></TR>'
             '<TR><TD><FONT COLOR="gray60">- -</FONT></TD><TD ALIGN="LEFT">k loops: requests that change nothing</TD></TR>')
    if data.cycle:
        rows += f'<TR><TD><FONT COLOR="{PREFIX}">&#9632;</FONT></TD><TD ALIGN="LEFT">lasso prefix</TD></TR>'
        rows += f'<TR><TD><FONT COLOR="{COUNTEREXAMPLE}">&#9632;</FONT></TD><TD ALIGN="LEFT">lasso cycle</TD></TR>'
    elif data.path:
        rows += f'<TR><TD><FONT COLOR="{COUNTEREXAMPLE}">&#9632;</FONT></TD><TD ALIGN="LEFT">counterexample</TD></TR>'
    graph.add_node(pydot.Node("legend", shape="plaintext", fontsize="9",
                              label=f"<<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\">{rows}</TABLE>>"))


def describe_state(state: State) -> list[str]:
    """A few lines that tell a state apart: per session its status, streams, events and requests."""
    if not state.sessions:
        return ["initial state"]
    lines = []
    for session in state.sessions:
        entry = state.client_session(session.id)
        lines.append(f"{session.id} {session.status.value}")
        for stream in state.streams_of(session.id):
            cursor = entry.cursor(stream.id) if entry else None
            events = " ".join(
                (e.id + (f"({e.request})" if e.request else "") + ("*" if e.id == cursor else ""))
                for e in state.events_of(stream.id)
            )
            link = "connected" if stream.connected else "dropped"
            lines.append(f" {stream.id} {stream.kind.value} {stream.status.value} {link} [{events}]")
        for request in state.requests:
            if request.session == session.id:
                held = " held" if entry and request.id in entry.seen else ""
                lines.append(f" {request.id} {request.status.value}{held}")
    return lines


def _escape(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
