"""Proven means more than the encoding restating itself: an obligation unsat from its

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_proof_triviality.py``, whose docstring says more.
"""

import json

import pytest

from mcp_resume.proofs.artifacts import RESULTS
from mcp_resume.proofs.solving import SatResult, ProofStatus
from mcp_resume.proofs.system.agreement import PROVE_DEEP_CONVERSE_DEPTH, owed, reemission_states
from mcp_resume.proofs.system.proofs import CONSECUTION, INDUCTION, VACUITY, required, tally
from mcp_resume.proofs.system.transitions import effect_equations
from mcp_resume.proofs.system.vocabulary import ActionKind
from mcp_resume.jobs.proving import headline
from mcp_resume.spec.profiles import Profile

pytestmark = pytest.mark.xdist_group("test_proof_triviality")  # every test shares a module-scoped fixture


@pytest.fixture(scope="module")
def outcome(prove_outcome):
    return prove_outcome(Profile.BOUNDARY)


@pytest.fixture(scope="module")
def results(outcome):
    return {r.query: r for r in outcome.proofs}


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


def test_the_restating_step_obligations_are_reported_trivial(results):
    for query in ("consecution.no-replay-on-session-resume.step.reconnect",
                  "consecution.no-reemit-on-stream-resume.step.reconnect",
                  "consecution.session-identity-stable.step.call_tool",
                  "consecution.event-id-unique.step.emit_event"):
        proof = results[query]
        assert proof.verdict is ProofStatus.TRIVIAL and not proof.proven and proof.holds, query
        assert set(proof.effect_core) - {"goal"} <= effect_equations(ActionKind(proof.action)), query
    assert "tr.reconnect.delivered" in results["consecution.no-replay-on-session-resume.step.reconnect"].effect_core


def test_the_nine_counts_share_no_obligation_and_only_induction_counts_as_proof(outcome):
    """Issue 39: witnesses, initiations and invariant-free steps are no longer counted as proven."""
    counted = tally(outcome.proofs)
    classes = (counted.proven, counted.invariant_free, counted.initiations, counted.witnesses, counted.trivial,
               counted.not_applicable, counted.vacuous, counted.refuted, counted.unknown)
    assert sum(classes) == counted.required and counted.trivial >= 20 and counted.proven >= 60
    assert counted.witnesses >= 15 and counted.initiations >= 14 and counted.invariant_free >= 1
    by_grounds = [r for r in outcome.proofs if required(r) and r.grounds == INDUCTION]
    assert len(by_grounds) == counted.proven
    assert all(any(name.startswith("inv.") for name in r.core) for r in by_grounds)
    assert all(r.kind == CONSECUTION for r in by_grounds)
    summary = outcome.summary()
    assert "obligations_holding" not in summary
    keys = ("proven", "invariant_free", "initiations", "witnesses", "trivial", "not_applicable", "vacuous")
    assert [summary[f"obligations_{k}"] for k in keys] == list(classes[:7])


def test_the_headline_prints_proven_trivial_not_applicable_and_vacuous_apart(outcome, capsys):
    from mcp_resume.jobs.proving import print_outcome as _print

    counted = tally(outcome.proofs)
    line = headline(outcome)
    assert line.startswith(f"boundary: {counted.proven} proven by induction, {counted.invariant_free} "
                           f"invariant-free steps, {counted.initiations} initiations, {counted.witnesses} enabled "
                           f"witnesses, {counted.trivial} trivial, {counted.not_applicable} not applicable, "
                           f"{counted.vacuous} vacuous, ")
    assert "left out (below)" in line
    assert f"of {counted.required} required obligations" in line and "hold" not in line
    _print(outcome)
    assert capsys.readouterr().out.splitlines()[0] == line


def test_the_results_file_marks_trivial_obligations(outcome):
    queries = {q["id"]: q for q in json.loads((outcome.folder / RESULTS).read_text())["queries"]}
    trivial = queries["consecution.no-replay-on-session-resume.step.reconnect"]
    assert (trivial["result"], trivial["verdict"], trivial["effect_only"]) == ("unsat", "trivial", "unsat")
    proven = queries["consecution.no-broadcast.step.reconnect"]
    assert (proven["verdict"], proven["effect_only"], proven["effect_core"]) == ("proven", "sat", [])


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
