"""The transition relation of spec/transitions.py pinned where its guards decide: which actions
are enabled, which alternatives a session resumption has, what an answer to a request no
longer pending changes, and what the client remembers of one delivery."""

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import INITIAL_STATE, RequestStatus
from mcp_resume.spec.transitions import (
    Pending,
    alternative,
    alternatives,
    enabled,
    exact_after_eviction,
    step,
    step_if_enabled,
)
from tests.helpers.spec_steps import run

MCP = Profile.MCP_2025_11_25


# S1: T1 (POST, E1 carrying R1, E2 carrying R2, dropped)
OWED = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.IssueServerRequest("T1"),
           a.DropConnection("T1"))


def test_client_requests_are_always_enabled_whatever_their_headers_name():
    for action in (a.CallTool("S9"), a.Reconnect(None, "E7"), a.AnswerRequest("S1", "R9"), a.DeleteSession("bad id"),
                   a.Initialize(), a.RestartClient()):
        assert enabled(INITIAL_STATE, action)


def test_a_stream_ends_once_and_a_connection_closes_only_while_connected():
    ended = run(a.Respond("T1"), state=OWED)
    assert not enabled(ended, a.Respond("T1"))
    with pytest.raises(ValueError, match="not enabled"):
        step(ended, a.Respond("T1"))
    assert not enabled(OWED, a.CloseConnection("T1"))  # T1 already lost its connection
    assert enabled(run(a.Reconnect("S1", "E1"), state=OWED), a.CloseConnection("T1"))


def test_the_steps_default_profile_is_boundary():
    assert step_if_enabled(OWED, a.Reconnect("S1", None)) == step(OWED, a.Reconnect("S1", None), Profile.BOUNDARY)
    evicted = run(a.EvictEvent("T1"), state=OWED)
    assert exact_after_eviction(evicted, a.Reconnect("S1", "E1")) == exact_after_eviction(
        evicted, a.Reconnect("S1", "E1"), Profile.BOUNDARY)


@pytest.mark.covers("reject-foreign-event-id")
def test_the_exact_replay_after_an_eviction_carries_no_refusals_error_code():
    evicted = run(a.EvictEvent("T1"), state=OWED)
    t = exact_after_eviction(evicted, a.Reconnect("S1", "E1"))
    assert t.observation.status == 200 and t.observation.error is None
    assert step(evicted, a.Reconnect("S1", "E1")).observation.error is not None  # the refusal's


@pytest.mark.covers("reemit-pending")
def test_only_a_session_resumption_with_requests_to_deal_with_has_alternatives():
    assert alternatives(OWED, a.EmitEvent("T1")) == (step(OWED, a.EmitEvent("T1")),)
    assert alternatives(OWED, a.CallTool("S1")) == (step(OWED, a.CallTool("S1")),)
    quiet = run(a.Initialize(), a.Reconnect("S1", None))
    assert alternatives(quiet, a.Reconnect("S1", None)) == (step(quiet, a.Reconnect("S1", None)),)
    assert len(alternatives(OWED, a.Reconnect("S1", None))) == 4


@pytest.mark.covers("reemit-pending")
def test_one_alternative_is_built_for_a_plan_the_profile_accepts():
    resume = a.Reconnect("S1", None)
    assert alternative(OWED, resume, Profile.BOUNDARY, (Pending.REEMIT, Pending.REEMIT)) == step(OWED, resume)
    mixed = alternative(OWED, resume, Profile.BOUNDARY, (Pending.CANCEL, Pending.REEMIT))
    assert [(d.request, d.cancels) for d in mixed.observation.events] == [(None, "R1"), ("R2", None)]
    assert mixed in alternatives(OWED, resume)
    cancelled = alternative(OWED, resume, Profile.BOUNDARY, (Pending.CANCEL, Pending.CANCEL))
    assert [(d.request, d.cancels) for d in cancelled.observation.events] == [(None, "R1"), (None, "R2")]
    left = alternative(OWED, resume, MCP, (Pending.LEAVE, Pending.REEMIT))
    assert [(d.request, d.cancels) for d in left.observation.events] == [("R2", None)]


@pytest.mark.covers("reemit-pending")
def test_no_alternative_for_another_step_another_length_or_a_choice_the_profile_refuses():
    resume = a.Reconnect("S1", None)
    assert alternative(OWED, a.EmitEvent("T1"), Profile.BOUNDARY, ()) is None
    assert alternative(OWED, a.Reconnect("S1", "E1"), Profile.BOUNDARY, ()) is None
    assert alternative(OWED, a.CallTool("S1"), Profile.BOUNDARY, ()) is None
    assert alternative(OWED, resume, Profile.BOUNDARY, (Pending.REEMIT,)) is None
    assert alternative(OWED, resume, Profile.BOUNDARY, (Pending.REEMIT,) * 3) is None
    assert alternative(OWED, resume, Profile.BOUNDARY, (Pending.LEAVE, Pending.REEMIT)) is None


@pytest.mark.covers("session-identity-stable")
def test_an_answer_changes_only_a_pending_request_of_a_live_session():
    cancelled = run(a.CancelRequest("R1"), state=OWED)
    assert step(cancelled, a.AnswerRequest("S1", "R1")).after.request("R1").status is RequestStatus.CANCELLED
    deleted = run(a.DeleteSession("S1"), state=OWED)
    assert deleted.request("R2").status is RequestStatus.PENDING
    assert step(deleted, a.AnswerRequest("S1", "R2")).after.request("R2").status is RequestStatus.PENDING
    assert step(OWED, a.AnswerRequest("S1", "R2")).after.request("R2").status is RequestStatus.ANSWERED


def test_a_client_remembers_every_request_one_replay_delivers():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.IssueServerRequest("T1"),
                a.IssueServerRequest("T1"), a.DropConnection("T1"), a.RestartClient())
    assert state.client_session("S1").seen == ()
    after = step(state, a.Reconnect("S1", "E1")).after
    assert after.client_session("S1").seen == ("R1", "R2")
    assert after.client_session("S1").cursor("T1") == "E3"
