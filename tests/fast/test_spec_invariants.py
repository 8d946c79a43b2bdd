"""Each invariant of docs/design.md §4 holds on the spec, and each predicate can fail."""

from dataclasses import replace

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec import invariants as inv
from mcp_resume.spec.state import ClientSession, Event, ServerRequest, Session, SessionStatus
from mcp_resume.spec.transitions import Delivered, step
from tests.helpers.spec_steps import run


TWO_SESSIONS = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.CallTool("S2"), a.IssueServerRequest("T2"))


def test_the_states_built_here_satisfy_every_state_invariant():
    assert inv.check_state(TWO_SESSIONS) == []


@pytest.mark.covers("event-id-unique")
def test_event_id_unique_catches_a_reused_event_id():
    state = replace(TWO_SESSIONS, events=TWO_SESSIONS.events + (Event("E1", "T2"),))
    assert inv.event_id_unique(state)


@pytest.mark.covers("no-cross-session")
def test_no_cross_session_catches_a_cursor_into_another_session():
    state = TWO_SESSIONS.with_client_session(ClientSession("S2", (("T1", "E1"),)))
    assert inv.no_cross_session_state(state)


@pytest.mark.covers("server-request-ownership")
def test_server_request_ownership_catches_a_request_issued_on_another_sessions_stream():
    state = TWO_SESSIONS.with_request(ServerRequest("R1", "S1", "T2"))
    assert inv.server_request_ownership_state(state)


@pytest.mark.covers("expiry-independent")
def test_expiry_independent_catches_an_ended_session_with_a_retained_stream():
    state = TWO_SESSIONS.with_session(Session("S1", SessionStatus.EXPIRED))
    assert inv.expiry_independent_state(state)


@pytest.mark.covers("session-identity-stable")
def test_session_identity_stable_catches_one_id_for_two_sessions():
    state = replace(TWO_SESSIONS, sessions=TWO_SESSIONS.sessions + (Session("S1"),))
    assert inv.session_identity_stable_state(state)


def observed(transition, **changes):
    return replace(transition, observation=replace(transition.observation, **changes))


DROPPED = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"),
              a.IssueServerRequest("T1"), a.DropConnection("T1"), a.CallTool("S2"), a.EmitEvent("T2"))
STREAM_RESUME = step(DROPPED, a.Reconnect("S1", "E1"))
SESSION_RESUME = step(DROPPED, a.Reconnect("S1", None))


def test_the_reference_steps_pass_every_transition_check():
    for transition in (STREAM_RESUME, SESSION_RESUME):
        assert inv.check_transition(transition, transition.observation) == []


@pytest.mark.covers("replay-suffix")
def test_replay_suffix_catches_the_cursors_own_event_a_gap_and_a_reorder():
    events = STREAM_RESUME.observation.events
    for wrong in ((Delivered("E1"),) + events, events[1:], tuple(reversed(events))):
        assert inv.replay_suffix(observed(STREAM_RESUME, events=wrong))


@pytest.mark.covers("no-cross-session")
def test_no_cross_session_catches_an_event_of_another_session():
    wrong = STREAM_RESUME.observation.events + (Delivered("E4"),)
    assert inv.no_cross_session(observed(STREAM_RESUME, events=wrong))


@pytest.mark.covers("no-replay-on-session-resume")
def test_no_replay_on_session_resume_catches_a_replayed_past_event():
    wrong = (Delivered("E1"),) + SESSION_RESUME.observation.events
    assert inv.no_replay_on_session_resume(observed(SESSION_RESUME, events=wrong))


@pytest.mark.covers("no-reemit-on-stream-resume")
def test_no_reemit_on_stream_resume_catches_a_request_sent_again():
    wrong = STREAM_RESUME.observation.events + (Delivered("E99", "R1"),)
    assert inv.no_reemit_on_stream_resume(observed(STREAM_RESUME, events=wrong))


@pytest.mark.covers("reemit-pending")
def test_reemit_pending_catches_a_stranded_request():
    assert SESSION_RESUME.outcome.reemit == ("R1",)
    assert inv.reemit_pending(observed(SESSION_RESUME, events=()))


@pytest.mark.covers("reemit-keeps-pending")
def test_reemit_keeps_pending_catches_a_request_lost_after_its_first_reemission():
    again = step(run(a.DropConnection("T3"), state=SESSION_RESUME.after), a.Reconnect("S1", None))
    assert inv.reemit_keeps_pending(again) == []
    assert inv.reemit_keeps_pending(observed(again, events=()))
    assert inv.reemit_pending(observed(again, events=())) == []


@pytest.mark.covers("server-request-ownership")
def test_server_request_ownership_catches_a_request_of_another_session():
    other = step(run(a.IssueServerRequest("T2"), state=DROPPED), a.Reconnect("S1", None))
    wrong = other.observation.events + (Delivered("E5", "R2"),)
    assert inv.server_request_ownership(observed(other, events=wrong))


@pytest.mark.covers("session-identity-stable")
def test_session_identity_stable_catches_a_resumption_answered_under_another_session_id():
    assert inv.session_identity_stable(observed(SESSION_RESUME, session="S2"))
    assert inv.session_identity_stable(observed(SESSION_RESUME, session="S1")) == []
    minted_again = step(DROPPED, a.Initialize())
    assert inv.session_identity_stable(observed(minted_again, session="S1"))


def test_a_resumption_that_changes_the_session_is_a_sanity_finding_of_the_spec_not_a_server_check():
    changed = replace(SESSION_RESUME, after=SESSION_RESUME.after.with_session(Session("S1", SessionStatus.DELETED)))
    assert [f.rule for f in inv.check_sanity(changed)] == ["session-identity-stable"]
    assert inv.check_transition(changed, changed.observation) == []


@pytest.mark.covers("expiry-independent")
def test_expiry_independent_catches_an_expiry_that_closes_the_sessions_other_connections():
    state = run(a.CallTool("S2"), state=DROPPED)
    expiry = step(state, a.ExpireStream("T2"))
    assert inv.expiry_independent(expiry) == []
    assert inv.expiry_independent(observed(expiry, closed=("T2", "T3")))


@pytest.mark.covers("event-id-unique", "reject-foreign-event-id")
def test_an_unresolvable_event_id_and_a_wrong_status_are_findings():
    assert inv.event_id_resolves(observed(SESSION_RESUME, events=(Delivered("?x"),)))
    assert inv.status_check(observed(SESSION_RESUME, status=404))
    findings = inv.check_transition(observed(step(DROPPED, a.Reconnect("S2", "E1")), status=200))
    assert [f.rule for f in findings] == ["reject-foreign-event-id"]


def test_a_difference_no_rule_explains_is_filed_under_agreement():
    emit = step(DROPPED, a.EmitEvent("T2"))
    findings = inv.check_transition(observed(emit, closed=("T2",)), emit.observation)
    assert [f.rule for f in findings] == ["agreement"]


@pytest.mark.covers("replay-suffix")
def test_an_event_sent_on_an_open_connection_reaches_it():
    emit = step(DROPPED, a.EmitEvent("T2"))
    assert [f.rule for f in inv.check_transition(observed(emit, events=()))] == ["replay-suffix"]
    dropped = step(step(DROPPED, a.DropConnection("T2")).after, a.EmitEvent("T2"))
    assert inv.check_transition(observed(dropped, events=())) == []  # no connection: stored for a replay
