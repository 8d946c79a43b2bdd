"""The 2026-07-28 machine's own transition relation (spec/sessionless/machine.py): which
actions are enabled where, what each step shows and leaves, and the machine's sanity
checks. The rules a server is judged by are pinned in test_spec_pins_sessionless.py."""

from __future__ import annotations

import typing

import pytest

from mcp_resume.spec.sessionless import machine as s
from mcp_resume.spec.sessionless.machine import Call, CallStatus, Message, MessageKind, SessionlessState

SERVER_ACTIONS = (s.CloseStream, s.SendProgress, s.RequireInput, s.SendResult)


def run(*actions, state=s.INITIAL):
    for action in actions:
        state = s.step(state, action).after
    return state


OPEN = run(s.SendRequest("Q1"))
ASKED = run(s.RequireInput("Q1"), state=OPEN)  # Q1 answered with an InputRequiredResult (F20)


def test_every_action_class_is_one_kind_of_the_union():
    assert set(typing.get_args(s.SessionlessAction)) == set(s.ACTION_TYPES.values())
    assert len(s.ACTION_TYPES) == 10 and all(kind == cls.kind for kind, cls in s.ACTION_TYPES.items())


def test_a_new_request_needs_an_id_the_client_never_used():
    assert s.enabled(s.INITIAL, s.SendRequest("Q1"))
    assert not s.enabled(OPEN, s.SendRequest("Q1"))  # F19: ids are not reused
    assert not s.enabled(ASKED, s.RetryWithInput("Q1", "Q1"))  # F20: a retry takes a new id


def test_a_retry_needs_an_input_required_answer_not_retried_yet():
    assert s.enabled(ASKED, s.RetryWithInput("Q1", "Q2"))
    assert not s.enabled(OPEN, s.RetryWithInput("Q1", "Q2"))  # still open: nothing asked for
    assert not s.enabled(ASKED, s.RetryWithInput("Q9", "Q2"))  # no such request
    retried = run(s.RetryWithInput("Q1", "Q2"), state=ASKED)
    assert not s.enabled(retried, s.RetryWithInput("Q1", "Q3"))  # retried once already


@pytest.mark.parametrize("server_action", SERVER_ACTIONS)
def test_closing_and_every_server_action_need_the_request_open(server_action):
    assert s.enabled(OPEN, server_action("Q1"))
    assert not s.enabled(OPEN, server_action("Q2"))  # never sent
    assert not s.enabled(ASKED, server_action("Q1"))  # answered already
    cancelled = run(s.CloseStream("Q1"), state=OPEN)
    assert not s.enabled(cancelled, server_action("Q1"))


@pytest.mark.parametrize("action", [s.LegacyGet("S1", "E1"), s.LegacyDelete(None), s.SendNotification()])
def test_legacy_requests_and_notifications_are_always_enabled_and_change_nothing(action):
    for state in (s.INITIAL, OPEN, ASKED):
        t = s.step(state, action)
        assert t.after == state and t.observation.status == (202 if isinstance(action, s.SendNotification) else 405)


def test_a_step_that_is_not_enabled_is_refused():
    with pytest.raises(ValueError, match="not enabled"):
        s.step(OPEN, s.SendResult("Q2"))


def test_a_request_opens_its_stream_and_a_retry_names_what_it_answers():
    t = s.step(s.INITIAL, s.SendRequest("Q1"))
    assert (t.observation.status, t.observation.call) == (200, "Q1") and t.after.calls == (Call("Q1"),)
    retry = s.step(ASKED, s.RetryWithInput("Q1", "Q2"))
    assert (retry.observation.status, retry.observation.call) == (200, "Q2")
    assert retry.after.call("Q2") == Call("Q2", retries="Q1")


def test_each_server_action_shows_its_message_and_leaves_its_status():
    progress = s.step(OPEN, s.SendProgress("Q1"))
    assert progress.observation.messages == (Message("Q1", "Q1", MessageKind.NOTIFICATION),)
    assert progress.observation.closed == () and progress.after.call("Q1").notified == 1
    for action, kind, status in ((s.RequireInput("Q1"), MessageKind.INPUT_REQUIRED, CallStatus.INPUT_REQUIRED),
                                 (s.SendResult("Q1"), MessageKind.RESULT, CallStatus.COMPLETED)):
        t = s.step(OPEN, action)
        assert t.observation.messages == (Message("Q1", "Q1", kind),) and t.observation.closed == ("Q1",)
        assert t.after.call("Q1").status is status
    close = s.step(OPEN, s.CloseStream("Q1"))
    assert close.observation.messages == () and close.observation.closed == ("Q1",)
    assert close.after.call("Q1").status is CallStatus.CANCELLED


def test_candidate_actions_offer_every_server_action_on_every_request():
    found = s.candidate_actions(OPEN)
    assert all(action("Q1") in found for action in SERVER_ACTIONS)
    assert s.SendRequest("Q2") in found and s.RetryWithInput("Q1", "Q2") in found


def test_the_sanity_check_names_ids_out_of_order_and_a_request_retried_twice():
    assert s.sanity_check(run(s.RetryWithInput("Q1", "Q2"), state=ASKED)) == []
    assert s.sanity_check(SessionlessState((Call("Q2"),))) == ["request Q2 is number 1 the client sent"]
    twice = SessionlessState((Call("Q1", status=CallStatus.INPUT_REQUIRED), Call("Q2", retries="Q1"),
                              Call("Q3", retries="Q1")))
    assert s.sanity_check(twice) == ["request Q1 was retried 2 times"]


@pytest.mark.parametrize("fault", list(s.Fault))
def test_a_request_the_server_cannot_take_as_sent_is_refused_and_changes_nothing(fault):
    t = s.step(OPEN, s.SendInvalid("Q2", fault))
    assert (t.observation.status, t.observation.error) == s.REFUSAL[fault] and t.after == OPEN
    assert not s.enabled(OPEN, s.SendInvalid("Q1", fault))  # its id too is one the client never used
    assert s.SendInvalid("Q2", fault) in s.candidate_actions(OPEN)
    assert s.describe(s.SendInvalid("Q2", fault)) == f"send_invalid(id=Q2, fault={fault.value})"


@pytest.mark.parametrize("fault, status, error", [
    (s.Fault.VERSION_MISMATCH, 400, -32020), (s.Fault.VERSION_UNSUPPORTED, 400, None),
    (s.Fault.METHOD_MISMATCH, 400, -32020), (s.Fault.METHOD_UNKNOWN, 404, -32601)])
def test_each_refusal_has_the_status_and_error_the_text_names(fault, status, error):
    # F12 and F16: 400 + HeaderMismatch; F13: 400 + UnsupportedProtocolVersionError (no code given); F14: 404 + -32601
    assert s.REFUSAL[fault] == (status, error)


def test_a_refusal_is_judged_on_its_status_then_on_its_error_code():
    from mcp_resume.spec.sessionless.checks import check_observation

    def rules(fault, **observed):
        return [(f.rule, f.message) for f in check_observation(OPEN, s.SendInvalid("Q2", fault), s.Observation(**observed))]

    assert rules(s.Fault.METHOD_UNKNOWN, status=404, error=-32601) == []
    assert rules(s.Fault.VERSION_UNSUPPORTED, status=400, error=-32000) == []  # F13 names no code
    [(rule, message)] = rules(s.Fault.METHOD_UNKNOWN, status=200)
    assert rule == "sessionless-request-validated" and message.endswith("method-unknown was answered 200, not 404")
    [(_, message)] = rules(s.Fault.VERSION_MISMATCH, status=400)
    assert message.endswith("refused 400 with no JSON-RPC error, not -32020")
    [(_, message)] = rules(s.Fault.METHOD_MISMATCH, status=400, error=-32600)
    assert message.endswith("refused 400 with JSON-RPC error -32600, not -32020")


def test_open_calls_are_those_still_being_worked_on():
    both = run(s.SendRequest("Q2"), state=ASKED)
    assert [c.id for c in both.open_calls()] == ["Q2"]


def test_candidates_carry_every_legacy_header_a_2026_client_may_send():
    found = s.candidate_actions(s.INITIAL)
    for session in (None, "S1", s.UNKNOWN_SESSION, s.MALFORMED_SESSION):
        assert s.LegacyDelete(session) in found and s.SendRequest("Q1", session, None) in found
    for event in (None, "E1", s.UNKNOWN_EVENT, s.MALFORMED_EVENT):
        assert s.LegacyGet(None, event) in found


def test_the_sanity_check_names_a_retry_of_a_request_that_asked_for_no_input():
    wrong = SessionlessState((Call("Q1"), Call("Q2", retries="Q1")))
    assert s.sanity_check(wrong) == ["request Q2 retries Q1, which asked for no input"]
    orphan = SessionlessState((Call("Q1", retries="Q9"),))
    assert s.sanity_check(orphan) == ["request Q1 retries Q9, which asked for no input"]
