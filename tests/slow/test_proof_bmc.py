"""Bounded model checking refutes every faulty design with a shortest run, and the run,
decoded into a trace, replays: it fails on the design's in-process server and passes
on the spec and the reference server. The proofs and the model check each other."""

import pytest

from mcp_resume.model.harness.checker import Counterexample, replay
from mcp_resume.model.servers.faulty import DESIGNS as SERVERS
from mcp_resume.model.servers.inprocess import SpecAdapter
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.proofs.solving import SatResult, ProofStatus
from mcp_resume.proofs.system import bmc as ts_bmc
from mcp_resume.proofs.system.bmc import DEFAULT_MAX_DEPTH, bmc_design
from mcp_resume.proofs.system.faulty_systems import DESIGNS, design_for, needs_encoding
from mcp_resume.spec import designs
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.trace import loads

from tests.helpers.proof_artifacts import replay_smt2


ENCODED = tuple(d.number for d in designs.DESIGNS if needs_encoding(d) is None)
"""The designs the transition formulas can express (``proofs.system.faulty_systems.NEEDS_ENCODING``)."""

CAUGHT_UNDER_MCP = frozenset(n for n in designs.caught_under(Profile.MCP_2025_11_25)
                             if needs_encoding(designs.design(n)) is None)
"""The designs Z3 must catch under mcp-2025-11-25: those its formulas can express."""

SEEN_SINCE = {13: "no-broadcast", 15: "replay-suffix", 16: "replay-suffix"}
"""Designs of docs/design.md §5 whose Z3 variations came last, with the rule §5 names for each."""

THIRD_ROUND = {19: "unknown-session-404", 20: "reemit-pending", 22: "replay-suffix", 23: "expiry-independent",
               24: "event-id-unique", 25: "standalone-stream-scope", 26: "reemit-pending", 27: "reemit-pending",
               28: "replay-suffix", 29: "session-identity-stable"}
"""Designs 19-29 but 21, with the rule that catches each."""

ON_ANOTHER_CONNECTION = {21: "no-broadcast", 32: "standalone-stream-scope"}
"""Designs that send a message on another stream's connection, stated by the delivered-on relation
(``proofs.system.vocabulary.Observation.on``), with the rule that catches each."""


@pytest.fixture(scope="module")
def boundary(prove_outcome):
    return {r.design: r for r in prove_outcome(Profile.BOUNDARY).bmc}


@pytest.mark.xdist_group("test_proof_bmc")  # shares a module-scoped fixture
def test_every_design_is_modelled(boundary):
    assert set(DESIGNS) == set(boundary) == set(ENCODED) and set(SERVERS) == set(designs.NUMBERS)


@pytest.mark.xdist_group("test_proof_bmc")  # shares a module-scoped fixture
@pytest.mark.parametrize("number", sorted(SEEN_SINCE) + sorted(THIRD_ROUND) + sorted(ON_ANOTHER_CONNECTION))
def test_a_design_seen_since_is_caught_by_the_rule_design_5_names(boundary, number):
    rule = {**SEEN_SINCE, **THIRD_ROUND, **ON_ANOTHER_CONNECTION}[number]
    result = boundary[number]
    assert result.caught and result.rule == rule
    with pytest.raises(Counterexample) as found:
        replay(loads(result.trace.dumps()), SERVERS[number]())
    assert (found.value.trace.failure.rule, found.value.trace.failure.step) == (rule, result.depth)


@pytest.mark.xdist_group("test_proof_bmc")  # shares a module-scoped fixture
def test_the_runs_of_the_designs_seen_since_take_the_steps_their_faults_need(boundary):
    kinds = {n: [a.kind for a in boundary[n].trace.actions] for n in SEEN_SINCE}
    last = {n: boundary[n].trace.actions[-1] for n in SEEN_SINCE}
    assert all(kinds[n][-1] == "reconnect" for n in SEEN_SINCE)
    assert last[13].last_event_id is None and "issue_server_request" in kinds[13]  # a session resumption, a request
    assert last[15].last_event_id is not None and last[16].last_event_id is not None  # a cursor to resume
    assert kinds[16].count("evict_event") == 2 and boundary[16].depth == 8  # a gap: the cursor and the next evicted


@pytest.mark.xdist_group("test_proof_bmc")  # shares a module-scoped fixture
def test_the_runs_sending_on_another_connection_have_a_second_connection_open(boundary):
    for number in ON_ANOTHER_CONNECTION:
        kinds = [a.kind for a in boundary[number].trace.actions]
        assert kinds.count("call_tool") + kinds.count("reconnect") >= 2  # a stream besides the sender's
    assert boundary[32].trace.actions[-1].kind == "respond"


@pytest.mark.xdist_group("test_proof_bmc")  # shares a module-scoped fixture
def test_the_runs_of_the_third_round_take_the_steps_their_faults_need(boundary):
    kinds = {n: [a.kind for a in boundary[n].trace.actions] for n in THIRD_ROUND}
    last = {n: boundary[n].trace.actions[-1] for n in THIRD_ROUND}
    assert len(kinds[19]) == 1 and last[19].session == "unknown-session"  # a request naming no session
    assert kinds[27].count("issue_server_request") == 2 and boundary[27].depth == 6  # the second takes the slot
    for number in (20, 26, 27):  # a request stranded, then a session resumption
        assert kinds[number][-1] == "reconnect" and last[number].last_event_id is None, number
    assert kinds[22][-1] == "reconnect" and last[22].last_event_id is not None  # a cursor whose event was lost
    assert "drop_connection" in kinds[23] and kinds[29].count("initialize") == 2 and "delete_session" in kinds[29]
    assert "reconnect" in kinds[25] and kinds[25][-1] == "issue_server_request"  # the GET stream is open first
    assert kinds[24].count("call_tool") + kinds[24].count("reconnect") >= 2  # a second stream's first event


@pytest.mark.xdist_group("test_proof_bmc")  # shares a module-scoped fixture
@pytest.mark.parametrize("number", ENCODED)
def test_the_z3_trace_fails_on_the_design_and_passes_on_correct_servers(boundary, number):
    result = boundary[number]
    assert result.caught, f"design {number} escaped bounded model checking"
    trace = loads(result.trace.dumps())
    assert trace.source == "z3" and trace.profile is Profile.BOUNDARY
    assert len(trace.actions) == result.depth == trace.failure.step
    with pytest.raises(Counterexample) as found:
        replay(trace, SERVERS[number]())
    assert found.value.trace.failure.rule == result.rule, found.value.explain()
    assert found.value.trace.failure.step == result.depth
    assert len(replay(trace, SpecAdapter())) == len(trace.actions)
    assert len(replay(trace, ReferenceServer())) == len(trace.actions)


@pytest.mark.xdist_group("test_proof_bmc")  # shares a module-scoped fixture
@pytest.mark.parametrize("number", ENCODED)
def test_the_run_is_a_shortest_one(boundary, number):
    result = boundary[number]
    assert [q.result for q in result.depths] == ["unsat"] * (result.depth - 1) + ["sat"]
    assert result.rule in designs.design(number).rules


@pytest.mark.xdist_group("test_proof_bmc")  # shares a module-scoped fixture
def test_the_script_of_a_search_replays_in_z3(boundary):
    assert boundary[10].smt2 is None  # printed only on request
    result = bmc_design(10, Profile.BOUNDARY, smt2=True)
    assert (result.depth, result.rule) == (boundary[10].depth, boundary[10].rule)
    output = replay_smt2(result.smt2)
    assert output.split() == [q.result.value for q in result.depths]


@pytest.mark.xdist_group("test_proof_bmc")  # shares a module-scoped fixture
def test_answers_are_enums_and_a_caught_design_is_proven_to_be_faulty(boundary):
    result = boundary[10]
    assert all(isinstance(q.result, SatResult) for q in result.depths)
    assert (result.result, result.verdict) == (SatResult.SAT, ProofStatus.PROVEN)
    escaped = bmc_design(10, Profile.BOUNDARY, max_depth=1)
    assert (escaped.result, escaped.verdict, escaped.caught) == (SatResult.UNSAT, ProofStatus.REFUTED, False)


def test_the_spec_itself_has_no_violating_run(monkeypatch):
    no_fault = designs.Design(99, "spec-itself", "the spec itself, no fault", frozenset(), ())
    monkeypatch.setitem(ts_bmc.DESIGNS, 99, design_for(no_fault))
    result = bmc_design(99, Profile.BOUNDARY, max_depth=5)
    assert not result.caught and result.trace is None
    assert [q.result for q in result.depths] == ["unsat"] * 5


@pytest.mark.timeout(900)  # a whole prove under mcp-2025-11-25 (about 120 s on an idle machine)
def test_under_mcp_2025_11_25_only_the_designs_breaking_its_musts_are_caught(prove_outcome):
    results = {r.design: r for r in prove_outcome(Profile.MCP_2025_11_25).bmc}
    assert {n for n, r in results.items() if r.caught} == CAUGHT_UNDER_MCP
    for number in CAUGHT_UNDER_MCP:
        trace = results[number].trace
        assert trace.profile is Profile.MCP_2025_11_25
        with pytest.raises(Counterexample):
            replay(trace, SERVERS[number]())
        replay(trace, SpecAdapter(Profile.MCP_2025_11_25))
        replay(trace, ReferenceServer())
    escaped = results[11]
    assert len(escaped.depths) == DEFAULT_MAX_DEPTH and all(q.result == "unsat" for q in escaped.depths)
