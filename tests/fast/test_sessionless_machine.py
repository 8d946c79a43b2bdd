"""The 2026-07-28 revision as a state machine (spec/sessionless/machine.py), its server checks,
its exploration, and a server serving both eras on one endpoint."""

from __future__ import annotations

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.sessionless import machine as s
from mcp_resume.spec.catalog import AGREEMENT, RULES_BY_ID
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.sessionless.machine import CallStatus, Message, MessageKind, Observation
from mcp_resume.spec.sessionless.checks import check_observation, check_step

from mcp_resume.model.sessionless.sessionless_explore import explore_server, explore_sessionless
from mcp_resume.model.harness.checker import Checker, Counterexample
from mcp_resume.model.sessionless.dual_era_checker import run_dual_era_machine
from mcp_resume.model.sessionless.sessionless_checker import STRICT, SessionlessChecker, SessionlessCounterexample, replay
from mcp_resume.model.sessionless.dual_era_server import DualEraServer, HeaderRoutedServer, LatestEraServer
from mcp_resume.model.sessionless.sessionless_server import FAULTY, SessionlessServer

from tests.helpers.sessionless_machine import run


NEW_RULES = (
    "sessionless-request-scope",
    "sessionless-no-server-requests",
    "sessionless-close-cancels",
    "sessionless-input-required-retry",
    "sessionless-request-validated",
)


def rules_of(findings) -> set[str]:
    return {f.rule for f in findings}


def test_a_request_needing_input_ends_and_its_retry_is_a_new_request_under_a_new_id():
    asked = run(s.SendRequest("Q1"), s.SendProgress("Q1"))
    t = s.step(asked, s.RequireInput("Q1"))
    assert t.observation == Observation(messages=(Message("Q1", "Q1", MessageKind.INPUT_REQUIRED),), closed=("Q1",))
    assert t.after.call("Q1").status is CallStatus.INPUT_REQUIRED
    assert not s.enabled(t.after, s.RetryWithInput("Q1", "Q1"))  # never the same id (F20)
    retried = s.step(t.after, s.RetryWithInput("Q1", "Q2"))
    assert retried.observation == Observation(200, call="Q2") and retried.after.call("Q2").retries == "Q1"
    assert not s.enabled(retried.after, s.RetryWithInput("Q1", "Q3"))  # one retry per InputRequiredResult
    assert retried.after.retried_ids("Q2") == ("Q1",)


def test_closing_a_stream_cancels_its_request_and_nothing_more_is_sent_for_it():
    t = s.step(run(s.SendRequest("Q1")), s.CloseStream("Q1"))
    assert t.observation.closed == ("Q1",) and t.after.call("Q1").status is CallStatus.CANCELLED
    for later in (s.SendProgress("Q1"), s.SendResult("Q1"), s.RequireInput("Q1"), s.CloseStream("Q1")):
        assert not s.enabled(t.after, later)


def test_legacy_headers_change_nothing_and_legacy_methods_get_405():
    plain = s.step(s.INITIAL, s.SendRequest("Q1"))
    legacy = s.step(s.INITIAL, s.SendRequest("Q1", "S1", "E1"))
    assert plain.observation == legacy.observation and plain.after == legacy.after
    for action in (s.LegacyGet("S1", "E1"), s.LegacyGet(), s.LegacyDelete("S1")):
        t = s.step(plain.after, action)
        assert t.observation == Observation(405) and t.after == plain.after
    assert s.step(s.INITIAL, s.SendNotification("S1")).observation == Observation(202)


def test_step_refuses_an_action_it_does_not_enable():
    with pytest.raises(ValueError, match="not enabled"):
        s.step(s.INITIAL, s.SendResult("Q1"))
    with pytest.raises(ValueError, match="not enabled"):
        s.step(run(s.SendRequest("Q1")), s.SendRequest("Q1"))  # an id still awaited (F19)


def test_the_sanity_check_fires_on_states_the_machine_never_reaches():
    completed = s.SessionlessState((s.Call("Q1", status=CallStatus.COMPLETED), s.Call("Q2", retries="Q1")))
    assert s.sanity_check(completed) == ["request Q2 retries Q1, which asked for no input"]
    twice = s.SessionlessState((s.Call("Q1", status=CallStatus.INPUT_REQUIRED), s.Call("Q2", retries="Q1"), s.Call("Q3", retries="Q1")))
    assert s.sanity_check(twice) == ["request Q1 was retried 2 times"]
    assert "request Q7 is number 1 the client sent" in s.sanity_check(s.SessionlessState((s.Call("Q7"),)))


def test_the_exploration_reports_a_machine_that_breaks_its_own_checks(monkeypatch):
    def leaky(state, action):  # a progress notification on the stream of another request
        call = state.call(action.call)
        return Observation(messages=(Message("Q0", call.id, MessageKind.NOTIFICATION),)), state

    monkeypatch.setitem(s._HANDLERS, s.SendProgress, leaky)
    problems = explore_sessionless(s.SessionlessBounds(calls=1, notifications=1)).problems
    assert problems and all("[sessionless-request-scope]" in message for _, message in problems)


OPEN = run(s.SendRequest("Q1"), s.SendRequest("Q2"))
ASKED = run(s.SendRequest("Q1"), s.RequireInput("Q1"))
CLOSED = run(s.SendRequest("Q1"), s.CloseStream("Q1"))


@pytest.mark.covers("sessionless-no-server-requests")
def test_a_server_request_on_a_stream_is_a_finding():
    wrong = Observation(messages=(Message("Q1", "elicit-1", MessageKind.REQUEST),))
    assert rules_of(check_observation(OPEN, s.RequireInput("Q1"), wrong)) == {"sessionless-no-server-requests"}


@pytest.mark.covers("sessionless-close-cancels")
def test_a_message_about_a_cancelled_request_is_a_finding_on_any_stream():
    late = Observation(200, call="Q2", messages=(Message("Q2", "Q1", MessageKind.RESULT),))
    assert rules_of(check_observation(CLOSED, s.SendRequest("Q2"), late)) == {"sessionless-close-cancels"}
    at_close = Observation(messages=(Message("Q2", "Q1", MessageKind.NOTIFICATION),), closed=("Q1",))
    assert rules_of(check_observation(OPEN, s.CloseStream("Q1"), at_close)) == {"sessionless-close-cancels"}


@pytest.mark.covers("sessionless-input-required-retry")
def test_a_retry_answered_under_the_id_it_retries_is_a_finding():
    retried = s.step(ASKED, s.RetryWithInput("Q1", "Q2")).after
    wrong = Observation(messages=(Message("Q2", "Q1", MessageKind.RESULT),), closed=("Q2",))
    findings = check_observation(retried, s.SendResult("Q2"), wrong)
    assert rules_of(findings) == {"sessionless-input-required-retry"}
    assert "retry Q2 under the id of Q1" in findings[0].message
    right = Observation(messages=(Message("Q2", "Q2", MessageKind.RESULT),), closed=("Q2",))
    assert check_observation(retried, s.SendResult("Q2"), right) == []
    at_once = Observation(200, call="Q2", messages=(Message("Q2", "Q1", MessageKind.RESULT),))
    assert rules_of(check_observation(ASKED, s.RetryWithInput("Q1", "Q2"), at_once)) == {"sessionless-input-required-retry"}


@pytest.mark.covers("sessionless-request-scope")
@pytest.mark.parametrize(
    ("before", "action", "wrong", "says"),
    [
        (OPEN, s.SendProgress("Q1"), Observation(messages=(Message("Q2", "Q1", MessageKind.NOTIFICATION),)), "does not answer"),
        (OPEN, s.SendProgress("Q1"), Observation(messages=(Message("Q1", "Q2", MessageKind.NOTIFICATION),)), "about Q2"),
        (OPEN, s.SendResult("Q1"), Observation(messages=(Message("Q1", "Q1", MessageKind.RESULT),) * 2, closed=("Q1",)), "second final"),
        (ASKED, s.LegacyGet(), Observation(405, messages=(Message("Q1", "Q1", MessageKind.RESULT),)), "does not answer"),
    ],
)
def test_a_message_off_its_own_open_stream_is_a_finding(before, action, wrong, says):
    findings = [f for f in check_observation(before, action, wrong) if f.rule == "sessionless-request-scope"]
    assert findings and says in findings[0].message


@pytest.mark.covers("sessionless-get-405")
def test_get_or_delete_not_answered_405_is_a_finding():
    assert rules_of(check_observation(OPEN, s.LegacyGet("S1", "E1"), Observation(200))) == {"sessionless-get-405"}
    assert rules_of(check_observation(OPEN, s.LegacyDelete("S1"), Observation(204))) == {"sessionless-get-405"}
    assert check_observation(OPEN, s.LegacyDelete("S1"), Observation(405)) == []


@pytest.mark.covers("sessionless-ignores-headers")
def test_a_minted_session_id_or_a_legacy_header_honoured_is_a_finding():
    minted = Observation(200, call="Q3", session="sess-1")
    assert rules_of(check_observation(OPEN, s.SendRequest("Q3"), minted)) == {"sessionless-ignores-headers"}
    refused = Observation(404)
    assert rules_of(check_observation(OPEN, s.SendRequest("Q3", "S1"), refused)) == {"sessionless-ignores-headers"}
    assert rules_of(check_observation(OPEN, s.SendRequest("Q3"), refused)) == {AGREEMENT}
    replayed = Observation(200, call="Q3", messages=(Message("Q3", "Q1", MessageKind.NOTIFICATION),))
    assert rules_of(check_observation(OPEN, s.SendRequest("Q3", None, "E1"), replayed)) == {
        "sessionless-ignores-headers", "sessionless-request-scope"}
    own = Observation(200, call="Q3", messages=(Message("Q3", "Q3", MessageKind.NOTIFICATION),))
    assert "sessionless-ignores-headers" not in rules_of(check_observation(OPEN, s.SendRequest("Q3", "S1"), own))


def test_a_difference_no_rule_names_is_filed_under_agreement():
    expected = s.step(OPEN, s.SendResult("Q1")).observation
    kept_open = Observation(messages=expected.messages)  # the final response did not end the stream
    assert rules_of(check_step(OPEN, s.SendResult("Q1"), kept_open, expected)) == {AGREEMENT}
    assert check_step(OPEN, s.SendResult("Q1"), expected, expected) == []


def test_every_new_rule_is_a_must_of_the_sessionless_revision_only():
    for rule_id in NEW_RULES:
        rule = RULES_BY_ID[rule_id]
        assert rule.level(Profile.MCP_2026_07_28) is Level.MUST
        assert all(rule.level(p) is Level.NOT_APPLICABLE for p in Profile if p is not Profile.MCP_2026_07_28)
        assert any(source.startswith("F") for source in rule.sources)


def test_the_in_process_server_agrees_with_the_machine_on_every_transition():
    result = explore_server(SessionlessServer, s.SessionlessBounds(calls=2, notifications=1))
    assert result.counterexample is None and result.transitions > result.states > 1


@pytest.mark.parametrize("rule_id", sorted(FAULTY))
def test_each_faulty_server_is_caught_under_the_rule_it_breaks(rule_id):
    result = explore_server(FAULTY[rule_id])
    assert result.counterexample is not None
    assert result.counterexample.rules == {rule_id}
    assert len(result.counterexample.actions) <= 4  # a shortest run: breadth first


def test_a_broken_should_stops_a_strict_run_only():
    actions = (s.SendRequest("Q1"),)
    assert replay(actions, FAULTY["sessionless-ignores-headers"](), fail_on=frozenset())[0].findings
    with pytest.raises(SessionlessCounterexample) as caught:
        replay(actions, FAULTY["sessionless-ignores-headers"](), fail_on=STRICT)
    assert "1. send_request(id=Q1, session=-, last_event_id=-)" in str(caught.value)


def both(server):
    return Checker(server, Profile.BOUNDARY), SessionlessChecker(server, STRICT)


def test_a_2025_client_keeps_its_session_and_resumption_while_a_2026_client_gets_neither():
    legacy, modern = both(DualEraServer())
    legacy.apply(a.Initialize())
    legacy.apply(a.CallTool("S1"))
    legacy.apply(a.EmitEvent("T1"))
    legacy.apply(a.IssueServerRequest("T1"))
    legacy.apply(a.DropConnection("T1"))
    session, event = legacy.ids.server_id("S1"), legacy.ids.server_id("E1")
    posted = modern.apply(s.SendRequest("Q1", session, event))
    assert posted.observed == Observation(200, call="Q1")
    assert modern.apply(s.LegacyGet(session, event)).observed == Observation(405)
    assert modern.apply(s.LegacyGet(session)).observed == Observation(405)
    assert modern.apply(s.LegacyDelete(session)).observed == Observation(405)
    again = legacy.apply(a.Reconnect("S1", None))
    assert again.observed.status == 200 and [d.request for d in again.observed.events] == ["R1"]
    resumed = legacy.apply(a.Reconnect("S1", "E1"))
    assert resumed.observed.status == 200 and [d.event for d in resumed.observed.events] == ["E2"]
    assert not legacy.reports[-1].findings and modern.diverged is None


@pytest.mark.covers("sessionless-no-server-requests")
def test_a_server_routing_by_headers_hands_a_2025_sessions_pending_request_to_a_2026_client():
    legacy, modern = both(HeaderRoutedServer())
    legacy.apply(a.Initialize())
    legacy.apply(a.CallTool("S1"))
    legacy.apply(a.IssueServerRequest("T1"))
    legacy.apply(a.DropConnection("T1"))
    with pytest.raises(SessionlessCounterexample) as caught:
        modern.apply(s.LegacyGet(legacy.ids.server_id("S1")))
    assert {"sessionless-no-server-requests", "sessionless-get-405"} <= caught.value.rules


def test_a_server_routing_by_the_latest_revision_refuses_a_2025_resumption():
    legacy, modern = both(LatestEraServer())
    legacy.apply(a.Initialize())
    legacy.apply(a.CallTool("S1"))
    legacy.apply(a.IssueServerRequest("T1"))
    legacy.apply(a.DropConnection("T1"))  # the request's connection is gone: only a GET can re-emit it
    modern.apply(s.SendRequest("Q1"))
    with pytest.raises(Counterexample) as caught:
        legacy.apply(a.Reconnect("S1", None))
    assert caught.value.report.observed.status == 405
    assert caught.value.trace.failure.rule == "reemit-pending"  # a 405 strands it (B15 allows 405 only without one)


@pytest.mark.parametrize("factory", [HeaderRoutedServer, LatestEraServer])
def test_the_dual_era_machine_catches_each_faulty_dual_server(factory):
    result = run_dual_era_machine(factory, max_examples=25, steps=25)
    assert not result.passed and result.counterexample.rules
    assert any(line.startswith("2026: ") for line in result.counterexample.steps)
