"""Proven means more than the encoding restating itself: an obligation unsat from its
action's effect equations alone is reported trivial, apart from proven; no-broadcast
(B21) has step obligations that are proven, for a re-emitted request and for one
issued in the step; the counts are printed apart; and ``prove`` checks the agreement
of the encoding with the spec as deep as a re-emission, with two server requests."""

import json

import pytest

from mcp_resume.proofs.artifacts import RESULTS
from mcp_resume.proofs.solving import Meter, SatResult, ProofStatus
from mcp_resume.proofs.system import transitions as ts_transitions
from mcp_resume.proofs.system.agreement import PROVE_DEEP_CONVERSE_DEPTH, owed, reemission_states
from mcp_resume.proofs.system.invariants import STEP, Invariant, by_id
from mcp_resume.proofs.system.logic import EVENT, SESSION, STREAM, Conjunct
from mcp_resume.proofs.system.proofs import CONSECUTION, VACUITY, Encoding, _consecution, run_obligation, tally
from mcp_resume.proofs.system.transitions import effect_equations
from mcp_resume.proofs.system.triviality import effect_check
from mcp_resume.proofs.system.vocabulary import ActionKind
from mcp_resume.jobs.proving import headline
from mcp_resume.spec.profiles import Profile


@pytest.fixture(scope="module")
def outcome(prove_outcome):
    return prove_outcome(Profile.BOUNDARY)


@pytest.fixture(scope="module")
def results(outcome):
    return {r.query: r for r in outcome.proofs}


def _step_property(name, formula):
    return Invariant(f"synthetic.{name}", None, STEP, name, formula)


# -- no-broadcast (B21): proven, not filed away -------------------------------------------


def test_no_broadcast_has_proven_step_obligations_for_a_re_emitted_and_a_new_request(results):
    for action in ("reconnect", "issue_server_request"):
        proof = results[f"{CONSECUTION}.no-broadcast.step.{action}"]
        assert proof.verdict is ProofStatus.PROVEN and proof.proven, (proof.query, proof.triviality)
        assert proof.effect_only is SatResult.SAT  # without its assumptions the property breaks
        assert results[f"{VACUITY}.no-broadcast.step.{action}"].result is SatResult.SAT  # its hypothesis is met
    reemitted = results["consecution.no-broadcast.step.reconnect"].core
    assert "def.stranded" in reemitted  # the resumption re-emits only what no open connection carries
    issued = results["consecution.no-broadcast.step.issue_server_request"].core
    assert "tr.issue_server_request.fresh-request" in issued and any(n.startswith("inv.") for n in issued)


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


# -- trivial, apart from proven -------------------------------------------------------------


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


def test_the_restating_step_obligations_are_reported_trivial(results):
    for query in ("consecution.no-replay-on-session-resume.step.reconnect",
                  "consecution.no-reemit-on-stream-resume.step.reconnect",
                  "consecution.session-identity-stable.step.call_tool",
                  "consecution.event-id-unique.step.emit_event"):
        proof = results[query]
        assert proof.verdict is ProofStatus.TRIVIAL and not proof.proven and proof.holds, query
        assert set(proof.effect_core) - {"goal"} <= effect_equations(ActionKind(proof.action)), query
    assert "tr.reconnect.delivered" in results["consecution.no-replay-on-session-resume.step.reconnect"].effect_core


def test_the_six_counts_share_no_obligation_and_only_the_proven_count_as_proofs(outcome):
    counted = tally(outcome.proofs)
    classes = (counted.proven, counted.trivial, counted.not_applicable, counted.vacuous, counted.refuted,
               counted.unknown)
    assert sum(classes) == counted.required and counted.trivial >= 20 and counted.proven >= 100
    summary = outcome.summary()
    assert "obligations_holding" not in summary
    assert [summary[f"obligations_{k}"] for k in ("proven", "trivial", "not_applicable", "vacuous")] == list(classes[:4])


def test_the_headline_prints_proven_trivial_not_applicable_and_vacuous_apart(outcome, capsys):
    from mcp_resume.jobs.proving import print_outcome as _print

    counted = tally(outcome.proofs)
    line = headline(outcome)
    assert line.startswith(f"boundary: {counted.proven} proven, {counted.trivial} trivial, "
                           f"{counted.not_applicable} not applicable, {counted.vacuous} vacuous, ")
    assert f"of {counted.required} required obligations" in line and "hold" not in line
    _print(outcome)
    assert capsys.readouterr().out.splitlines()[0] == line


def test_the_results_file_marks_trivial_obligations(outcome):
    queries = {q["id"]: q for q in json.loads((outcome.folder / RESULTS).read_text())["queries"]}
    trivial = queries["consecution.no-replay-on-session-resume.step.reconnect"]
    assert (trivial["result"], trivial["verdict"], trivial["effect_only"]) == ("unsat", "trivial", "unsat")
    proven = queries["consecution.no-broadcast.step.reconnect"]
    assert (proven["verdict"], proven["effect_only"], proven["effect_core"]) == ("proven", "sat", [])


# -- the agreement inside prove reaches a re-emission ---------------------------------------


def test_prove_checks_agreement_as_deep_as_a_re_emission_with_two_server_requests(outcome):
    deep = outcome.agreement.deep
    assert deep.agrees, deep.problems()
    assert deep.bounds.depth >= 5 and deep.bounds.requests >= 2
    assert deep.forward.reemissions > 0  # spec steps that re-emit a pending request were checked
    assert max(len(s.requests) for s in deep.forward.reached) == 2
    start = reemission_states(deep.forward, PROVE_DEEP_CONVERSE_DEPTH)
    assert deep.converse.states == len(start) and any(owed(s) == 2 for s in start)
    written = json.loads((outcome.folder / RESULTS).read_text())["agreement"]
    assert "depth 5" in written["deep"]["bounds"] and written["deep"]["spec_to_formulas"]["reemissions"] > 0
