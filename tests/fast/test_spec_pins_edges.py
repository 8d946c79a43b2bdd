"""Edges of the spec's server checks pinned one by one: what a check says when there is nothing
to say (no replay, an unknown presenter, a response delivered nowhere), the words of a version
refusal, and the scopes that decide which rules a step judges."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.catalog import ENDED_SESSION_ID, RESPONSE_ELSEWHERE
from mcp_resume.spec.invariants import check_transition, judged_rules
from mcp_resume.spec.transitions import Delivered, step
from tests.helpers.spec_steps import run, seen

# S1: T1 (POST, E1 E2 E3, dropped); S2: T2 (POST, E4)
TWO = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"),
          a.EmitEvent("T1"), a.CallTool("S2"), a.EmitEvent("T2"), a.DropConnection("T1"))
CALLING = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))


def cases(t):
    return [(f.rule, f.case) for f in check_transition(t)]


@pytest.mark.covers("standalone-stream-scope")
def test_a_response_step_that_delivers_only_another_event_is_no_response_elsewhere():
    t = seen(CALLING, a.Respond("T1"), events=(Delivered("E1", stream="T1", request="R1"),))
    assert ("standalone-stream-scope", RESPONSE_ELSEWHERE) not in cases(t)


@pytest.mark.covers("unsupported-version-400")
@pytest.mark.parametrize("status,words", [(None, "and gave no answer"), (200, "and answered 200")])
def test_an_unsupported_version_not_refused_says_what_came_instead(status, words):
    found = check_transition(seen(CALLING, a.Reconnect("S1", None), status=status, version_unsupported=True))
    assert [f.rule for f in found] == ["unsupported-version-400"] and words in found[0].message


@pytest.mark.covers("call-answered")
def test_ending_an_answered_calls_stream_is_no_call_left_unanswered():
    answered = run(a.Respond("T1"), state=CALLING)
    listening = run(a.Reconnect("S1", None), state=answered)
    get_end = step(listening, a.EndStream("T2"))
    assert "call-answered" not in [f.rule for f in check_transition(replace(get_end, action=a.EndStream("T1")))]


@pytest.mark.covers("expiry-independent")
def test_an_ended_sessions_id_that_replays_nothing_or_is_presented_by_no_live_session_is_no_finding():
    ended = run(a.DeleteSession("S1"), state=TWO)
    assert ("expiry-independent", ENDED_SESSION_ID) not in cases(seen(ended, a.Reconnect("S2", "E1"), status=400,
                                                                       events=(), stream=None))
    replayed = (Delivered("E2", stream="T1"),)
    for presenter in ("S9", "S1"):  # never issued; itself ended
        t = seen(ended, a.Reconnect(presenter, "E1"), status=200, events=replayed)
        assert ("expiry-independent", ENDED_SESSION_ID) not in cases(t)


@pytest.mark.covers("expiry-independent")
def test_a_request_of_a_session_with_an_expired_stream_judges_expiry_independent():
    state = run(a.Initialize(), a.CallTool("S1"), a.ExpireStream("T1"))  # a stream with no event expired
    assert "expiry-independent" in judged_rules(step(state, a.Reconnect("S1", None)))
    fresh = run(a.Initialize(), a.CallTool("S1"))
    assert "expiry-independent" not in judged_rules(step(fresh, a.Reconnect("S1", None)))


@pytest.mark.covers("no-duplicate-tool-call")
def test_a_request_of_a_session_with_no_call_open_does_not_judge_no_duplicate_tool_call():
    idle = run(a.Initialize())
    assert "no-duplicate-tool-call" not in judged_rules(step(idle, a.Reconnect("S1", None)))
    assert "no-duplicate-tool-call" in judged_rules(step(run(a.CallTool("S1"), state=idle), a.Reconnect("S1", None)))


@pytest.mark.covers("no-cross-session")
def test_a_resumption_is_judged_for_strangers_only_where_another_stream_has_events():
    one_with_events = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.CallTool("S1"), a.DropConnection("T1"))
    assert "no-cross-session" not in judged_rules(step(one_with_events, a.Reconnect("S1", "E1")))
    both = run(a.EmitEvent("T2"), state=one_with_events)
    assert "no-cross-session" in judged_rules(step(both, a.Reconnect("S1", "E1")))
