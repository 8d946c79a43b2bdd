"""Diagrams derived from the spec: the decision flowchart and the lifecycles."""

from __future__ import annotations

from dataclasses import replace

import pydot
import pytest

from mcp_resume.diagram import run_diagram
from mcp_resume.proofs.diagrams import graphviz
from mcp_resume.proofs.diagrams.decision_flow import QUESTIONS, decision_flow, describe_statuses
from mcp_resume.proofs.diagrams.render import spec_diagrams, to_dot, to_mermaid, write_diagrams
from mcp_resume.proofs.diagrams.exploration import LIFECYCLE_BOUNDS, explore
from mcp_resume.proofs.diagrams.lifecycle import session_edges, session_lifecycle, stream_edges, stream_lifecycle
from mcp_resume.spec import decision as spec_decision
from mcp_resume.spec.decision import Branch, Method, decide_class
from mcp_resume.spec.headers import EventClass, SessionClass
from mcp_resume.spec.profiles import Profile

from tests.helpers.diagrams import args, no_graphviz, needs_graphviz


@pytest.fixture(scope="module")
def flow():
    return decision_flow()


def _walk(diagram, method, session, event, profile):
    """Follow the flowchart for one request; return the outcome node reached."""
    values = {"session": session, "method": method, "event": event}
    labels = {label: key for key, label, _ in QUESTIONS}
    node = diagram.node("start")
    answer = profile.value
    while True:
        edges = [e for e in diagram.edges if e.source == node.id and answer in e.labels[0].split(", ")]
        assert len(edges) == 1, (node.id, answer)
        node = diagram.node(edges[0].target)
        if node.shape == "outcome":
            return node
        answer = values[labels[node.lines[0]]].value


def _mutate(monkeypatch, combo, change):
    original = spec_decision.decide_class
    monkeypatch.setattr(spec_decision, "decide_class",
                        lambda *a: change(original(*a)) if tuple(a) == combo else original(*a))


@pytest.mark.xdist_group("test_diagrams")  # shares a module-scoped fixture
def test_the_flowchart_answers_every_request_as_decide_class_does(flow):
    for method in Method:
        for session in SessionClass:
            for event in EventClass:
                for profile in Profile:
                    entry = decide_class(method, session, event, profile)
                    lines = _walk(flow, method, session, event, profile).lines
                    assert lines[0].split()[-1] == entry.branch.value
                    statuses = describe_statuses(entry.status, entry.statuses)
                    assert any(line.endswith(statuses) and (profile.value in line or line.startswith("status "))
                               for line in lines[2:]), (method, session, event, profile, lines)


@pytest.mark.xdist_group("test_diagrams")  # shares a module-scoped fixture
def test_the_flowchart_shows_every_branch_status_and_profile_difference(flow):
    dot = to_dot(flow)
    for branch in Branch:
        assert branch.value in dot
    for status in {200, 202, 400, 404, 405}:
        assert str(status) in dot
    foreign = _walk(flow, Method.GET, SessionClass.LIVE, EventClass.FOREIGN, Profile.BOUNDARY).lines
    assert "boundary: 400 (accepts 4xx except 404)" in foreign
    assert any(line.startswith("mcp-2025-03-26, mcp-2025-06-18, mcp-2025-11-25: ") for line in foreign)


@pytest.mark.xdist_group("test_diagrams")  # shares a module-scoped fixture
def test_the_session_guards_come_first(flow):
    first_question = flow.node(flow.edges[0].target)
    assert first_question.lines == ("Mcp-Session-Id?",)
    answers = [e for e in flow.edges if e.source == first_question.id]
    guards = [flow.node(e.target).lines[0] for e in answers[:2]]
    assert guards == [Branch.MALFORMED_SESSION.value, Branch.UNKNOWN_SESSION.value]
    assert answers[1].labels == ("unknown, ended",)


@pytest.mark.xdist_group("test_diagrams")  # shares a module-scoped fixture
def test_numbered_branches_carry_their_number(flow):
    heads = {n.lines[0] for n in flow.nodes if n.shape == "outcome"}
    assert {"[1] stream-resumption", "[2] session-resumption", "[3] reject-foreign-event-id",
            "[4] reject-orphan-event-id", "[5] new-session", "[5] missing-session"} <= heads


@pytest.mark.xdist_group("test_diagrams")  # shares a module-scoped fixture
def test_the_flowchart_follows_a_changed_decide_class(monkeypatch, flow):
    combo = (Method.GET, SessionClass.LIVE, EventClass.EXPIRED, Profile.BOUNDARY)
    _mutate(monkeypatch, combo, lambda e: replace(e, branch=Branch.STREAM_RESUMPTION, statuses=frozenset({200}), status=200))
    changed = decision_flow()
    assert to_dot(changed) != to_dot(flow)
    assert _walk(changed, *combo).lines[0] == "[1] stream-resumption"


@pytest.fixture(scope="module")
def explored():
    return explore()


@pytest.mark.xdist_group("test_diagrams")  # shares a module-scoped fixture
def test_stream_lifecycle_is_the_specs(explored):
    edges = stream_edges(explored)
    assert ("open_connected", "open_disconnected", "drop_connection") in edges
    assert ("open_disconnected", "open_connected", "reconnect [stream-resumption]") in edges
    assert ("start", "open_connected", "reconnect [session-resumption]") in edges
    assert ("open_connected", "ended_disconnected", "end_stream") in edges
    assert ("ended_disconnected", "ended_disconnected", "reconnect [stream-resumption]") in edges
    assert ("expired_disconnected", "expired_disconnected", "reconnect [reject-foreign-event-id]") in edges
    leaving_expired = {t for s, t, _ in edges if s == "expired_disconnected"}
    assert leaving_expired == {"expired_disconnected"}  # expiry is final
    assert not any(s.startswith("ended") and t.startswith("open") for s, t, _ in edges)


@pytest.mark.xdist_group("test_diagrams")  # shares a module-scoped fixture
def test_session_lifecycle_is_the_specs(explored):
    edges = session_edges(explored)
    assert ("start", "live", "initialize [new-session]") in edges
    assert ("live", "expired", "expire_session") in edges
    assert ("live", "deleted", "delete_session [session-termination]") in edges
    assert ("live", "live", "expire_stream") in edges  # expiry-independent
    assert ("live", "live", "reconnect [session-resumption]") in edges  # session-identity-stable
    assert {t for s, t, _ in edges if s in ("expired", "deleted")} <= {"expired", "deleted"}
    assert all(label.endswith("[unknown-session]") for s, _, label in edges if s in ("expired", "deleted"))


@pytest.mark.xdist_group("test_diagrams")  # shares a module-scoped fixture
def test_the_default_bounds_see_every_abstract_edge(explored):
    deeper = explore(replace(LIFECYCLE_BOUNDS, depth=8))
    assert stream_edges(explored) == stream_edges(deeper)
    assert session_edges(explored) == session_edges(deeper)


@pytest.mark.xdist_group("test_diagrams")  # shares a module-scoped fixture
def test_lifecycle_diagrams_list_each_state_once(explored):
    stream = stream_lifecycle(explored=explored)
    assert [n.id for n in stream.nodes] == [
        "start", "open_connected", "open_disconnected", "ended_disconnected", "expired_disconnected"]
    assert [n.id for n in session_lifecycle(explored=explored).nodes] == ["start", "live", "expired", "deleted"]


@pytest.mark.filterwarnings("ignore:'setParseAction' deprecated:DeprecationWarning")  # pydot's parser on pyparsing 3.3
def test_dot_output_parses_back_with_pydot():
    for diagram in spec_diagrams():
        graphs = pydot.graph_from_dot_data(to_dot(diagram))
        assert graphs is not None and len(graphs) == 1
        parsed = graphs[0]
        names = {n.get_name() for n in parsed.get_nodes()} - {"node", "edge", "graph"}
        assert names == {n.id for n in diagram.nodes}
        drawn = [e for e in parsed.get_edges() if e.get("style") != "invis"]  # layout-only edges of the flowchart
        assert len(drawn) == len(diagram.edges)


def test_mermaid_output_names_every_node_and_edge():
    for diagram in spec_diagrams():
        text = to_mermaid(diagram)
        assert text.splitlines()[3] == ("stateDiagram-v2" if diagram.kind == "state" else "flowchart TD")
        for node in diagram.nodes:
            if node.shape != "start" or diagram.kind == "flowchart":
                assert node.id in text
        assert text.count("-->") == len(diagram.edges)


@needs_graphviz
def test_write_diagrams_renders_svg_and_png(tmp_path):
    write_diagrams(tmp_path, ["svg", "png"], graphviz.find_dot())
    assert "<svg" in (tmp_path / "decision-flow.svg").read_text()
    assert (tmp_path / "stream-lifecycle.png").read_bytes().startswith(b"\x89PNG")


def test_dot_is_written_whatever_formats_are_asked(monkeypatch, tmp_path):
    no_graphviz(monkeypatch)
    assert run_diagram(args(tmp_path, ["mermaid"])) == 0
    assert (tmp_path / "session-lifecycle.dot").exists()
