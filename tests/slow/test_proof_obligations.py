"""The transition system's invariants are proven for any number of entities, and the
proofs are not vacuous: a weakened invariant or a broken transition formula makes
consecution fail with a readable counterexample to induction."""

import pytest

from mcp_resume.proofs.system.invariants import INDUCTIVE, STEP_PROPERTIES, by_id
from mcp_resume.proofs.system.proofs import ALONE, CONSECUTION, ENABLED, INITIATION, VACUITY
from mcp_resume.proofs.system.vocabulary import ActionKind
from mcp_resume.spec.profiles import Profile


@pytest.fixture(scope="module")
def boundary(prove_outcome):
    return prove_outcome(Profile.BOUNDARY).proofs


@pytest.mark.xdist_group("test_proof_obligations")  # shares a module-scoped fixture
def test_every_invariant_holds_initially_and_is_kept_by_every_action(boundary):
    failed = [r.query for r in boundary if r.kind in (INITIATION, CONSECUTION, VACUITY) and not r.holds]
    assert failed == []
    invariants = INDUCTIVE + STEP_PROPERTIES
    consecutions = {(r.invariant, r.action) for r in boundary if r.kind == CONSECUTION}
    assert consecutions == {(i.id, k.value) for i in invariants for k in ActionKind}
    assert {r.invariant for r in boundary if r.kind == INITIATION} == {i.id for i in invariants}


@pytest.mark.xdist_group("test_proof_obligations")  # shares a module-scoped fixture
def test_every_design_rule_with_a_safety_reading_is_proven(boundary):
    proven = {r.rule for r in boundary if r.kind == CONSECUTION and r.proven}
    assert {
        "replay-suffix", "no-cross-session", "no-broadcast", "reemit-pending", "reemit-keeps-pending",
        "reject-orphan-event-id", "reject-foreign-event-id", "unknown-session-404", "session-identity-stable",
        "expiry-independent", "event-id-unique", "server-request-ownership", "no-duplicate-tool-call",
    } <= proven
    # these two hold only by the reconnect's own definitions of what it delivers: trivial, not proven
    assert not {"no-replay-on-session-resume", "no-reemit-on-stream-resume"} & proven


@pytest.mark.xdist_group("test_proof_obligations")  # shares a module-scoped fixture
def test_no_proof_holds_vacuously_every_action_and_both_resumptions_can_happen(boundary):
    enabled = [r for r in boundary if r.kind == ENABLED]
    assert len(enabled) == len(ActionKind) + 2
    assert all(r.result == "sat" and r.holds for r in enabled), [r.query for r in enabled if not r.holds]
    witness = next(r for r in enabled if r.query == "enabled.reconnect.session-resumption")
    assert "status 200" in witness.counterexample and "delivered E" in witness.counterexample


@pytest.mark.xdist_group("test_proof_obligations")  # shares a module-scoped fixture
def test_every_proof_query_is_in_the_decidable_fragment(boundary):
    fragments = {r.fragment for r in boundary if r.result is not None}
    assert all(f.startswith(("EPR", "quantifier-free")) for f in fragments), fragments


@pytest.mark.xdist_group("test_proof_obligations")  # shares a module-scoped fixture
def test_unsat_cores_name_what_each_proof_used(boundary):
    for r in boundary:
        if r.kind == CONSECUTION and r.result is not None:
            assert "goal" in r.core, r.query
            assert all(n.startswith(("goal", "inv.", "tr.", "def.", "axiom.")) for n in r.core), r.core
    core = next(r.core for r in boundary if r.query == "consecution.replay-suffix.step.reconnect")
    assert "tr.reconnect.delivered" in core
    core = next(r.core for r in boundary if r.query == "consecution.server-request-ownership.held.reconnect")
    assert "inv.server-request-ownership.carried" in core and "tr.reconnect.seen" in core


@pytest.mark.xdist_group("test_proof_obligations")  # shares a module-scoped fixture
def test_the_invariants_that_need_strengthening_are_found_with_a_counterexample(boundary):
    alone = {r.invariant: r for r in boundary if r.kind == ALONE}
    assert set(alone) == {i.id for i in INDUCTIVE}
    not_alone = {i for i, r in alone.items() if r.result == "sat"}
    assert not_alone == {"event-id-unique.resolves", "server-request-ownership.carried", "server-request-ownership.held",
                         "wf.open-retained"}
    for invariant in not_alone:
        assert by_id(invariant).needs, invariant
        assert "counterexample to induction" in alone[invariant].counterexample


def test_under_mcp_2025_11_25_exactly_the_rules_it_does_not_require_fail(prove_outcome):
    results = prove_outcome(Profile.MCP_2025_11_25).proofs
    failing = sorted(r.query for r in results if r.holds is False)
    assert failing == [
        "consecution.no-duplicate-tool-call.step.reconnect",
        "consecution.reemit-keeps-pending.step.reconnect",
        "consecution.reemit-pending.step.reconnect",
        "consecution.reject-foreign-event-id.step.reconnect",
    ]
    foreign = next(r for r in results if r.query == "consecution.reject-foreign-event-id.step.reconnect")
    assert "reconnect(session=S" in foreign.counterexample
    assert any(f"status {code}" in foreign.counterexample for code in (200, 404)), foreign.counterexample
