"""Where spec/invariants.py judges a rule (``judged_rules``: a PASS needs a check that could have
failed), which checks ``check_transition`` calls on a step, and the conditions inside the
older server checks, each pinned on the step that tells its two sides apart."""

from dataclasses import replace

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.invariants import (
    check_sanity,
    check_state,
    check_transition,
    event_id_unique,
    judged_rules,
    reemit_keeps_pending,
    reemit_pending,
    session_identity_stable_state,
)
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import Event, Session, State, Stream, StreamKind
from mcp_resume.spec.transitions import Delivered, exact_after_eviction, step
from tests.helpers.spec_steps import run, seen

MCP = Profile.MCP_2025_11_25


def rules(t):
    return [f.rule for f in check_transition(t)]


# S1: T1 (POST, E1 a notification, E2 carrying R1, dropped); S2: T2 (POST, E3 carrying R2, connected)
TWO = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.IssueServerRequest("T1"), a.DropConnection("T1"),
          a.Initialize(), a.CallTool("S2"), a.IssueServerRequest("T2"))
# S1: T1 (GET, connected), nothing sent yet
QUIET = run(a.Initialize(), a.Reconnect("S1", None))


# -- judged_rules ---------------------------------------------------------------------------------


@pytest.mark.covers("expiry-independent")
def test_expiry_independent_is_judged_on_a_stream_expiry_and_on_a_live_session_with_a_stream_gone():
    assert "expiry-independent" in judged_rules(step(TWO, a.ExpireStream("T1")))
    expired = run(a.ExpireStream("T1"), state=TWO)
    assert "expiry-independent" in judged_rules(step(expired, a.Reconnect("S1", None)))
    assert "expiry-independent" not in judged_rules(step(expired, a.Reconnect("S2", None)))
    assert "expiry-independent" not in judged_rules(step(TWO, a.EmitEvent("T2")))
    # a stream with events lost its connection: a server that ends sessions with streams would answer 404
    assert "expiry-independent" in judged_rules(step(TWO, a.Reconnect("S1", None)))
    assert "expiry-independent" not in judged_rules(step(QUIET, a.Reconnect("S1", None)))  # none lost yet


@pytest.mark.covers("event-id-unique")
def test_event_id_unique_is_judged_on_a_server_step_that_sends_an_event():
    assert "event-id-unique" in judged_rules(step(TWO, a.EmitEvent("T2")))
    assert "event-id-unique" not in judged_rules(step(TWO, a.DropConnection("T2")))
    assert "event-id-unique" not in judged_rules(step(TWO, a.CallTool("S1")))


@pytest.mark.covers("priming-event", "protocol-version-accepted")
def test_priming_and_the_version_header_are_judged_only_where_they_were_seen():
    assert "priming-event" in judged_rules(seen(TWO, a.CallTool("S1"), primed=True))
    assert "priming-event" not in judged_rules(step(TWO, a.CallTool("S1")))
    assert "priming-event" not in judged_rules(seen(TWO, a.Reconnect("S1", None), primed=True))
    assert "protocol-version-accepted" in judged_rules(seen(TWO, a.CallTool("S1"), version_refused=False))
    assert "protocol-version-accepted" not in judged_rules(step(TWO, a.CallTool("S1")))


@pytest.mark.covers("unsupported-version-400")
def test_an_unsupported_version_is_judged_on_requests_of_a_live_session_that_carried_it():
    assert "unsupported-version-400" in judged_rules(seen(TWO, a.CallTool("S1"), status=400, version_unsupported=True))
    assert "unsupported-version-400" not in judged_rules(step(TWO, a.CallTool("S1")))
    assert "unsupported-version-400" not in judged_rules(seen(TWO, a.CallTool("S9"), version_unsupported=True))
    assert "unsupported-version-400" not in judged_rules(seen(TWO, a.EmitEvent("T1"), version_unsupported=True))


@pytest.mark.covers("server-request-ownership")
def test_ownership_is_judged_where_events_reach_a_session_while_another_one_could_own_requests():
    # S1 re-emits R1 while S2 holds R2: R2 could have been sent instead
    assert "server-request-ownership" in judged_rules(step(TWO, a.Reconnect("S1", None)))
    assert "server-request-ownership" not in judged_rules(step(TWO, a.CallTool("S1")))  # delivers nothing
    # two sessions, only S1 issued requests: another session could still receive them
    one_owner = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.Initialize(), a.CallTool("S2"))
    assert "server-request-ownership" in judged_rules(step(one_owner, a.EmitEvent("T2")))
    # a single session: no other owner
    alone = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))
    assert "server-request-ownership" not in judged_rules(step(alone, a.EmitEvent("T1")))
    # two sessions, no request at all
    quiet = run(a.Initialize(), a.CallTool("S1"), a.Initialize(), a.CallTool("S2"))
    assert "server-request-ownership" not in judged_rules(step(quiet, a.EmitEvent("T1")))


@pytest.mark.covers("no-cross-session")
def test_no_cross_session_is_judged_where_another_session_or_stream_had_events_to_leak():
    # one session, one stream with events: a session resumption's re-emission has nothing foreign at hand
    alone = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"))
    assert "no-cross-session" not in judged_rules(step(alone, a.Reconnect("S1", None)))
    assert "no-cross-session" not in judged_rules(step(run(a.EmitEvent("T1"), state=alone), a.Reconnect("S1", "E1")))
    # a stream resumption with another stream of the session holding events could replay them
    other = run(a.EmitEvent("T1"), a.CallTool("S1"), a.EmitEvent("T2"), state=alone)
    assert "no-cross-session" in judged_rules(step(other, a.Reconnect("S1", "E1")))
    # two sessions with events
    assert "no-cross-session" in judged_rules(step(TWO, a.Reconnect("S1", None)))


@pytest.mark.covers("replay-suffix", "session-identity-stable", "no-reemit-on-stream-resume")
def test_a_stream_resumption_judges_the_replay_the_session_and_with_requests_pending_any_re_emission():
    judged = judged_rules(step(TWO, a.Reconnect("S1", "E1")))
    assert {"replay-suffix", "session-identity-stable", "no-reemit-on-stream-resume"} <= judged
    nothing_pending = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"),
                          a.DropConnection("T1"))
    judged = judged_rules(step(nothing_pending, a.Reconnect("S1", "E1")))
    assert {"replay-suffix", "session-identity-stable"} <= judged and "no-reemit-on-stream-resume" not in judged


@pytest.mark.covers("replay-suffix")
def test_branch_3_judges_the_replay_only_when_answered_with_the_exact_suffix():
    evicted = run(a.EvictEvent("T1"), state=TWO)
    exact = exact_after_eviction(evicted, a.Reconnect("S1", "E1"))
    assert "replay-suffix" in judged_rules(exact)
    refused = step(evicted, a.Reconnect("S1", "E1"))
    assert "replay-suffix" not in judged_rules(refused)
    empty = seen(TWO, a.Reconnect("S1", "unknown-event"), MCP, status=200)  # MCP: an empty 200 for branch 3
    assert "replay-suffix" not in judged_rules(empty)
    orphan = seen(TWO, a.Reconnect(None, "E1"), status=200)
    assert "replay-suffix" not in judged_rules(orphan)


@pytest.mark.covers("no-replay-on-session-resume", "no-broadcast")
def test_a_session_resumption_judges_replay_only_with_events_and_broadcast_only_with_a_connected_carrier():
    assert "no-replay-on-session-resume" not in judged_rules(step(QUIET, a.Reconnect("S1", None)))
    # another session's events are not the session's history
    beside = run(a.Initialize(), a.CallTool("S2"), a.EmitEvent("T2"), state=QUIET)
    assert "no-replay-on-session-resume" not in judged_rules(step(beside, a.Reconnect("S1", None)))
    assert "no-replay-on-session-resume" in judged_rules(step(beside, a.Reconnect("S2", None)))
    # R1's carrier T1 lost its connection, R2's T2 is connected: only the latter could be broadcast
    assert "no-broadcast" not in judged_rules(step(TWO, a.Reconnect("S1", None)))
    assert "no-broadcast" in judged_rules(step(TWO, a.Reconnect("S2", None)))


@pytest.mark.covers("no-duplicate-tool-call")
def test_duplicate_tool_calls_are_judged_only_with_a_call_of_the_live_session_unfinished():
    assert "no-duplicate-tool-call" not in judged_rules(step(QUIET, a.Reconnect("S1", None)))  # a GET stream only
    calling = run(a.CallTool("S1"), state=QUIET)
    assert "no-duplicate-tool-call" in judged_rules(step(calling, a.Reconnect("S1", None)))


# -- which checks a step calls ------------------------------------------------------------------------


@pytest.mark.covers("standalone-stream-scope")
def test_a_message_about_a_call_that_reached_no_connection_is_not_judged():
    # the GET stream lost its connection: the message is stored, not sent; only delivered ones are judged
    state = run(a.Initialize(), a.CallTool("S1"), a.Reconnect("S1", None), a.DropConnection("T2"))
    stored = seen(state, a.EmitEvent("T2"), about="T1")
    assert stored.observation.events == () and check_transition(stored) == []
    connected = run(a.Initialize(), a.CallTool("S1"), a.Reconnect("S1", None))
    assert rules(seen(connected, a.EmitEvent("T2"), about="T1")) == ["standalone-stream-scope"]


@pytest.mark.covers("no-broadcast", "replay-suffix")
def test_the_checks_a_step_needs_are_chosen_afresh_for_each_kind_of_step():
    # a step that delivers nothing first, then one that delivers a broadcast: the second is still judged
    state = run(a.Initialize(), a.CallTool("S1"), a.Reconnect("S1", None))
    assert check_transition(step(state, a.DropConnection("T2"))) == []
    reference = step(state, a.EmitEvent("T1"))
    event = reference.observation.event
    twice = replace(reference, observation=replace(reference.observation, events=(
        Delivered(event, stream="T1"), Delivered(event, stream="T2"))))
    assert rules(twice) == ["no-broadcast"]
    # a step that resumes nothing first, then a resumption with a wrong replay
    assert check_transition(step(TWO, a.CallTool("S1"))) == []
    wrong = seen(TWO, a.Reconnect("S1", "E1"), events=())
    assert rules(wrong) == ["replay-suffix"]


@pytest.mark.covers("session-identity-stable", "event-id-unique")
def test_a_step_with_a_finding_of_its_own_gets_no_generic_finding():
    # answered 500 yet delivering an id that names nothing: the status says it all
    t = seen(TWO, a.CallTool("S1"), status=500, events=(Delivered("E77", stream="T1"),))
    assert rules(t) == ["session-identity-stable"]
    alone = seen(TWO, a.CallTool("S1"), events=(Delivered("E77", stream="T1"),))
    assert rules(alone) == ["event-id-unique"]


@pytest.mark.covers("reemit-pending", "reemit-keeps-pending")
def test_the_re_emission_checks_judge_only_a_session_resumption_answered_200():
    refused = seen(TWO, a.Reconnect("S1", None), MCP, status=409, stream=None, events=())
    assert refused.outcome.reemit == ("R1",)
    assert reemit_pending(refused) == [] and reemit_keeps_pending(refused) == []
    assert reemit_pending(seen(TWO, a.Reconnect("S1", None), events=())) != []
    assert reemit_pending(step(TWO, a.CallTool("S1"))) == []


# -- conditions inside the server checks --------------------------------------------------------


@pytest.mark.covers("event-id-unique", "session-identity-stable")
def test_the_state_invariants_name_exactly_the_ids_used_twice():
    state = State(
        sessions=(Session("S1"), Session("S1"), Session("S2")),
        streams=(Stream("T1", "S1", StreamKind.POST),),
        events=(Event("E1", "T1"), Event("E1", "T1"), Event("E2", "T1")),
    )
    assert event_id_unique(state) == ["event id E1 is used 2 times"]
    assert session_identity_stable_state(state) == ["session id S1 names 2 sessions"]
    assert check_state(run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"))) == []


@pytest.mark.covers("replay-suffix")
def test_live_delivery_judges_only_a_step_on_a_stream():
    # giving up on a request sends its cancellation on no stream of the action's own
    cancel = seen(TWO, a.CancelRequest("R2"), event="E9", events=(Delivered("E9", stream="T2", cancels="R2"),))
    assert "replay-suffix" not in rules(cancel)


@pytest.mark.covers("no-cross-session", "no-replay-on-session-resume")
def test_a_replay_is_judged_by_its_stream_only_on_a_reconnect_with_a_cursor():
    # a session resumption replaying the session's own old event: a replay, not a disclosure
    t = seen(TWO, a.Reconnect("S1", None), events=step(TWO, a.Reconnect("S1", None)).observation.events + (
        Delivered("E1", stream="T3"),))
    assert rules(t) == ["no-replay-on-session-resume"]
    # a tool call's answer carrying an old event of its own session is judged by its ids alone
    assert rules(seen(TWO, a.CallTool("S1"), events=(Delivered("E1", stream="T1"),))) == []
    # a stream resumption going on with a new event: not a replay of another stream
    going_on = seen(TWO, a.Reconnect("S1", "E1"), events=(Delivered("E2", "R1", "T1"), Delivered("P1", stream="T1")))
    assert rules(going_on) == []


@pytest.mark.covers("no-cross-session")
def test_an_old_event_of_another_session_in_a_server_step_is_that_sessions():
    reference = step(TWO, a.EmitEvent("T2"))
    leak = replace(reference, observation=replace(reference.observation, events=reference.observation.events + (
        Delivered("E1", stream="T2"),)))
    assert rules(leak) == ["no-cross-session"]
    # an id that names nothing, on another session's connection, is no-cross-session's only when it is the step's own
    stray = replace(reference, observation=replace(reference.observation, events=reference.observation.events + (
        Delivered("E-x", stream="T1"),)))
    assert rules(stray) == ["event-id-unique"]


@pytest.mark.covers("no-broadcast")
def test_a_request_no_longer_pending_or_replayed_on_its_own_stream_is_no_broadcast():
    answered = run(a.AnswerRequest("S2", "R2"), a.Reconnect("S2", None), state=TWO)
    t = seen(answered, a.EmitEvent("T3"), event="E4",
             events=(Delivered("E4", stream="T3"), Delivered("E3", "R2", "T3")))
    assert "no-broadcast" not in rules(t)
    # R1 re-emitted on T3 (connected); T1 resumed replays its own old event carrying R1: history, not a sending
    moved = run(a.Reconnect("S1", None), state=TWO)
    assert moved.request("R1").stream == "T3" and moved.stream("T3").connected
    assert check_transition(step(moved, a.Reconnect("S1", "E1"))) == []


@pytest.mark.covers("server-request-ownership")
def test_ownership_findings_name_the_requests_own_session():
    t = seen(TWO, a.Reconnect("S1", None), events=(Delivered("E4", "R1", "T3"), Delivered("E5", "R2", "T3")))
    owned = [f.message for f in check_transition(t) if f.rule == "server-request-ownership"]
    assert owned == ["delivered server request R2 of S2 on a connection of session S1"]


@pytest.mark.covers("server-request-ownership")
def test_a_request_nobody_issued_under_another_sessions_event_id_is_filed_as_that_sessions():
    t = seen(TWO, a.Reconnect("S1", None), events=step(TWO, a.Reconnect("S1", None)).observation.events + (
        Delivered("E3", "R9", "T3"),))
    owned = [f.message for f in check_transition(t) if f.rule == "server-request-ownership"]
    assert owned == ["delivered server request R9 of S2 on a connection of session S1"]


@pytest.mark.covers("no-cross-session", "event-id-unique")
def test_a_new_event_under_another_sessions_event_id_is_that_sessions_event():
    # S2's stream sends its new event under E1, an id of S1's: what the client gets names S1's event
    t = seen(TWO, a.EmitEvent("T2"), event="E1", events=(Delivered("E1", stream="T2"),))
    assert rules(t) == ["no-cross-session", "event-id-unique"]


@pytest.mark.covers("server-request-ownership")
def test_ownership_judges_known_requests_and_known_events_only():
    # a new id carrying a request nobody issued: not ownership's to judge (the id resolves to nothing)
    reference = step(TWO, a.EmitEvent("T2"))
    unknown = replace(reference, observation=replace(reference.observation, events=reference.observation.events + (
        Delivered("E-x", "R9", "T2"),)))
    assert rules(unknown) == ["event-id-unique"]
    # an old event that carries a request the session never issued
    odd = seen(TWO, a.Reconnect("S1", "E1"), events=(Delivered("E2", "R9", "T1"),))
    assert rules(odd) == ["server-request-ownership"]
    # an orphan's answer names no session: nobody to own it (the 200 itself is the finding)
    orphan = seen(TWO, a.Reconnect(None, "E1"), status=200, events=(Delivered("E2", "R1", "T1"),))
    assert "server-request-ownership" not in rules(orphan)


@pytest.mark.covers("unknown-session-404")
def test_an_answer_outside_a_live_session_names_a_session_only_on_a_2xx():
    def findings(status, session):
        return [f.message for f in check_transition(seen(TWO, a.CallTool("S9"), status=status, session=session))]

    assert len(findings(200, "S9")) == 1  # the 200 itself; the echoed id names nothing new
    assert len(findings(200, "S7")) == 2 and "carries Mcp-Session-Id S7" in findings(200, "S7")[1]
    assert len(findings(299, "S7")) == 2
    assert len(findings(300, "S7")) == 1
    assert len(findings(None, "S7")) == 1
    # a server step's observed session id is no refusal's
    assert check_transition(seen(TWO, a.EmitEvent("T2"), session="S1")) == []


@pytest.mark.covers("priming-event")
def test_only_a_tool_calls_200_must_open_with_a_priming_event():
    assert rules(seen(TWO, a.Reconnect("S1", None), primed=False)) == []
    assert rules(seen(TWO, a.CallTool("S1"), status=202, primed=False)) == ["session-identity-stable"]


@pytest.mark.covers("session-delete", "reemit-pending")
def test_a_status_from_300_up_is_a_refusal_and_below_it_is_not():
    # DELETE accepts any 2xx: a 299 that delivers events refuses nothing
    assert rules(seen(TWO, a.DeleteSession("S1"), status=299, events=(Delivered("E1", stream="T1"),))) == []
    # a 300 for a resumption that would strand R1 is a refusal
    assert rules(seen(TWO, a.Reconnect("S1", None), status=300, stream=None, events=())) == ["reemit-pending"]


@pytest.mark.covers("reemit-keeps-pending")
def test_the_sanity_checks_hold_on_steps_that_resolve_requests():
    answered = step(TWO, a.AnswerRequest("S2", "R2"))
    assert check_sanity(answered) == []
    assert check_sanity(step(TWO, a.CancelRequest("R2"))) == []


@pytest.mark.covers("reject-orphan-event-id")
def test_a_refusal_with_the_reference_status_that_replays_events_is_a_finding():
    leak = seen(TWO, a.Reconnect(None, "E1"), events=(Delivered("E2", "R1", "T1"),))
    assert leak.observation.status == 400
    assert rules(leak) == ["reject-orphan-event-id"]
