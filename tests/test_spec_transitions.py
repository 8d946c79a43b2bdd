"""The reference transitions: what each action does, and what the client sees."""

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import INITIAL_STATE, RequestStatus, SessionStatus, StreamStatus
from mcp_resume.spec.transitions import NotModelled, alternatives, enabled, step


def run(*actions, state=INITIAL_STATE):
    for action in actions:
        state = step(state, action).after
    return state


@pytest.mark.covers("replay-suffix")
def test_events_sent_while_disconnected_reach_the_client_only_by_replay():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.DropConnection("T1"))
    emitted = step(state, a.EmitEvent("T1"))
    assert emitted.observation.events == ()
    resumed = step(emitted.after, a.Reconnect("S1", "E1"))
    assert [d.event for d in resumed.observation.events] == ["E2"]
    assert resumed.after.stream("T1").connected
    assert resumed.after.client_session("S1").cursor("T1") == "E2"


@pytest.mark.covers("reemit-pending", "reemit-keeps-pending")
def test_reemission_leaves_the_request_pending_so_a_second_drop_reemits_it_again():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"))
    first = step(state, a.Reconnect("S1", None))
    assert [(d.event, d.request) for d in first.observation.events] == [("E2", "R1")]
    assert first.after.request("R1").status is RequestStatus.PENDING
    second = step(run(a.DropConnection("T2"), state=first.after), a.Reconnect("S1", None))
    assert [d.request for d in second.observation.events] == ["R1"]
    answered = run(a.AnswerRequest("S1", "R1"), state=second.after)
    assert answered.request("R1").status is RequestStatus.ANSWERED
    assert step(answered, a.Reconnect("S1", None)).observation.events == ()


@pytest.mark.covers("session-identity-stable")
def test_a_restarted_client_forgets_its_cursors_and_requests_but_keeps_the_session():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.RestartClient())
    entry = state.client_session("S1")
    assert entry.cursors == () and entry.seen == ()
    assert state.session("S1").status is SessionStatus.LIVE


@pytest.mark.covers("expiry-independent")
def test_stream_expiry_keeps_the_session_and_session_end_expires_every_stream():
    state = run(a.Initialize(), a.CallTool("S1"), a.CallTool("S1"), a.ExpireStream("T1"))
    assert state.session("S1").status is SessionStatus.LIVE
    assert state.stream("T2").status is StreamStatus.OPEN
    ended = step(state, a.ExpireSession("S1"))
    assert all(s.status is StreamStatus.EXPIRED for s in ended.after.streams_of("S1"))
    assert ended.observation.closed == ("T2",)


@pytest.mark.covers(
    "reject-foreign-event-id",
    "reject-orphan-event-id",
    "malformed-session-400",
    "unknown-session-404",
    "missing-session-400",
)
def test_rejected_requests_change_nothing():
    state = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"))
    for request in (a.Reconnect("S2", "E1"), a.Reconnect(None, "E1"), a.Reconnect("bad id", None),
                    a.Reconnect("unknown-session", "E1"), a.CallTool(None), a.DeleteSession("S9")):
        transition = step(state, request)
        assert transition.after == state, request
        assert transition.observation.status >= 400


def test_server_actions_are_enabled_only_on_open_streams_of_live_sessions():
    state = run(a.Initialize(), a.CallTool("S1"), a.EndStream("T1"))
    assert not enabled(state, a.EmitEvent("T1"))
    assert enabled(state, a.ExpireStream("T1"))
    assert not enabled(state, a.DropConnection("T1"))
    with pytest.raises(ValueError, match="not enabled"):
        step(state, a.IssueServerRequest("T1"))


@pytest.mark.covers("reemit-pending")
def test_mcp_profiles_also_accept_a_session_resumption_without_reemission():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))
    assert len(alternatives(state, a.Reconnect("S1", None), Profile.BOUNDARY)) == 1
    canonical, silent = alternatives(state, a.Reconnect("S1", None), Profile.MCP_2025_11_25)
    assert [d.request for d in canonical.observation.events] == ["R1"]
    assert silent.observation.events == () and silent.after.request("R1").status is RequestStatus.PENDING


def test_the_sessionless_profile_has_a_decision_but_no_state_machine():
    with pytest.raises(NotModelled):
        step(INITIAL_STATE, a.Initialize(), Profile.MCP_2026_07_28)
