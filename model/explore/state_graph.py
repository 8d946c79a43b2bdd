"""The explored state graph as a picture: DOT text built with pydot.

``explore_graph(bounds, profile)`` explores the spec within a small bound
(``plain.explore_spec``, with symmetry reduction) and keeps every state reached
and every transition. ``to_dot`` draws the one-screen overview: each state a
small box ``s<i>``, each arrow coloured by action kind and without text (its
labels are its SVG tooltip), so that no label can cover a state;
``graph_parts.split_parts`` draws the same arrows with their labels, a few
states at a time (``graph_edges`` holds what both draw). Parallel transitions
are one arrow with their counts; an arrow of a client request names the
decision branch it took, and the five numbered branches of docs/design.md §2
are bold with their number. Refused requests change nothing: they are the
loops, one grey line per state with their count.

A counterexample (a trace from any checker, e.g. the explorer's shortest for a
faulty design) is drawn in red: the spec states it passes through (added to the
picture when they lie beyond the bound) and its last step, which ends in a red
node naming the broken rule. Rendering to SVG is the caller's business
(``proofs.diagrams.graphviz.render``: Graphviz's ``dot``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pydot

from mcp_resume.spec.decision import Branch
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.state import INITIAL_STATE, State
from mcp_resume.spec.trace import Trace
from mcp_resume.spec.transitions import Transition, step

from mcp_resume.model.servers.adapter import ServerUnderTest
from mcp_resume.model.explore.canonical import canonical_key
from mcp_resume.model.harness.checker import Checker
from mcp_resume.spec.space import GRAPH_BOUND, NAMED_BOUNDS, Bounds
from mcp_resume.model.explore.plain import explore_spec
from mcp_resume.model.explore.graph_edges import (  # noqa: F401 (ACTION_COLOURS, PREFIX, SHORT: the pictures' vocabulary)
    ACTION_COLOURS, COUNTEREXAMPLE, PREFIX, SHORT, VIOLATION, drawn_edges, html, legend_rows, loop_text, quoted,
    state_names, wrap_title,
)


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
    """Draw ``lasso`` (``liveness_check.Lasso``): its prefix dark, one round of its cycle red,
    and a dashed red edge back to the cycle's first state; the states are the spec's
    view beside ``server`` (a fresh instance), as ``liveness_check.design_graph`` walks it."""
    from mcp_resume.model.explore.liveness_check import tracking_checker

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


OVERVIEW_FILL = {"none": "gray90", "live": "white", "deleted": "#d9d9d9", "expired": "#fdd9b5"}
"""The fill of a state in the overview, by its session's status."""


def session_fill(state: State) -> str:
    """``OVERVIEW_FILL``'s key for ``state``: ``live`` while a session lives, else the first session's status."""
    statuses = [session.status.value for session in state.sessions]
    if not statuses:
        return "none"
    return "live" if "live" in statuses else statuses[0]


def to_dot(data: GraphData, title: str) -> str:
    """The overview: every state and arrow on one screen (deterministic: discovery order).

    Top to bottom by breadth-first depth; a state is a small box named ``s<i>``
    (``graph_edges.state_names``), filled by its session's status
    (``OVERVIEW_FILL``); an arrow is coloured by its first action kind and carries
    no text (its labels are its SVG tooltip, the state's lines the box's), so no
    label can cover a state; bold: a numbered branch of docs/design.md §2; red
    and thick: the counterexample, ending in the node that names the broken
    rule. ``graph_parts.split_parts`` draws the same arrows with their labels.
    """
    arrows, loops = drawn_edges(data)
    names = state_names(data)
    on_path = {key for arrow in arrows if arrow.marked for key in (arrow.source, arrow.target)}
    graph = pydot.Dot("explored", graph_type="digraph", rankdir="TB", labelloc="t", fontname="Helvetica",
                      nodesep="0.05", ranksep="0.6", label=_overview_label(data, title, arrows))
    graph.set_node_defaults(fontname="Helvetica", fontsize="8", shape="box", style="rounded,filled",
                            width="0.25", height="0.2", margin="0.02,0.01")
    graph.set_edge_defaults(arrowsize="0.5")
    for key, state in data.states.items():
        lines = describe_state(state) + ([loop_text(loops[key])] if key in loops else [])
        extra = {"color": COUNTEREXAMPLE, "penwidth": "2.5"} if key in on_path else {"color": "gray40"}
        graph.add_node(pydot.Node(names[key], label=names[key], fillcolor=OVERVIEW_FILL[session_fill(state)],
                                  tooltip=quoted(f"{names[key]}: " + "\n".join(lines)), **extra))
    if data.failure:
        graph.add_node(pydot.Node(VIOLATION, label=quoted(f"broken:\n{data.failure[2]}"), shape="octagon", fontsize="9",
                                  style="solid", color=COUNTEREXAMPLE, fontcolor=COUNTEREXAMPLE, penwidth="2"))
    for arrow in arrows:
        target = VIOLATION if arrow.target == VIOLATION else names[arrow.target]
        graph.add_edge(pydot.Edge(names[arrow.source], target, color=arrow.colour, penwidth=arrow.penwidth,
                                  style=arrow.style, tooltip=quoted(", ".join(arrow.labels))))
    return graph.to_string()


def _overview_label(data: GraphData, title: str, arrows) -> str:
    kinds = list(dict.fromkeys(kind for arrow in arrows for kind in arrow.kinds))
    fills = "".join(f'<TD BGCOLOR="{colour}" BORDER="1">&nbsp;{html(name if name != "none" else "no session")}&nbsp;</TD>'
                    for name, colour in OVERVIEW_FILL.items())
    extra = [("s&lt;i&gt;", "state i (hover for its lines; the parts draw every arrow with its labels)"),
             ("<B>bold</B>", "a numbered branch of the decision (docs/design.md §2)")]
    if data.path or data.cycle:
        extra.append((f'<FONT COLOR="{COUNTEREXAMPLE}">&#9632;</FONT>',
                      "lasso cycle (black: its prefix)" if data.cycle else "counterexample"))
    title_rows = "".join(f"<TR><TD>{html(line)}</TD></TR>" for line in wrap_title(title))
    return (f'<<TABLE BORDER="0" CELLSPACING="2">{title_rows}'
            f'<TR><TD><TABLE BORDER="0" CELLSPACING="4"><TR><TD>session:</TD>{fills}</TR></TABLE></TD></TR>'
            f"{legend_rows(kinds, extra, per_row=4)}</TABLE>>")


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


