"""Coverage, or it did not count: a run that finds nothing must have fired every
action and taken every decision branch."""

from mcp_resume.jobs import checking as check
from mcp_resume.model.harness.coverage import REQUIRED_ACTIONS, REQUIRED_BRANCHES, Coverage, branch_label
from mcp_resume.model.harness.runs import ServerRun
from mcp_resume.model.servers.inprocess import SpecAdapter
from mcp_resume.model.harness.stateful import run_machine
from mcp_resume.spec.actions import ACTION_TYPES
from mcp_resume.spec.decision import Branch
from mcp_resume.spec.profiles import Profile


def test_the_required_branches_are_those_session_era_actions_can_reach():
    assert len(REQUIRED_ACTIONS) == len(ACTION_TYPES) == 16
    assert {b.value for b in REQUIRED_BRANCHES} == {b.value for b in Branch} - {
        "reinitialize", "method-not-allowed", "sessionless-request"}
    assert branch_label("stream-resumption") == "stream-resumption (1)"
    assert branch_label("unknown-session") == "unknown-session"


def test_coverage_names_what_is_missing():
    coverage = Coverage()
    coverage.record("initialize", Branch.NEW_SESSION)
    assert not coverage.complete
    assert "emit_event" in coverage.missing_actions and "initialize" not in coverage.missing_actions
    assert "stream-resumption" in coverage.explain()
    for kind in REQUIRED_ACTIONS:
        coverage.record(kind, None)
    for branch in REQUIRED_BRANCHES:
        coverage.record("reconnect", branch)
    assert coverage.complete and coverage.explain() == "complete"


def test_a_machine_run_too_short_to_cover_everything_is_vacuous_and_does_not_hold():
    result = run_machine(SpecAdapter, Profile.BOUNDARY, max_examples=2, steps=3)
    assert result.passed and result.vacuous and not result.holds


def test_check_fails_a_vacuous_machine_run(tmp_path, monkeypatch):
    result = run_machine(SpecAdapter, Profile.BOUNDARY, max_examples=2, steps=3)
    monkeypatch.setattr(check, "run_server", lambda name, profile, examples: ServerRun(name, profile, result, 0.1))
    [line] = check.machine_stage("spec", Profile.BOUNDARY, 2, tmp_path)
    assert not line.holds and line.result == "VACUOUS" and "never" in line.detail
