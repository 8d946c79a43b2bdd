"""Lifecycles of a stream and of a session, abstracted from the spec's transitions.

Every transition of a bounded exploration (``exploration.explore``) is mapped,
for each stream (or session) it creates, changes or acts on, to an edge between
abstract states: a stream's ``(status, connected)``, a session's status. An
edge is labelled with the action's kind and, for a client request, the branch
of the decision it took, e.g. ``reconnect [stream-resumption]``. Nothing is
typed by hand, so the diagrams follow the spec.
"""

from __future__ import annotations

from typing import Iterable

from mcp_resume.spec.space import Bounds
from mcp_resume.spec.state import SessionStatus, StreamStatus
from mcp_resume.spec.transitions import Transition

from mcp_resume.proofs.diagrams.model import Diagram, Edge, Node
from mcp_resume.proofs.diagrams.exploration import LIFECYCLE_BOUNDS, explore

START = "start"

AbstractEdge = tuple[str, str, str]  # (source state, target state, label)


def action_label(t: Transition) -> str:
    """``reconnect [stream-resumption]`` for a client request, the action kind otherwise."""
    if t.outcome is None:
        return t.action.kind
    return f"{t.action.kind} [{t.outcome.branch.value}]"


# -- streams ------------------------------------------------------------------------


def stream_state_id(status: StreamStatus, connected: bool) -> str:
    return f"{status.value}_{'connected' if connected else 'disconnected'}"


def _stream_targets(t: Transition) -> set[str]:
    targets = set()
    stream = getattr(t.action, "stream", None)
    if stream is not None:
        targets.add(stream)
    event = t.before.event(getattr(t.action, "last_event_id", None))
    if event is not None:
        targets.add(event.stream)
    if t.outcome is not None and t.outcome.stream is not None:
        targets.add(t.outcome.stream)
    return targets


def stream_edges(transitions: Iterable[Transition]) -> set[AbstractEdge]:
    """(before, after, label) for every stream a transition creates, changes or targets."""
    edges = set()
    for t in transitions:
        targets = _stream_targets(t)
        for stream in t.after.streams:
            before = t.before.stream(stream.id)
            source = START if before is None else stream_state_id(before.status, before.connected)
            target = stream_state_id(stream.status, stream.connected)
            if source != target or stream.id in targets:
                edges.add((source, target, action_label(t)))
    return edges


# -- sessions -----------------------------------------------------------------------


def _session_targets(t: Transition) -> set[str]:
    targets = set()
    session = getattr(t.action, "session", None)
    if session is not None:
        targets.add(session)
    stream = t.before.stream(getattr(t.action, "stream", None))
    if stream is not None:
        targets.add(stream.session)
    request = t.before.request(getattr(t.action, "request", None))
    if request is not None:
        targets.add(request.session)
    return targets


def session_edges(transitions: Iterable[Transition]) -> set[AbstractEdge]:
    """(before, after, label) for every session a transition creates, changes or targets."""
    edges = set()
    for t in transitions:
        targets = _session_targets(t)
        for session in t.after.sessions:
            before = t.before.session(session.id)
            source = START if before is None else before.status.value
            if source != session.status.value or session.id in targets:
                edges.add((source, session.status.value, action_label(t)))
    return edges


# -- diagrams ----------------------------------------------------------------------


def _diagram(name: str, title: str, order: list[str], edges: set[AbstractEdge]) -> Diagram:
    used = {s for s, _, _ in edges} | {t for _, t, _ in edges}
    states = [s for s in [START, *order] if s in used]
    nodes = tuple(
        Node(START, ("start",), "start") if s == START else Node(s, (s.replace("_", ", "),), "state")
        for s in states
    )
    grouped: dict[tuple[str, str], list[str]] = {}
    for source, target, label in edges:
        grouped.setdefault((source, target), []).append(label)
    rank = {s: i for i, s in enumerate(states)}
    merged = tuple(
        Edge(source, target, tuple(sorted(labels)))
        for (source, target), labels in sorted(grouped.items(), key=lambda kv: (rank[kv[0][0]], rank[kv[0][1]]))
    )
    return Diagram(name, title, "state", nodes, merged)


def stream_lifecycle(bounds: Bounds = LIFECYCLE_BOUNDS, explored: list[Transition] | None = None) -> Diagram:
    """A stream's (status, connected) states and the actions that move it, from the spec."""
    order = [stream_state_id(status, connected) for status in StreamStatus for connected in (True, False)]
    edges = stream_edges(explored if explored is not None else explore(bounds))
    return _diagram("stream-lifecycle", "Stream lifecycle: (status, connection), derived from the spec", order, edges)


def session_lifecycle(bounds: Bounds = LIFECYCLE_BOUNDS, explored: list[Transition] | None = None) -> Diagram:
    """A session's status and the actions that keep or change it, from the spec."""
    order = [status.value for status in SessionStatus]
    edges = session_edges(explored if explored is not None else explore(bounds))
    return _diagram("session-lifecycle", "Session lifecycle, derived from the spec", order, edges)
