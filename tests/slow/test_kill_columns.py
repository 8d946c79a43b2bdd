"""The z3-bmc and http-verify columns of the kill matrix run their real checkers."""

import pytest

from mcp_resume.jobs.kill_columns import HttpVerifyColumn, Z3BmcColumn
from mcp_resume.proofs.system.bmc import DEFAULT_MAX_DEPTH
from mcp_resume.spec.designs import NUMBERS, design as spec_design
from mcp_resume.model.explore.kill_cells import CAUGHT, PASSED, UNAVAILABLE
from mcp_resume.spec.profiles import Profile


def test_z3_bmc_catches_design_4_with_a_trace_that_replays_on_its_server():
    cell = Z3BmcColumn().run(4, Profile.BOUNDARY)
    assert cell.outcome == CAUGHT and cell.confirmed
    assert cell.rule in spec_design(4).rules
    assert cell.trace is not None and len(cell.trace.actions) >= cell.steps


def test_z3_bmc_passes_design_11_under_mcp_2025_11_25():
    assert Z3BmcColumn().run(11, Profile.MCP_2025_11_25).outcome == PASSED


def test_http_verify_catches_design_11_under_boundary_and_passes_it_under_mcp_2025_11_25(verify_report, monkeypatch):
    import mcp_resume.jobs.kill_columns as kill_columns

    monkeypatch.setattr(kill_columns, "verify_server_over_http", verify_report)  # the session's runs (conftest)
    caught = HttpVerifyColumn().run(11, Profile.BOUNDARY)
    assert caught.outcome == CAUGHT and caught.rule in spec_design(11).rules, caught.detail
    assert HttpVerifyColumn().run(11, Profile.MCP_2025_11_25).outcome == PASSED


@pytest.mark.parametrize("number", NUMBERS)
def test_z3_bmc_catches_each_design_under_boundary_by_a_rule_the_design_breaks(number, prove_outcome, monkeypatch):
    # the matrix counts a catch by another rule as a miss (design 8's shortest run, a
    # refused event id answered 404 after its stream expired, is reject-foreign-event-id)
    import mcp_resume.jobs.kill_columns as kill_columns

    solved = {result.design: result for result in prove_outcome(Profile.BOUNDARY).bmc}  # the session's searches

    def bmc_design(design, profile, max_depth):
        assert (profile, max_depth) == (Profile.BOUNDARY, DEFAULT_MAX_DEPTH)  # what prove searched
        return solved[design]

    monkeypatch.setattr(kill_columns, "bmc_design", bmc_design)
    cell = Z3BmcColumn().run(number, Profile.BOUNDARY)
    if cell.outcome == UNAVAILABLE:
        pytest.skip(cell.detail)
    assert cell.outcome == CAUGHT and cell.confirmed, cell.detail
    assert cell.rule in spec_design(number).rules, (cell.rule, cell.detail)
