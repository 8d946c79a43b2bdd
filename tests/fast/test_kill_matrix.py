"""The kill matrix: what each cell must show, and that the matrix says so."""

import json
from dataclasses import dataclass

from mcp_resume.model.explore.kill_cells import CAUGHT, CAUGHT_UNDER_MCP, PASSED, UNAVAILABLE, VACUOUS, ROWS, Cell, UnavailableColumn, entry, expected_caught, run_kill_matrix
from mcp_resume.spec.designs import NUMBERS, VARIATIONS

from mcp_resume.spec.profiles import Profile


VARIATION_TARGETS = tuple(v.target for v in VARIATIONS)


@dataclass
class CatchesEverything:
    """A checker that claims every design, under every profile, by its first expected rule."""

    name: str = "paranoid"
    confirmed: bool = True

    def unavailable(self):
        return None

    def run(self, design, profile):
        return Cell(self.name, design, profile, CAUGHT, sorted(entry(design).rules or {"agreement"})[0], 3, self.confirmed)


@dataclass
class Oracle:
    """A checker that shows exactly what each cell must."""

    name: str = "oracle"

    def unavailable(self):
        return None

    def run(self, design, profile):
        if expected_caught(design, profile):
            return Cell(self.name, design, profile, CAUGHT, sorted(entry(design).rules)[0], 3, True)
        return Cell(self.name, design, profile, PASSED)


def test_what_each_cell_must_show():
    assert ROWS == NUMBERS + VARIATION_TARGETS and len(NUMBERS) == 38 and len(VARIATION_TARGETS) == 7
    assert all(expected_caught(n, Profile.BOUNDARY) for n in NUMBERS)
    assert not any(expected_caught(v, p) for v in VARIATION_TARGETS for p in Profile)
    assert {n for n in NUMBERS if expected_caught(n, Profile.MCP_2025_11_25)} == CAUGHT_UNDER_MCP == {
        1, 2, 4, 6, 9, 12, 13, 14, 18, 19, 21, 24, 32, 36, 38}  # pinned
    assert not expected_caught(23, Profile.MCP_2025_11_25)  # a session ended at will is MCP-correct (B33)
    assert not expected_caught(11, Profile.MCP_2025_11_25)


def test_a_cell_shows_what_it_must_only_when_caught_by_an_expected_rule_and_confirmed():
    boundary = Profile.BOUNDARY
    assert Cell("x", 7, boundary, CAUGHT, "replay-suffix", 4, True).as_expected
    assert not Cell("x", 7, boundary, CAUGHT, "replay-suffix", 4, False).as_expected  # not confirmed
    assert not Cell("x", 7, boundary, CAUGHT, "no-cross-session", 4, True).as_expected  # not the design's fault
    assert not Cell("x", 7, boundary, PASSED).as_expected  # escaped
    assert not Cell("x", 11, Profile.MCP_2025_11_25, VACUOUS).as_expected  # passed without exercising everything
    assert Cell("x", 11, Profile.MCP_2025_11_25, PASSED).as_expected
    assert Cell("x", 11, Profile.MCP_2025_11_25, UNAVAILABLE).as_expected  # does not count
    assert not Cell("x", "variation-cancel", boundary, CAUGHT, "reemit-pending", 3, True).as_expected  # blamed
    assert Cell("x", "variation-cancel", boundary, PASSED).as_expected


def test_a_checker_that_catches_everything_fails_the_matrix_under_mcp():
    matrix = run_kill_matrix([CatchesEverything()])
    assert not matrix.holds
    assert {(c.design, c.profile) for c in matrix.misses} == {
        (n, Profile.MCP_2025_11_25) for n in NUMBERS if n not in CAUGHT_UNDER_MCP
    } | {(v, p) for v in VARIATION_TARGETS for p in (Profile.BOUNDARY, Profile.MCP_2025_11_25)}


def test_unconfirmed_counterexamples_fail_the_matrix():
    assert not run_kill_matrix([CatchesEverything(confirmed=False)], profiles=[Profile.BOUNDARY]).holds


def test_the_matrix_holds_with_an_oracle_and_unavailable_columns_do_not_count():
    hook = UnavailableColumn("z3-bmc", "not built yet")
    matrix = run_kill_matrix([Oracle(), hook])
    assert matrix.holds
    assert all(c.outcome == UNAVAILABLE and c.detail == "not built yet" for c in matrix.cells if c.checker == "z3-bmc")
    data = json.loads(json.dumps(matrix.to_json()))
    assert data["holds"] is True and len(data["cells"]) == 2 * 2 * len(ROWS)
    assert data["columns"][1] == {"name": "z3-bmc", "note": "not available: not built yet"}
    text = matrix.to_markdown()
    assert "## boundary" in text and "## mcp-2025-11-25" in text and "not available" in text
    assert text.count("\n| ") == 2 * (len(ROWS) + 1)
    assert "\n| 18 | caught |" in text and "\n| variation-cancel | passed |" in text


def test_cells_already_computed_are_reused():
    done = {("oracle", 3, Profile.BOUNDARY): Cell("oracle", 3, Profile.BOUNDARY, PASSED)}
    matrix = run_kill_matrix([Oracle()], done=done)
    assert matrix.cell("oracle", 3, Profile.BOUNDARY).outcome == PASSED
    assert not matrix.holds and [(c.design, c.profile) for c in matrix.misses] == [(3, Profile.BOUNDARY)]
