"""The statuses each branch accepts, per profile, and the refusals a concrete state adds
(docs/design.md §2; MCP B6, B15, B28, B32, B33, B36; rules §3.3 for 409, §3.5 for 204; F17)."""

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.decision import (
    BRANCH_RULE,
    RESUMPTION_ERRORS,
    NUMBERED_BRANCHES,
    Branch,
    HttpRequest,
    Method,
    decide,
    decide_class,
)
from mcp_resume.spec.catalog import RULES_BY_ID
from mcp_resume.spec.headers import EventClass as E
from mcp_resume.spec.headers import SessionClass as S
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.transitions import step

from tests.helpers.spec_steps import run

MCP = [Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25]
B = Profile.BOUNDARY
FOUR_XX = set(range(400, 500))



def answer(method, session, event, profile):
    decision = decide_class(method, session, event, profile)
    return decision.branch, set(decision.statuses), decision.status


@pytest.mark.covers("reject-foreign-event-id")
@pytest.mark.parametrize("event", [E.MALFORMED, E.UNKNOWN, E.EXPIRED, E.FOREIGN, E.EVICTED])
def test_boundary_rejects_an_event_id_not_valid_for_the_live_session_with_any_4xx_but_404(event):
    branch, statuses, status = answer(Method.GET, S.LIVE, event, B)
    assert branch is Branch.REJECT_FOREIGN_EVENT_ID
    assert statuses == FOUR_XX - {404} and status == 400


@pytest.mark.covers("reject-foreign-event-id")
@pytest.mark.parametrize("profile", MCP)
@pytest.mark.parametrize("event", [E.MALFORMED, E.UNKNOWN, E.EXPIRED, E.FOREIGN, E.EVICTED])
def test_the_mcp_revisions_are_silent_on_branch_3_so_any_4xx_or_an_empty_200_passes(event, profile):
    branch, statuses, status = answer(Method.GET, S.LIVE, event, profile)
    assert branch is Branch.REJECT_FOREIGN_EVENT_ID
    assert statuses == FOUR_XX | {200} and status == 400


@pytest.mark.covers("session-identity-stable")
def test_boundary_accepts_only_200_for_a_session_or_stream_resumption():
    assert answer(Method.GET, S.LIVE, E.ABSENT, B) == (Branch.SESSION_RESUMPTION, {200}, 200)
    assert answer(Method.GET, S.LIVE, E.RETAINED, B) == (Branch.STREAM_RESUMPTION, {200}, 200)


@pytest.mark.covers("session-identity-stable")
@pytest.mark.parametrize("profile", MCP)
def test_the_mcp_revisions_let_a_server_refuse_get_with_405_and_a_second_get_stream_with_409(profile):
    # B15: a server answers GET with an SSE stream or 405; rules §3.3: 409 for a second GET stream
    assert answer(Method.GET, S.LIVE, E.ABSENT, profile) == (Branch.SESSION_RESUMPTION, {200, 405, 409}, 200)
    assert answer(Method.GET, S.LIVE, E.RETAINED, profile) == (Branch.STREAM_RESUMPTION, {200, 405}, 200)


@pytest.mark.covers("new-session-on-initialize", "missing-session-400", "reject-orphan-event-id")
@pytest.mark.parametrize("profile", MCP + [B])
def test_without_a_session_only_initialize_succeeds(profile):
    # B28: initialize may mint a session; B32: anything else without one is 400, or, for a GET or
    # DELETE, 405 from a server that offers no GET stream (B15) or no DELETE (B35)
    assert answer(Method.POST_INITIALIZE, S.ABSENT, E.ABSENT, profile) == (Branch.NEW_SESSION, {200}, 200)
    assert answer(Method.POST_INITIALIZE, S.ABSENT, E.UNKNOWN, profile)[0] is Branch.NEW_SESSION
    for method in (Method.POST_REQUEST, Method.POST_RESPONSE):
        assert answer(method, S.ABSENT, E.ABSENT, profile) == (Branch.MISSING_SESSION, {400}, 400)
    for method in (Method.DELETE, Method.GET):
        assert answer(method, S.ABSENT, E.ABSENT, profile) == (Branch.MISSING_SESSION, {400, 405}, 400)
    for event in (E.MALFORMED, E.UNKNOWN, E.FOREIGN):
        assert answer(Method.GET, S.ABSENT, event, profile) == (Branch.REJECT_ORPHAN_EVENT_ID, {400, 405}, 400)
    assert answer(Method.POST_REQUEST, S.ABSENT, E.FOREIGN, profile)[0] is Branch.MISSING_SESSION


@pytest.mark.covers("unknown-session-404", "malformed-session-400")
@pytest.mark.parametrize("profile", MCP + [B])
@pytest.mark.parametrize("method", list(Method))
def test_the_guards_come_first_for_every_method(method, profile):
    # B33: an ended or unknown session id gets 404; B30: a malformed one names no session
    for event in E:
        assert answer(method, S.UNKNOWN, event, profile) == (Branch.UNKNOWN_SESSION, {404}, 404)
        assert answer(method, S.ENDED, event, profile) == (Branch.UNKNOWN_SESSION, {404}, 404)
        expected = {400} if profile is B else {400, 404}
        assert answer(method, S.MALFORMED, event, profile) == (Branch.MALFORMED_SESSION, expected, 400)


@pytest.mark.covers("session-delete", "session-identity-stable")
@pytest.mark.parametrize("profile", MCP + [B])
def test_posts_and_delete_in_a_live_session(profile):
    # B6: a POSTed response is answered 202; B35/B36: DELETE succeeds with some 2xx or 405
    assert answer(Method.POST_REQUEST, S.LIVE, E.ABSENT, profile) == (Branch.SESSION_REQUEST, {200}, 200)
    assert answer(Method.POST_RESPONSE, S.LIVE, E.ABSENT, profile) == (Branch.SESSION_REQUEST, {202}, 202)
    assert answer(Method.POST_INITIALIZE, S.LIVE, E.ABSENT, profile) == (Branch.REINITIALIZE, {200, 400}, 400)
    branch, statuses, status = answer(Method.DELETE, S.LIVE, E.ABSENT, profile)
    assert branch is Branch.SESSION_TERMINATION and status == 200
    assert statuses == set(range(200, 300)) | {405}


@pytest.mark.covers("sessionless-get-405", "sessionless-ignores-headers")
def test_the_sessionless_revision_answers_posts_and_refuses_get_and_delete():
    # F17: GET and DELETE get 405; a POSTed response is accepted (202) or refused (400)
    p = Profile.MCP_2026_07_28
    assert answer(Method.GET, S.LIVE, E.RETAINED, p) == (Branch.METHOD_NOT_ALLOWED, {405}, 405)
    assert answer(Method.DELETE, S.ABSENT, E.ABSENT, p) == (Branch.METHOD_NOT_ALLOWED, {405}, 405)
    assert answer(Method.POST_RESPONSE, S.LIVE, E.ABSENT, p) == (Branch.SESSIONLESS_REQUEST, {202, 400}, 400)
    assert answer(Method.POST_REQUEST, S.UNKNOWN, E.FOREIGN, p) == (Branch.SESSIONLESS_REQUEST, {200}, 200)
    assert answer(Method.POST_INITIALIZE, S.MALFORMED, E.ABSENT, p) == (Branch.SESSIONLESS_REQUEST, {200}, 200)


# -- refusals a concrete state adds ----------------------------------------------------


def statuses(state, method, session=None, event=None, request=None, profile=B):
    return set(decide(state, HttpRequest(method, session, event, request), profile).statuses)


@pytest.mark.covers("session-identity-stable")
def test_a_second_get_stream_may_be_refused_with_any_client_error_but_404_only_while_one_is_connected():
    # docs/design.md §2: 409 (TypeScript SDK) or 400 (another official SDK): any client error but 404
    posted = run(a.Initialize(), a.CallTool("S1"))
    assert statuses(posted, Method.GET, "S1") == {200, 405, 409}
    with_get = step(posted, a.Reconnect("S1", None)).after
    assert statuses(with_get, Method.GET, "S1") == {200} | RESUMPTION_ERRORS
    assert 404 not in statuses(with_get, Method.GET, "S1", profile=Profile.MCP_2025_11_25)
    dropped = step(with_get, a.DropConnection("T2")).after
    assert statuses(dropped, Method.GET, "S1") == {200, 405, 409}


@pytest.mark.covers("reemit-pending")
def test_under_boundary_a_second_get_stream_may_be_refused_only_while_no_request_is_stranded():
    with_get = run(a.Initialize(), a.CallTool("S1"), a.Reconnect("S1", None), a.IssueServerRequest("T1"))
    assert statuses(with_get, Method.GET, "S1") == {200} | RESUMPTION_ERRORS
    stranded = step(with_get, a.DropConnection("T1")).after
    outcome = decide(stranded, HttpRequest(Method.GET, "S1"), B)
    assert outcome.statuses == {200} and outcome.strands and outcome.reemit == ("R1",)
    relaxed = decide(stranded, HttpRequest(Method.GET, "S1"), Profile.MCP_2025_11_25)
    assert RESUMPTION_ERRORS <= relaxed.statuses and not relaxed.strands


@pytest.mark.covers("replay-suffix")
def test_204_is_accepted_only_for_an_ended_stream_with_nothing_after_the_cursor():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.DropConnection("T1"))
    assert statuses(state, Method.GET, "S1", "E1") == {200}
    ended = step(state, a.Respond("T1")).after  # E2, the response, is the stream's last event
    assert statuses(ended, Method.GET, "S1", "E1") == {200}
    assert statuses(ended, Method.GET, "S1", "E2") == {200, 204}
    assert statuses(ended, Method.GET, "S1", "E2", profile=Profile.MCP_2025_11_25) == {200, 204, 405}


@pytest.mark.covers("replay-suffix")
def test_the_replay_of_a_stream_resumption_is_what_follows_the_cursor_on_that_stream_only():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"),
                a.CallTool("S1"), a.EmitEvent("T2"), a.EmitEvent("T1"), a.DropConnection("T1"))
    outcome = decide(state, HttpRequest(Method.GET, "S1", "E1"), B)
    assert outcome.replay == ("E2", "E4") and outcome.stream == "T1"
    last = decide(state, HttpRequest(Method.GET, "S1", "E4"), B)
    assert last.replay == () and last.statuses == {200}


@pytest.mark.covers("session-identity-stable")
def test_a_posted_response_to_a_request_the_session_did_not_issue_or_no_longer_awaits_may_be_refused():
    # B6: a response the server does not accept gets an HTTP error such as 400
    state = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))
    assert statuses(state, Method.POST_RESPONSE, "S1", request="R1") == {202}
    assert statuses(state, Method.POST_RESPONSE, "S2", request="R1") == {202, 400}
    assert statuses(state, Method.POST_RESPONSE, "S1", request="unknown-request") == {202, 400}
    answered = step(state, a.AnswerRequest("S1", "R1")).after
    assert statuses(answered, Method.POST_RESPONSE, "S1", request="R1") == {202, 400}
    cancelled = step(state, a.CancelRequest("R1")).after
    assert statuses(cancelled, Method.POST_RESPONSE, "S1", request="R1") == {202, 400}


def test_every_branch_is_judged_by_a_catalog_rule_and_the_numbered_ones_follow_design_md():
    assert set(BRANCH_RULE) == set(Branch)
    assert set(BRANCH_RULE.values()) <= set(RULES_BY_ID)
    assert BRANCH_RULE[Branch.STREAM_RESUMPTION] == "replay-suffix"
    assert BRANCH_RULE[Branch.REJECT_FOREIGN_EVENT_ID] == "reject-foreign-event-id"
    assert BRANCH_RULE[Branch.UNKNOWN_SESSION] == "unknown-session-404"
    assert BRANCH_RULE[Branch.MALFORMED_SESSION] == "malformed-session-400"
    assert BRANCH_RULE[Branch.MISSING_SESSION] == "missing-session-400"
    assert BRANCH_RULE[Branch.NEW_SESSION] == "new-session-on-initialize"
    assert BRANCH_RULE[Branch.SESSION_TERMINATION] == "session-delete"
    assert BRANCH_RULE[Branch.METHOD_NOT_ALLOWED] == "sessionless-get-405"
    assert NUMBERED_BRANCHES == {
        Branch.STREAM_RESUMPTION: 1, Branch.SESSION_RESUMPTION: 2, Branch.REJECT_FOREIGN_EVENT_ID: 3,
        Branch.REJECT_ORPHAN_EVENT_ID: 4, Branch.NEW_SESSION: 5, Branch.MISSING_SESSION: 5,
    }


@pytest.mark.covers("reject-foreign-event-id", "missing-session-400", "unknown-session-404")
def test_the_reference_refusals_carry_an_error_code_and_a_never_issued_id_is_its_own_case():
    # docs/design.md §2 row 3: branch 3 told apart from the missing-session error by its JSON-RPC code
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.DeleteSession("S1"), a.Initialize())
    outcome = lambda method, session=None, event=None: decide(state, HttpRequest(method, session, event), B)
    foreign = outcome(Method.GET, "S2", "E1")
    missing = outcome(Method.POST_REQUEST)
    assert foreign.error is not None and missing.error is not None and foreign.error != missing.error
    assert outcome(Method.GET, None, "E1").error is None  # branch 4: 400 alone says it
    assert outcome(Method.GET, "S2").error is None and outcome(Method.GET, "S1").error is None
    assert outcome(Method.GET, "S9").case == "never-issued"
    assert outcome(Method.GET, "S1").case is None  # ended: MCP B33's own case
    assert outcome(Method.GET, "bad id").case is None and foreign.case is None
