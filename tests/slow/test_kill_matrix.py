"""The kill matrix: what each cell must show, and that the matrix says so."""


from mcp_resume.spec.space import NAMED_BOUNDS
from mcp_resume.model.explore.kill_cells import CAUGHT, PASSED, ExplorerColumn, HypothesisColumn, run_kill_matrix

from mcp_resume.spec.profiles import Profile

from tests.helpers import SUITE_EXAMPLES


def test_the_explorer_column_catches_design_11_under_boundary_and_passes_it_under_mcp():
    column = ExplorerColumn(NAMED_BOUNDS["kill"])
    caught = column.run(11, Profile.BOUNDARY)
    passed = column.run(11, Profile.MCP_2025_11_25)
    assert caught.outcome == CAUGHT and caught.rule == "reject-foreign-event-id" and caught.confirmed and caught.as_expected
    assert caught.trace is not None and caught.trace.failure.step == caught.steps == 2
    assert passed.outcome == PASSED and passed.as_expected


def test_the_hypothesis_column_passes_design_11_under_mcp_without_being_vacuous(machine_run, monkeypatch):
    import mcp_resume.model.explore.kill_cells as kill_cells

    def session_run(name, profile, examples):
        assert examples == SUITE_EXAMPLES  # what the session's runs take (conftest)
        return machine_run(name, profile)

    monkeypatch.setattr(kill_cells, "run_server", session_run)
    cell = HypothesisColumn(examples=SUITE_EXAMPLES).run(11, Profile.MCP_2025_11_25)
    assert cell.outcome == PASSED and cell.as_expected, cell.detail


def test_cells_run_in_worker_processes_give_the_same_matrix():
    column = ExplorerColumn(NAMED_BOUNDS["kill"])
    designs = (4, 10, 11)
    one = run_kill_matrix([column], designs=designs, profiles=[Profile.BOUNDARY])
    two = run_kill_matrix([column], designs=designs, profiles=[Profile.BOUNDARY], workers=2)
    strip = lambda m: [(c.design, c.outcome, c.rule, c.steps, c.confirmed, c.trace) for c in m.cells]
    assert strip(one) == strip(two) and one.holds
