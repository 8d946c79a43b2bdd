"""No proof of the transition system is vacuous: an obligation the action cannot touch
is reported as not applicable, never as proven; every applicable consecution has a
vacuity query whose antecedent some step meets; a vacuous or unknown answer fails."""

import pytest
import z3

from mcp_resume.proofs.solving import SatResult, ProofStatus
from mcp_resume.proofs.system.invariants import INDUCTIVE, STEP_PROPERTIES, STRENGTHENING, Invariant, by_id
from mcp_resume.proofs.system.proofs import (
    CONSECUTION, INITIATION, VACUITY, Encoding, _consecution, _vacuity, run_obligation, tally,
)
from mcp_resume.proofs.system.vacuity import antecedent
from mcp_resume.proofs.system.vocabulary import ActionKind
from mcp_resume.jobs.proving import ProfileOutcome, _proof_problems
from mcp_resume.spec.profiles import Profile


@pytest.fixture(scope="module")
def boundary(prove_outcome):
    return prove_outcome(Profile.BOUNDARY).proofs


@pytest.fixture(scope="module")
def encoding():
    return Encoding(Profile.BOUNDARY)


def _by_query(results):
    return {r.query: r for r in results}


def test_the_initiation_of_a_step_property_is_not_applicable_never_proven(boundary):
    results = _by_query(boundary)
    for prop in STEP_PROPERTIES:
        r = results[f"{INITIATION}.{prop.id}"]
        assert r.verdict is ProofStatus.NOT_APPLICABLE and r.result is None and not r.proven, r.query
    assert all(results[f"{INITIATION}.{i.id}"].proven for i in INDUCTIVE)


def test_a_property_the_action_cannot_touch_is_not_applicable_with_its_reason(boundary):
    results = _by_query(boundary)
    kind_only = results["consecution.reemit-pending.step.initialize"]
    assert kind_only.verdict is ProofStatus.NOT_APPLICABLE and kind_only.applicability.startswith("structural:")
    framed = results["consecution.wf.live-issued.emit_event"]
    assert framed.verdict is ProofStatus.NOT_APPLICABLE and "frames every relation" in framed.applicability
    by_query = results["consecution.unknown-session-404.step.initialize"]
    assert by_query.applicability.startswith("query:") and "tr.initialize.no-headers" in by_query.applicability
    assert results["vacuity.reemit-pending.step.initialize"].verdict is ProofStatus.NOT_APPLICABLE
    assert results["consecution.reemit-pending.step.reconnect"].proven


def test_every_applicable_consecution_has_a_witnessed_vacuity_query(boundary):
    results = _by_query(boundary)
    applicable = [r for r in boundary if r.kind == CONSECUTION and r.verdict is not ProofStatus.NOT_APPLICABLE]
    assert len(applicable) >= 80
    for r in applicable:
        check = results[f"{VACUITY}.{r.invariant}.{r.action}"]
        assert check.of == r.query and check.result is SatResult.SAT, check.query
        assert r.vacuous is False and (r.proven or r.trivial)
    counted = tally(boundary)
    assert counted.vacuous == 0 and counted.refuted == 0 and counted.unknown == 0
    assert counted.proven + counted.trivial + counted.not_applicable == counted.required
    assert counted.proven == sum(1 for r in boundary if r.kind != VACUITY and r.proven and r.expected is not None)


def _no_session_lives():
    def formula(L, R, X):
        return L.forall(("SessionId",), lambda s: L.not_(X.s_live(s)))
    return Invariant("wf.no-session-lives", None, STRENGTHENING, "no session is live (too strong)", formula)


def test_an_invariant_that_rules_out_every_trigger_makes_the_consecution_vacuous():
    encoding = Encoding(Profile.BOUNDARY, invariants=INDUCTIVE + (_no_session_lives(),))
    prop = by_id("reemit-pending.step")
    proof = run_obligation(encoding, _consecution(prop, ActionKind.RECONNECT))
    check = run_obligation(encoding, _vacuity(prop, ActionKind.RECONNECT))
    assert proof.verdict is ProofStatus.PROVEN  # it "holds": no session is live, so no resumption ever succeeds
    assert check.result is SatResult.UNSAT and check.holds is False
    outcome = ProfileOutcome(Profile.BOUNDARY, None, [proof, check], [], {}, 0.0)
    assert _proof_problems(outcome) == ["consecution.reemit-pending.step.reconnect is vacuous: no step from a "
                                        "state the invariants allow meets its antecedent"]


def test_an_answer_cut_by_the_resource_limit_is_unknown_never_proven(encoding):
    result = run_obligation(encoding, _consecution(by_id("replay-suffix.step"), ActionKind.RECONNECT), rlimit=1)
    assert result.result is SatResult.UNKNOWN and result.verdict is ProofStatus.UNKNOWN
    assert result.holds is False and not result.proven
    assert tally([result]).unknown == 1 and tally([result]).proven == 0


def test_the_antecedent_is_what_the_guards_of_the_implications_need():
    S = z3.DeclareSort("S")
    p, q, r = (z3.Function(n, S, z3.BoolSort()) for n in "pqr")
    x = z3.Const("x", S)
    formula = z3.And(z3.ForAll([x], z3.Implies(p(x), q(x))), z3.Implies(z3.Bool("b"), r(z3.Const("c", S))))
    expected = z3.Or(z3.Exists([x], p(x)), z3.Bool("b"))
    assert z3.Solver().check(z3.Not(antecedent(formula) == expected)) == z3.unsat
    assert z3.is_true(antecedent(z3.ForAll([x], q(x))))
