"""The Z3 encoding and the executable spec agree both ways: every step the spec takes
satisfies its action's transition formula, and every state the invariants; and every
successor the formulas allow from a reached state is a step the spec takes. A change
to either side shows up as a disagreement naming the conjunct or the step."""

import pytest

from dataclasses import replace

from mcp_resume.proofs.system import agreement as ts_agreement

from mcp_resume.proofs.system import transitions as ts_transitions
from mcp_resume.proofs.system.agreement import check_step, structure
from mcp_resume.proofs.system.invariants import by_id
from mcp_resume.proofs.system.logic import PyLogic
from mcp_resume.proofs.system.transitions import Step, status_allowed
from mcp_resume.proofs.system.vocabulary import ActionKind, observation, params, rigid, state
from mcp_resume.spec import transitions
from mcp_resume.proofs.system.converse import check_converse
from mcp_resume.proofs.system.logic import Conjunct
from mcp_resume.spec.actions import (
    CallTool, CloseConnection, DropConnection, EmitEvent, EvictEvent, Initialize, IssueServerRequest, Reconnect, Respond, RestartClient,
)
from mcp_resume.spec import invariants as spec_invariants
from mcp_resume.spec.decision import RESUMPTION_ERRORS
from mcp_resume.spec.invariants import check_state
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import INITIAL_STATE, ClientSession
from mcp_resume.spec.transitions import Observation, enabled, step


def _run(actions, profile=Profile.BOUNDARY):
    current, taken = INITIAL_STATE, []
    for action in actions:
        t = step(current, action, profile)
        taken.append(t)
        current = t.after
    return taken


def test_session_resumption_with_re_emission_is_among_the_steps_checked():
    taken = _run([Initialize(), CallTool("S1"), IssueServerRequest("T1"), DropConnection("T1"), Reconnect("S1", None)])
    assert taken[-1].observation.events and taken[-1].observation.events[0].request == "R1"
    assert check_step(taken[-1], Profile.BOUNDARY) == []
    cancelled = transitions.alternatives(taken[-1].before, taken[-1].action, Profile.BOUNDARY)[1]
    assert cancelled.observation.events[0].cancels == "R1"
    assert check_step(cancelled, Profile.BOUNDARY, canonical=False) == []


def test_a_resumption_that_broadcasts_a_connected_request_breaks_no_broadcast():
    taken = _run([Initialize(), CallTool("S1"), IssueServerRequest("T1"), Reconnect("S1", None)])
    assert taken[-1].observation.events == ()  # T1 still carries R1 on an open connection (B21)
    assert check_step(taken[-1], Profile.BOUNDARY) == []
    old = _run([Initialize(), CallTool("S1"), IssueServerRequest("T1"), DropConnection("T1"), Reconnect("S1", None)])[-1]
    broadcast = replace(old, before=taken[-1].before)  # main's old spec: re-emitted while T1 is connected
    problems = check_step(broadcast, Profile.BOUNDARY)
    assert any("no-broadcast.step" in p for p in problems), problems


def test_a_stream_resumption_that_names_another_stream_breaks_replay_suffix():
    taken = _run([Initialize(), CallTool("S1"), EmitEvent("T1"), DropConnection("T1"), Reconnect("S1", "E1")])[-1]
    assert taken.observation.stream == "T1" and check_step(taken, Profile.BOUNDARY) == []
    misrouted = replace(taken, observation=replace(taken.observation, stream="E1"))  # design 15: an event id as key
    assert [p for p in spec_invariants.replay_suffix(misrouted)]
    problems = check_step(misrouted, Profile.BOUNDARY)
    assert any("replay-suffix.step" in p for p in problems), problems


def test_an_evicted_cursor_answered_200_with_what_the_buffer_kept_breaks_replay_suffix():
    # two events evicted, the cursor the older: what the buffer kept has a gap (an exact suffix after the last
    # evicted event is correct, docs/design.md §2)
    taken = _run([Initialize(), CallTool("S1"), EmitEvent("T1"), EmitEvent("T1"), EvictEvent("T1"), EvictEvent("T1"),
                  EmitEvent("T1"), Reconnect("S1", "E1")])[-1]
    assert taken.outcome.branch.value == "reject-foreign-event-id" and taken.observation.events == ()
    assert check_step(taken, Profile.BOUNDARY) == []
    gap = replace(taken, observation=replace(taken.observation, status=200,
                                             events=(transitions.Delivered("E3", None, "T1"),)))  # design 16
    assert spec_invariants.replay_suffix(gap)
    problems = check_step(gap, Profile.BOUNDARY, canonical=False)
    assert any("replay-suffix.step" in p for p in problems), problems


def _accepts(taken, code, profile=Profile.BOUNDARY) -> bool:
    """Whether the encoding accepts ``code`` for the client step ``taken`` (read on its structure)."""
    L = structure(taken.before, taken.action, taken.observation, taken.after)
    the_step = Step(L, rigid(L), state(L, "pre"), params(L, "step"), observation(L, "obs"), state(L, "post"))
    return bool(status_allowed(the_step, ActionKind(taken.action.kind), profile, code))


def test_a_second_get_stream_may_be_refused_with_any_client_error_but_404_unless_that_strands_a_request():
    # docs/design.md §2: 409 (TypeScript SDK) or 400 (another official SDK); under boundary not once a pending
    # request of the session lost its connection (Outcome.strands)
    with_get = [Initialize(), CallTool("S1"), Reconnect("S1", None), IssueServerRequest("T1")]
    second = _run(with_get + [Reconnect("S1", None)])[-1]
    assert second.outcome.statuses == {200} | RESUMPTION_ERRORS
    assert all(_accepts(second, code) for code in (400, 403, 409, 422)) and not _accepts(second, 404)
    stranded = _run(with_get + [DropConnection("T1"), Reconnect("S1", None)])[-1]
    assert stranded.outcome.strands and stranded.outcome.statuses == {200}
    assert not any(_accepts(stranded, code) for code in (400, 409))
    relaxed = _run(with_get + [DropConnection("T1"), Reconnect("S1", None)], Profile.MCP_2025_11_25)[-1]
    assert _accepts(relaxed, 409, Profile.MCP_2025_11_25) and _accepts(relaxed, 400, Profile.MCP_2025_11_25)
    first = _run([Initialize(), Reconnect("S1", None)])[-1]  # no GET stream yet: 409 only
    assert _accepts(first, 409) and not _accepts(first, 400)
    connected = _run([Initialize(), CallTool("S1"), EmitEvent("T1"), Reconnect("S1", "E1")])[-1]  # T1 still connected
    assert _accepts(connected, 400) and _accepts(connected, 409) and not _accepts(connected, 404)
    for taken in (second, stranded, first, connected):
        assert check_step(taken, Profile.BOUNDARY) == []
    assert check_step(relaxed, Profile.MCP_2025_11_25) == []


def test_a_cursor_its_ring_buffer_evicted_last_may_be_answered_with_the_exact_replay():
    # docs/design.md §2: an evicted cursor is refused, or answered with the exact rest when every later event is kept
    taken = _run([Initialize(), CallTool("S1"), EmitEvent("T1"), DropConnection("T1"), EmitEvent("T1"), EvictEvent("T1"),
                  Reconnect("S1", "E1")])[-1]
    assert taken.outcome.branch.value == "reject-foreign-event-id" and taken.outcome.stream == "T1"
    exact = transitions.exact_after_eviction(taken.before, taken.action, Profile.BOUNDARY)
    assert exact.observation.status == 200 and [d.event for d in exact.observation.events] == ["E2"]
    assert exact.after.stream("T1").connected
    assert _accepts(taken, 200) and check_step(taken, Profile.BOUNDARY) == []
    assert check_step(exact, Profile.BOUNDARY, canonical=False) == []
    older = _run([Initialize(), CallTool("S1"), EmitEvent("T1"), EmitEvent("T1"), EvictEvent("T1"), EvictEvent("T1"),
                  EmitEvent("T1"), Reconnect("S1", "E1")])[-1]  # E2 evicted too: the rest has a gap
    assert transitions.exact_after_eviction(older.before, older.action, Profile.BOUNDARY) is None
    assert not _accepts(older, 200)


def test_an_off_by_one_replay_in_the_spec_is_a_disagreement(monkeypatch):
    original = transitions._resume_stream

    def off_by_one(state, outcome):  # design 7's fault, written into the spec
        ids = [e.id for e in state.events_of(outcome.stream)]
        cursor = ids[len(ids) - len(outcome.replay) - 1]
        return original(state, replace(outcome, replay=(cursor,) + outcome.replay))

    monkeypatch.setattr(transitions, "_resume_stream", off_by_one)
    taken = _run([Initialize(), CallTool("S1"), EmitEvent("T1"), EmitEvent("T1"), Reconnect("S1", "E1")])
    problems = check_step(taken[-1], Profile.BOUNDARY)
    assert any("tr.reconnect.delivered" in p for p in problems), problems
    assert any("replay-suffix.step" in p for p in problems), problems


def test_the_initial_state_is_the_encodings_initial_state():
    assert ts_agreement.check_initial_state() == []


def test_an_invariant_read_on_a_bad_state_is_false_like_the_specs():
    taken = _run([Initialize(), Initialize(), CallTool("S1"), EmitEvent("T1"), RestartClient()])
    good = taken[-1].after
    bad = good.with_client_session(ClientSession("S2", (("T1", "E1"),)))  # S2 holds a cursor of S1's stream
    assert check_state(good) == [] and [f.rule for f in check_state(bad)] == ["no-cross-session"]
    for current, expected in ((good, True), (bad, False)):
        L = structure(current, RestartClient(), Observation(), current)
        assert by_id("no-cross-session.cursors").formula(L, rigid(L), state(L, "pre")) is expected


def test_a_structure_interprets_every_symbol_the_formulas_use():
    taken = _run([Initialize(), CallTool("S1"), EmitEvent("T1")])
    L = structure(taken[-1].before, taken[-1].action, taken[-1].observation, taken[-1].after)
    assert isinstance(L, PyLogic)
    assert L.values["obs.delivered"] == {"E1"} and L.values["step.new_event"] == "E1"
    assert L.values["owner"]["T1"] == "S1" and ("S1", "T1", "E1") in L.values["post.cursor"]


def _state_after(actions):
    return _run(actions)[-1].after


def test_a_resumption_re_emitting_two_pending_requests_is_the_only_successor_the_formulas_allow():
    dropped = _state_after([Initialize(), CallTool("S1"), IssueServerRequest("T1"), IssueServerRequest("T1"),
                            DropConnection("T1")])
    assert [r.id for r in dropped.requests] == ["R1", "R2"]
    report = check_converse([dropped])
    assert report.agrees, report.problems
    assert report.states == 1 and report.successors > 30


def test_a_formula_more_permissive_than_the_spec_is_caught_by_the_converse_only(monkeypatch):
    emit = ts_transitions._EFFECTS[ActionKind.EMIT_EVENT]

    def on_any_issued_stream(the_step, semantics):  # an encoding bug: emitting on an ended stream
        effect = emit(the_step, semantics)
        L, X, t = the_step.L, the_step.X, the_step.A.target_stream
        effect.conjuncts[0] = Conjunct("tr.emit_event.enabled", L.and_(X.t_issued(t), X.s_live(the_step.R.owner(t))))
        return effect

    monkeypatch.setitem(ts_transitions._EFFECTS, ActionKind.EMIT_EVENT, on_any_issued_stream)
    ended = _run([Initialize(), CallTool("S1"), Respond("T1")])
    assert all(check_step(t, Profile.BOUNDARY) == [] for t in ended)  # the spec's own steps still satisfy it
    report = check_converse([ended[-1].after])
    assert len(report.problems) == 1
    assert "the formulas allow emit_event(target_stream=T1)" in report.problems[0], report.problems


@pytest.mark.parametrize("profile", [Profile.MCP_2025_03_26, Profile.MCP_2025_11_25])
def test_the_formulas_close_a_post_connection_before_the_response_exactly_where_the_spec_does(profile):
    # B10/C10: before 2025-11-25 a POST stream is not closed before its response; D9 lets the server poll
    state = _state_after([Initialize(), CallTool("S1"), EmitEvent("T1"), Reconnect("S1", None)])
    report = check_converse([state], profile)
    assert report.agrees, report.problems
    forward = [check_step(step(state, CloseConnection(t), profile), profile) for t in ("T1", "T2")
               if enabled(state, CloseConnection(t), profile)]
    assert forward == [[], []] if profile is Profile.MCP_2025_11_25 else forward == [[]]


def test_the_quick_agreement_of_check_runs_the_wide_run_alone_and_says_so(monkeypatch):
    monkeypatch.setattr(ts_agreement, "PROVE_BOUNDS", replace(ts_agreement.PROVE_BOUNDS, sessions=1, depth=2))
    monkeypatch.setattr(ts_agreement, "check_agreement", _refuse_deep(ts_agreement.check_agreement))
    quick = ts_agreement.prove_agreement(deep=False)
    assert quick.deep is None and quick.agrees and quick.runs == (quick.wide,)
    assert set(quick.to_json()) == {"wide"} and quick.wide.forward.transitions > 0
    assert quick.describe().endswith("deep not run (mcp-resume prove runs it)")


def _refuse_deep(check):
    def only_wide(bounds, profile=Profile.BOUNDARY, limit=20):
        assert bounds != ts_agreement.PROVE_DEEP_BOUNDS, "the quick agreement ran the deep run"
        return check(bounds, profile, limit)
    return only_wide
