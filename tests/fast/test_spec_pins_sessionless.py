"""Two checks of spec/sessionless/checks.py pinned on concrete observations: a second final
response on one stream (``sessionless-request-scope``, case ``after-final``: F8 is a SHOULD),
and a retry of a retry answered under an earlier id of its chain
(``sessionless-input-required-retry``, F20)."""

import pytest

from mcp_resume.spec.sessionless import machine as s
from mcp_resume.spec.catalog import AFTER_FINAL, level
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.sessionless.machine import Message, MessageKind, Observation
from mcp_resume.spec.sessionless.checks import check_observation, check_step

RESULT, INPUT, NOTE = MessageKind.RESULT, MessageKind.INPUT_REQUIRED, MessageKind.NOTIFICATION
SCOPE, RETRY = "sessionless-request-scope", "sessionless-input-required-retry"
NO_REQUESTS = "sessionless-no-server-requests"


def run(*actions, state=s.INITIAL):
    for action in actions:
        state = s.step(state, action).after
    return state


def filed(before, action, *messages, **observed):
    """(rule, case) of every finding on ``messages`` sent for ``action`` in ``before``."""
    observation = Observation(messages=tuple(Message(*m) for m in messages), **observed)
    return [(f.rule, f.case) for f in check_observation(before, action, observation)]


OPEN = run(s.SendRequest("Q1"), s.SendRequest("Q2"))


# -- one final response per stream (F8) ---------------------------------------------------------


@pytest.mark.covers("sessionless-request-scope")
@pytest.mark.parametrize("second", [RESULT, INPUT])
def test_a_second_final_response_on_a_stream_is_filed_as_the_after_final_case(second):
    findings = check_observation(OPEN, s.SendResult("Q1"), Observation(
        messages=(Message("Q1", "Q1", RESULT), Message("Q1", "Q1", second)), closed=("Q1",)))
    assert [(f.rule, f.case) for f in findings] == [(SCOPE, AFTER_FINAL)]
    assert findings[0].message == "the response stream of Q1 carried a second final response"
    assert level(SCOPE, Profile.MCP_2026_07_28, AFTER_FINAL) is Level.SHOULD
    assert level(SCOPE, Profile.MCP_2026_07_28) is Level.MUST


@pytest.mark.covers("sessionless-request-scope")
def test_notifications_and_one_final_response_are_no_second_final_response():
    assert filed(OPEN, s.SendResult("Q1"), ("Q1", "Q1", NOTE), ("Q1", "Q1", NOTE), ("Q1", "Q1", RESULT),
                 closed=("Q1",)) == []
    assert filed(OPEN, s.SendProgress("Q1"), ("Q1", "Q1", NOTE), ("Q1", "Q1", NOTE)) == []
    assert filed(OPEN, s.RequireInput("Q1"), ("Q1", "Q1", INPUT), closed=("Q1",)) == []


@pytest.mark.covers("sessionless-request-scope")
def test_a_response_opened_by_a_request_may_carry_one_final_response():
    assert filed(s.INITIAL, s.SendRequest("Q1"), ("Q1", "Q1", RESULT), status=200, call="Q1") == []
    assert filed(s.INITIAL, s.SendRequest("Q1"), ("Q1", "Q1", RESULT), ("Q1", "Q1", RESULT), status=200,
                 call="Q1") == [(SCOPE, AFTER_FINAL)]


@pytest.mark.covers("sessionless-request-scope")
def test_finals_off_the_streams_own_request_are_misplaced_not_second_finals():
    # on a stream this step does not answer, and about another request: each is request-scope's own finding
    assert filed(OPEN, s.SendResult("Q1"), ("Q2", "Q2", RESULT), ("Q2", "Q2", RESULT)) == [(SCOPE, None)] * 2
    assert filed(OPEN, s.SendResult("Q1"), ("Q1", "Q2", RESULT), ("Q1", "Q2", RESULT)) == [(SCOPE, None)] * 2


@pytest.mark.covers("sessionless-close-cancels")
def test_finals_about_a_cancelled_request_are_close_cancels_findings_only():
    closed = run(s.CloseStream("Q2"), state=OPEN)
    assert filed(closed, s.SendResult("Q1"), ("Q2", "Q2", RESULT), ("Q2", "Q2", RESULT), ("Q1", "Q1", RESULT)) == [
        ("sessionless-close-cancels", None)] * 2


@pytest.mark.covers("sessionless-request-scope")
def test_check_step_reports_the_second_final_before_any_disagreement():
    observed = Observation(messages=(Message("Q1", "Q1", RESULT),) * 2, closed=("Q1",))
    expected = s.step(OPEN, s.SendResult("Q1")).observation
    findings = check_step(OPEN, s.SendResult("Q1"), observed, expected)
    assert [(f.rule, f.case) for f in findings] == [(SCOPE, AFTER_FINAL)]


# -- a retry of a retry (F20) ----------------------------------------------------------------------


# Q1 asked for input, Q2 retried it and asked again: Q3 will retry Q2
CHAIN = run(s.SendRequest("Q1"), s.RequireInput("Q1"), s.RetryWithInput("Q1", "Q2"), s.RequireInput("Q2"))


def test_a_retry_chain_names_every_earlier_id_nearest_first():
    assert CHAIN.retried_ids("Q2") == ("Q1",)
    assert CHAIN.retried_ids("Q1") == () and CHAIN.retried_ids("Q9") == ()
    later = run(s.RetryWithInput("Q2", "Q3"), state=CHAIN)
    assert later.retried_ids("Q3") == ("Q2", "Q1")


@pytest.mark.covers("sessionless-input-required-retry")
@pytest.mark.parametrize("earlier", ["Q2", "Q1"])
def test_a_retry_of_a_retry_answered_under_any_earlier_id_of_its_chain_breaks_the_retry_rule(earlier):
    retry = s.RetryWithInput("Q2", "Q3")
    findings = check_observation(CHAIN, retry, Observation(200, call="Q3", messages=(Message("Q3", earlier, RESULT),)))
    assert [(f.rule, f.case) for f in findings] == [(RETRY, None)]
    assert findings[0].message == \
        f"answered retry Q3 under the id of {earlier}, the request it retries: a retry is a new request"
    # the same, once the retry's stream is open, by a server step on it
    later = run(retry, state=CHAIN)
    assert filed(later, s.SendResult("Q3"), ("Q3", earlier, RESULT), closed=("Q3",)) == [(RETRY, None)]


@pytest.mark.covers("sessionless-input-required-retry")
def test_a_retry_answered_under_its_own_id_is_right():
    assert filed(CHAIN, s.RetryWithInput("Q2", "Q3"), ("Q3", "Q3", RESULT), status=200, call="Q3") == []
    later = run(s.RetryWithInput("Q2", "Q3"), state=CHAIN)
    assert filed(later, s.SendResult("Q3"), ("Q3", "Q3", RESULT), closed=("Q3",)) == []


@pytest.mark.covers("sessionless-request-scope")
def test_a_message_on_another_stream_during_a_retry_is_misplaced_not_a_retry_under_an_old_id():
    # Q1 is no stream Q3's step answers: a message there about Q2 is out of scope, whatever Q3 retries
    assert filed(CHAIN, s.RetryWithInput("Q2", "Q3"), ("Q1", "Q2", NOTE), status=200, call="Q3") == [(SCOPE, None)]


@pytest.mark.covers("sessionless-request-scope")
def test_a_new_request_answered_under_another_requests_id_is_a_scope_finding():
    assert filed(CHAIN, s.SendRequest("Q3"), ("Q3", "Q1", RESULT), status=200, call="Q3") == [(SCOPE, None)]


# -- every other check of the revision, each on its own wrong observation --------------------------


def messages(before, action, *items, **observed):
    """Every finding's (rule, message) on ``items`` sent for ``action`` in ``before``."""
    observation = Observation(messages=tuple(Message(*m) for m in items), **observed)
    return [(f.rule, f.message) for f in check_observation(before, action, observation)]


@pytest.mark.covers("sessionless-no-server-requests")
def test_a_request_of_the_servers_own_is_filed_under_no_server_requests_alone():
    # on its own stream or another, about an open request or none: only its own rule judges it
    assert messages(OPEN, s.SendProgress("Q1"), ("Q1", "elicit-1", MessageKind.REQUEST)) == [
        ("sessionless-no-server-requests", "the server sent a request of its own (elicit-1) on stream Q1: input "
         "requests travel inside an InputRequiredResult")]
    assert filed(OPEN, s.SendProgress("Q1"), ("Q2", "Q2", MessageKind.REQUEST)) == [(NO_REQUESTS, None)]
    closed = run(s.CloseStream("Q2"), state=OPEN)
    assert filed(closed, s.SendProgress("Q1"), ("Q2", "Q2", MessageKind.REQUEST)) == [(NO_REQUESTS, None)]
    assert filed(OPEN, s.SendProgress("Q1"), ("Q1", "Q1", NOTE)) == []


@pytest.mark.covers("sessionless-close-cancels")
def test_anything_about_a_request_whose_stream_was_closed_is_filed_under_close_cancels_alone():
    closed = run(s.CloseStream("Q2"), state=OPEN)
    # a request closed before this step: on its own stream or on the stream of an open one
    assert messages(closed, s.SendProgress("Q1"), ("Q1", "Q2", NOTE)) == [
        ("sessionless-close-cancels", "sent a notification about Q2 on stream Q1 after the client closed the stream "
         "of Q2, which cancelled it")]
    assert filed(closed, s.SendResult("Q1"), ("Q2", "Q2", RESULT)) == [("sessionless-close-cancels", None)]
    # the request this very step closes
    assert filed(OPEN, s.CloseStream("Q1"), ("Q1", "Q1", NOTE), closed=("Q1",)) == [("sessionless-close-cancels", None)]
    # an open request's messages are no business of close-cancels
    assert filed(closed, s.SendProgress("Q1"), ("Q1", "Q1", NOTE)) == []


@pytest.mark.covers("sessionless-request-scope")
def test_a_message_on_a_stream_the_step_does_not_answer_is_out_of_scope():
    assert messages(OPEN, s.SendProgress("Q1"), ("Q2", "Q2", NOTE)) == [
        ("sessionless-request-scope", "a notification about Q2 came on stream Q2, which this step does not answer")]
    # a client step that opens no stream answers none
    assert filed(OPEN, s.LegacyGet(), ("Q1", "Q1", NOTE), status=405) == [
        (SCOPE, None), ("sessionless-get-405", None)]
    assert filed(OPEN, s.SendNotification(), ("Q1", "Q1", NOTE), status=202) == [(SCOPE, None)]


@pytest.mark.covers("sessionless-request-scope")
def test_a_message_about_another_request_on_the_answered_stream_is_out_of_scope():
    assert messages(OPEN, s.SendProgress("Q1"), ("Q1", "Q2", NOTE)) == [
        ("sessionless-request-scope", "the response stream of Q1 carried a notification about Q2")]
    assert messages(s.INITIAL, s.SendRequest("Q1"), ("Q1", "Q7", RESULT), status=200, call="Q1") == [
        ("sessionless-request-scope", "the response stream of Q1 carried a result about Q7")]


@pytest.mark.covers("sessionless-request-scope")
def test_a_server_step_answers_only_the_stream_of_its_own_open_request():
    # a request the server already answered, and one that never was: no stream is answered
    done = run(s.SendResult("Q1"), state=OPEN)
    assert filed(done, s.SendProgress("Q1"), ("Q1", "Q1", NOTE)) == [(SCOPE, None)]
    assert filed(OPEN, s.SendProgress("Q9"), ("Q9", "Q9", NOTE)) == [(SCOPE, None)]
    assert filed(OPEN, s.SendProgress("Q2"), ("Q2", "Q2", NOTE)) == []


@pytest.mark.covers("sessionless-request-scope")
def test_closing_a_stream_answers_no_stream_though_it_names_a_request():
    # the client's step names Q1, yet a message about open Q2 on Q1's stream is out of scope, not Q1's
    assert messages(OPEN, s.CloseStream("Q1"), ("Q1", "Q2", NOTE), closed=("Q1",)) == [
        ("sessionless-request-scope", "a notification about Q2 came on stream Q1, which this step does not answer")]


@pytest.mark.covers("sessionless-get-405")
@pytest.mark.parametrize("action,method", [(s.LegacyGet("S1", "E1"), "GET"), (s.LegacyDelete("S1"), "DELETE")])
def test_get_and_delete_get_405_and_nothing_else(action, method):
    assert messages(OPEN, action, status=200) == [("sessionless-get-405", f"{method} was answered 200, not 405")]
    assert messages(OPEN, action, status=None) == [("sessionless-get-405", f"{method} was answered None, not 405")]
    assert messages(OPEN, action, status=405) == []
    # an answer on its own carries nothing: a message delivered with it is two findings
    delivered = messages(OPEN, action, ("Q1", "Q1", NOTE), status=405)
    assert delivered == [
        ("sessionless-request-scope", "a notification about Q1 came on stream Q1, which this step does not answer"),
        ("sessionless-get-405", f"{method} delivered 1 message(s)")]


@pytest.mark.covers("sessionless-get-405")
def test_a_post_is_no_business_of_get_405():
    assert filed(OPEN, s.SendRequest("Q3"), status=200, call="Q3") == []
    assert ("sessionless-get-405", None) not in filed(OPEN, s.SendNotification(), status=405)


@pytest.mark.covers("sessionless-ignores-headers")
def test_a_session_id_on_any_answer_breaks_ignores_headers():
    assert messages(OPEN, s.LegacyGet(), status=405, session="sess-1") == [
        ("sessionless-ignores-headers", "the response carried Mcp-Session-Id sess-1")]
    assert filed(OPEN, s.SendProgress("Q1"), session="sess-1") == [("sessionless-ignores-headers", None)]


@pytest.mark.covers("sessionless-ignores-headers")
@pytest.mark.parametrize("headers", [("S1", None), (None, "E1"), ("S1", "E1")])
def test_a_post_carrying_legacy_headers_is_answered_as_one_without_them(headers):
    action = s.SendRequest("Q3", *headers)
    assert messages(OPEN, action, status=404) == [
        ("sessionless-ignores-headers", "a POST carrying legacy headers was answered 404, not as one without them")]
    assert messages(OPEN, action, ("Q3", "Q1", NOTE), ("Q3", "Q2", NOTE), status=200, call="Q3") == [
        ("sessionless-request-scope", "the response stream of Q3 carried a notification about Q1"),
        ("sessionless-request-scope", "the response stream of Q3 carried a notification about Q2"),
        ("sessionless-ignores-headers", "a POST carrying legacy headers got 2 message(s) of other requests")]
    assert messages(OPEN, action, ("Q3", "Q3", NOTE), status=200, call="Q3") == []


@pytest.mark.covers("sessionless-ignores-headers")
def test_a_post_without_legacy_headers_is_judged_by_its_status_alone():
    # no legacy header: a wrong status is a difference from the machine, not ignores-headers
    assert messages(OPEN, s.SendRequest("Q3"), status=404) == [
        ("agreement", "send_request was answered 404, expected 200")]
    assert filed(OPEN, s.SendRequest("Q3"), ("Q3", "Q1", NOTE), status=200, call="Q3") == [(SCOPE, None)]


def test_a_wrong_status_no_rule_names_is_filed_under_agreement():
    assert messages(OPEN, s.SendNotification(), status=200) == [
        ("sessionless-notification-202", "a notification was answered 200: accepted, it gets 202 with no body; "
                                         "refused, an error status")]
    assert messages(OPEN, s.RetryWithInput("Q1", "Q3"), status=400) == [
        ("agreement", "retry_with_input was answered 400, expected 200")]
    assert messages(OPEN, s.SendNotification(), status=202) == []
    assert messages(OPEN, s.SendProgress("Q1"), ("Q1", "Q1", NOTE)) == []  # a server step has no status


def test_check_step_adds_agreement_only_where_no_rule_explains_the_step():
    expected = s.step(OPEN, s.SendResult("Q1")).observation
    kept_open = Observation(messages=expected.messages)
    assert [(f.rule, f.message) for f in check_step(OPEN, s.SendResult("Q1"), kept_open, expected)] == [
        ("agreement", f"observed {kept_open}, the 2026-07-28 machine expects {expected}")]
    assert check_step(OPEN, s.SendResult("Q1"), kept_open) == []  # nothing to compare with
    assert check_step(OPEN, s.SendResult("Q1"), expected, expected) == []
    wrong = Observation(messages=(Message("Q2", "Q2", NOTE),))
    assert [f.rule for f in check_step(OPEN, s.SendResult("Q1"), wrong, expected)] == [SCOPE]


@pytest.mark.covers("sessionless-request-scope")
@pytest.mark.parametrize("final,kind", [(s.SendResult, MessageKind.RESULT), (s.RequireInput, MessageKind.INPUT_REQUIRED)])
def test_a_stream_held_open_after_its_final_response_is_the_after_final_case(final, kind):
    sent = ("Q1", "Q1", kind)
    assert filed(OPEN, final("Q1"), sent, closed=("Q1",), held_open=True) == [(SCOPE, AFTER_FINAL)]
    assert filed(OPEN, final("Q1"), sent, closed=("Q1",)) == []
    assert filed(OPEN, s.SendProgress("Q1"), ("Q1", "Q1", MessageKind.NOTIFICATION), held_open=True) == []
    assert "stayed open after its final response" in messages(OPEN, final("Q1"), sent, held_open=True)[0][1]
