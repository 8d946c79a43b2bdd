"""Every faulty design of docs/design.md §5 is caught, with a counterexample trace that replays.

These are the proof that the checks are not vacuous: each design breaks the
boundary the way a real server did, and the Hypothesis machine must notice.
"""

import pytest

from mcp_resume.model.harness.checker import Counterexample, replay
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.model.servers.inprocess import SpecAdapter
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec import designs
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.trace import loads


@pytest.mark.covers(
    "replay-suffix",
    "no-cross-session",
    "no-replay-on-session-resume",
    "no-reemit-on-stream-resume",
    "reemit-pending",
    "reemit-keeps-pending",
    "reject-orphan-event-id",
    "reject-foreign-event-id",
    "expiry-independent",
    "server-request-ownership",
)
@pytest.mark.parametrize("number", designs.NUMBERS)
def test_the_design_is_caught_under_boundary_by_the_rule_it_breaks(machine_run, number):
    run = machine_run(f"design-{number}", Profile.BOUNDARY)
    assert run.caught, f"design {number} was not caught"
    assert run.rule in designs.design(number).rules, run.result.counterexample.explain()


@pytest.mark.parametrize("number", designs.NUMBERS)
def test_the_saved_trace_replays_fails_on_the_design_and_holds_on_correct_servers(machine_run, number, tmp_path):
    trace = machine_run(f"design-{number}", Profile.BOUNDARY).result.trace
    path = tmp_path / "trace.json"
    path.write_text(trace.dumps())
    reloaded = loads(path.read_text())
    assert reloaded.actions == trace.actions and reloaded.failure == trace.failure
    with pytest.raises(Counterexample) as failed:
        replay(reloaded, DESIGNS[number]())
    assert failed.value.trace.failure.step == trace.failure.step
    assert failed.value.trace.failure.rule == trace.failure.rule
    assert len(replay(reloaded, ReferenceServer())) == len(trace.actions)
    assert len(replay(reloaded, SpecAdapter())) == len(trace.actions)


@pytest.mark.parametrize("number", designs.NUMBERS)
def test_under_mcp_2025_11_25_only_designs_breaking_its_own_musts_fail(machine_run, number):
    run = machine_run(f"design-{number}", Profile.MCP_2025_11_25)
    assert run.caught == designs.design(number).caught(Profile.MCP_2025_11_25), run.result.counterexample and run.result.counterexample.explain()
    assert run.caught or run.result.holds, f"passed but vacuous: {run.result.coverage.explain()}"


def test_design_11_passes_mcp_2025_11_25_without_any_failure(machine_run):
    run = machine_run("design-11", Profile.MCP_2025_11_25)
    # at most a warning: an evicted cursor whose later events are all kept answered with nothing (a gap, B25 MAY)
    assert not run.caught and set(run.result.warnings) <= {"replay-suffix"}
    assert all("evicted cursor" in str(w) for w in run.result.warnings.values())


def test_the_reference_server_agrees_with_the_spec(machine_run):
    run = machine_run("reference", Profile.BOUNDARY)
    assert not run.caught, run.result.counterexample and run.result.counterexample.explain()
    assert run.result.holds, f"not vacuous: {run.result.coverage.explain()}"


# -- the correct variations of docs/design.md §5: no checker may blame them ------------------------


VARIATION_TARGETS = [variation.target for variation in designs.VARIATIONS]


@pytest.mark.parametrize("target", VARIATION_TARGETS)
def test_the_machine_blames_no_correct_variation(machine_run, target):
    run = machine_run(target, Profile.BOUNDARY)
    assert not run.caught, run.result.counterexample.explain()
    assert run.result.holds, f"passed but vacuous: {run.result.coverage.explain()}"


@pytest.mark.parametrize("target", VARIATION_TARGETS)
def test_the_explorer_blames_no_correct_variation(target):
    from mcp_resume.model.explore.server import explore_server
    from mcp_resume.model.servers.inprocess import server_factory
    from mcp_resume.spec.space import KILL_BOUND, named_bound

    result = explore_server(server_factory(target), named_bound(KILL_BOUND), Profile.BOUNDARY)
    assert result.first is None, result.first.trace.describe()
    assert not result.vacuous, result.coverage.explain()


@pytest.mark.parametrize("target", VARIATION_TARGETS)
def test_z3_finds_no_run_that_blames_a_correct_variation(target):
    from mcp_resume.proofs.system.bmc import DEFAULT_MAX_DEPTH, bmc_design
    from mcp_resume.proofs.system.faulty_systems import needs_encoding

    missing = needs_encoding(designs.by_target(target))
    if missing:
        pytest.skip(f"no Z3 variation yet: {missing}")
    result = bmc_design(target, Profile.BOUNDARY)
    assert not result.caught, result.trace.describe()
    assert len(result.depths) == DEFAULT_MAX_DEPTH and all(q.result == "unsat" for q in result.depths)
