"""The fragment classifier: acyclic sort graphs are EPR, a Skolem function that closes
a cycle is not, and polarity decides which quantifiers are existential."""

import z3

from mcp_resume.proofs.system.fragment import EPR, OUTSIDE, QUANTIFIER_FREE, Classifier


def _setup():
    ctx = z3.Context()
    event, request = z3.DeclareSort("EventId", ctx), z3.DeclareSort("RequestId", ctx)
    carries = z3.Function("carries", event, request, z3.BoolSort(ctx))
    reemit = z3.Function("reemit", request, event)
    e, r = z3.Const("e", event), z3.Const("r", request)
    return Classifier({"EventId", "RequestId"}), carries, reemit, e, r


def test_a_function_alone_is_epr():
    classifier, carries, reemit, e, r = _setup()
    fragment = classifier.classify([z3.ForAll([r], carries(reemit(r), r))])
    assert fragment.name == EPR and fragment.edges == (("RequestId", "EventId"),)


def test_an_existential_under_a_universal_that_closes_a_cycle_is_outside_epr():
    classifier, carries, reemit, e, r = _setup()
    every_event_carries = z3.ForAll([e], z3.Exists([r], carries(e, r)))
    fragment = classifier.classify([z3.ForAll([r], carries(reemit(r), r)), every_event_carries])
    assert fragment.name == OUTSIDE
    assert set(fragment.cycle) == {"EventId", "RequestId"} and "outside EPR" in fragment.describe()


def test_a_negated_universal_is_existential_and_a_negated_existential_universal():
    classifier, carries, reemit, e, r = _setup()
    negated_goal = z3.Not(z3.ForAll([e], z3.Exists([r], carries(e, r))))  # ∃e ∀r: no Skolem function
    assert classifier.classify([z3.ForAll([r], carries(reemit(r), r)), negated_goal]).name == EPR
    under_iff = z3.ForAll([e], z3.Exists([r], carries(e, r)) == z3.BoolVal(True, e.ctx))
    assert classifier.classify([z3.ForAll([r], carries(reemit(r), r)), under_iff]).name == OUTSIDE


def test_ground_formulas_are_quantifier_free_and_integers_are_noted():
    classifier, carries, reemit, e, r = _setup()
    status = z3.Int("status", e.ctx)
    fragment = classifier.classify([carries(e, r), status == 200])
    assert fragment.name == QUANTIFIER_FREE and fragment.arithmetic
