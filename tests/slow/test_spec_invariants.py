"""Each invariant of docs/design.md §4 holds on the spec, and each predicate can fail."""

import pytest

from mcp_resume.model.servers.inprocess import SpecAdapter
from mcp_resume.model.harness.stateful import run_machine
from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import Profile


@pytest.mark.parametrize("profile", [Profile.BOUNDARY, Profile.MCP_2025_11_25])
def test_every_invariant_holds_on_every_state_and_step_the_machine_reaches_in_the_spec(profile):
    result = run_machine(lambda: SpecAdapter(profile), profile, max_examples=150)
    assert result.passed, result.counterexample and result.counterexample.explain()
    assert result.warnings == {}
    assert set(result.action_counts) == set(a.ACTION_TYPES), "every action kind was exercised"
    assert result.holds, f"not vacuous: {result.coverage.explain()}"
