"""The explorer's stages of ``mcp-resume check``: they fail when the state space changes
or a kill-matrix cell does not show what it must."""

import json

from mcp_resume.jobs import check_explorer as check_explore, kill_matrix_run
from mcp_resume.model.explore.kill_cells import CAUGHT, PASSED, Cell, UnavailableColumn, expected_caught
from mcp_resume.spec.designs import design as spec_design
from mcp_resume.spec import actions as a
from mcp_resume.spec import transitions


def test_a_bound_that_matches_the_manifest_holds(tmp_path):
    line = check_explore.explore_bound(tmp_path, bound="graph")
    assert line["holds"] and "matches the manifest" in line["detail"]
    assert json.loads((tmp_path / "explorer" / "graph.json").read_text())["states"] == 64


def test_a_spec_change_that_alters_the_state_space_fails_check(tmp_path, monkeypatch):
    unchanged = lambda state, action, profile: (None, transitions.Observation(), state)  # noqa: E731
    monkeypatch.setitem(transitions._HANDLERS, a.DropConnection, unchanged)
    monkeypatch.setitem(transitions._HANDLERS, a.CloseConnection, unchanged)
    line = check_explore.explore_bound(tmp_path, bound="graph")
    assert not line["holds"] and "differs from the manifest" in line["detail"]


class Fake:
    def __init__(self, name, wrong=()):
        self.name, self.wrong = name, set(wrong)

    def unavailable(self):
        return None

    def run(self, design, profile):
        caught = expected_caught(design, profile) != ((design, profile.value) in self.wrong)
        if caught:
            return Cell(self.name, design, profile, CAUGHT, sorted(spec_design(design).rules)[0], 3, True)
        return Cell(self.name, design, profile, PASSED)


def test_the_kill_matrix_stage_summarises_each_column_and_fails_a_wrong_cell(tmp_path, monkeypatch):
    columns = [Fake("good"), Fake("bad", wrong={(11, "mcp-2025-11-25")}), UnavailableColumn("z3-bmc", "later")]
    monkeypatch.setattr(kill_matrix_run, "kill_columns", lambda examples, bounds=None: columns)
    lines = {line["item"]: line for line in check_explore.kill_matrix_stage(tmp_path, None, workers=1)}
    assert lines["good"]["holds"] and "boundary: caught all 38" in lines["good"]["detail"]
    assert "mcp-2025-11-25: caught 1, 2, 4, 6, 9, 12, 13, 14, 18" in lines["good"]["detail"]
    assert not lines["bad"]["holds"] and "design-11/mcp-2025-11-25: caught" in lines["bad"]["detail"]
    assert lines["z3-bmc"]["holds"] and lines["z3-bmc"]["result"] == "not available"
    assert json.loads((tmp_path / "kill-matrix.json").read_text())["holds"] is False
