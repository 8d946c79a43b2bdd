"""Proven means more than the encoding restating itself: an obligation unsat from its
action's effect equations alone is reported trivial, apart from proven; no-broadcast
(B21) has step obligations that are proven, for a re-emitted request and for one
issued in the step; the counts are printed apart; and ``prove`` checks the agreement
of the encoding with the spec as deep as a re-emission, with two server requests."""

from mcp_resume.proofs.solving import Meter, SatResult, ProofStatus
from mcp_resume.proofs.system import transitions as ts_transitions
from mcp_resume.proofs.system.invariants import STEP, Invariant, by_id
from mcp_resume.proofs.system.logic import EVENT, SESSION, STREAM, Conjunct
from mcp_resume.proofs.system.proofs import Encoding, _consecution, run_obligation, tally
from mcp_resume.proofs.system.transitions import effect_equations
from mcp_resume.proofs.system.triviality import effect_check
from mcp_resume.proofs.system.vocabulary import ActionKind
from mcp_resume.spec.profiles import Profile


def _step_property(name, formula):
    return Invariant(f"synthetic.{name}", None, STEP, name, formula)


def test_no_broadcast_catches_a_request_issued_in_the_step_and_sent_on_two_streams(monkeypatch):
    issue = ts_transitions._EFFECTS[ActionKind.ISSUE_SERVER_REQUEST]

    def on_two_streams(the_step, semantics):  # an encoding bug: the new request also goes out on another stream
        effect = issue(the_step, semantics)
        L, R, X, A, sent = the_step.L, the_step.R, the_step.X, the_step.A, effect.delivered
        copy = lambda x: L.and_(L.eq(x, A.target_event), L.not_(X.e_issued(x)), R.carries(x, A.new_request),
                                L.not_(L.eq(R.stream_of(x), A.target_stream)))
        effect.delivered = lambda x: L.or_(sent(x), copy(x))
        return effect

    monkeypatch.setitem(ts_transitions._EFFECTS, ActionKind.ISSUE_SERVER_REQUEST, on_two_streams)
    proof = run_obligation(Encoding(Profile.BOUNDARY), _consecution(by_id("no-broadcast.step"),
                                                                    ActionKind.ISSUE_SERVER_REQUEST))
    assert proof.result is SatResult.SAT and proof.verdict is ProofStatus.REFUTED
    assert "action: issue_server_request(stream=T" in proof.counterexample


def test_no_broadcast_catches_a_resumption_that_re_emits_a_request_on_an_open_connection(monkeypatch):
    def every_request_stranded(the_step):  # an encoding bug: the resumption ignores open connections
        L = the_step.L
        return Conjunct("def.stranded", L.forall(("RequestId",), lambda r: the_step.A.stranded(r)))

    monkeypatch.setattr(ts_transitions, "stranded_definition", every_request_stranded)
    proof = run_obligation(Encoding(Profile.BOUNDARY), _consecution(by_id("no-broadcast.step"), ActionKind.RECONNECT))
    assert proof.result is SatResult.SAT and "action: reconnect(session=S" in proof.counterexample


def test_a_property_the_frame_conditions_carry_is_trivial_not_proven():
    kept = _step_property("sessions-kept", lambda step, profile: step.L.forall(
        (SESSION,), lambda s: step.L.iff(step.Y.s_live(s), step.X.s_live(s))))
    proof = run_obligation(Encoding(Profile.BOUNDARY), _consecution(kept, ActionKind.CALL_TOOL))
    assert proof.result is SatResult.UNSAT and proof.verdict is ProofStatus.TRIVIAL
    assert proof.trivial and not proof.proven and proof.holds
    assert set(proof.effect_core) - {"goal"} <= effect_equations(ActionKind.CALL_TOOL)
    assert "tr.call_tool.s_live.frame" in proof.effect_core
    counted = tally([proof])
    assert (counted.trivial, counted.proven, counted.required) == (1, 0, 1)


def test_a_property_that_needs_an_invariant_or_a_guard_is_proven():
    encoding = Encoding(Profile.BOUNDARY)
    connected_issued = _step_property("connected-issued", lambda step, profile: step.L.forall(
        (STREAM,), lambda t: step.L.implies(step.Y.t_connected(t), step.Y.t_issued(t))))
    fresh = _step_property("sent-fresh", lambda step, profile: step.L.forall(
        (EVENT,), lambda e: step.L.implies(step.O.delivered(e), step.L.not_(step.X.e_issued(e)))))
    for prop, action, needed in ((connected_issued, ActionKind.DROP_CONNECTION, "inv."),
                                 (fresh, ActionKind.EMIT_EVENT, "tr.emit_event.fresh-event")):
        proof = run_obligation(encoding, _consecution(prop, action))
        assert proof.verdict is ProofStatus.PROVEN and proof.effect_only is SatResult.SAT, proof.triviality
        assert any(n.startswith(needed) for n in proof.core), proof.core


def test_a_core_within_the_effect_equations_settles_triviality_without_a_query():
    encoding = Encoding(Profile.BOUNDARY)
    conjuncts = encoding.transitions[ActionKind.CALL_TOOL] + [Conjunct("goal", encoding.L.false())]
    checked = effect_check(conjuncts, ActionKind.CALL_TOOL, ("goal", "tr.call_tool.kind"), Meter(encoding.L.ctx))
    assert checked.trivial and not checked.queried and "its own unsat core" in checked.describe()


def test_the_effect_equations_leave_out_exactly_the_guards_and_definitions():
    encoding = Encoding(Profile.BOUNDARY)
    guards = ("enabled", "status", "dealing-events", "fresh-event", "fresh-request", "fresh-session",
              "fresh-post-stream", "fresh-get-stream")
    for kind in ActionKind:
        names = {c.name for c in encoding.transitions[kind]}
        effects = effect_equations(kind)
        assert f"tr.{kind.value}.delivered" in names & effects and f"tr.{kind.value}.s_live" in {
            n.removesuffix(".frame") for n in names & effects}
        left_out = names - effects
        assert all(n.startswith("def.") or n.rsplit(".", 1)[-1] in guards for n in left_out), (kind, left_out)
