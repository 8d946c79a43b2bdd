"""The bounds of an exploration and the actions tried in a state (spec/space.py), on
concrete states: each limit is per owner (streams per session, events per stream,
server requests per session), and every server action is tried on every target."""

import json

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.space import (
    CLIENT_REQUESTS,
    ISSUED_HEADERS,
    NAMED_BOUNDS,
    SERVER_STREAM_ACTIONS,
    Bounds,
    acting_session,
    candidate_actions,
    within,
)
from mcp_resume.spec.state import INITIAL_STATE

from tests.helpers import ROOT
from tests.helpers.spec_steps import run



STATE = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.CallTool("S2"), a.CallTool("S1"),
            a.EmitEvent("T1"), a.EmitEvent("T1"), a.EmitEvent("T3"), a.IssueServerRequest("T2"))
"""S1 has T1 (E1, E2) and T3 (E3); S2 has T2 (E4 carrying R1)."""


def test_within_counts_each_limit_per_owner():
    assert within(STATE, Bounds(sessions=2, streams=2, events=2, requests=1))
    assert not within(STATE, Bounds(sessions=1, streams=2, events=2, requests=1))
    assert not within(STATE, Bounds(sessions=2, streams=1, events=2, requests=1))
    assert not within(STATE, Bounds(sessions=2, streams=2, events=1, requests=1))
    assert not within(STATE, Bounds(sessions=2, streams=2, events=2, requests=0))
    assert within(INITIAL_STATE, Bounds(sessions=0, streams=0, events=0, requests=0))


def test_a_negative_bound_is_refused_and_bounds_describe_themselves():
    for name in ("sessions", "streams", "events", "requests", "depth"):
        limits = dict(sessions=1, streams=1, events=1, requests=1, depth=1)
        limits[name] = -1
        with pytest.raises(ValueError, match=f"bound {name} must be 0 or more"):
            Bounds(**limits)
    Bounds(sessions=0, streams=0, events=0, requests=0, depth=0)
    assert "unbounded depth" in Bounds(1, 1, 1, 1).describe()
    assert NAMED_BOUNDS["default"].describe() == (
        "2 session(s), 2 stream(s)/session, 3 event(s)/stream, 2 server request(s)/session, depth 10")


def test_every_stream_action_is_tried_on_every_stream_and_every_request_and_session_is_a_target():
    actions = candidate_actions(STATE)
    for stream in ("T1", "T2", "T3"):
        for kind in SERVER_STREAM_ACTIONS:
            assert kind(stream) in actions
    assert a.CancelRequest("R1") in actions
    assert a.ExpireSession("S1") in actions and a.ExpireSession("S2") in actions
    assert actions[0] == a.Initialize()
    assert actions.index(a.RestartClient()) < actions.index(a.EmitEvent("T1"))
    assert set(SERVER_STREAM_ACTIONS) == {a.EmitEvent, a.IssueServerRequest, a.DropConnection, a.CloseConnection,
                                          a.Respond, a.EndStream, a.ExpireStream, a.EvictEvent}
    assert set(CLIENT_REQUESTS) == {a.CallTool, a.Reconnect, a.AnswerRequest, a.DeleteSession}


def test_each_session_header_is_tried_with_every_event_id_and_every_request_id():
    actions = candidate_actions(STATE, ISSUED_HEADERS)
    for session in ("S1", "S2"):
        assert a.CallTool(session) in actions and a.DeleteSession(session) in actions
        for event in ("E1", "E2", "E3", "E4", None):
            assert a.Reconnect(session, event) in actions
        assert a.AnswerRequest(session, "R1") in actions
    assert a.Reconnect(None, None) not in actions


def test_the_acting_session_of_each_kind_of_action():
    assert acting_session(STATE, a.Reconnect("S2", "E1")) == "S2"
    assert acting_session(STATE, a.AnswerRequest("S1", "R1")) == "S1"
    assert acting_session(STATE, a.DeleteSession("unknown-session")) == "unknown-session"
    assert acting_session(STATE, a.ExpireSession("S2")) == "S2"
    assert acting_session(STATE, a.DropConnection("T3")) == "S1"
    assert acting_session(STATE, a.ExpireStream("T2")) == "S2"
    assert acting_session(STATE, a.CancelRequest("R1")) == "S2"
    assert acting_session(STATE, a.CancelRequest("R9")) is None
    assert acting_session(STATE, a.RestartClient()) is None


def test_the_named_bounds_are_those_the_committed_state_space_manifest_counts():
    # docs/design.md §6: a manifest of expected state counts that CI rechecks, per named bound
    manifest = ROOT / "model" / "explore" / "state_space.json"
    entries = json.loads(manifest.read_text())["entries"]
    assert {e["bound"] for e in entries} <= set(NAMED_BOUNDS)
    for entry in entries:
        assert NAMED_BOUNDS[entry["bound"]].to_json() == entry["bounds"]


def test_the_kill_bound_reaches_the_deepest_design():
    # spec/space.py: the deepest faulty design needs 7 steps and two streams of one session
    kill = NAMED_BOUNDS["kill"]
    assert kill.depth >= 7 and kill.streams >= 2 and kill.sessions >= 2
    assert NAMED_BOUNDS["graph"].depth is not None  # a graph small enough to draw


def test_every_named_bound_but_the_one_session_ones_holds_two_server_requests():
    # a session resumption re-emitting two pending requests is the failure the project started from
    for name in ("kill", "default", "deep"):
        assert NAMED_BOUNDS[name].requests == 2, name
    assert NAMED_BOUNDS["deep"] == Bounds(sessions=2, streams=2, events=3, requests=2, depth=11)
