"""The explored state graph as a picture: DOT text built with pydot.

``state_graph(bounds, profile, counterexample)`` explores the spec within a small
bound (``explorer.explore_spec``, with symmetry reduction) and draws every state
reached as a node and every transition as an edge, coloured by action kind.
Parallel transitions of one kind are drawn once with their count; an edge of a
client request names the decision branch it took, and the five numbered
branches of DESIGN.md §2 are drawn bold with their number. Refused requests
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


def to_dot(data: GraphData, title: str) -> str:
    """The DOT text of the graph (deterministic: nodes and edges in discovery order)."""
    graph = pydot.Dot("explored", graph_type="digraph", rankdir="TB", label=title, labelloc="t",
                      fontname="Helvetica", fontsize="14")
    graph.set_node_defaults(fontname="Helvetica", fontsize="9", shape="box", style="rounded")
    graph.set_edge_defaults(fontname="Helvetica", fontsize="8")
    names = {key: f"s{index}" for index, key in enumerate(data.states)}
    on_path = {(source, target, kind, branch) for source, target, kind, branch in data.path}
    path_nodes = {source for source, _, _, _ in data.path} | {target for _, target, _, _ in data.path}
    for key, state in data.states.items():
        attributes = {"label": _escape("\n".join(describe_state(state)))}
        if key in path_nodes:
            attributes.update(color=COUNTEREXAMPLE, penwidth="2")
        if names[key] == "s0":
            attributes.update(style="rounded,filled", fillcolor="gray90")
        graph.add_node(pydot.Node(names[key], **attributes))
    refused: Counter = Counter()
    for (source, target, kind, branch), count in data.edges.items():
        red = (source, target, kind, branch) in on_path
        if source == target and not red and branch not in NUMBERED_BRANCHES:
            refused[source] += count
            continue
        graph.add_edge(pydot.Edge(names[source], names[target], **_edge_style(kind, branch, count, red)))
    for key, count in refused.items():
        graph.add_edge(pydot.Edge(names[key], names[key], label=f"other refusals ×{count}", color="gray60",
                                  fontcolor="gray40", style="dashed"))
    if data.failure:
        source, kind, rule = data.failure
        graph.add_node(pydot.Node("violation", label=_escape(f"broken: {rule}"), shape="octagon",
                                  color=COUNTEREXAMPLE, fontcolor=COUNTEREXAMPLE, penwidth="2"))
        graph.add_edge(pydot.Edge(names[source], "violation", label=kind, color=COUNTEREXAMPLE,
                                  fontcolor=COUNTEREXAMPLE, penwidth="2.5"))
    _add_legend(graph, data)
    return graph.to_string()


def _edge_style(kind: str, branch: Branch | None, count: int, red: bool) -> dict:
    label = kind
    if branch is not None:
        number = NUMBERED_BRANCHES.get(branch)
        label += f"\n{branch.value}" + (f" ({number})" if number else "")
    if count > 1:
        label += f" ×{count}"
    colour = COUNTEREXAMPLE if red else ACTION_COLOURS[kind]
    style = {"label": _escape(label), "color": colour, "fontcolor": colour}
    if branch in NUMBERED_BRANCHES:
        style["penwidth"] = "2"
    if red:
        style["penwidth"] = "3"
    return style


def _add_legend(graph: pydot.Dot, data: GraphData) -> None:
    kinds = list(dict.fromkeys(kind for _, _, kind, _ in data.edges))
    rows = "".join(
        f'<TR><TD><FONT COLOR="{ACTION_COLOURS[kind]}">&#9632;</FONT></TD><TD ALIGN="LEFT">{kind}</TD></TR>' for kind in kinds
    )
    if data.path:
        rows += f'<TR><TD><FONT COLOR="{COUNTEREXAMPLE}">&#9632;</FONT></TD><TD ALIGN="LEFT">counterexample</TD></TR>'
    graph.add_node(pydot.Node("legend", shape="plaintext", label=f"<<TABLE BORDER=\"0\" CELLBORDER=\"0\">{rows}</TABLE>>"))


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
