"""Bounded model checking judges the correct variations whose behaviour the spec models
(docs/design.md §5): cancelling instead of re-emitting on a session resumption, a ring
buffer that rejects an evicted cursor, a second GET stream refused with 400, a resumed
stream that goes on with a new ping and a notification, and a ring buffer that answers a
cursor it evicted last with the exact replay. None has a violating run within the depth;
every search reaches the step that makes its variation differ from the reference; and
the same searches catch a variation changed by one decision (so a clean result is not a
search that cannot fail). The full-depth search under boundary also runs in the fast
tier, in ``tests/slow/test_faulty_designs.py``."""

from dataclasses import replace

import pytest

from mcp_resume.proofs.solving import DEFAULT_RLIMIT, DEFAULT_SEED, GROUND_RELEVANCY, SatResult, new_solver
from mcp_resume.proofs.system import bmc as ts_bmc
from mcp_resume.proofs.system.bmc import DEFAULT_MAX_DEPTH, DEFAULT_SCOPE, DesignUnrolling, SpecUnrolling, bmc_design
from mcp_resume.proofs.system.faulty_systems import CORRECT, Override
from mcp_resume.proofs.system.logic import EVENT, REQUEST, STREAM, Conjunct
from mcp_resume.spec.decision import Branch
from mcp_resume.spec.profiles import Profile

CANCEL, RING = "variation-cancel", "variation-ring-buffer"
SECOND_GET, PING, EXACT = "variation-second-get-400", "variation-ping-on-resume", "variation-evicted-cursor-exact"

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
    """A session resumption that delivers a cancellation ending a pending request (a server's own
    cancel step, which the reference takes too, does not count)."""
    L, R = d.L, d.R
    return L.and_(d.reconnect(Branch.SESSION_RESUMPTION), L.exists((EVENT, REQUEST), lambda e, r: L.and_(
        d.F.delivered(e), R.cancels(e, r), d.X.r_pending(r), L.not_(d.Y.r_pending(r)))))


def _refuses_an_evicted_cursor(d):
    L = d.L
    return L.and_(d.reconnect(Branch.REJECT_FOREIGN_EVENT_ID), d.X.e_evicted(d.A.eh), L.eq(d.F.status, L.int_(400)))


def _refuses_a_second_get_with_400(d):
    L = d.L
    return L.and_(d.reconnect(Branch.SESSION_RESUMPTION), L.eq(d.F.status, L.int_(400)))


def _goes_on_with_a_new_request(d):
    L, R = d.L, d.R
    return L.and_(d.reconnect(Branch.STREAM_RESUMPTION), L.exists((EVENT, REQUEST), lambda e, r: L.and_(
        d.F.delivered(e), R.carries(e, r), L.not_(d.Y.r_issued(r)))))


def _replays_after_an_evicted_cursor(d):
    L = d.L
    return L.and_(d.reconnect(Branch.REJECT_FOREIGN_EVENT_ID), d.X.e_evicted(d.A.eh), L.eq(d.F.status, L.int_(200)),
                  L.exists((EVENT,), lambda e: d.F.delivered(e)))


def test_the_cancel_variation_sends_a_cancellation_that_ends_a_pending_request():
    assert _reachable(CANCEL, 5, _shows_a_cancellation) is SatResult.SAT
    assert _reachable(CANCEL, 4, _shows_a_cancellation) is SatResult.UNSAT  # a request must be stranded first


def test_the_ring_buffer_variation_refuses_an_evicted_cursor_with_400():
    assert _reachable(RING, 5, _refuses_an_evicted_cursor) is SatResult.SAT
    assert _reachable(RING, 4, _refuses_an_evicted_cursor) is SatResult.UNSAT


def test_the_second_get_variation_refuses_a_get_while_one_is_connected():
    assert _reachable(SECOND_GET, 3, _refuses_a_second_get_with_400) is SatResult.SAT  # initialize, GET, GET
    assert _reachable(SECOND_GET, 2, _refuses_a_second_get_with_400) is SatResult.UNSAT


def test_the_ping_variation_goes_on_with_a_request_the_spec_never_issued():
    assert _reachable(PING, 4, _goes_on_with_a_new_request) is SatResult.SAT  # initialize, call, emit, resume
    assert _reachable(PING, 3, _goes_on_with_a_new_request) is SatResult.UNSAT


def test_the_exact_variation_replays_after_a_cursor_it_evicted_last():
    assert _reachable(EXACT, 6, _replays_after_an_evicted_cursor) is SatResult.SAT  # two events, one evicted
    assert _reachable(EXACT, 5, _replays_after_an_evicted_cursor) is SatResult.UNSAT


# under boundary: tests/slow/test_faulty_designs.py::test_z3_finds_no_run_that_blames_a_correct_variation
@pytest.mark.parametrize("target", [CANCEL, RING, SECOND_GET, PING, EXACT])
def test_a_correct_variation_has_no_violating_run_within_the_default_depth_under_mcp_2025_11_25(target):
    result = bmc_design(target, Profile.MCP_2025_11_25)
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
    result = bmc_design(_changed(monkeypatch, RING, overrides=(empty_200,)), Profile.BOUNDARY, max_depth=6)
    # 200 is accepted for a cursor evicted last, with the exact rest: empty only while nothing follows it
    assert (result.caught, result.depth, result.rule) == (True, 6, "replay-suffix")


def test_a_second_get_refused_while_a_request_is_stranded_breaks_reemit_pending(monkeypatch):
    def get_connected(d):
        L, R, X, A = d.L, d.R, d.X, d.A
        return L.and_(d.reconnect(Branch.SESSION_RESUMPTION), L.exists((STREAM,), lambda t: L.and_(
            X.t_issued(t), R.t_get(t), L.eq(R.owner(t), A.sh), X.t_connected(t))))

    refuses = Override(get_connected, lambda d: d.L.int_(400), lambda d, e: d.L.false())
    result = bmc_design(_changed(monkeypatch, SECOND_GET, overrides=(refuses,)), Profile.BOUNDARY, max_depth=6)
    assert (result.caught, result.depth, result.rule) == (True, 6, "reemit-pending")  # a GET, a call's request dropped


def test_a_ping_that_sends_a_pending_request_again_breaks_no_reemit_on_stream_resume(monkeypatch):
    ping = CORRECT[PING].extras[0]

    def again(d):  # the ping carries a request of the session still pending, not a new one
        L, R, X = d.L, d.R, d.X
        kept = [c for c in ping(d) if c.name != "server.ping-request"]
        return kept + [Conjunct("again", L.forall((REQUEST,), lambda r: L.implies(d.aux["asked"](r), L.and_(
            X.r_issued(r), X.r_pending(r), L.eq(R.r_session(r), d.A.sh)))))]

    result = bmc_design(_changed(monkeypatch, PING, extras=(again,)), Profile.BOUNDARY, max_depth=4)
    assert (result.caught, result.depth, result.rule) == (True, 4, "no-reemit-on-stream-resume")


def test_an_exact_replay_that_starts_with_the_cursor_breaks_replay_suffix(monkeypatch):
    exact = CORRECT[EXACT].overrides[0]
    with_cursor = replace(exact, delivered=lambda d, e: d.L.or_(exact.delivered(d, e), d.L.eq(e, d.A.eh)))
    result = bmc_design(_changed(monkeypatch, EXACT, overrides=(with_cursor,)), Profile.BOUNDARY, max_depth=5)
    assert (result.caught, result.depth, result.rule) == (True, 5, "replay-suffix")
