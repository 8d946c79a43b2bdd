"""Bounded model checking judges the two correct variations whose behaviour the spec
models (docs/design.md §5): cancelling instead of re-emitting on a session resumption, and a
ring buffer that rejects an evicted cursor. Neither has a violating run within the
depth; both searches reach the step that makes them differ from the re-emitting,
keep-everything reference; and the same searches catch a variation changed by one
decision (so a clean result is not a search that cannot fail). The full-depth search
under boundary also runs in the fast tier, in ``tests/test_faulty_designs.py``."""

from dataclasses import replace

import pytest

from mcp_resume.proofs.solving import DEFAULT_RLIMIT, DEFAULT_SEED, GROUND_RELEVANCY, SatResult, new_solver
from mcp_resume.proofs.system import bmc as ts_bmc
from mcp_resume.proofs.system.bmc import DEFAULT_MAX_DEPTH, DEFAULT_SCOPE, DesignUnrolling, SpecUnrolling, bmc_design
from mcp_resume.proofs.system.designs import CORRECT, Override
from mcp_resume.proofs.system.logic import EVENT, REQUEST
from mcp_resume.spec.decision import Branch
from mcp_resume.spec.profiles import Profile

CANCEL, RING = "variation-cancel", "variation-ring-buffer"

def _reachable(target: str, depth: int, goal) -> SatResult:
    """Whether some run of ``depth`` steps of ``target`` ends in a step where ``goal(server_step)`` holds."""
    spec = SpecUnrolling(Profile.BOUNDARY, DEFAULT_SCOPE)
    unrolling = DesignUnrolling(spec, CORRECT[target])
    solver = new_solver(spec.L.ctx, DEFAULT_RLIMIT, DEFAULT_SEED, relevancy=GROUND_RELEVANCY)
    solver.add(*(c.formula for c in unrolling.base()))
    for i in range(1, depth + 1):
        solver.add(*(c.formula for c in unrolling.step(i)))
    solver.add(goal(unrolling.servers[-1]))
    return SatResult.of(solver.check())


def _shows_a_cancellation(d):
    L, R = d.L, d.R
    return L.exists((EVENT, REQUEST), lambda e, r: L.and_(d.F.delivered(e), R.cancels(e, r), d.X.r_pending(r),
                                                           L.not_(d.Y.r_pending(r))))


def _refuses_an_evicted_cursor(d):
    L = d.L
    return L.and_(d.reconnect(Branch.REJECT_FOREIGN_EVENT_ID), d.X.e_evicted(d.A.eh), L.eq(d.F.status, L.int_(400)))


def test_the_cancel_variation_sends_a_cancellation_that_ends_a_pending_request():
    assert _reachable(CANCEL, 5, _shows_a_cancellation) is SatResult.SAT
    assert _reachable(CANCEL, 4, _shows_a_cancellation) is SatResult.UNSAT  # a request must be stranded first


def test_the_ring_buffer_variation_refuses_an_evicted_cursor_with_400():
    assert _reachable(RING, 5, _refuses_an_evicted_cursor) is SatResult.SAT
    assert _reachable(RING, 4, _refuses_an_evicted_cursor) is SatResult.UNSAT


@pytest.mark.slow
@pytest.mark.parametrize("profile", [Profile.BOUNDARY, Profile.MCP_2025_11_25])
@pytest.mark.parametrize("target", [CANCEL, RING])
def test_a_correct_variation_has_no_violating_run_within_the_default_depth(target, profile):
    result = bmc_design(target, profile)
    assert not result.caught, result.run
    assert [q.result for q in result.depths] == [SatResult.UNSAT] * DEFAULT_MAX_DEPTH


def _changed(monkeypatch, target: str, **changes) -> str:
    name = f"{target}-changed"
    monkeypatch.setitem(ts_bmc.CORRECT, name, replace(CORRECT[target], **changes))
    return name


def test_cancelling_without_sending_the_cancellation_breaks_reemit_pending(monkeypatch):
    silent = Override(lambda d: d.reconnect(Branch.SESSION_RESUMPTION), None, lambda d, e: d.L.false())
    result = bmc_design(_changed(monkeypatch, CANCEL, overrides=(silent,)), Profile.BOUNDARY, max_depth=5)
    assert (result.caught, result.depth, result.rule) == (True, 5, "reemit-pending")


def test_a_ring_buffer_answering_an_evicted_cursor_with_an_empty_200_is_caught(monkeypatch):
    ring = CORRECT[RING].overrides[0]
    empty_200 = replace(ring, status=lambda d: d.L.int_(200))
    result = bmc_design(_changed(monkeypatch, RING, overrides=(empty_200,)), Profile.BOUNDARY, max_depth=5)
    assert (result.caught, result.depth, result.rule) == (True, 5, "reject-foreign-event-id")
