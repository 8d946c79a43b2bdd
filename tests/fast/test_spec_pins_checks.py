"""Each server check of spec/invariants.py shown to fail on a concrete wrong observation,
and to hold on the reference's own (docs/design.md §4: a check of what a server sent must be
able to fail for some server). The wrong observations are the ones docs/design.md §5's faulty
designs make."""

from dataclasses import replace

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.decision import MISSING_SESSION_ERROR_CODE, RESUMPTION_ERROR_CODE
from mcp_resume.spec.invariants import judged_rules as inv_judged
from mcp_resume.spec.invariants import (
    check_sanity,
    check_state,
    check_transition,
    distinct_rejections,
)
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import INITIAL_STATE, RequestStatus
from mcp_resume.spec.transitions import Delivered, Observation, alternatives, step
from tests.helpers.spec_steps import run, seen

MCP = Profile.MCP_2025_11_25


def rules(t, expected=None):
    return [f.rule for f in check_transition(t, expected)]


# S1: T1 (POST, E1 E2 E3, dropped); S2: T2 (POST, E4)
TWO = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"),
          a.EmitEvent("T1"), a.CallTool("S2"), a.EmitEvent("T2"), a.DropConnection("T1"))


def test_the_reference_observation_passes_every_server_check():
    for action in (a.Reconnect("S1", "E1"), a.Reconnect("S1", None), a.Reconnect("S1", "E4"),
                   a.Reconnect(None, "E1"), a.EmitEvent("T2"), a.IssueServerRequest("T2"), a.ExpireStream("T1"),
                   a.CallTool("S9"), a.EvictEvent("T1"), a.CloseConnection("T2")):
        assert check_transition(step(TWO, action)) == []


@pytest.mark.covers("replay-suffix")
@pytest.mark.parametrize(
    "replayed,defect",
    [
        (("E1", "E2", "E3"), "includes the cursor's own event"),
        (("E3",), "skips the event right after the cursor"),
        (("E2", "E2", "E3"), "duplicates"),
        (("E3", "E2"), "reordered"),
        (("E2",), None),  # a gap at the end: no defect named beyond the expected suffix
    ],
)
def test_replay_suffix_names_each_defect_of_a_replay(replayed, defect):
    t = seen(TWO, a.Reconnect("S1", "E1"), events=tuple(Delivered(e, stream="T1") for e in replayed))
    findings = check_transition(t)
    assert [f.rule for f in findings] == ["replay-suffix"]
    assert "expected [E2, E3]" in findings[0].message
    assert findings[0].message.endswith(f"({defect})" if defect else "expected [E2, E3]")


@pytest.mark.covers("replay-suffix")
def test_replay_suffix_fails_a_resumption_on_another_stream_than_the_cursors():
    # design 15: the later events of the resumed stream reach no connection
    t = seen(TWO, a.Reconnect("S1", "E1"), stream="T9")
    assert rules(t) == ["replay-suffix"]
    assert rules(seen(TWO, a.Reconnect("S1", "E1"), stream=None)) == []


@pytest.mark.covers("replay-suffix", "reject-foreign-event-id")
def test_an_evicted_cursor_answered_200_with_what_is_left_breaks_replay_suffix():
    # design 16: a ring buffer replays after a gap; MCP accepts a 200 for branch 3, not that replay
    state = run(a.EvictEvent("T1"), a.EvictEvent("T1"), state=TWO)
    for profile, also in ((MCP, []), (Profile.BOUNDARY, ["reject-foreign-event-id"])):
        t = seen(state, a.Reconnect("S1", "E1"), profile, status=200, events=(Delivered("E3", stream="T1"),))
        assert rules(t) == ["replay-suffix"] + also
    # a refusal is right, and under MCP an empty 200 (branch 3 is MCP's silence, rules §3.2)
    assert rules(seen(state, a.Reconnect("S1", "E1"), MCP, status=200)) == []
    assert rules(seen(state, a.Reconnect("S1", "E1"), status=400)) == []


@pytest.mark.covers("replay-suffix", "reject-foreign-event-id")
def test_an_evicted_cursor_whose_successors_are_all_retained_may_be_answered_with_the_exact_suffix():
    # docs/design.md §2, partial retention: ids that carry stream and position (D28) place the cursor
    state = run(a.EvictEvent("T1"), state=TWO)
    exact = (Delivered("E2", stream="T1"), Delivered("E3", stream="T1"))
    for profile in (MCP, Profile.BOUNDARY):
        assert rules(seen(state, a.Reconnect("S1", "E1"), profile, status=200, stream="T1", events=exact)) == []
        assert rules(seen(state, a.Reconnect("S1", "E1"), profile, status=400)) == []
        # the same cursor answered with a gap, or with nothing, is no exact suffix
        gap = seen(state, a.Reconnect("S1", "E1"), profile, status=200, stream="T1", events=exact[1:])
        assert rules(gap) == ["replay-suffix"]
        assert rules(seen(state, a.Reconnect("S1", "E1"), profile, status=200, stream="T1")) == ["replay-suffix"]
    # a cursor evicted before another evicted one cannot be answered exactly: under boundary 200 is no answer
    older = run(a.EvictEvent("T1"), a.EvictEvent("T1"), state=TWO)
    assert 200 not in step(older, a.Reconnect("S1", "E1")).outcome.statuses
    assert 200 in step(state, a.Reconnect("S1", "E1")).outcome.statuses


@pytest.mark.covers("no-cross-session")
def test_no_cross_session_fails_a_replay_of_another_sessions_or_another_streams_events():
    # design 2: a global log replays another session's events after a foreign cursor
    foreign = seen(TWO, a.Reconnect("S2", "E1"), MCP, status=200, events=(Delivered("E2", stream="T2"),))
    assert "no-cross-session" in rules(foreign)
    # design 14: a stream resumption replays the session's other stream
    state = run(a.CallTool("S1"), a.EmitEvent("T3"), a.DropConnection("T3"), state=TWO)
    other = seen(state, a.Reconnect("S1", "E1"), events=(Delivered("E2", stream="T1"), Delivered("E3", stream="T1"),
                                                         Delivered("E5", stream="T1")))
    assert rules(other)[0] == "no-cross-session"


@pytest.mark.covers("no-cross-session")
def test_no_cross_session_fails_a_live_event_sent_on_another_sessions_connection():
    # design 12: one stream key shared by the GET streams of all sessions
    state = run(a.Reconnect("S1", None), a.Reconnect("S2", None), state=TWO)
    t = seen(state, a.EmitEvent("T3"), events=(Delivered("E5", stream="T4"),))
    assert rules(t) == ["no-cross-session"]
    assert rules(seen(state, a.EmitEvent("T3"), events=(Delivered("E5", stream="T3"),))) == []


@pytest.mark.covers("no-replay-on-session-resume", "no-reemit-on-stream-resume")
def test_a_session_resumption_replays_nothing_and_a_stream_resumption_sends_nothing_new():
    # design 4: session resumption replays history; design 6: stream resumption re-emits
    replaying = seen(TWO, a.Reconnect("S1", None), events=(Delivered("E1", stream="T1"),))
    assert "no-replay-on-session-resume" in rules(replaying)
    state = run(a.CallTool("S1"), a.IssueServerRequest("T3"), a.DropConnection("T3"), state=TWO)
    again = seen(state, a.Reconnect("S1", "E1"), events=(Delivered("E2", stream="T1"), Delivered("E3", stream="T1"),
                                                         Delivered("E9", "R1", stream="T1")))
    findings = check_transition(again)
    assert [f.rule for f in findings] == ["no-reemit-on-stream-resume"] and "[R1]" in findings[0].message


@pytest.mark.covers("reemit-pending", "reemit-keeps-pending", "no-broadcast")
def test_each_stranded_request_must_be_re_emitted_or_cancelled_and_a_connected_one_must_not_be_sent():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.CallTool("S1"),
                a.IssueServerRequest("T2"), a.DropConnection("T1"))
    t = step(state, a.Reconnect("S1", None))
    assert t.outcome.reemit == ("R1",)
    assert rules(replace(t, observation=replace(t.observation, events=()))) == ["reemit-pending"]
    cancelled = (Delivered("E3", stream="T3", cancels="R1"),)
    assert rules(replace(t, observation=replace(t.observation, events=cancelled))) == []
    broadcast = t.observation.events + (Delivered("E4", "R2", stream="T3"),)
    assert rules(replace(t, observation=replace(t.observation, events=broadcast))) == ["no-broadcast"]
    # sent again on its own connected stream is not a broadcast (B21 forbids two streams, not two sends)
    own = seen(state, a.EmitEvent("T2"), event="E3", events=(Delivered("E3", "R2", stream="T2"),))
    assert "no-broadcast" not in rules(own)
    # design 3: a request re-emitted once is dropped from the pending table, lost after the second drop
    again = run(a.Reconnect("S1", None), a.DropConnection("T3"), state=state)
    lost = seen(again, a.Reconnect("S1", None), events=())
    assert rules(lost) == ["reemit-keeps-pending"]


@pytest.mark.covers("server-request-ownership")
def test_a_server_request_of_another_session_or_of_none_is_never_delivered():
    state = run(a.CallTool("S2"), a.IssueServerRequest("T3"), a.DropConnection("T3"), state=TWO)
    t = seen(state, a.Reconnect("S1", None), events=(Delivered("E9", "R1", stream="T4"),))
    assert "server-request-ownership" in rules(t)
    cancel = seen(state, a.Reconnect("S1", None), events=(Delivered("E9", stream="T4", cancels="R1"),))
    assert "server-request-ownership" in rules(cancel)


@pytest.mark.covers("event-id-unique")
def test_a_new_event_with_an_id_already_used_or_a_delivered_id_that_names_nothing():
    reused = seen(TWO, a.EmitEvent("T2"), event="E4", events=(Delivered("E4", stream="T2"),))
    assert rules(reused) == ["event-id-unique"]
    # a resumed stream goes on with its own new events after the replay: an id the spec does not know yet
    going_on = seen(TWO, a.Reconnect("S1", "E1"), events=(Delivered("E2", stream="T1"), Delivered("E3", stream="T1"),
                                                           Delivered("E77", stream="T1")))
    assert rules(going_on) == []
    # ... but not on another stream of the session, nor before a refusal's stream
    elsewhere = seen(TWO, a.Reconnect("S1", "E1"), events=(Delivered("E2", stream="T1"), Delivered("E3", stream="T1"),
                                                            Delivered("E77", stream="T2")))
    assert "event-id-unique" in rules(elsewhere) or "no-cross-session" in rules(elsewhere)
    unknown = seen(TWO, a.CallTool("S1"), events=(Delivered("E77", stream="T1"),))
    assert rules(unknown) == ["event-id-unique"]
    # an id that names nothing on the stream a 200 to branch 3 names (MCP accepts the empty 200)
    named = seen(TWO, a.Reconnect("S1", "E4"), MCP, status=200, stream="T1", events=(Delivered("E77", stream="T1"),))
    assert rules(named) == ["event-id-unique"]


@pytest.mark.covers("session-identity-stable")
def test_initialize_mints_a_new_id_and_a_live_session_is_answered_under_its_own():
    assert rules(seen(TWO, a.Initialize(), session="S1")) == ["session-identity-stable"]
    assert rules(seen(TWO, a.CallTool("S1"), session="S2")) == ["session-identity-stable"]
    assert rules(seen(TWO, a.CallTool("S1"), session="S1")) == []


@pytest.mark.covers("unknown-session-404", "reject-orphan-event-id", "malformed-session-400")
def test_an_answer_outside_a_live_session_names_no_session():
    # a refusal that carries a session id creates or names one the request did not (B28-B32)
    assert rules(seen(TWO, a.CallTool("S9"), status=200, session="S1")) == ["unknown-session-404"] * 2  # and the 200
    assert rules(seen(TWO, a.CallTool("S9"), session="S7")) == []  # a 404 with a stray id names nothing
    assert rules(seen(TWO, a.CallTool("S9"), session="S9")) == []  # the same unknown id echoed names nothing new
    assert rules(seen(TWO, a.Reconnect(None, "E1"), status=200, session="S3")) == ["reject-orphan-event-id"] * 2
    assert rules(seen(TWO, a.CallTool("bad id"), session="bad id")) == ["malformed-session-400"]
    assert rules(seen(TWO, a.Initialize(), session="S3")) == []


@pytest.mark.covers("priming-event")
def test_a_post_sse_stream_that_does_not_open_with_a_priming_event():
    assert rules(seen(TWO, a.CallTool("S1"), primed=False)) == ["priming-event"]
    assert rules(seen(TWO, a.CallTool("S1"), primed=True)) == []
    assert rules(seen(TWO, a.CallTool("S1"))) == []  # not seen (a JSON answer): nothing to judge
    assert rules(seen(TWO, a.CallTool("S1"), status=404, stream=None, primed=False)) != ["priming-event"]


@pytest.mark.covers("protocol-version-accepted")
def test_a_get_refused_for_the_negotiated_version_is_filed_once_under_its_own_rule():
    refused = seen(TWO, a.Reconnect("S1", None), status=400, stream=None, version_refused=True)
    assert rules(refused) == ["protocol-version-accepted"]
    assert rules(seen(TWO, a.Reconnect("S1", None), version_refused=False)) == []
    # the same 400 where the log cannot tell why is the branch's status finding
    assert rules(seen(TWO, a.Reconnect("S1", None), status=400, stream=None)) == ["session-identity-stable"]


@pytest.mark.covers("unsupported-version-400")
def test_a_request_served_in_a_version_no_server_supports_is_filed_under_its_own_rule():
    for action in (a.CallTool("S1"), a.Reconnect("S1", None), a.Reconnect("S1", "E1"), a.DeleteSession("S1")):
        expected = step(TWO, action).observation
        assert rules(seen(TWO, action, version_unsupported=True), expected) == ["unsupported-version-400"], action
        refused = seen(TWO, action, status=400, stream=None, events=(), closed=(), version_unsupported=True)
        assert rules(refused, expected) == [], action
    unanswered = seen(TWO, a.CallTool("S1"), status=None, stream=None, version_unsupported=True)
    assert rules(unanswered) == ["unsupported-version-400"]
    # a session that is not live: its refusal or the version's, either may come first (MCP is silent)
    for status in (400, 404):
        t = seen(TWO, a.CallTool("S9"), status=status, version_unsupported=True)
        assert rules(t, step(TWO, a.CallTool("S9")).observation) == []


@pytest.mark.covers("retry-before-close")
def test_a_close_for_polling_without_the_retry_field_first():
    close = a.CloseConnection("T2")
    assert rules(seen(TWO, close, retry=False)) == ["retry-before-close"]
    assert rules(seen(TWO, close, retry=True)) == []
    assert rules(step(TWO, close)) == []  # not seen (the spec's own step): nothing to judge
    assert "retry-before-close" in inv_judged(seen(TWO, close, retry=True))
    assert "retry-before-close" not in inv_judged(step(TWO, close))


@pytest.mark.covers("retry-before-close")
def test_a_calls_stream_closed_before_any_event_with_an_id_leaves_nothing_to_resume():
    close = a.CloseConnection("T2")
    found = check_transition(seen(TWO, close, retry=True, cursor=False))
    assert [f.rule for f in found] == ["retry-before-close"] and "no Last-Event-ID" in found[0].message
    assert len(check_transition(seen(TWO, close, retry=False, cursor=False))) == 2
    assert rules(seen(TWO, close, retry=True, cursor=True)) == []
    assert "retry-before-close" in inv_judged(seen(TWO, close, cursor=True))
    listening = run(a.Reconnect("S2", None), state=TWO)  # T3: S2's GET stream, no event yet
    assert rules(seen(listening, a.CloseConnection("T3"), retry=True, cursor=False)) == []  # a GET stream ended


@pytest.mark.covers("expiry-independent")
def test_a_stream_expiry_closes_only_its_own_connection_and_a_404_after_it_is_filed_under_expiry():
    state = run(a.CallTool("S1"), state=TWO)
    assert rules(seen(state, a.ExpireStream("T3"), closed=("T3", "T2"))) == ["expiry-independent"]
    assert rules(seen(state, a.ExpireStream("T3"), closed=("T3",))) == []
    expired = run(a.ExpireStream("T1"), state=TWO)
    # design 8: the session is treated as gone once one of its streams expired
    assert rules(seen(expired, a.Reconnect("S1", None), status=404)) == ["expiry-independent"]
    # the expired stream's own cursor answered 404 is a wrong branch-3 refusal (design 10 too)
    assert rules(seen(expired, a.Reconnect("S1", "E3"), status=404)) == ["reject-foreign-event-id"]
    # a live session answered 404 with no stream expired: it was ended at will (design 23), which
    # boundary holds under expiry-independent (MCP B33 allows it: the harnesses read it as ended there)
    gone = rules(seen(TWO, a.Reconnect("S1", None), status=404))
    assert "expiry-independent" in gone and "session-identity-stable" not in gone


@pytest.mark.covers("no-duplicate-tool-call")
def test_a_404_to_a_live_session_with_an_unfinished_tool_call_makes_the_client_call_it_again():
    # B34: the client re-initializes and re-sends the call it never saw answered
    findings = rules(seen(TWO, a.CallTool("S2"), status=404))
    assert "no-duplicate-tool-call" in findings
    finished = run(a.Respond("T2"), state=TWO)
    assert "no-duplicate-tool-call" not in rules(seen(finished, a.CallTool("S2"), status=404))
    assert "no-duplicate-tool-call" not in rules(seen(TWO, a.CallTool("S9"), status=404))


@pytest.mark.covers("unknown-session-404")
def test_a_wrong_status_for_a_never_issued_session_id_carries_its_case():
    findings = check_transition(seen(TWO, a.CallTool("S9"), status=400))
    assert [(f.rule, f.case) for f in findings] == [("unknown-session-404", "never-issued")]
    ended = run(a.DeleteSession("S2"), state=TWO)
    findings = check_transition(seen(ended, a.CallTool("S2"), status=400))
    assert [(f.rule, f.case) for f in findings] == [("unknown-session-404", None)]


@pytest.mark.covers("reject-foreign-event-id", "session-identity-stable")
def test_an_accepted_refusal_delivers_nothing():
    # rules §3.3: 409 refuses a second connection; then nothing may be sent on it
    state = run(a.Reconnect("S1", "E1"), state=TWO)
    refused = seen(state, a.Reconnect("S1", "E1"), status=409, events=())
    assert rules(refused) == []
    leaking = seen(state, a.Reconnect("S1", "E1"), status=409, events=(Delivered("E2", stream="T1"),))
    findings = check_transition(leaking)
    assert [f.rule for f in findings] == ["replay-suffix"] and "refused with 409" in findings[0].message


@pytest.mark.covers("reject-foreign-event-id")
def test_branch_3_must_be_told_apart_from_a_missing_session():
    # docs/design.md §2 row 3: by status or by JSON-RPC error code
    assert distinct_rejections((400, -1), (400, -1)) != []
    assert distinct_rejections((400, -1), (400, -2)) == []
    assert distinct_rejections((409, None), (400, None)) == []
    foreign = step(TWO, a.Reconnect("S1", "E4")).observation
    missing = step(TWO, a.Reconnect(None, None)).observation
    assert (foreign.status, foreign.error) == (400, RESUMPTION_ERROR_CODE)
    assert (missing.status, missing.error) == (400, MISSING_SESSION_ERROR_CODE)
    assert distinct_rejections((foreign.status, foreign.error), (missing.status, missing.error)) == []


def test_agreement_ignores_the_error_code_and_accepted_refusals_but_not_other_differences():
    t = step(TWO, a.Reconnect("S1", "E4"))
    assert rules(replace(t, observation=replace(t.observation, error=None)), t.observation) == []
    resumed = step(run(a.Reconnect("S1", "E1"), state=TWO), a.Reconnect("S1", "E1"))
    refusal = replace(resumed, observation=Observation(409))
    assert rules(refusal, resumed.observation) == []
    closed = replace(t, observation=replace(t.observation, closed=("T2",)))
    assert rules(closed, t.observation) == ["agreement"]


@pytest.mark.covers("no-broadcast")
def test_the_carrying_stream_of_a_pending_request_is_one_it_was_sent_on():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.CallTool("S1"))
    assert check_state(state) == []
    moved = state.with_request(replace(state.request("R1"), stream="T2"))
    assert [f.rule for f in check_state(moved)] == ["no-broadcast"]
    answered = moved.with_request(replace(moved.request("R1"), status=RequestStatus.ANSWERED))
    assert check_state(answered) == []


def test_the_sanity_checks_catch_a_spec_that_resolves_ends_or_changes_what_it_must_not():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"))
    t = step(state, a.Reconnect("S1", None))
    assert check_sanity(t) == []
    resolved = t.after.with_request(replace(t.after.request("R1"), status=RequestStatus.ANSWERED))
    assert [f.rule for f in check_sanity(replace(t, after=resolved))] == ["reemit-keeps-pending"]
    cancelled = [x for x in alternatives(state, a.Reconnect("S1", None)) if x.observation.events[0].cancels]
    assert cancelled and check_sanity(cancelled[0]) == []
    expiry = step(state, a.ExpireStream("T1"))
    ended = expiry.after.with_session(replace(expiry.after.session("S1"), status=expiry.after.session("S1").status.EXPIRED))
    assert [f.rule for f in check_sanity(replace(expiry, after=ended))] == ["expiry-independent"]
    resumed = step(state, a.Reconnect("S1", "E1"))
    assert [f.rule for f in check_sanity(replace(resumed, after=ended))] == ["session-identity-stable"]


def test_the_reference_cancels_or_re_emits_each_stranded_request_and_the_mcp_revisions_may_leave_it():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.IssueServerRequest("T1"),
                a.DropConnection("T1"))
    boundary = alternatives(state, a.Reconnect("S1", None))
    assert len(boundary) == 4 and len(alternatives(state, a.Reconnect("S1", None), MCP)) == 9
    plans = {tuple((d.request, d.cancels) for d in t.observation.events) for t in boundary}
    assert plans == {(("R1", None), ("R2", None)), (("R1", None), (None, "R2")), ((None, "R1"), ("R2", None)),
                     ((None, "R1"), (None, "R2"))}
    both = [t for t in boundary if all(d.cancels for d in t.observation.events)][0]
    assert [both.after.request(r).status for r in ("R1", "R2")] == [RequestStatus.CANCELLED] * 2
    assert both.after.client_session("S1").seen == ()
    for t in boundary:
        assert check_transition(t) == [] and check_sanity(t) == []
    assert alternatives(state, a.Reconnect("S1", "E1")) == (step(state, a.Reconnect("S1", "E1")),)


@pytest.mark.covers("reject-foreign-event-id")
def test_a_wrong_status_names_what_the_profile_accepts():
    boundary = check_transition(seen(TWO, a.Reconnect("S1", "E4"), status=404))
    assert boundary[0].rule == "reject-foreign-event-id"
    assert boundary[0].message.endswith("answered 404, expected any 4xx except 404")
    mcp = check_transition(seen(TWO, a.Reconnect("S1", "E4"), MCP, status=500))
    assert mcp[0].message.endswith("answered 500, expected any 4xx or 200")
    small = check_transition(seen(TWO, a.CallTool("S1"), status=202))
    assert small[0].message.endswith("answered 202, expected 200")
    # B36: DELETE succeeds with any 2xx or is refused with 405
    delete = check_transition(seen(TWO, a.DeleteSession("S1"), status=500))[0].message
    assert delete.endswith("answered 500, expected 2xx or 405")


def test_a_rule_is_judged_only_where_its_check_could_fail():
    from mcp_resume.spec.invariants import judged_rules

    resumed = step(TWO, a.Reconnect("S1", None))
    assert {"session-identity-stable", "no-replay-on-session-resume"} <= judged_rules(resumed)
    assert "reemit-pending" not in judged_rules(resumed)  # nothing pending to re-emit
    refused = seen(TWO, a.Reconnect("S1", None), status=409)
    # a refusal delivers nothing: its status is judged, and (T1's call unfinished) whether it was a 404
    # and (T1 dropped with its events) whether it was a 404 for the session ended with its stream
    assert judged_rules(refused) == {"session-identity-stable", "no-duplicate-tool-call", "expiry-independent"}
    pending = run(a.CallTool("S1"), a.IssueServerRequest("T3"), a.DropConnection("T3"), state=TWO)
    assert "reemit-pending" in judged_rules(step(pending, a.Reconnect("S1", None)))
    open_carrier = run(a.CallTool("S1"), a.IssueServerRequest("T3"), state=TWO)
    assert "no-broadcast" in judged_rules(step(open_carrier, a.Reconnect("S1", None)))
    stream = step(TWO, a.Reconnect("S1", "E1"))
    assert "replay-suffix" in judged_rules(stream) and "no-reemit-on-stream-resume" not in judged_rules(stream)
    emitted = step(TWO, a.EmitEvent("T2"))
    assert {"event-id-unique", "no-cross-session"} <= judged_rules(emitted)
    assert judged_rules(step(INITIAL_STATE, a.Initialize())) == {"new-session-on-initialize"}


# -- issue 26: new messages on two streams, the standalone stream, refusals and 404s ----------------


# S1: T1 (POST, connected), T2 (GET, connected); S2: T3 (GET, connected)
STREAMS = run(a.Initialize(), a.CallTool("S1"), a.Reconnect("S1", None), a.Initialize(), a.Reconnect("S2", None))


@pytest.mark.covers("no-broadcast")
def test_a_new_message_delivered_on_two_connected_streams_breaks_no_broadcast():
    # design 21: B21, each message on one stream; the request is new in the step
    for action in (a.EmitEvent("T1"), a.IssueServerRequest("T1")):
        reference = step(STREAMS, action)
        event = reference.observation.event
        twice = replace(reference, observation=replace(reference.observation, events=(
            Delivered(event, reference.observation.request, "T1"), Delivered(event, reference.observation.request, "T2"))))
        assert rules(twice) == ["no-broadcast"]
        assert rules(reference) == []
    # to another session's stream as well: that is also a disclosure
    reference = step(STREAMS, a.IssueServerRequest("T1"))
    event, request = reference.observation.event, reference.observation.request
    everywhere = replace(reference, observation=replace(reference.observation, events=(
        Delivered(event, request, "T1"), Delivered(event, request, "T3"))))
    assert set(rules(everywhere)) >= {"no-cross-session", "no-broadcast", "server-request-ownership"}
    assert "no-broadcast" in inv_judged(reference)


@pytest.mark.covers("standalone-stream-scope")
def test_a_calls_server_request_sent_on_the_standalone_get_stream_breaks_standalone_stream_scope():
    # design 25: B17, what the GET stream carries is unrelated to running requests
    reference = step(STREAMS, a.IssueServerRequest("T1"))
    event, request = reference.observation.event, reference.observation.request
    on_get = replace(reference, observation=replace(reference.observation, events=(Delivered(event, request, "T2"),)))
    assert rules(on_get) == ["standalone-stream-scope"]
    assert "standalone-stream-scope" in inv_judged(reference)
    # the GET stream's own message is fine there
    assert rules(step(STREAMS, a.IssueServerRequest("T2"))) == []
    assert "standalone-stream-scope" not in inv_judged(step(STREAMS, a.IssueServerRequest("T2")))


@pytest.mark.covers("no-reemit-on-stream-resume")
def test_a_resumed_stream_may_go_on_with_new_events_but_never_sends_a_request_again():
    # variation-ping-on-resume: a ping, a notification, a new request after the replay are the stream's own
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.EmitEvent("T1"), a.DropConnection("T1"))
    replay = (Delivered("E2", stream="T1"),)
    going_on = replay + (Delivered("?ping", "?ping-request", "T1"), Delivered("?note", stream="T1"))
    assert rules(seen(state, a.Reconnect("S1", "E1"), events=going_on)) == []
    # design 6: the pending request R1 again, under a new event id
    again = replay + (Delivered("?E9", "R1", "T1"),)
    assert rules(seen(state, a.Reconnect("S1", "E1"), events=again)) == ["no-reemit-on-stream-resume"]


@pytest.mark.covers("reemit-pending", "session-identity-stable")
def test_a_second_get_stream_may_be_refused_unless_the_refusal_strands_a_request():
    with_get = run(a.Initialize(), a.CallTool("S1"), a.Reconnect("S1", None), a.IssueServerRequest("T1"))
    for status in (400, 409, 403):
        for profile in (MCP, Profile.BOUNDARY):
            assert rules(seen(with_get, a.Reconnect("S1", None), profile, status=status, events=(), stream=None)) == []
    stranded = run(a.DropConnection("T1"), state=with_get)
    # boundary: the pending request's own connection dropped, so a refusal strands it
    assert rules(seen(stranded, a.Reconnect("S1", None), status=409, events=(), stream=None)) == ["reemit-pending"]
    assert rules(seen(stranded, a.Reconnect("S1", None), MCP, status=409, events=(), stream=None)) == []
    # design 20: stale bookkeeping refuses a GET with 409 when none is connected: wrong only once it strands
    alone = run(a.Initialize(), a.Reconnect("S1", None), a.DropConnection("T1"))
    assert rules(seen(alone, a.Reconnect("S1", None), status=409, events=(), stream=None)) == []
    assert rules(seen(alone, a.Reconnect("S1", None), status=400, events=(), stream=None)) == ["session-identity-stable"]
    pending = run(a.Initialize(), a.Reconnect("S1", None), a.IssueServerRequest("T1"), a.DropConnection("T1"))
    assert rules(seen(pending, a.Reconnect("S1", None), status=409, events=(), stream=None)) == ["reemit-pending"]
    # a 404 is never such a refusal: it says the session is gone
    assert rules(seen(with_get, a.Reconnect("S1", None), status=404, events=(), stream=None)) == [
        "no-duplicate-tool-call", "no-duplicate-tool-call"]


@pytest.mark.covers("expiry-independent", "session-identity-stable")
def test_a_live_session_answered_404_is_filed_by_what_went_before():
    # design 23: after a connection drop, expiry-independent; design 29: untouched, session-identity-stable
    dropped = run(a.Initialize(), a.Reconnect("S1", None), a.DropConnection("T1"))
    assert rules(seen(dropped, a.CallTool("S1"), status=404, stream=None)) == ["expiry-independent"]
    fresh = run(a.Initialize(), a.Initialize(), a.DeleteSession("S1"))
    assert rules(seen(fresh, a.CallTool("S2"), status=404, stream=None)) == ["session-identity-stable"]
