"""The state's views on concrete states (docs/design.md §1: a session outlives its streams, an
event id is a position in one stream, a server request is pending until answered or
cancelled), and the transitions that change them."""

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.state import (
    SHORT_TABLE,
    ClientSession,
    RequestStatus,
    SessionStatus,
    StreamKind,
    StreamStatus,
)
from mcp_resume.spec.transitions import enabled, step
from tests.helpers.spec_steps import run


def test_handles_are_minted_in_creation_order():
    state = run(a.Initialize(), a.Initialize(), a.CallTool("S2"), a.EmitEvent("T1"), a.IssueServerRequest("T1"))
    assert [s.id for s in state.sessions] == ["S1", "S2"]
    assert [(t.id, t.session, t.kind) for t in state.streams] == [("T1", "S2", StreamKind.POST)]
    assert [e.id for e in state.events] == ["E1", "E2"] and state.event("E2").request == "R1"
    assert (state.next_session_id(), state.next_stream_id(), state.next_event_id(), state.next_request_id()) == (
        "S3", "T2", "E3", "R2")


def test_lookups_name_nothing_for_none_and_unknown_handles():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"))
    assert state.session(None) is None and state.session("S9") is None
    assert state.stream("T9") is None and state.event("E9") is None and state.request("R1") is None
    assert state.client_session("S9") is None
    assert state.session_of_event("E1") == "S1" and state.session_of_event("E9") is None


def test_a_long_table_is_looked_up_by_position_and_agrees_with_a_scan():
    actions = [a.Initialize(), a.Initialize(), a.CallTool("S1"), a.CallTool("S2")]
    actions += [a.EmitEvent("T1" if n % 3 else "T2") for n in range(3 * SHORT_TABLE)]
    state = run(*actions)
    assert len(state.events) > SHORT_TABLE
    for table, prefix in ((state.sessions, "S"), (state.streams, "T"), (state.events, "E")):
        assert [item.id for item in table] == [f"{prefix}{n}" for n in range(1, len(table) + 1)]
    handles = [f"E{n}" for n in range(len(state.events) + 3)] + ["E", "E007", "T1", "Ex", "E\u0661", "E99999999999", None]
    for handle in handles:
        assert state.event(handle) == next((e for e in state.events if e.id == handle), None), handle


def test_events_and_streams_of_keep_stream_order():
    state = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.CallTool("S2"), a.CallTool("S1"),
                a.EmitEvent("T1"), a.EmitEvent("T3"), a.EmitEvent("T1"))
    assert [e.id for e in state.events_of("T1")] == ["E1", "E3"]
    assert [s.id for s in state.streams_of("S1")] == ["T1", "T3"]
    assert state.events_of("T2") == ()


def test_pending_requests_are_the_sessions_unanswered_uncancelled_ones_in_issue_order():
    state = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.CallTool("S2"),
                a.IssueServerRequest("T1"), a.IssueServerRequest("T2"), a.IssueServerRequest("T1"),
                a.IssueServerRequest("T1"), a.AnswerRequest("S1", "R3"), a.CancelRequest("R4"))
    assert [r.id for r in state.pending_requests("S1")] == ["R1"]
    assert [r.id for r in state.pending_requests("S2")] == ["R2"]
    assert state.request("R3").status is RequestStatus.ANSWERED
    assert state.request("R4").status is RequestStatus.CANCELLED


def test_only_open_streams_of_live_sessions_may_carry_new_events():
    state = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.CallTool("S1"), a.CallTool("S2"),
                a.Respond("T2"), a.DeleteSession("S2"))
    assert [s.id for s in state.live_sessions()] == ["S1"]
    assert [s.id for s in state.open_streams()] == ["T1"]
    assert state.stream("T2").status is StreamStatus.ENDED and state.stream("T2").retained
    assert state.stream("T3").status is StreamStatus.EXPIRED and not state.stream("T3").retained
    assert state.session("S2").status is SessionStatus.DELETED


def test_the_client_keeps_one_cursor_per_stream_and_its_sessions_in_handle_order():
    state = run(*[a.Initialize()] * 11, a.CallTool("S11"), a.CallTool("S2"), a.EmitEvent("T1"), a.EmitEvent("T2"),
                a.EmitEvent("T1"))
    assert [c.session for c in state.client] == [f"S{n}" for n in range(1, 12)]
    entry = state.client_session("S11")
    assert entry.cursor("T1") == "E3" and entry.cursor("T2") is None
    assert state.client_session("S2").cursor("T2") == "E2"
    assert ClientSession("S1").cursor("T1") is None


def test_the_client_holds_a_request_from_its_delivery_until_it_answers_it():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.IssueServerRequest("T1"))
    assert state.client_session("S1").seen == ("R1", "R2")
    answered = step(state, a.AnswerRequest("S1", "R1")).after
    assert answered.client_session("S1").seen == ("R2",)
    cancelled = step(state, a.CancelRequest("R2")).after
    assert cancelled.client_session("S1").seen == ("R1",)
    foreign = step(run(a.Initialize(), state=state), a.AnswerRequest("S2", "R1")).after
    assert foreign.client_session("S1").seen == ("R1", "R2") and foreign.request("R1").status is RequestStatus.PENDING


def test_nothing_reaches_the_client_while_its_connection_is_down():
    state = run(a.Initialize(), a.CallTool("S1"), a.DropConnection("T1"))
    t = step(state, a.IssueServerRequest("T1"))
    assert t.observation.events == () and t.observation.request == "R1" and t.observation.event == "E1"
    assert t.after.client_session("S1").seen == () and t.after.client_session("S1").cursors == ()


def test_server_actions_need_their_target():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))
    assert not enabled(state, a.EmitEvent("T9")) and not enabled(state, a.ExpireStream("T9"))
    assert not enabled(state, a.DropConnection("T9")) and not enabled(state, a.CancelRequest("R9"))
    assert not enabled(state, a.ExpireSession("S9"))
    assert not enabled(state, a.CloseConnection("T9")) and not enabled(state, a.EvictEvent("T9"))
    assert enabled(state, a.ExpireStream("T1")) and enabled(state, a.CancelRequest("R1"))
    ended = run(a.Respond("T1"), state=state)
    assert enabled(ended, a.ExpireStream("T1")) and not enabled(ended, a.DropConnection("T1"))
    assert not enabled(run(a.ExpireStream("T1"), state=ended), a.ExpireStream("T1"))
    answered = run(a.AnswerRequest("S1", "R1"), state=state)
    assert not enabled(answered, a.CancelRequest("R1"))
    gone = run(a.ExpireSession("S1"), state=state)
    assert not enabled(gone, a.CancelRequest("R1")) and not enabled(gone, a.ExpireSession("S1"))
    with pytest.raises(ValueError, match="not enabled"):
        step(gone, a.EmitEvent("T1"))


def test_ending_a_stream_or_a_session_closes_its_connections():
    state = run(a.Initialize(), a.CallTool("S1"), a.CallTool("S1"), a.DropConnection("T2"))
    assert step(state, a.Respond("T1")).observation.closed == ("T1",)
    assert step(state, a.ExpireStream("T2")).observation.closed == ()
    assert step(state, a.DeleteSession("S1")).observation.closed == ("T1",)
    expired = step(state, a.ExpireSession("S1")).after
    assert expired.stream("T2").status is StreamStatus.EXPIRED
    assert expired.session("S1").status is SessionStatus.EXPIRED  # ended by the server (B33), not DELETEd
    assert step(state, a.DeleteSession("S1")).after.session("S1").status is SessionStatus.DELETED
    assert step(state, a.EmitEvent("T1")).observation.closed == ()


# -- state invariants, each through check_state, on a bad state and its good twin ------------

from dataclasses import replace as _replace  # noqa: E402

from mcp_resume.spec.invariants import check_state  # noqa: E402
from mcp_resume.spec.state import ClientSession as _Client, Event, ServerRequest, Session, Stream  # noqa: E402

GOOD = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.IssueServerRequest("T1"),
           a.CallTool("S2"), a.EmitEvent("T2"), a.DeleteSession("S2"))


def found(state):
    return sorted({f.rule for f in check_state(state)})


def test_a_reachable_state_with_an_ended_session_breaks_no_state_invariant():
    assert found(GOOD) == []


@pytest.mark.parametrize(
    "bad,rule",
    [
        (_replace(GOOD, events=GOOD.events + (Event("E1", "T2"),)), "event-id-unique"),
        (_replace(GOOD, events=GOOD.events + (Event("E9", "T9"),)), "event-id-unique"),
        (_replace(GOOD, streams=GOOD.streams + (Stream("T9", "S9", StreamKind.GET),),
                  events=GOOD.events + (Event("E9", "T9"),)), "event-id-unique"),
        (GOOD.with_client_session(_Client("S1", (("T2", "E3"),))), "no-cross-session"),
        (GOOD.with_client_session(_Client("S1", (("T2", "E1"),))), "no-cross-session"),
        (GOOD.with_client_session(_Client("S1", (("T1", "E9"),))), "no-cross-session"),
        (GOOD.with_request(ServerRequest("R1", "S1", "T2")), "server-request-ownership"),
        (GOOD.with_client_session(_Client("S2", seen=("R1",))), "server-request-ownership"),
        (GOOD.with_client_session(_Client("S1", seen=("R9",))), "server-request-ownership"),
        (_replace(GOOD, events=GOOD.events + (Event("E9", "T2", "R1"),)), "server-request-ownership"),
        (GOOD.with_stream(_replace(GOOD.stream("T2"), connected=True)), "expiry-independent"),
        (GOOD.with_stream(_replace(GOOD.stream("T2"), status=StreamStatus.ENDED)), "expiry-independent"),
        (_replace(GOOD, sessions=GOOD.sessions + (Session("S1"),)), "session-identity-stable"),
    ],
)
def test_each_state_invariant_fires_on_a_state_that_breaks_it(bad, rule):
    assert rule in found(bad)


def test_a_replay_of_an_answered_request_does_not_make_the_client_hold_it_again():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.AnswerRequest("S1", "R1"),
                a.DropConnection("T1"))
    replayed = step(state, a.Reconnect("S1", None)).after
    assert replayed.client_session("S1").seen == ()
    resumed = run(a.EmitEvent("T1"), a.DropConnection("T1"), state=step(state, a.Reconnect("S1", "E1")).after)
    assert resumed.client_session("S1").seen == ()
    twice = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"),
                a.Reconnect("S1", "E1"))
    assert twice.client_session("S1").seen == ("R1",)


def test_answers_to_requests_the_session_does_not_await_change_nothing():
    state = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))
    for action in (a.AnswerRequest("S1", "unknown-request"), a.AnswerRequest("S2", "R1"),
                   a.AnswerRequest(None, "R1"), a.AnswerRequest("S9", "R1")):
        assert step(state, action).after == state
    answered = step(state, a.AnswerRequest("S1", "R1")).after
    assert step(answered, a.AnswerRequest("S1", "R1")).after == answered


def test_a_replayed_request_is_held_once_and_only_while_it_is_pending():
    base = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.IssueServerRequest("T1"))
    pending = run(a.DropConnection("T1"), a.Reconnect("S1", "E1"), state=base)
    assert pending.client_session("S1").seen == ("R1",)
    answered = run(a.AnswerRequest("S1", "R1"), a.DropConnection("T1"), a.Reconnect("S1", "E1"), state=base)
    assert answered.client_session("S1").seen == ()
