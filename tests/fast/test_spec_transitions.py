"""The reference transitions: what each action does, and what the client sees."""

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.decision import MISSING_SESSION_ERROR_CODE, RESUMPTION_ERROR_CODE, Branch
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import INITIAL_STATE, RequestStatus, SessionStatus, StreamStatus
from mcp_resume.spec.transitions import NotModelled, alternatives, enabled, step
from tests.helpers.spec_steps import run


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
    state = run(a.Initialize(), a.CallTool("S1"), a.Respond("T1"))
    assert not enabled(state, a.EmitEvent("T1"))
    assert enabled(state, a.ExpireStream("T1"))
    assert not enabled(state, a.DropConnection("T1"))
    with pytest.raises(ValueError, match="not enabled"):
        step(state, a.IssueServerRequest("T1"))


@pytest.mark.covers("reemit-pending")
def test_a_stranded_request_is_re_emitted_or_cancelled_and_the_mcp_profiles_may_also_leave_it():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"))
    reemit, cancel = alternatives(state, a.Reconnect("S1", None), Profile.BOUNDARY)
    assert [(d.request, d.cancels, d.stream) for d in reemit.observation.events] == [("R1", None, "T2")]
    assert reemit.after.request("R1").status is RequestStatus.PENDING and reemit.after.request("R1").stream == "T2"
    assert [(d.request, d.cancels) for d in cancel.observation.events] == [(None, "R1")]
    assert cancel.after.request("R1").status is RequestStatus.CANCELLED
    assert cancel.after.client_session("S1").seen == ()
    variants = alternatives(state, a.Reconnect("S1", None), Profile.MCP_2025_11_25)
    assert [v.observation.events for v in variants[:2]] == [reemit.observation.events, cancel.observation.events]
    left = variants[2]
    assert left.observation.events == () and left.after.request("R1").status is RequestStatus.PENDING


@pytest.mark.covers("no-broadcast")
def test_session_resumption_does_not_send_again_a_request_whose_stream_is_still_connected():
    # docs/design.md §2 branch 2 and MCP B21: the client already has R1 on T1's open connection
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))
    resumed = step(state, a.Reconnect("S1", None))
    assert resumed.outcome.reemit == () and resumed.observation.events == ()
    assert alternatives(state, a.Reconnect("S1", None), Profile.BOUNDARY) == (resumed,)
    assert resumed.after.request("R1").stream == "T1"


@pytest.mark.covers("reemit-keeps-pending")
def test_the_re_emitting_stream_becomes_the_carrier_so_a_second_drop_re_emits_again():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"),
                a.Reconnect("S1", None))
    assert step(state, a.Reconnect("S1", None)).outcome.reemit == ()  # T2 still carries R1, connected
    again = step(run(a.DropConnection("T2"), state=state), a.Reconnect("S1", None))
    assert [(d.request, d.stream) for d in again.observation.events] == [("R1", "T3")]


def test_resuming_a_connected_stream_closes_its_old_connection():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"))
    resumed = step(state, a.Reconnect("S1", "E1"))
    assert resumed.observation.closed == ("T1",) and resumed.after.stream("T1").connected
    assert [d.event for d in resumed.observation.events] == ["E2"]
    assert 409 in resumed.outcome.statuses


def test_a_server_closed_connection_keeps_the_stream_like_a_drop_but_only_in_a_live_session():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"))
    closed = step(state, a.CloseConnection("T1"))
    assert closed.after == step(state, a.DropConnection("T1")).after
    assert closed.observation.closed == ("T1",)
    assert not enabled(run(a.ExpireSession("S1"), state=state), a.CloseConnection("T1"))


@pytest.mark.covers("call-answered")
@pytest.mark.parametrize("profile", [Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25,
                                     Profile.BOUNDARY])
def test_a_server_closes_a_post_connection_before_the_response_only_from_2025_11_25_on(profile):
    # T1: the call's POST stream, unanswered; T2: the GET stream of a session resumption
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.Reconnect("S1", None))
    polls = profile in (Profile.MCP_2025_11_25, Profile.BOUNDARY)  # D9; before it B10/C10 SHOULD NOT
    assert enabled(state, a.CloseConnection("T1"), profile) is polls
    assert enabled(state, a.CloseConnection("T2"), profile)  # B19: either side may close the GET stream
    assert enabled(state, a.DropConnection("T1"), profile)  # the network drops any connection (B12)


@pytest.mark.covers("reject-foreign-event-id")
def test_an_evicted_cursor_is_rejected_and_a_kept_one_replays_only_what_the_ring_buffer_holds():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"), a.EmitEvent("T1"),
                a.DropConnection("T1"), a.EvictEvent("T1"))
    assert state.retained_events("T1") == state.events_of("T1")[1:]
    evicted = step(state, a.Reconnect("S1", "E1"))
    assert evicted.outcome.branch is Branch.REJECT_FOREIGN_EVENT_ID and evicted.observation.status == 400
    assert evicted.observation.error == RESUMPTION_ERROR_CODE
    kept = step(state, a.Reconnect("S1", "E2"))
    assert kept.outcome.replay == ("E3",)
    assert not enabled(run(a.EvictEvent("T1"), a.EvictEvent("T1"), state=state), a.EvictEvent("T1"))


@pytest.mark.covers("reject-foreign-event-id", "missing-session-400")
def test_the_reference_tells_a_bad_event_id_from_a_missing_session_by_error_code():
    state = run(a.Initialize(), a.CallTool("S1"))
    foreign = step(state, a.Reconnect("S1", "unknown-event")).observation
    missing = step(state, a.CallTool(None)).observation
    assert foreign.status == missing.status == 400
    assert (foreign.error, missing.error) == (RESUMPTION_ERROR_CODE, MISSING_SESSION_ERROR_CODE)


def test_the_sessionless_profile_has_a_decision_but_no_state_machine():
    with pytest.raises(NotModelled):
        step(INITIAL_STATE, a.Initialize(), Profile.MCP_2026_07_28)


def test_the_client_stops_holding_a_request_once_it_is_answered_or_cancelled():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))
    assert state.client_session("S1").seen == ("R1",)
    assert run(a.AnswerRequest("S1", "R1"), state=state).client_session("S1").seen == ()
    assert run(a.CancelRequest("R1"), state=state).client_session("S1").seen == ()
    refused = run(a.AnswerRequest("S9", "R1"), state=state)  # an unknown session: the server answers nothing
    assert refused.client_session("S1").seen == ("R1",)
