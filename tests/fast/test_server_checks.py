"""Every server check of ``spec.invariants`` fails on a concrete wrong observation.

A server check judges what a server sent (docs/design.md §4): each test here starts
from a step of the spec, puts in what a faulty server would have answered, and
shows the check firing, then shows the spec's own observation passing.
"""

from dataclasses import replace

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec import invariants as inv
from mcp_resume.spec.decision import MISSING_SESSION_ERROR_CODE, RESUMPTION_ERROR_CODE
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import INITIAL_STATE
from mcp_resume.spec.transitions import Delivered, step


def run(*actions, state=INITIAL_STATE, profile=Profile.BOUNDARY):
    for action in actions:
        state = step(state, action, profile).after
    return state


def observed(transition, **changes):
    return replace(transition, observation=replace(transition.observation, **changes))


def rules(transition):
    return [f.rule for f in inv.check_transition(transition, None)]


# S1 holds T1 (E1, E2, then request R1 as E3) and T2 (E4); S2 holds T3 (E5).
TWO_SESSIONS = run(
    a.Initialize(), a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"),
    a.IssueServerRequest("T1"), a.CallTool("S1"), a.EmitEvent("T2"), a.CallTool("S2"), a.EmitEvent("T3"),
)
DROPPED = run(a.DropConnection("T1"), a.DropConnection("T2"), state=TWO_SESSIONS)


@pytest.mark.covers("no-cross-session")
def test_a_live_event_delivered_on_a_connection_of_another_session_is_caught():
    emit = step(TWO_SESSIONS, a.EmitEvent("T1"))
    assert rules(emit) == []
    leaked = observed(emit, events=(replace(emit.observation.events[0], stream="T3"),))
    assert rules(leaked) == ["no-cross-session"]


@pytest.mark.covers("no-cross-session")
@pytest.mark.parametrize("profile", [Profile.MCP_2025_11_25, Profile.MCP_2025_03_26, Profile.BOUNDARY])
def test_a_200_to_an_unknown_event_id_that_replays_another_streams_events_is_caught_under_every_profile(profile):
    unknown = step(DROPPED, a.Reconnect("S1", "unknown-event"), profile)
    replaying = observed(unknown, status=200, stream="T9", events=(Delivered("E4", None, "T9"),))
    assert "no-cross-session" in rules(replaying)
    foreign = step(DROPPED, a.Reconnect("S1", "E5"), profile)
    leaking = observed(foreign, status=200, stream="T9", events=(Delivered("E5", None, "T9"),))
    assert "no-cross-session" in rules(leaking)
    if profile is not Profile.BOUNDARY:
        assert rules(observed(unknown, status=200, stream="T9")) == []  # an empty 200 is allowed by MCP


@pytest.mark.covers("no-cross-session")
def test_a_stream_resumption_that_replays_later_events_of_another_stream_of_the_session_is_caught():
    resumed = step(DROPPED, a.Reconnect("S1", "E1"))
    assert rules(resumed) == []
    wider = observed(resumed, events=resumed.observation.events + (Delivered("E4", None, "T1"),))
    assert "no-cross-session" in rules(wider)


@pytest.mark.covers("replay-suffix")
def test_a_resumed_connection_attached_to_another_stream_is_caught():
    resumed = step(DROPPED, a.Reconnect("S1", "E1"))
    assert rules(observed(resumed, stream="?post-1/1")) == ["replay-suffix"]


@pytest.mark.covers("replay-suffix")
def test_a_ring_buffer_that_replays_after_a_gap_is_caught_and_one_that_rejects_is_not():
    state = run(a.EvictEvent("T1"), state=DROPPED, profile=Profile.MCP_2025_11_25)
    evicted = step(state, a.Reconnect("S1", "E1"), Profile.MCP_2025_11_25)
    assert rules(evicted) == []
    gap = observed(evicted, status=200, stream="T1", events=(Delivered("E3", "R1", "T1"),))
    assert rules(gap) == ["replay-suffix"]


@pytest.mark.covers("no-broadcast")
def test_a_request_sent_again_while_its_stream_is_connected_is_caught():
    resumed = step(TWO_SESSIONS, a.Reconnect("S1", None))
    assert resumed.observation.events == () and rules(resumed) == []
    broadcast = observed(resumed, events=(Delivered("E6", "R1", resumed.observation.stream),))
    assert rules(broadcast) == ["no-broadcast"]


@pytest.mark.covers("reemit-pending")
def test_a_cancellation_instead_of_a_re_emission_passes_and_silence_does_not():
    resumed = step(DROPPED, a.Reconnect("S1", None))
    stream = resumed.observation.stream
    assert rules(observed(resumed, events=(Delivered("E6", None, stream, cancels="R1"),))) == []
    assert rules(observed(resumed, events=())) == ["reemit-pending"]


@pytest.mark.covers("event-id-unique")
def test_a_new_event_that_reuses_an_event_id_is_caught():
    emit = step(TWO_SESSIONS, a.EmitEvent("T2"))
    reused = observed(emit, event="E1", events=(Delivered("E1", None, "T2"),))
    assert "event-id-unique" in rules(reused)


@pytest.mark.covers("server-request-ownership")
def test_a_request_of_another_session_re_emitted_on_a_new_stream_is_caught():
    resumed = step(DROPPED, a.Reconnect("S2", None))
    stolen = observed(resumed, events=(Delivered("E6", "R1", resumed.observation.stream),))
    assert "server-request-ownership" in rules(stolen)


@pytest.mark.covers("no-duplicate-tool-call")
def test_a_404_for_a_live_session_with_an_unfinished_tool_call_is_caught():
    resumed = step(DROPPED, a.Reconnect("S1", "E5"))
    assert "no-duplicate-tool-call" in rules(observed(resumed, status=404))
    finished = run(a.Respond("T1"), a.Respond("T2"), state=DROPPED)
    calm = step(finished, a.Reconnect("S1", "E5"))
    assert "no-duplicate-tool-call" not in rules(observed(calm, status=404))


@pytest.mark.covers("unknown-session-404")
def test_a_never_issued_session_id_is_its_own_case():
    unknown = step(DROPPED, a.CallTool("unknown-session"))
    [finding] = inv.check_transition(observed(unknown, status=400))
    assert (finding.rule, finding.case) == ("unknown-session-404", "never-issued")
    ended = step(run(a.DeleteSession("S2"), state=DROPPED), a.CallTool("S2"))
    [finding] = inv.check_transition(observed(ended, status=200))
    assert (finding.rule, finding.case) == ("unknown-session-404", None)


@pytest.mark.covers("new-session-on-initialize")
@pytest.mark.parametrize("minted", ["S 1", "", "S\u00e91", "S\x7f"])
def test_a_session_id_minted_outside_visible_ascii_is_its_own_case(minted):
    initialize = step(DROPPED, a.Initialize())
    assert rules(initialize) == []
    [finding] = inv.check_transition(observed(initialize, session=minted))
    assert (finding.rule, finding.case) == ("new-session-on-initialize", "malformed-id")
    assert rules(observed(initialize, session="S!~9")) == []


@pytest.mark.covers("reject-foreign-event-id")
def test_a_foreign_cursor_left_unanswered_is_the_no_answer_case():
    foreign = step(DROPPED, a.Reconnect("S1", "E5"))  # E5 is of S2
    [finding] = inv.check_transition(observed(foreign, status=None, events=()))
    assert (finding.rule, finding.case, finding.outside) == ("reject-foreign-event-id", "no-answer", True)
    [finding] = inv.check_transition(observed(foreign, status=500, events=()))
    assert (finding.rule, finding.case) == ("reject-foreign-event-id", None)


@pytest.mark.covers("reject-foreign-event-id")
def test_a_resumption_error_that_looks_like_the_missing_session_error_is_caught():
    assert inv.distinct_rejections((400, RESUMPTION_ERROR_CODE), (400, MISSING_SESSION_ERROR_CODE)) == []
    assert inv.distinct_rejections((409, None), (400, None)) == []
    assert inv.distinct_rejections((400, -32000), (400, -32000))


def test_server_checks_never_read_the_specs_after_state():
    # a server cannot influence the spec's own successor: changing it changes no server finding
    resumed = step(DROPPED, a.Reconnect("S1", None))
    wrong = observed(resumed, events=())
    bogus = replace(wrong, after=INITIAL_STATE)
    assert inv.check_transition(wrong) == inv.check_transition(bogus)


# -- a call's response and a server's cancellation (MCP B8-B12, B18, B39) -------------------------


@pytest.mark.covers("call-answered")
def test_a_call_ended_without_its_response_is_caught_and_a_stored_response_is_not():
    answered = step(DROPPED, a.Respond("T2"))
    assert answered.observation.response and answered.observation.events == ()  # stored, not delivered
    assert "call-answered" not in rules(answered)
    assert "call-answered" in inv.judged_rules(answered)
    nothing = observed(answered, event=None, response=False)
    [finding] = [f for f in inv.check_transition(nothing) if f.rule == "call-answered"]
    assert "without its response" in finding.message
    from mcp_resume.spec.verdicts import Verdict, verdict_for_finding
    assert verdict_for_finding(finding, Profile.BOUNDARY) is Verdict.FAIL
    assert verdict_for_finding(finding, Profile.MCP_2025_11_25) is Verdict.WARN


@pytest.mark.covers("call-answered")
def test_a_post_stream_ended_by_a_server_without_a_response_is_caught():
    from mcp_resume.spec.transitions import Observation, Transition
    ended = Transition(DROPPED, a.EndStream("T2"), None, Observation(), DROPPED)
    assert "call-answered" in rules(ended)
    from mcp_resume.spec.transitions import enabled
    assert not enabled(DROPPED, a.EndStream("T2")) and enabled(DROPPED, a.Respond("T2"))


@pytest.mark.covers("standalone-stream-scope")
def test_a_response_delivered_on_another_calls_stream_is_the_response_elsewhere_case():
    both = run(a.Initialize(), a.CallTool("S1"), a.CallTool("S1"))
    answered = step(both, a.Respond("T1"))
    assert "standalone-stream-scope" not in rules(answered)
    elsewhere = observed(answered, events=(Delivered(answered.observation.event, None, "T2"),))
    [finding] = [f for f in inv.check_transition(elsewhere) if f.rule == "standalone-stream-scope"]
    assert finding.case == "response-elsewhere" and "another request's stream T2" in finding.message


@pytest.mark.covers("cancel-notifies")
def test_a_silent_cancellation_is_caught_and_a_notified_one_is_not():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))
    cancelled = step(state, a.CancelRequest("R1"))
    [item] = cancelled.observation.events
    assert item.cancels == "R1" and item.stream == "T1"
    assert "cancel-notifies" not in rules(cancelled) and "cancel-notifies" in inv.judged_rules(cancelled)
    silent = observed(cancelled, event=None, events=())
    assert "cancel-notifies" in rules(silent)
    dropped = run(a.DropConnection("T1"), state=state)
    stored = step(dropped, a.CancelRequest("R1"))
    assert stored.observation.event is not None and stored.observation.events == ()
    assert "cancel-notifies" not in rules(stored)
    resumed = step(stored.after, a.Reconnect("S1", "E1"))
    assert [d.cancels for d in resumed.observation.events] == ["R1"]  # the stored cancellation is replayed
