"""What spec/decision.py accepts where the state refines the table (a session resumption that
may be refused, an evicted cursor with an exact suffix, an answer to a request no longer
pending), and the two readings spec/transitions.py offers the checkers beside the reference
step: a session ended at will, and the exact replay after an eviction."""

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.decision import CLIENT_ERRORS, RESUMPTION_ERRORS, HttpRequest, Method, decide
from mcp_resume.spec.invariants import check_transition
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.transitions import Delivered, ended_at_will, exact_after_eviction, step
from tests.helpers.spec_steps import run

MCP = Profile.MCP_2025_11_25
BOUNDARY = Profile.BOUNDARY
MCP_REVISIONS = (Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25)


def resume_session(state, profile=BOUNDARY, session="S1"):
    return decide(state, HttpRequest(Method.GET, session), profile)


# -- _refine_session_resumption ----------------------------------------------------------------------


@pytest.mark.covers("session-identity-stable")
def test_a_get_without_a_get_stream_connected_may_be_refused_with_405_or_409_only():
    state = run(a.Initialize(), a.CallTool("S1"))  # a connected POST stream is no GET stream
    assert resume_session(state).statuses == {200, 405, 409}
    assert resume_session(state, MCP).statuses == {200, 405, 409}
    dropped = run(a.Reconnect("S1", None), a.DropConnection("T2"), state=state)  # a GET stream, not connected
    assert resume_session(dropped).statuses == {200, 405, 409}
    other = run(a.Initialize(), a.Reconnect("S2", None), state=state)  # another session's GET stream
    assert resume_session(other).statuses == {200, 405, 409}


@pytest.mark.covers("session-identity-stable")
def test_a_second_get_stream_may_be_refused_with_any_client_error_but_404():
    state = run(a.Initialize(), a.Reconnect("S1", None))
    outcome = resume_session(state)
    assert outcome.statuses == RESUMPTION_ERRORS | {200, 405}
    assert {400, 403, 405, 409} <= outcome.statuses and 404 not in outcome.statuses
    assert resume_session(state, MCP).statuses == RESUMPTION_ERRORS | {200, 405}


@pytest.mark.covers("reemit-pending")
def test_under_boundary_a_request_that_lost_its_connection_makes_the_resumption_unrefusable():
    state = run(a.Initialize(), a.Reconnect("S1", None), a.CallTool("S1"), a.IssueServerRequest("T1"),
                a.IssueServerRequest("T2"), a.DropConnection("T1"))
    outcome = resume_session(state)
    # R2's stream T2 is still connected: only R1 is owed
    assert (outcome.reemit, outcome.strands, outcome.statuses) == (("R1",), True, {200})
    mcp = resume_session(state, MCP)
    assert (mcp.reemit, mcp.strands) == (("R1",), False)
    assert mcp.statuses == {200, 405, 409}  # T1, the only GET stream, dropped
    connected = run(a.Initialize(), a.Reconnect("S1", None), a.IssueServerRequest("T1"))
    assert (resume_session(connected).reemit, resume_session(connected).strands) == ((), False)


# -- _exact_after_eviction -----------------------------------------------------------------------


# S1: T1 (POST, E1 E2 E3, dropped)
THREE = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"), a.EmitEvent("T1"),
            a.DropConnection("T1"))


def evicted(n):
    return run(*[a.EvictEvent("T1")] * n, state=THREE)


def resume_stream(state, cursor, profile=BOUNDARY):
    return decide(state, HttpRequest(Method.GET, "S1", cursor), profile)


@pytest.mark.covers("reject-foreign-event-id", "replay-suffix")
@pytest.mark.parametrize("n,cursor,replay", [(1, "E1", ("E2", "E3")), (2, "E2", ("E3",)), (3, "E3", ())])
def test_the_last_evicted_cursor_may_be_answered_with_every_event_after_it(n, cursor, replay):
    outcome = resume_stream(evicted(n), cursor)
    assert (outcome.stream, outcome.replay) == ("T1", replay)
    assert outcome.statuses == RESUMPTION_ERRORS | {200} and outcome.status == 400


@pytest.mark.covers("reject-foreign-event-id")
@pytest.mark.parametrize("n,cursor", [(2, "E1"), (3, "E1"), (3, "E2")])
def test_a_cursor_evicted_before_the_last_evicted_one_may_only_be_refused(n, cursor):
    outcome = resume_stream(evicted(n), cursor)
    assert (outcome.stream, outcome.replay) == (None, ())
    assert outcome.statuses == RESUMPTION_ERRORS
    assert resume_stream(evicted(n), cursor, MCP).statuses == CLIENT_ERRORS | {200}


@pytest.mark.covers("reject-foreign-event-id")
def test_other_cursors_branch_3_refuses_have_no_exact_suffix():
    state = run(a.Initialize(), a.CallTool("S2"), a.EmitEvent("T2"), a.ExpireStream("T1"), state=evicted(1))
    for cursor in ("E4", "unknown-event", "bad event"):  # another session's, unknown, malformed
        assert resume_stream(state, cursor).stream is None
    expired = run(a.ExpireStream("T1"), state=evicted(1))
    assert resume_stream(expired, "E1").stream is None and resume_stream(expired, "E2").stream is None


# -- _refine_response: an answer to a server request ---------------------------------------------------


# S1: R1 answered, R2 cancelled, R3 pending; S2: R4 pending
ANSWERS = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.IssueServerRequest("T1"),
              a.IssueServerRequest("T1"), a.AnswerRequest("S1", "R1"), a.CancelRequest("R2"),
              a.Initialize(), a.CallTool("S2"), a.IssueServerRequest("T2"))


def answer(request, session="S1", profile=BOUNDARY):
    return decide(ANSWERS, HttpRequest(Method.POST_RESPONSE, session, request=request), profile)


@pytest.mark.covers("session-identity-stable")
def test_an_answer_to_a_pending_request_of_the_session_must_be_accepted():
    assert answer("R3").statuses == {202}
    assert answer("R4", "S2").statuses == {202}


@pytest.mark.covers("session-identity-stable")
@pytest.mark.parametrize("request_id,why", [("R1", "answered"), ("R2", "cancelled"), ("R4", "another session's"),
                                            ("unknown-request", "unknown"), (None, "no id")])
def test_an_answer_to_a_request_the_session_does_not_await_may_also_get_400(request_id, why):
    outcome = answer(request_id)
    assert outcome.statuses == {202, 400} and outcome.status == 202
    t = step(ANSWERS, a.AnswerRequest("S1", request_id or "unknown-request"))
    assert t.outcome.statuses == {202, 400}


@pytest.mark.covers("session-identity-stable")
def test_an_answer_to_a_cancelled_request_refused_with_400_is_no_finding_but_to_a_pending_one_it_is():
    from dataclasses import replace

    def refused(request):
        t = step(ANSWERS, a.AnswerRequest("S1", request))
        return replace(t, observation=replace(t.observation, status=400))

    assert check_transition(refused("R2")) == []
    assert [f.rule for f in check_transition(refused("R3"))] == ["session-identity-stable"]
    # a request the session awaits is answered whatever the request before it was
    assert step(ANSWERS, a.AnswerRequest("S1", "R3")).after.request("R3").status.value == "answered"


@pytest.mark.covers("unknown-session-404", "session-identity-stable")
def test_only_an_answer_within_a_live_session_is_refined():
    assert answer("R3", "S9").statuses == {404}
    assert answer("R3", "S9").case == "never-issued"
    assert decide(ANSWERS, HttpRequest(Method.POST_REQUEST, "S1"), BOUNDARY).statuses == {200}


@pytest.mark.covers("sessionless-ignores-headers")
def test_only_an_unknown_session_of_the_session_era_has_the_never_issued_case():
    sessionless = decide(ANSWERS, HttpRequest(Method.POST_REQUEST, "S9"), Profile.MCP_2026_07_28)
    assert sessionless.session_class.value == "unknown" and sessionless.case is None
    ended = run(a.DeleteSession("S1"), state=ANSWERS)
    assert decide(ended, HttpRequest(Method.POST_REQUEST, "S1"), BOUNDARY).case is None


# -- transitions.ended_at_will -----------------------------------------------------------------------


# S1: T1 (GET, connected), no call running
IDLE = run(a.Initialize(), a.Reconnect("S1", None))


@pytest.mark.covers("expiry-independent")
@pytest.mark.parametrize("action", [a.Reconnect("S1", None), a.CallTool("S1"), a.DeleteSession("S1"),
                                    a.AnswerRequest("S1", "R1")])
def test_under_an_mcp_revision_a_404_for_an_idle_live_session_shows_the_server_ended_it(action):
    for profile in MCP_REVISIONS:
        assert ended_at_will(IDLE, action, 404, profile) == "S1"
    assert ended_at_will(IDLE, action, 404, BOUNDARY) is None
    assert ended_at_will(IDLE, action, 404, Profile.MCP_2026_07_28) is None


@pytest.mark.covers("expiry-independent")
@pytest.mark.parametrize("status", [200, 400, 409, 410, None])
def test_only_a_404_shows_a_session_ended(status):
    assert ended_at_will(IDLE, a.Reconnect("S1", None), status, MCP) is None


@pytest.mark.covers("reject-foreign-event-id")
def test_a_404_to_a_last_event_id_ends_nothing():
    # a 404 to a cursor may be the cursor's refusal, MCP's silence (rules §3.2)
    state = run(a.EmitEvent("T1"), a.DropConnection("T1"), state=IDLE)
    assert ended_at_will(state, a.Reconnect("S1", "E1"), 404, MCP) is None  # may refuse the cursor (§3.2)
    assert ended_at_will(state, a.Reconnect("S1", "unknown-event"), 404, MCP) is None
    assert ended_at_will(run(a.EvictEvent("T1"), state=state), a.Reconnect("S1", "E1"), 404, MCP) is None


@pytest.mark.covers("no-duplicate-tool-call")
def test_a_404_while_a_call_of_the_session_is_unfinished_is_judged_as_it_stands():
    calling = run(a.CallTool("S1"), state=IDLE)
    assert ended_at_will(calling, a.Reconnect("S1", None), 404, MCP) is None
    assert ended_at_will(calling, a.CallTool("S1"), 404, MCP) is None
    # the call's stream ended or expired: nothing unfinished, the session may have ended
    assert ended_at_will(run(a.Respond("T2"), state=calling), a.Reconnect("S1", None), 404, MCP) == "S1"
    assert ended_at_will(run(a.ExpireStream("T2"), state=calling), a.Reconnect("S1", None), 404, MCP) == "S1"
    # another session's call does not hold this one
    other = run(a.Initialize(), a.CallTool("S2"), state=IDLE)
    assert ended_at_will(other, a.Reconnect("S1", None), 404, MCP) == "S1"


@pytest.mark.covers("unknown-session-404")
def test_a_404_for_a_session_that_is_not_live_or_for_no_session_ends_nothing():
    deleted = run(a.DeleteSession("S1"), state=IDLE)
    assert ended_at_will(deleted, a.Reconnect("S1", None), 404, MCP) is None
    assert ended_at_will(IDLE, a.Reconnect("S9", None), 404, MCP) is None
    assert ended_at_will(IDLE, a.Initialize(), 404, MCP) is None


def test_a_server_step_never_shows_a_session_ended_at_will():
    assert ended_at_will(IDLE, a.ExpireSession("S1"), 404, MCP) is None


# -- transitions.exact_after_eviction --------------------------------------------------------------


@pytest.mark.covers("replay-suffix", "reject-foreign-event-id")
@pytest.mark.parametrize("profile", [BOUNDARY, MCP])
def test_the_exact_replay_after_an_eviction_resumes_the_stream(profile):
    t = exact_after_eviction(evicted(1), a.Reconnect("S1", "E1"), profile)
    assert t.outcome == step(evicted(1), a.Reconnect("S1", "E1"), profile).outcome
    assert (t.observation.status, t.observation.stream, t.observation.closed) == (200, "T1", ())
    assert t.observation.events == (Delivered("E2", stream="T1"), Delivered("E3", stream="T1"))
    assert t.after.stream("T1").connected and t.after.client_session("S1").cursor("T1") == "E3"
    assert check_transition(t) == []


@pytest.mark.covers("replay-suffix")
def test_the_exact_replay_after_an_eviction_supersedes_a_connection_still_open():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"), a.EvictEvent("T1"))
    t = exact_after_eviction(state, a.Reconnect("S1", "E1"))
    assert t.observation.closed == ("T1",) and t.observation.events == (Delivered("E2", stream="T1"),)
    assert t.after.stream("T1").connected


@pytest.mark.covers("replay-suffix")
def test_the_exact_replay_of_an_ended_stream_leaves_it_unconnected():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"), a.Respond("T1"),
                a.EvictEvent("T1"))
    t = exact_after_eviction(state, a.Reconnect("S1", "E1"))
    assert t.observation.status == 200 and not t.after.stream("T1").connected


@pytest.mark.covers("reject-foreign-event-id")
def test_no_exact_replay_where_the_step_is_no_evicted_cursor_with_its_successors_kept():
    assert exact_after_eviction(evicted(2), a.Reconnect("S1", "E1")) is None  # E2 evicted too
    assert exact_after_eviction(evicted(1), a.Reconnect("S1", "E2")) is None  # retained: branch 1
    assert exact_after_eviction(evicted(1), a.Reconnect("S1", "unknown-event")) is None
    assert exact_after_eviction(evicted(1), a.Reconnect("S1", None)) is None
    assert exact_after_eviction(evicted(1), a.EmitEvent("T1")) is None  # a server step
