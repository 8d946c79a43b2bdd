"""The spec's smaller decisions pinned one by one: the case a finding is filed under (what sets
its level), the words it says, the defaults of the spec's records, and lookups that must read
an event's own stream. Each test fails on a concrete wrong reading of the code it names."""

from __future__ import annotations

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.catalog import EXTRA_EVENTS, MALFORMED_ID, NO_ANSWER, RESPONSE_ELSEWHERE
from mcp_resume.spec.invariants import Finding, check_transition
from mcp_resume.spec.profiles import PROFILE_OF_REVISION, Profile
from mcp_resume.spec.state import INITIAL_STATE, Event
from mcp_resume.spec.transitions import Delivered
from tests.helpers.spec_steps import run, seen

# S1: T1 (POST, E1 E2 E3, dropped); S2: T2 (POST, E4)
TWO = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"),
          a.EmitEvent("T1"), a.CallTool("S2"), a.EmitEvent("T2"), a.DropConnection("T1"))


def findings(t):
    return [(f.rule, f.case) for f in check_transition(t)]


# -- records and tables -------------------------------------------------------------------


def test_a_record_built_with_defaults_is_no_response_and_no_finding_is_outside_by_default():
    assert Event("E1", "T1").response is False
    assert Finding("replay-suffix", "m").outside is False and Finding("replay-suffix", "m").case is None


def test_each_revision_name_maps_to_the_profile_of_that_revision():
    assert PROFILE_OF_REVISION == {p.value.removeprefix("mcp-"): p for p in Profile if p.value.startswith("mcp-")}


def test_an_events_position_counts_only_its_own_streams_events_and_finds_an_equal_copy():
    state = run(a.Initialize(), a.CallTool("S1"), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T2"),
                a.EmitEvent("T1"))
    third = state.event("E3")
    assert third.stream == "T1" and state.position_in_stream(Event(third.id, third.stream)) == 1
    assert state.position_in_stream(state.event("E2")) == 0
    with pytest.raises(ValueError, match="E9"):
        state.position_in_stream(Event("E9", "T1"))


def test_no_events_are_retained_of_an_unknown_or_expired_stream():
    assert TWO.retained_events("T9") == ()
    assert [e.id for e in TWO.retained_events("T1")] == ["E1", "E2", "E3"]
    assert run(a.ExpireStream("T1"), state=TWO).retained_events("T1") == ()


# -- cases of the status check ----------------------------------------------------------


@pytest.mark.covers("replay-suffix", "reject-foreign-event-id")
@pytest.mark.parametrize("cursor", ["E1", "E4", "E99"])
def test_a_get_with_a_cursor_left_unanswered_is_the_no_answer_case(cursor):
    t = seen(TWO, a.Reconnect("S1", cursor), status=None, events=(), stream=None)
    found = check_transition(t)
    assert [f.case for f in found] == [NO_ANSWER] and "gave no answer" in found[0].message and found[0].outside


@pytest.mark.covers("reemit-pending")
def test_a_session_resumption_left_unanswered_is_no_cursor_case():
    t = seen(TWO, a.Reconnect("S1", None), status=None, events=(), stream=None)
    assert [f.case for f in check_transition(t)] == [None]


@pytest.mark.covers("new-session-on-initialize")
def test_a_session_minted_outside_visible_ascii_is_the_malformed_id_case():
    found = check_transition(seen(INITIAL_STATE, a.Initialize(), session="bad id"))
    assert [f.case for f in found] == [MALFORMED_ID] and "'bad id'" in found[0].message
    assert check_transition(seen(INITIAL_STATE, a.Initialize(), session="S1")) == []


def test_a_refusal_answered_with_another_status_says_which():
    found = check_transition(seen(TWO, a.Reconnect("S9", None), status=200))
    assert found and "answered 200" in found[0].message and not found[0].outside


# -- replay cases ---------------------------------------------------------------------------


@pytest.mark.covers("replay-suffix")
@pytest.mark.parametrize("replayed,case", [(("E3",), None), ((), None), (("E3", "E2"), EXTRA_EVENTS),
                                           (("E1", "E2", "E3"), EXTRA_EVENTS), (("E2", "E2", "E3"), EXTRA_EVENTS)])
def test_a_replay_that_only_leaves_events_out_is_no_extra_events_case(replayed, case):
    t = seen(TWO, a.Reconnect("S1", "E1"), events=tuple(Delivered(e, stream="T1") for e in replayed))
    assert findings(t) == [("replay-suffix", case)]


# -- a session resumption's priming event under a used id ---------------------------------------


SESSION_RESUME = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.DropConnection("T1"))


@pytest.mark.covers("event-id-unique", "no-replay-on-session-resume")
def test_a_priming_event_under_a_used_id_is_an_id_reused_not_a_replay():
    t = seen(SESSION_RESUME, a.Reconnect("S1", None), primed=True, events=(Delivered("E1", stream="T2"),))
    found = check_transition(t)
    assert [f.rule for f in found] == ["event-id-unique"]
    assert "opened the new stream with a priming event under event id E1, already used on T1" in found[0].message


@pytest.mark.covers("no-replay-on-session-resume")
@pytest.mark.parametrize("wrong", [
    {"primed": False},  # no priming event: the old event is replayed
    {"primed": None},  # not seen
])
def test_an_old_event_on_a_session_resumption_without_priming_is_a_replay(wrong):
    t = seen(SESSION_RESUME, a.Reconnect("S1", None), events=(Delivered("E1", stream="T2"),), **wrong)
    assert [f.rule for f in check_transition(t)] == ["no-replay-on-session-resume"]


@pytest.mark.covers("no-replay-on-session-resume")
def test_only_the_first_event_can_be_the_priming_event():
    t = seen(SESSION_RESUME, a.Reconnect("S1", None), primed=True,
             events=(Delivered("E5", stream="T2"), Delivered("E1", stream="T2")))
    assert "no-replay-on-session-resume" in [f.rule for f in check_transition(t)]


@pytest.mark.covers("no-replay-on-session-resume")
def test_a_priming_event_is_an_event_with_no_request_and_no_cancellation():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"))
    for carried in ({"request": "R1"}, {"cancels": "R1"}):
        t = seen(state, a.Reconnect("S1", None), primed=True, events=(Delivered("E1", stream="T2", **carried),))
        assert "opened the new stream with a priming event" not in " ".join(f.message for f in check_transition(t))


# -- standalone-stream-scope -------------------------------------------------------------------


@pytest.mark.covers("standalone-stream-scope")
def test_a_call_response_delivered_on_another_stream_is_the_response_elsewhere_case():
    state = run(a.Initialize(), a.CallTool("S1"), a.CallTool("S1"))
    t = seen(state, a.Respond("T1"), events=(Delivered("E1", stream="T2"),))
    found = check_transition(t)
    assert ("standalone-stream-scope", RESPONSE_ELSEWHERE) in [(f.rule, f.case) for f in found]
    assert any("sent the response to the request on T1 on another request's stream T2" in f.message for f in found)
    assert "standalone-stream-scope" not in [f.rule for f in check_transition(seen(state, a.Respond("T1"), events=()))]


@pytest.mark.covers("standalone-stream-scope")
def test_a_message_about_one_get_stream_sent_on_another_is_out_of_scope():
    state = run(a.Initialize(), a.Reconnect("S1", None), a.DropConnection("T1"), a.Reconnect("S1", None))
    t = seen(state, a.EmitEvent("T2"), about="T1")
    found = check_transition(t)
    assert [f.rule for f in found] == ["standalone-stream-scope"]
    assert "on the standalone GET stream T2 instead" in found[0].message


# -- the rule a wrong status is filed under --------------------------------------------------


@pytest.mark.covers("reject-foreign-event-id", "replay-suffix")
@pytest.mark.parametrize("status,rule", [(404, "reject-foreign-event-id"), (400, "replay-suffix"),
                                         (500, "replay-suffix")])
def test_a_resumable_cursor_refused_404_is_refused_as_if_the_session_were_gone(status, rule):
    t = seen(TWO, a.Reconnect("S1", "E1"), status=status, events=(), stream=None)
    assert [f.rule for f in check_transition(t)][0] == rule  # (a 404 also tells the client to call again)


@pytest.mark.parametrize("status,outside", [(100, False), (404, False), (499, False), (500, True), (503, True)])
def test_only_an_answer_outside_1xx_to_4xx_is_outside_every_expectation(status, outside):
    found = check_transition(seen(TWO, a.Reconnect("S1", "E1"), status=status, events=(), stream=None))
    assert found[0].outside is outside


# -- which rules a step judges -------------------------------------------------------------------


def judged(t):
    from mcp_resume.spec.invariants import judged_rules
    return judged_rules(t)


CALLING = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))


@pytest.mark.covers("call-answered", "no-duplicate-tool-call", "cancel-notifies")
def test_a_response_judges_the_call_rules_and_a_cancellation_its_own():
    from mcp_resume.spec.transitions import step
    assert {"call-answered", "no-duplicate-tool-call"} <= judged(step(CALLING, a.Respond("T1")))
    assert "cancel-notifies" in judged(step(CALLING, a.CancelRequest("R1")))
    assert "cancel-notifies" not in judged(step(CALLING, a.Respond("T1")))


@pytest.mark.covers("call-answered")
def test_only_the_end_of_a_post_stream_ends_a_call():
    from dataclasses import replace
    from mcp_resume.spec.transitions import step
    state = run(a.Initialize(), a.Reconnect("S1", None), a.CallTool("S1"))
    get_end = step(state, a.EndStream("T1"))
    assert "call-answered" not in judged(get_end)
    post_end = replace(get_end, action=a.EndStream("T2"))  # never enabled in the spec: a server's own step
    assert "call-answered" in judged(post_end)
    assert [f.rule for f in check_transition(post_end)] == ["call-answered"]


@pytest.mark.covers("call-answered", "no-duplicate-tool-call")
def test_a_response_neither_sent_nor_stored_breaks_call_answered_and_one_lost_on_its_connection_the_other():
    assert [f.rule for f in check_transition(seen(CALLING, a.Respond("T1"), event=None, events=()))] == ["call-answered"]
    assert [f.rule for f in check_transition(seen(CALLING, a.Respond("T1"), response=False))] == ["call-answered"]
    lost = check_transition(seen(CALLING, a.Respond("T1"), events=()))
    assert "no-duplicate-tool-call" in [f.rule for f in lost]
    dropped = run(a.DropConnection("T1"), state=CALLING)
    assert check_transition(seen(dropped, a.Respond("T1"), events=())) == []  # stored for a resumption


@pytest.mark.covers("cancel-notifies")
def test_a_cancellation_in_silence_breaks_cancel_notifies():
    found = check_transition(seen(CALLING, a.CancelRequest("R1"), event=None, events=()))
    assert [f.rule for f in found] == ["cancel-notifies"] and "R1" in found[0].message
    assert check_transition(seen(CALLING, a.CancelRequest("R1"))) == []


@pytest.mark.covers("no-duplicate-tool-call")
def test_a_request_of_a_live_session_with_a_call_open_judges_no_duplicate_tool_call():
    from mcp_resume.spec.transitions import step
    assert "no-duplicate-tool-call" in judged(step(CALLING, a.Reconnect("S1", None)))
    assert "no-duplicate-tool-call" not in judged(step(CALLING, a.Reconnect("S9", None)))


@pytest.mark.covers("event-id-unique")
def test_a_session_resumption_judges_event_ids_only_when_it_delivers_events():
    from mcp_resume.spec.transitions import step
    stranded = run(a.DropConnection("T1"), state=CALLING)
    assert "event-id-unique" in judged(step(stranded, a.Reconnect("S1", None)))
    assert "event-id-unique" not in judged(step(CALLING, a.Reconnect("S1", None)))


@pytest.mark.covers("no-cross-session")
def test_no_cross_session_is_judged_only_where_another_sessions_events_exist():
    from mcp_resume.spec.transitions import step
    quiet = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"),
                a.Initialize(), a.CallTool("S2"))
    assert "no-cross-session" not in judged(step(quiet, a.Reconnect("S1", None)))
    busy = run(a.EmitEvent("T2"), state=quiet)
    assert "no-cross-session" in judged(step(busy, a.Reconnect("S1", None)))


# -- an ended session's event ids --------------------------------------------------------------


@pytest.mark.covers("expiry-independent")
def test_a_live_session_presenting_an_ended_sessions_id_gets_none_of_its_events():
    from mcp_resume.spec.catalog import ENDED_SESSION_ID
    state = run(a.DeleteSession("S1"), state=TWO)
    t = seen(state, a.Reconnect("S2", "E1"), status=200, events=(Delivered("E2", stream="T1"),))
    found = [(f.rule, f.case) for f in check_transition(t)]
    assert ("expiry-independent", ENDED_SESSION_ID) in found
    assert "expiry-independent" in judged(t)
    live = seen(TWO, a.Reconnect("S2", "E1"), status=200, events=(Delivered("E2", stream="T1"),))
    assert ("expiry-independent", ENDED_SESSION_ID) not in [(f.rule, f.case) for f in check_transition(live)]


def test_a_long_table_answers_a_handle_of_non_ascii_digits_with_nothing():
    state = run(a.Initialize(), a.CallTool("S1"), *[a.EmitEvent("T1")] * 20)
    assert len(state.events) > 16 and state.event("E20").id == "E20"
    assert state.event("E\u00b2") is None and state.event("E") is None and state.event("E020") is None
