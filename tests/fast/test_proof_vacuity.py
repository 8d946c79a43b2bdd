"""No proof of the transition system is vacuous: an obligation the action cannot touch
is reported as not applicable, never as proven; every applicable consecution has a
vacuity query whose antecedent some step meets; a vacuous or unknown answer fails."""

import z3

from mcp_resume.proofs.solving import SatResult, ProofStatus
from mcp_resume.proofs.system.invariants import INDUCTIVE, STRENGTHENING, Invariant, by_id
from mcp_resume.proofs.system.proofs import Encoding, _consecution, _vacuity, run_obligation
from mcp_resume.proofs.system.vacuity import antecedent
from mcp_resume.proofs.system.vocabulary import ActionKind
from mcp_resume.jobs.proving import ProfileOutcome, _proof_problems
from mcp_resume.spec.profiles import Profile
from tests.helpers.proof_vacuity import encoding  # noqa: F401 (fixtures)


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


def test_the_antecedent_is_what_the_guards_of_the_implications_need():
    S = z3.DeclareSort("S")
    p, q, r = (z3.Function(n, S, z3.BoolSort()) for n in "pqr")
    x = z3.Const("x", S)
    formula = z3.And(z3.ForAll([x], z3.Implies(p(x), q(x))), z3.Implies(z3.Bool("b"), r(z3.Const("c", S))))
    expected = z3.Or(z3.Exists([x], p(x)), z3.Bool("b"))
    assert z3.Solver().check(z3.Not(antecedent(formula) == expected)) == z3.unsat
    assert z3.is_true(antecedent(z3.ForAll([x], q(x))))
