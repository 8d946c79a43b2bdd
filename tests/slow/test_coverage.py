"""Coverage, or it did not count: a run that finds nothing must have fired every
action and taken every decision branch."""

from mcp_resume.spec.actions import ACTION_TYPES
from mcp_resume.spec.profiles import Profile


def test_the_machine_counts_actions_and_branches_from_the_specs_outcome_of_every_step(machine_run):
    result = machine_run("reference", Profile.BOUNDARY).result  # the session's run (conftest)
    assert result.passed and result.coverage.complete and result.holds
    assert sum(result.coverage.actions.values()) == result.actions_run
    client = sum(n for kind, n in result.action_counts.items() if ACTION_TYPES[kind].side == "client" and kind != "restart_client")
    assert sum(result.coverage.branches.values()) == client
