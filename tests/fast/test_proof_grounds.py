"""What a proven obligation rests on (issue 39): only a consecution whose unsat core names an
invariant counts as proven by induction; witnesses, initiations and invariant-free steps are
reported apart, and every catalog rule without an invariant says why."""

from __future__ import annotations

from mcp_resume.jobs.proving import why_no_induction
from mcp_resume.proofs.solving import ProofStatus, SatResult
from mcp_resume.proofs.system.invariants import ALL_INVARIANTS, NOT_ENCODED
from mcp_resume.proofs.system.proofs import (
    CONSECUTION, ENABLED, INDUCTION, INITIATION, INVARIANT_FREE, WITNESS, ProofResult, tally,
)
from mcp_resume.spec.catalog import RULES


def _result(kind: str, core: tuple[str, ...] = (), expected=SatResult.UNSAT, verdict=ProofStatus.PROVEN) -> ProofResult:
    return ProofResult(query=f"{kind}.x", kind=kind, invariant="replay-suffix.step", rule="replay-suffix",
                       action="reconnect", profile="boundary", description="", expected=expected, result=expected,
                       verdict=verdict, core=core, counterexample=None, reason_unknown=None, fragment="EPR",
                       rlimit=1, rlimit_used=1, random_seed=0, z3_version="test")


def test_each_kind_of_proven_obligation_has_its_own_grounds_and_count():
    results = [
        _result(CONSECUTION, ("goal", "inv.wf.live-issued", "tr.reconnect.delivered")),
        _result(CONSECUTION, ("goal", "tr.reconnect.delivered", "def.branch")),
        _result(INITIATION, ("goal", "init.no-sessions")),
        _result(ENABLED, expected=SatResult.SAT),
        _result(CONSECUTION, ("goal",), verdict=ProofStatus.TRIVIAL),
    ]
    assert [r.grounds for r in results] == [INDUCTION, INVARIANT_FREE, INITIATION, WITNESS, None]
    counted = tally(results)
    assert (counted.proven, counted.invariant_free, counted.initiations, counted.witnesses, counted.trivial) \
        == (1, 1, 1, 1, 1)
    assert counted.describe().startswith("1 proven by induction, 1 invariant-free steps, 1 initiations, "
                                         "1 enabled witnesses, 1 trivial")


def test_every_catalog_rule_has_an_invariant_or_a_reason_it_has_none():
    encoded = {invariant.rule for invariant in ALL_INVARIANTS if invariant.rule}
    for rule in RULES:
        assert (rule.id in encoded) != (rule.id in NOT_ENCODED), rule.id
    assert set(NOT_ENCODED) <= {rule.id for rule in RULES}


def test_a_rule_proven_only_without_invariants_says_so():
    free = _result(CONSECUTION, ("goal", "tr.reconnect.delivered"))
    assert "two hand encodings agree" in why_no_induction("no-replay-on-session-resume", [free])
    trivial = _result(CONSECUTION, ("goal",), verdict=ProofStatus.TRIVIAL)
    assert "effect equations alone (trivial)" in why_no_induction("no-reemit-on-stream-resume", [trivial])
    assert "Z3 vocabulary has no MCP-Protocol-Version header" in why_no_induction("protocol-version-accepted", [])
