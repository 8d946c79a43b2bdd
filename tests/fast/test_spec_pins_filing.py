"""Which catalog rule a finding of spec/invariants.py is filed under, and the newest checks
(a message on several streams, the standalone GET stream, an event id reused for a
re-emission), each shown to fail on one wrong observation and to hold on its neighbour."""

from dataclasses import replace

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.catalog import RESPONSE_ELSEWHERE
from mcp_resume.spec.invariants import (
    check_state,
    check_transition,
    event_id_fresh,
    event_id_resolves,
    judged_rules,
    no_broadcast_state,
    standalone_stream_scope,
)
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import RequestStatus, StreamStatus
from mcp_resume.spec.transitions import Delivered, step
from mcp_resume.spec.verdicts import Verdict, verdict_for_finding
from tests.helpers.spec_steps import run, seen

MCP = Profile.MCP_2025_11_25


def filed(t):
    """(rule, case) of every finding on ``t``, in order."""
    return [(f.rule, f.case) for f in check_transition(t)]


def rules(t):
    return [f.rule for f in check_transition(t)]


def refused(state, action, status, profile=Profile.BOUNDARY):
    """The reference's transition answered ``status`` with nothing delivered."""
    return seen(state, action, profile, status=status, stream=None, events=())


# S1: T1 (GET, connected and open), nothing pending
CONNECTED = run(a.Initialize(), a.Reconnect("S1", None))
# S1: T1 (GET) carries R1 and lost its connection: a session resumption must re-emit R1
STRANDED = run(a.IssueServerRequest("T1"), a.DropConnection("T1"), state=CONNECTED)


# -- _status_rule: the rule a wrong status is filed under ---------------------------------------


@pytest.mark.covers("reject-foreign-event-id")
def test_a_refused_cursor_keeps_branch_3s_rule_even_when_answered_404_on_an_untouched_session():
    # a 404 for a live session elsewhere is session-identity-stable; a cursor's 404 is branch 3's
    assert filed(refused(CONNECTED, a.Reconnect("S1", "unknown-event"), 404)) == [("reject-foreign-event-id", None)]
    lost = run(a.DropConnection("T1"), state=CONNECTED)
    assert filed(refused(lost, a.Reconnect("S1", "unknown-event"), 404)) == [("reject-foreign-event-id", None)]


@pytest.mark.covers("reemit-pending")
def test_a_refused_session_resumption_that_strands_a_request_is_filed_under_reemit_pending():
    assert step(STRANDED, a.Reconnect("S1", None)).outcome.strands
    for status in (400, 409, 500):
        assert filed(refused(STRANDED, a.Reconnect("S1", None), status)) == [("reemit-pending", None)]


@pytest.mark.covers("session-identity-stable")
def test_a_wrong_answer_that_is_no_refusal_keeps_the_branchs_rule_even_when_it_strands():
    # 201 or no answer at all refuses nothing: the wrong status is session resumption's own finding
    for status in (201, None):
        assert filed(refused(STRANDED, a.Reconnect("S1", None), status)) == [("session-identity-stable", None)]


@pytest.mark.covers("session-identity-stable")
def test_a_refusal_that_strands_nothing_keeps_the_branchs_rule():
    # nothing pending: a 400 to a GET without a GET connected is a wrong status, not a stranding
    alone = run(a.DropConnection("T1"), state=CONNECTED)
    assert not step(alone, a.Reconnect("S1", None)).outcome.strands
    assert filed(refused(alone, a.Reconnect("S1", None), 400)) == [("session-identity-stable", None)]
    # under an MCP revision the refusal is accepted, stranded or not
    assert filed(refused(STRANDED, a.Reconnect("S1", None), 409, MCP)) == []


@pytest.mark.covers("expiry-independent")
def test_a_404_that_strands_a_request_is_filed_as_a_session_ended_after_its_stream_lost_its_connection():
    # a 404 says "session gone": it is judged as that, not as a refusal of the GET
    assert filed(refused(STRANDED, a.Reconnect("S1", None), 404)) == [("expiry-independent", None)]


@pytest.mark.covers("expiry-independent", "session-identity-stable")
def test_a_live_session_answered_404_is_filed_by_whether_one_of_its_streams_lost_its_connection_or_ended():
    # every stream connected and open: the live session simply stopped answering
    assert filed(refused(CONNECTED, a.Reconnect("S1", None), 404)) == [("session-identity-stable", None)]
    assert filed(refused(CONNECTED, a.AnswerRequest("S1", "R9"), 404)) == [("session-identity-stable", None)]
    # its stream's connection dropped (the stream goes on): the session ended with it
    dropped = run(a.DropConnection("T1"), state=CONNECTED)
    assert filed(refused(dropped, a.Reconnect("S1", None), 404)) == [("expiry-independent", None)]
    # its stream ended (the server ends a stream and drops its connection together)
    ended = run(a.EndStream("T1"), state=CONNECTED)
    assert filed(refused(ended, a.Reconnect("S1", None), 404)) == [("expiry-independent", None)]
    # another session's lost stream does not count
    other = run(a.Initialize(), a.Reconnect("S2", None), a.DropConnection("T2"), state=CONNECTED)
    assert filed(refused(other, a.Reconnect("S1", None), 404)) == [("session-identity-stable", None)]


@pytest.mark.covers("expiry-independent")
def test_an_ended_stream_counts_as_lost_even_with_its_connection_still_open():
    # the two halves of "lost" are read apart: a stream the server ended, connection or not
    ended = CONNECTED.with_stream(replace(CONNECTED.stream("T1"), status=StreamStatus.ENDED))
    assert ended.stream("T1").connected
    assert filed(refused(ended, a.CallTool("S1"), 404)) == [("expiry-independent", None)]


@pytest.mark.covers("session-delete", "replay-suffix")
def test_a_wrong_status_other_than_404_for_a_live_session_keeps_the_branchs_own_rule():
    assert filed(refused(CONNECTED, a.DeleteSession("S1"), 500)) == [("session-delete", None)]
    dropped = run(a.EmitEvent("T1"), a.DropConnection("T1"), state=CONNECTED)
    assert filed(refused(dropped, a.Reconnect("S1", "E1"), 500)) == [("replay-suffix", None)]


@pytest.mark.covers("malformed-session-400", "unknown-session-404")
def test_a_404_for_a_session_id_that_names_no_live_session_keeps_the_branchs_rule():
    # under boundary a malformed id must get 400: a 404 is a wrong status of that branch, not an ended session
    assert filed(refused(CONNECTED, a.CallTool("bad id"), 404)) == [("malformed-session-400", None)]
    assert filed(refused(CONNECTED, a.CallTool("bad id"), 404, MCP)) == []


@pytest.mark.covers("unknown-session-404")
def test_status_findings_carry_the_outcomes_case():
    # the wrong status and the session id minted by the refusal are both filed with the case
    t = seen(CONNECTED, a.CallTool("S9"), status=200, session="S2")
    assert filed(t) == [("unknown-session-404", "never-issued")] * 2
    deleted = run(a.DeleteSession("S1"), state=CONNECTED)
    assert filed(seen(deleted, a.CallTool("S1"), status=200, session="S2")) == [("unknown-session-404", None)] * 2
    # findings of other checks carry no case
    assert filed(seen(CONNECTED, a.Initialize(), session="S1")) == [("session-identity-stable", None)]


# -- no_broadcast_state: a pending request's carrier and origin are streams that carried it ------


# S1: T1 (POST) carried R1 as E1, T2 (POST) carried nothing
CARRIED = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.CallTool("S1"))


@pytest.mark.covers("no-broadcast")
def test_a_pending_requests_carrying_stream_must_have_carried_it_even_when_its_origin_did():
    moved = CARRIED.with_request(replace(CARRIED.request("R1"), stream="T2", issued_on="T1"))
    assert moved.request("R1").origin == "T1"
    assert len(no_broadcast_state(moved)) == 1 and "carried by T2" in no_broadcast_state(moved)[0]


@pytest.mark.covers("no-broadcast")
def test_a_pending_requests_origin_must_have_carried_it_even_when_its_carrying_stream_did():
    made_up = CARRIED.with_request(replace(CARRIED.request("R1"), issued_on="T2"))
    assert made_up.request("R1").stream == "T1"
    assert [f.rule for f in check_state(made_up)] == ["no-broadcast"]


@pytest.mark.covers("no-broadcast")
def test_a_re_emitted_request_is_carried_by_its_new_stream_and_was_first_sent_on_its_origin():
    state = run(a.DropConnection("T1"), a.Reconnect("S1", None), state=CARRIED)
    request = state.request("R1")
    assert (request.stream, request.origin, request.status) == ("T3", "T1", RequestStatus.PENDING)
    assert no_broadcast_state(state) == [] and no_broadcast_state(CARRIED) == []
    # a request no longer pending is not judged
    cancelled = CARRIED.with_request(replace(CARRIED.request("R1"), stream="T2", status=RequestStatus.CANCELLED))
    assert no_broadcast_state(cancelled) == []


# -- session_identity_stable: initialize gets an id no session ever had ------------------------------


@pytest.mark.covers("session-identity-stable")
@pytest.mark.parametrize("end", [None, a.DeleteSession("S1"), a.ExpireSession("S1")],
                         ids=["live", "deleted", "expired"])
def test_initialize_answered_with_the_id_of_a_live_or_ended_session_breaks_session_identity(end):
    state = CONNECTED if end is None else run(end, state=CONNECTED)
    findings = check_transition(seen(state, a.Initialize(), session="S1"))
    assert [(f.rule, f.case) for f in findings] == [("session-identity-stable", None)]
    assert "S1" in findings[0].message
    assert check_transition(seen(state, a.Initialize(), session="S2")) == []


@pytest.mark.covers("session-identity-stable")
def test_a_request_of_a_live_session_is_answered_under_its_own_id_or_none():
    assert rules(seen(CONNECTED, a.CallTool("S1"), session="S7")) == ["session-identity-stable"]
    assert rules(seen(CONNECTED, a.CallTool("S1"), session="S1")) == []
    # outside a live session an unknown id echoed is refusal_names_no_session's to judge, not this check's
    assert rules(seen(CONNECTED, a.CallTool("S9"), session="S7")) == []


# -- no-broadcast: one message of one step on several streams -------------------------------------


# S1: T1 (POST, connected), T2 (GET, connected), T3 (POST, connected); S2: T4 (GET, connected)
OPEN = run(a.Initialize(), a.CallTool("S1"), a.Reconnect("S1", None), a.CallTool("S1"), a.Initialize(),
           a.Reconnect("S2", None))


def _issued_and_copied_to(stream: str):
    """(the request, the step) of a server request issued on T1 whose observation also
    delivers it under a new event id ``E-copy`` on ``stream``."""
    t = step(OPEN, a.IssueServerRequest("T1"))
    event, request = t.observation.event, t.observation.request
    return request, replace(t, observation=replace(t.observation, events=(
        Delivered(event, request, "T1"), Delivered("E-copy", request, stream))))


@pytest.mark.covers("no-broadcast")
def test_a_new_server_request_sent_under_two_new_event_ids_on_two_streams_breaks_no_broadcast():
    request, twice = _issued_and_copied_to("T3")
    broadcast = [f.message for f in check_transition(twice) if f.rule == "no-broadcast"]
    assert broadcast == [f"sent server request {request} on [T1, T3] at once"]


@pytest.mark.covers("server-request-ownership")
def test_a_new_server_request_copied_to_another_stream_of_its_session_is_still_its_sessions_own():
    _, twice = _issued_and_copied_to("T3")
    assert rules(twice) == ["no-broadcast"]


@pytest.mark.covers("no-broadcast")
def test_a_server_request_sent_twice_on_its_own_stream_is_no_broadcast():
    _, again = _issued_and_copied_to("T1")
    # one stream: whatever else is wrong with the copy, it went nowhere else
    assert "no-broadcast" not in rules(again)


@pytest.mark.covers("no-broadcast", "no-replay-on-session-resume")
def test_a_replayed_event_of_a_request_is_not_a_second_sending_of_it():
    # the request's own old event beside its re-emission: a replay, which no-broadcast does not count
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"))
    t = step(state, a.Reconnect("S1", None))
    assert [(d.event, d.request, d.stream) for d in t.observation.events] == [("E2", "R1", "T2")]
    both = replace(t, observation=replace(t.observation, events=t.observation.events + (Delivered("E1", "R1", "T1"),)))
    assert rules(both) == ["no-replay-on-session-resume"]


@pytest.mark.covers("no-broadcast")
def test_one_new_event_id_on_two_streams_is_reported_once():
    t = step(OPEN, a.EmitEvent("T1"))
    twice = replace(t, observation=replace(t.observation, events=(
        Delivered(t.observation.event, stream="T1"), Delivered(t.observation.event, stream="T3"))))
    findings = check_transition(twice)
    assert [f.rule for f in findings] == ["no-broadcast"]
    assert findings[0].message == f"delivered event {t.observation.event} on [T1, T3] at once"


# -- standalone-stream-scope: a call's message goes on the call's stream ------------------------------


def instead(state, action, *streams, **wrong):
    """The reference's server step with its new event delivered on ``streams`` instead."""
    t = step(state, action)
    o = t.observation
    return replace(t, observation=replace(o, events=tuple(Delivered(o.event, o.request, s) for s in streams), **wrong))


@pytest.mark.covers("standalone-stream-scope")
def test_a_calls_notification_delivered_on_the_get_stream_instead_breaks_standalone_stream_scope():
    t = instead(OPEN, a.EmitEvent("T1"), "T2")
    assert standalone_stream_scope(t) == [
        "sent the notification of the call on T1 on the standalone GET stream T2 instead"]
    request = instead(OPEN, a.IssueServerRequest("T1"), "T2")
    assert standalone_stream_scope(request)[0].startswith("sent the server request of the call on T1")


@pytest.mark.covers("standalone-stream-scope", "no-broadcast")
def test_a_calls_message_delivered_on_its_own_stream_and_the_get_stream_is_a_broadcast_not_a_misplacement():
    t = instead(OPEN, a.IssueServerRequest("T1"), "T1", "T2")
    assert standalone_stream_scope(t) == []
    assert rules(t) == ["no-broadcast"]


@pytest.mark.covers("standalone-stream-scope")
def test_only_a_get_stream_of_the_calls_own_session_is_its_standalone_stream():
    # another session's GET stream: a disclosure, judged by no-cross-session
    other = instead(OPEN, a.EmitEvent("T1"), "T4")
    assert standalone_stream_scope(other) == [] and "no-cross-session" in rules(other)
    # another call's POST stream is no standalone stream
    assert standalone_stream_scope(instead(OPEN, a.EmitEvent("T1"), "T3")) == []


@pytest.mark.covers("standalone-stream-scope")
def test_a_get_stream_message_the_traffic_found_to_be_about_a_running_call_breaks_standalone_stream_scope():
    note = instead(OPEN, a.EmitEvent("T2"), "T2", about="T1")
    assert rules(note) == ["standalone-stream-scope"]
    assert check_transition(note)[0].message == \
        "sent the notification of the call on T1 on the standalone GET stream T2 instead"
    request = instead(OPEN, a.IssueServerRequest("T2"), "T2", about="T1")
    assert standalone_stream_scope(request)[0].startswith("sent the server request of the call on T1")
    assert "standalone-stream-scope" in judged_rules(note)
    assert "standalone-stream-scope" not in judged_rules(step(OPEN, a.EmitEvent("T2")))


@pytest.mark.covers("standalone-stream-scope")
def test_a_calls_message_delivered_on_a_stream_the_spec_does_not_know_is_no_get_streams():
    assert standalone_stream_scope(instead(OPEN, a.EmitEvent("T1"), "T9")) == []
    assert standalone_stream_scope(instead(OPEN, a.EmitEvent("T1"), None)) == []


@pytest.mark.covers("standalone-stream-scope", "no-broadcast")
def test_where_a_new_message_could_have_gone_elsewhere_is_where_its_stream_is_judged():
    def judged(state, action, **wrong):
        return judged_rules(seen(state, action, **wrong)) & {"no-broadcast", "standalone-stream-scope"}

    # a call's message with the session's GET stream connected, and a GET stream's message about a call
    assert judged(OPEN, a.EmitEvent("T1")) == {"no-broadcast", "standalone-stream-scope"}
    assert judged(OPEN, a.EmitEvent("T2")) == {"no-broadcast"}
    assert judged(OPEN, a.EmitEvent("T2"), about="T1") == {"no-broadcast", "standalone-stream-scope"}
    # only another session's GET stream connected: nowhere standalone to misplace it
    calls = run(a.Initialize(), a.CallTool("S1"), a.Initialize(), a.Reconnect("S2", None))
    assert judged(calls, a.EmitEvent("T1")) == {"no-broadcast"}
    # no other connection open: nowhere else it could go
    alone = run(a.Initialize(), a.CallTool("S1"))
    assert judged(alone, a.EmitEvent("T1")) == set()
    # a message the traffic tells is about a request (a response, a progress token): where it went is judged
    assert judged(alone, a.EmitEvent("T1"), about="T1") == {"standalone-stream-scope"}
    # a server step on no stream (a cancellation's event) is judged for its id only
    state = run(a.IssueServerRequest("T1"), state=OPEN)
    cancel = seen(state, a.CancelRequest("R1"), event="E9", events=(Delivered("E9", stream="T2", cancels="R1"),))
    assert judged_rules(cancel) >= {"event-id-unique"}
    assert judged_rules(cancel) & {"no-broadcast", "standalone-stream-scope"} == set()


@pytest.mark.covers("standalone-stream-scope")
def test_about_names_a_request_of_the_same_session_on_another_stream():
    assert standalone_stream_scope(instead(OPEN, a.EmitEvent("T2"), "T2", about="T2")) == []  # the GET itself
    assert standalone_stream_scope(instead(OPEN, a.EmitEvent("T2"), "T2", about="T9")) == []  # names nothing
    assert standalone_stream_scope(instead(OPEN, a.EmitEvent("T2"), "T2")) == []  # nobody could tell
    elsewhere = run(a.CallTool("S2"), state=OPEN)  # T5: a call of S2
    assert standalone_stream_scope(instead(elsewhere, a.EmitEvent("T2"), "T2", about="T5")) == []
    # a POST stream's message about its own call is in place; about another call, it is not (B9)
    assert standalone_stream_scope(instead(OPEN, a.EmitEvent("T3"), "T3", about="T3")) == []
    assert standalone_stream_scope(instead(OPEN, a.EmitEvent("T3"), "T3", about="T1")) == [
        "sent the notification of the call on T1 on another request's stream T3 instead"]


@pytest.mark.covers("standalone-stream-scope")
def test_a_response_on_another_stream_than_its_requests_is_the_response_case():
    # B18: no response on the GET stream (T2) unless it resumes the request's own stream; nor on another call's (T3)
    on_get = check_transition(instead(OPEN, a.EmitEvent("T2"), "T2", about="T1", response=True))
    on_other = check_transition(instead(OPEN, a.EmitEvent("T3"), "T3", about="T1", response=True))
    in_place = check_transition(instead(OPEN, a.EmitEvent("T1"), "T1", about="T1", response=True))
    assert [(f.rule, f.case) for f in on_get + on_other] == [("standalone-stream-scope", RESPONSE_ELSEWHERE)] * 2
    assert "standalone GET stream T2" in on_get[0].message and "another request's stream T3" in on_other[0].message
    assert in_place == []
    for profile in (Profile.MCP_2025_03_26, Profile.MCP_2025_11_25, Profile.BOUNDARY):
        assert verdict_for_finding(on_get[0], profile) is Verdict.FAIL


@pytest.mark.covers("standalone-stream-scope")
def test_about_judges_only_a_new_message_of_a_server_step():
    # a connection drop sends nothing, and a response's about is no server step's
    drop = seen(OPEN, a.DropConnection("T2"), about="T1")
    assert standalone_stream_scope(drop) == []
    answer = seen(OPEN, a.Reconnect("S1", None), about="T1")
    assert standalone_stream_scope(answer) == []
    # a server step on no stream (giving up on a request) names no GET stream, whatever it sent
    state = run(a.IssueServerRequest("T1"), state=OPEN)
    cancel = seen(state, a.CancelRequest("R1"), event="E9", events=(Delivered("E9", stream="T2", cancels="R1"),),
                  about="T1")
    assert standalone_stream_scope(cancel) == []


# -- an event id reused for a re-emission is no replay, but no fresh id either ------------------


# S1: T1 (POST) sent E1 (a notification) and E2 (R1), then lost its connection
OWED = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.IssueServerRequest("T1"), a.DropConnection("T1"))


def resumed(*events):
    """The session resumption of S1 in OWED, the server delivering ``events`` on its new stream T2."""
    return seen(OWED, a.Reconnect("S1", None), events=events)


def test_the_reference_re_emits_r1_under_a_fresh_id_on_the_new_stream():
    t = step(OWED, a.Reconnect("S1", None))
    assert t.outcome.reemit == ("R1",)
    assert [(d.event, d.request, d.stream) for d in t.observation.events] == [("E3", "R1", "T2")]
    assert check_transition(t) == []


@pytest.mark.covers("event-id-unique", "no-replay-on-session-resume")
def test_a_re_emission_under_the_event_id_it_first_had_is_a_reused_id_not_a_replay():
    findings = check_transition(resumed(Delivered("E2", "R1", "T2")))
    assert [f.rule for f in findings] == ["event-id-unique"]
    assert findings[0].message == "re-emitted R1 under event id E2, already used on T1"
    cancel = check_transition(resumed(Delivered("E2", stream="T2", cancels="R1")))
    assert [f.rule for f in cancel] == ["event-id-unique"]
    assert cancel[0].message == "re-emitted R1 under event id E2, already used on T1"


@pytest.mark.covers("no-replay-on-session-resume")
def test_a_request_replayed_on_its_own_stream_during_a_session_resumption_is_a_replay():
    assert rules(resumed(Delivered("E2", "R1", "T1"))) == ["no-replay-on-session-resume"]


@pytest.mark.covers("no-replay-on-session-resume")
def test_a_request_also_re_emitted_under_a_fresh_id_makes_its_old_id_a_replay():
    fresh = Delivered("E3", "R1", "T2")
    assert rules(resumed(fresh, Delivered("E2", "R1", "T2"))) == ["no-replay-on-session-resume"]
    cancelled = Delivered("E3", stream="T2", cancels="R1")
    assert rules(resumed(cancelled, Delivered("E2", stream="T2", cancels="R1"))) == ["no-replay-on-session-resume"]


@pytest.mark.covers("no-replay-on-session-resume")
def test_an_old_notification_on_the_new_stream_is_a_replay_whatever_else_is_re_emitted():
    findings = check_transition(resumed(Delivered("E3", "R1", "T2"), Delivered("E1", stream="T2")))
    assert [f.rule for f in findings] == ["no-replay-on-session-resume"]
    assert findings[0].message == "session resumption of S1 replayed past events [E1]"


@pytest.mark.covers("event-id-unique")
def test_only_a_successful_session_resumption_can_reuse_an_id_for_a_re_emission():
    # a stream resumption replays its stream's own old ids
    assert check_transition(step(OWED, a.Reconnect("S1", "E1"))) == []
    # a server step's new event under an old id is its own finding
    state = run(a.CallTool("S1"), state=OWED)
    reused = seen(state, a.EmitEvent("T2"), event="E1", events=(Delivered("E1", stream="T2"),))
    assert [f.message for f in check_transition(reused)] == ["the new event reuses event id E1"]


@pytest.mark.covers("event-id-unique")
def test_only_a_server_steps_event_is_judged_as_a_new_event():
    # a response whose observation names an old event (as a harness may) mints no event
    assert event_id_fresh(seen(OWED, a.CallTool("S1"), event="E1")) == []
    assert event_id_fresh(seen(OWED, a.EmitEvent("T1"), event="E1")) == ["the new event reuses event id E1"]


# -- _new: which delivered ids are new events of the step ---------------------------------------------


@pytest.mark.covers("event-id-unique")
def test_an_event_without_a_stream_that_is_not_the_steps_event_resolves_to_nothing():
    t = step(OPEN, a.EmitEvent("T1"))
    stray = replace(t, observation=replace(t.observation, events=t.observation.events + (Delivered("E77"),)))
    assert event_id_resolves(stray) == ["delivered event id E77 resolves to no event of any stream"]
    assert event_id_resolves(t) == []


@pytest.mark.covers("event-id-unique")
def test_new_events_on_the_stream_a_response_opened_or_resumed_are_new():
    # a new POST stream's priming event, a session resumption's ping on its new stream
    call = seen(OPEN, a.CallTool("S1"), events=(Delivered("P1", stream="T5"),))
    assert check_transition(call) == []
    ping = seen(OPEN, a.Reconnect("S2", None), events=(Delivered("P2", "ping", "T5"),))
    assert check_transition(ping) == []
    # a session resumption that goes on with the stream it reports, one the server had before
    again = seen(OWED, a.Reconnect("S1", None), stream="T1",
                 events=(Delivered("E3", "R1", "T1"), Delivered("P3", stream="T1")))
    assert event_id_resolves(again) == []


@pytest.mark.covers("event-id-unique")
def test_only_a_resumed_stream_goes_on_with_new_events_on_a_stream_the_server_had():
    # a stream resumption's stream goes on after its replay
    going_on = seen(OWED, a.Reconnect("S1", "E1"), events=(Delivered("E2", "R1", "T1"), Delivered("P5", stream="T1")))
    assert event_id_resolves(going_on) == []
    # a tool call answered on a stream the server had before opened no stream: its ids must resolve
    reused = seen(OWED, a.CallTool("S1"), stream="T1", events=(Delivered("P6", stream="T1"),))
    assert event_id_resolves(reused) == ["delivered event id P6 resolves to no event of any stream"]


@pytest.mark.covers("event-id-unique")
def test_a_refused_resumption_goes_on_with_no_events():
    cursor = run(a.Reconnect("S1", "E1"), state=OWED)  # T1 connected again
    t = seen(cursor, a.Reconnect("S1", "E1"), status=409, stream="T1", events=(Delivered("P4", stream="T1"),))
    assert event_id_resolves(t) == ["delivered event id P4 resolves to no event of any stream"]


# -- replay-suffix on branch 3: only the session's own stream named by the cursor ------------------


# S1: T1 (POST, E1 E2 E3, dropped), T2 (POST, E4, dropped); S2: T3 (GET); E1 evicted
EVICTED = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"), a.EmitEvent("T1"),
              a.CallTool("S1"), a.EmitEvent("T2"), a.DropConnection("T1"), a.DropConnection("T2"),
              a.Initialize(), a.Reconnect("S2", None), a.EvictEvent("T1"))


@pytest.mark.covers("replay-suffix", "no-cross-session")
def test_a_branch_3_replay_of_anything_but_the_cursors_own_stream_is_no_cross_sessions_finding():
    twice = run(a.EvictEvent("T1"), state=EVICTED)  # E1 and E2 evicted: no exact suffix for E1
    assert step(twice, a.Reconnect("S1", "E1")).outcome.stream is None
    other_stream = seen(twice, a.Reconnect("S1", "E1"), MCP, status=200, events=(Delivered("E4", stream="T2"),))
    assert rules(other_stream) == ["no-cross-session"]
    # a cursor of another session, or one that names nothing
    foreign = seen(EVICTED, a.Reconnect("S2", "E1"), MCP, status=200, events=(Delivered("E2", stream="T1"),))
    assert "replay-suffix" not in rules(foreign) and "no-cross-session" in rules(foreign)
    unknown = seen(EVICTED, a.Reconnect("S1", "nothing"), MCP, status=200, events=(Delivered("E2", stream="T1"),))
    assert rules(unknown) == ["no-cross-session"]


@pytest.mark.covers("replay-suffix")
def test_an_evicted_cursor_that_has_no_exact_suffix_is_answered_with_no_replay():
    twice = run(a.EvictEvent("T1"), state=EVICTED)
    t = seen(twice, a.Reconnect("S1", "E1"), MCP, status=200, events=(Delivered("E3", stream="T1"),))
    assert [f.message for f in check_transition(t)] == [
        "answered a cursor it cannot resume (evicted) with a replay [E3] of T1: not an exact suffix"]
    exact = seen(EVICTED, a.Reconnect("S1", "E1"), MCP, status=200, stream="T1", events=(Delivered("E3", stream="T1"),))
    assert check_transition(exact)[0].message.startswith("resumed stream T1 after its evicted cursor E1: replayed [E3]")
