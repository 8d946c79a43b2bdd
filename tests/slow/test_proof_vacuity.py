"""No proof of the transition system is vacuous: an obligation the action cannot touch
is reported as not applicable, never as proven; every applicable consecution has a
vacuity query whose antecedent some step meets; a vacuous or unknown answer fails."""

import pytest

from mcp_resume.proofs.solving import SatResult, ProofStatus
from mcp_resume.proofs.system.invariants import INDUCTIVE, STEP_PROPERTIES, by_id
from mcp_resume.proofs.system.proofs import CONSECUTION, INITIATION, VACUITY, _consecution, required, run_obligation, tally
from mcp_resume.proofs.system.vocabulary import ActionKind
from mcp_resume.spec.profiles import Profile
from tests.helpers.proof_vacuity import encoding  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def boundary(prove_outcome):
    return prove_outcome(Profile.BOUNDARY).proofs


def _by_query(results):
    return {r.query: r for r in results}


@pytest.mark.xdist_group("test_proof_vacuity")  # shares a module-scoped fixture
def test_the_initiation_of_a_step_property_is_not_applicable_never_proven(boundary):
    results = _by_query(boundary)
    for prop in STEP_PROPERTIES:
        r = results[f"{INITIATION}.{prop.id}"]
        assert r.verdict is ProofStatus.NOT_APPLICABLE and r.result is None and not r.proven, r.query
    assert all(results[f"{INITIATION}.{i.id}"].proven for i in INDUCTIVE)


@pytest.mark.xdist_group("test_proof_vacuity")  # shares a module-scoped fixture
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


@pytest.mark.xdist_group("test_proof_vacuity")  # shares a module-scoped fixture
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
    assert counted.proven + counted.invariant_free + counted.initiations + counted.witnesses + counted.trivial \
        + counted.not_applicable == counted.required
    assert counted.proven + counted.invariant_free + counted.initiations + counted.witnesses == sum(
        1 for r in boundary if r.kind != VACUITY and r.proven and r.expected is not None and required(r))


def test_an_answer_cut_by_the_resource_limit_is_unknown_never_proven(encoding):
    result = run_obligation(encoding, _consecution(by_id("replay-suffix.step"), ActionKind.RECONNECT), rlimit=1)
    assert result.result is SatResult.UNKNOWN and result.verdict is ProofStatus.UNKNOWN
    assert result.holds is False and not result.proven
    assert tally([result]).unknown == 1 and tally([result]).proven == 0
