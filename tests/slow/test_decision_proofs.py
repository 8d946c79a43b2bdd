"""The Z3 queries over the decision: they hold, and they can fail."""

from __future__ import annotations

from dataclasses import replace

import pytest
import z3

from mcp_resume.proofs.decision import encoding as decision_encoding
from mcp_resume.proofs.decision.encoding import numbered_branches
from mcp_resume.proofs.decision.queries import decision_queries, run_decision_queries
from mcp_resume.proofs.decision.domain import Domain, Inputs
from mcp_resume.proofs.solving import SatResult, ProofStatus
from mcp_resume.spec import decision as spec_decision
from mcp_resume.spec.decision import Branch, Method, decide_class
from mcp_resume.spec.headers import EventClass, SessionClass
from mcp_resume.spec.profiles import Profile


FOREIGN_ON_BOUNDARY = (Method.GET, SessionClass.LIVE, EventClass.FOREIGN, Profile.BOUNDARY)


@pytest.fixture(scope="module")
def results():
    return {r.query: r for r in run_decision_queries(smt2=True)}


def _combo(witness: dict) -> tuple:
    return (
        Method(witness["method"]),
        SessionClass(witness["session"]),
        EventClass(witness["event"]),
        Profile(witness["profile"]),
    )


def _mutate(monkeypatch, combo, change):
    """Replace the spec's decide_class by one that answers ``change(entry)`` for ``combo``."""
    original = spec_decision.decide_class

    def wrong(*args):
        entry = original(*args)
        return change(entry) if tuple(args) == combo else entry

    monkeypatch.setattr(spec_decision, "decide_class", wrong)


@pytest.mark.xdist_group("test_decision_proofs")  # shares a module-scoped fixture
def test_every_decision_query_holds(results):
    failing = {q: (r.result, r.witness, r.reason_unknown) for q, r in results.items() if not r.holds}
    assert failing == {}
    assert [r.query for r in results.values()] == [q.id for q in decision_queries()]


@pytest.mark.xdist_group("test_decision_proofs")  # shares a module-scoped fixture
def test_there_is_a_reachability_query_per_branch_and_per_numbered_branch_under_boundary(results):
    assert {f"reachable-{b.value}" for b in Branch} <= set(results)
    numbers = {q.split("-")[2] for q in results if q.startswith("boundary-branch-")}
    assert numbers == {"1", "2", "3", "4", "5"}


@pytest.mark.xdist_group("test_decision_proofs")  # shares a module-scoped fixture
def test_reachability_witnesses_land_in_their_branch_in_python(results):
    for branch in Branch:
        result = results[f"reachable-{branch.value}"]
        assert decide_class(*_combo(result.witness)).branch is branch
    for branch, number in numbered_branches().items():
        result = results[f"boundary-branch-{number}-{branch.value}"]
        assert result.witness["profile"] == Profile.BOUNDARY.value
        assert decide_class(*_combo(result.witness)).branch is branch


@pytest.mark.xdist_group("test_decision_proofs")  # shares a module-scoped fixture
def test_runs_repeat_exactly_with_a_fixed_seed(results):
    again = run_decision_queries(smt2=True)
    for result in again:
        first = results[result.query]
        assert (result.result, result.witness, result.smt2) == (first.result, first.witness, first.smt2)
        assert result.rlimit_used is not None and result.rlimit_used == first.rlimit_used


@pytest.mark.xdist_group("test_decision_proofs")  # shares a module-scoped fixture
def test_each_smt2_file_replays_to_the_same_answer(results):
    for result in results.values():
        solver = z3.Solver()
        solver.from_string(result.smt2)
        assert SatResult.of(solver.check()) is result.result, result.query


@pytest.mark.xdist_group("test_decision_proofs")  # shares a module-scoped fixture
def test_answers_and_verdicts_are_enums_and_smt2_is_made_only_on_request(results):
    assert all(isinstance(r.result, SatResult) and r.verdict is ProofStatus.PROVEN for r in results.values())
    assert all(r.smt2 is None for r in run_decision_queries()[:3])


def test_a_request_moved_to_another_branch_breaks_branch_agreement(monkeypatch):
    _mutate(monkeypatch, FOREIGN_ON_BOUNDARY, lambda e: replace(e, branch=Branch.SESSION_RESUMPTION))
    results = {r.query: r for r in run_decision_queries()}
    broken = results["agreement-branch"]
    assert (broken.holds, broken.result) == (False, "sat")
    assert _combo(broken.witness) == FOREIGN_ON_BOUNDARY
    assert broken.witness["python branch"] == Branch.SESSION_RESUMPTION.value
    assert broken.witness["design branch"] == Branch.REJECT_FOREIGN_EVENT_ID.value
    assert [q for q, r in results.items() if not r.holds] == ["agreement-branch"]


@pytest.mark.covers("reject-foreign-event-id", "unknown-session-404")
def test_accepting_404_for_a_foreign_event_id_breaks_status_agreement(monkeypatch):
    _mutate(monkeypatch, FOREIGN_ON_BOUNDARY, lambda e: replace(e, statuses=e.statuses | {404}))
    broken = {r.query: r for r in run_decision_queries()}["agreement-statuses"]
    assert not broken.holds
    assert _combo(broken.witness) == FOREIGN_ON_BOUNDARY
    assert broken.witness["status"] == 404
    assert (broken.witness["design accepts"], broken.witness["python accepts"]) == (False, True)


def test_a_different_reference_status_breaks_canonical_agreement(monkeypatch):
    combo = (Method.DELETE, SessionClass.LIVE, EventClass.ABSENT, Profile.MCP_2025_06_18)
    _mutate(monkeypatch, combo, lambda e: replace(e, status=204))
    broken = {r.query: r for r in run_decision_queries()}["agreement-status"]
    assert not broken.holds
    assert _combo(broken.witness) == combo
    assert (broken.witness["design status"], broken.witness["python status"]) == (200, 204)


def test_overlapping_guards_break_exclusivity(monkeypatch):
    rule = decision_encoding.RULES[Branch.REINITIALIZE]

    def wider(dom: Domain, x: Inputs):  # also claims GET on a live session
        get = z3.And(x.session == dom.value(SessionClass.LIVE), x.method == dom.value(Method.GET))
        return z3.Or(rule.guard(dom, x), get)

    monkeypatch.setitem(decision_encoding.RULES, Branch.REINITIALIZE, replace(rule, guard=wider))
    broken = {r.query: r for r in run_decision_queries()}["decision-exclusive"]
    assert (broken.holds, broken.result) == (False, "sat")
    assert broken.witness["guard reinitialize"] is True
    assert sum(v is True for k, v in broken.witness.items() if k.startswith("guard ")) == 2


def test_a_missing_guard_breaks_totality_and_reachability(monkeypatch):
    rule = decision_encoding.RULES[Branch.SESSION_TERMINATION]
    never = replace(rule, guard=lambda dom, x: z3.BoolVal(False, dom.ctx))
    monkeypatch.setitem(decision_encoding.RULES, Branch.SESSION_TERMINATION, never)
    results = {r.query: r for r in run_decision_queries()}
    assert not results["decision-total"].holds
    assert results["decision-total"].witness["method"] == Method.DELETE.value
    assert results["reachable-session-termination"].result == "unsat"


def test_running_out_of_rlimit_is_unknown_not_a_proof():
    results = {r.query: r for r in run_decision_queries(rlimit=1000)}
    starved = results["agreement-statuses"]
    assert (starved.result, starved.verdict, starved.holds) == (SatResult.UNKNOWN, ProofStatus.UNKNOWN, False)
    assert "resource" in starved.reason_unknown
