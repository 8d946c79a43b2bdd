"""The decision of docs/design.md §2 for every combination of header classes, and its
refinement against concrete states."""

import itertools

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.decision import RESUMPTION_ERRORS, Branch, HttpRequest, Method, decide, decide_class
from mcp_resume.spec.headers import EventClass, SessionClass
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.transitions import step

from tests.helpers.spec_steps import run

S, E = SessionClass, EventClass
EVENT_PRESENT = [E.MALFORMED, E.UNKNOWN, E.RETAINED, E.EXPIRED, E.FOREIGN]


def expected_branch(method: Method, session: S, event: E) -> Branch:
    """docs/design.md §2 read directly: guards first, then the five branches."""
    if session is S.MALFORMED:
        return Branch.MALFORMED_SESSION
    if session in (S.UNKNOWN, S.ENDED):
        return Branch.UNKNOWN_SESSION
    if session is S.ABSENT:
        if method is Method.POST_INITIALIZE:
            return Branch.NEW_SESSION
        if method is Method.GET and event is not E.ABSENT:
            return Branch.REJECT_ORPHAN_EVENT_ID
        return Branch.MISSING_SESSION
    if method is Method.GET:
        return {E.ABSENT: Branch.SESSION_RESUMPTION, E.RETAINED: Branch.STREAM_RESUMPTION}.get(
            event, Branch.REJECT_FOREIGN_EVENT_ID
        )
    return {
        Method.POST_INITIALIZE: Branch.REINITIALIZE,
        Method.POST_REQUEST: Branch.SESSION_REQUEST,
        Method.POST_RESPONSE: Branch.SESSION_REQUEST,
        Method.DELETE: Branch.SESSION_TERMINATION,
    }[method]


COMBINATIONS = list(itertools.product(Method, SessionClass, EventClass))


@pytest.mark.covers(
    "new-session-on-initialize",
    "missing-session-400",
    "reject-orphan-event-id",
    "reject-foreign-event-id",
)
@pytest.mark.parametrize("profile", [Profile.BOUNDARY, Profile.MCP_2025_11_25, Profile.MCP_2025_06_18, Profile.MCP_2025_03_26])
@pytest.mark.parametrize("method,session,event", COMBINATIONS, ids=lambda v: getattr(v, "value", str(v)))
def test_every_header_combination_lands_in_the_branch_design_md_names(method, session, event, profile):
    decision = decide_class(method, session, event, profile)
    assert decision.branch is expected_branch(method, session, event)
    assert decision.status in decision.statuses


@pytest.mark.covers("unknown-session-404")
@pytest.mark.parametrize("event", EVENT_PRESENT)
@pytest.mark.parametrize("session", [S.UNKNOWN, S.ENDED])
def test_a_session_that_names_nothing_gets_404_whatever_the_event_id_says(session, event):
    assert decide_class(Method.GET, session, event, Profile.BOUNDARY).statuses == {404}


@pytest.mark.covers("reject-foreign-event-id")
def test_a_foreign_event_id_on_a_live_session_is_a_non_404_client_error_under_boundary():
    statuses = decide_class(Method.GET, S.LIVE, E.FOREIGN, Profile.BOUNDARY).statuses
    assert 404 not in statuses and 200 not in statuses
    assert {400, 409, 410, 422} <= statuses


@pytest.mark.covers("reject-foreign-event-id")
def test_the_mcp_revisions_accept_an_empty_200_or_any_4xx_for_a_foreign_event_id():
    statuses = decide_class(Method.GET, S.LIVE, E.FOREIGN, Profile.MCP_2025_11_25).statuses
    assert {200, 400, 404} <= statuses


@pytest.mark.covers("malformed-session-400")
def test_a_malformed_session_id_is_400_under_boundary_and_400_or_404_under_mcp():
    assert decide_class(Method.GET, S.MALFORMED, E.ABSENT, Profile.BOUNDARY).statuses == {400}
    assert decide_class(Method.GET, S.MALFORMED, E.ABSENT, Profile.MCP_2025_11_25).statuses == {400, 404}


@pytest.mark.covers("sessionless-get-405", "sessionless-ignores-headers")
@pytest.mark.parametrize("method", list(Method))
def test_the_sessionless_revision_refuses_get_and_delete_and_ignores_headers(method):
    for session, event in itertools.product(SessionClass, EventClass):
        decision = decide_class(method, session, event, Profile.MCP_2026_07_28)
        if method in (Method.GET, Method.DELETE):
            assert decision.branch is Branch.METHOD_NOT_ALLOWED and decision.statuses == {405}
        else:
            assert decision.branch is Branch.SESSIONLESS_REQUEST
            assert decision == decide_class(method, S.ABSENT, E.ABSENT, Profile.MCP_2026_07_28)



@pytest.mark.covers("replay-suffix", "no-reemit-on-stream-resume")
def test_stream_resumption_replays_exactly_the_later_events_of_that_stream():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.CallTool("S1"), a.EmitEvent("T2"),
                a.EmitEvent("T1"), a.IssueServerRequest("T1"), a.DropConnection("T1"))
    outcome = decide(state, HttpRequest(Method.GET, "S1", "E1"), Profile.BOUNDARY)
    assert outcome.branch is Branch.STREAM_RESUMPTION
    assert outcome.stream == "T1" and outcome.replay == ("E3", "E4")
    assert outcome.reemit == ()


@pytest.mark.covers("reemit-pending", "no-replay-on-session-resume")
def test_session_resumption_reemits_every_pending_request_in_issue_order_and_replays_nothing():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.IssueServerRequest("T1"),
                a.IssueServerRequest("T1"), a.AnswerRequest("S1", "R2"), a.DropConnection("T1"))
    outcome = decide(state, HttpRequest(Method.GET, "S1"), Profile.BOUNDARY)
    assert outcome.branch is Branch.SESSION_RESUMPTION
    assert outcome.reemit == ("R1", "R3") and outcome.replay == ()


def test_a_connected_stream_may_refuse_a_second_connection_with_any_client_error_but_404():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"))
    assert decide(state, HttpRequest(Method.GET, "S1", "E1"), Profile.BOUNDARY).statuses == {200} | RESUMPTION_ERRORS
    dropped = step(state, a.DropConnection("T1")).after
    assert decide(dropped, HttpRequest(Method.GET, "S1", "E1"), Profile.BOUNDARY).statuses == {200}


def test_an_ended_stream_with_nothing_left_to_replay_may_answer_204():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"), a.Respond("T1"))
    assert 204 in decide(state, HttpRequest(Method.GET, "S1", "E3"), Profile.BOUNDARY).statuses  # E3: the response
    assert 204 not in decide(state, HttpRequest(Method.GET, "S1", "E2"), Profile.BOUNDARY).statuses


@pytest.mark.covers("expiry-independent", "reject-foreign-event-id", "unknown-session-404", "session-delete")
def test_event_ids_of_an_expired_stream_or_an_ended_session_resume_nothing():
    state = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.CallTool("S2"),
                a.EmitEvent("T2"), a.ExpireStream("T1"), a.DeleteSession("S2"))
    expired = decide(state, HttpRequest(Method.GET, "S1", "E1"), Profile.BOUNDARY)
    assert (expired.branch, expired.event_class) == (Branch.REJECT_FOREIGN_EVENT_ID, E.EXPIRED)
    of_ended = decide(state, HttpRequest(Method.GET, "S1", "E2"), Profile.BOUNDARY)
    assert (of_ended.branch, of_ended.event_class) == (Branch.REJECT_FOREIGN_EVENT_ID, E.FOREIGN)
    assert decide(state, HttpRequest(Method.GET, "S2", "E2"), Profile.BOUNDARY).statuses == {404}
