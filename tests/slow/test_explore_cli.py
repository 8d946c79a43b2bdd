"""The explorer's commands end to end (``explore``, ``explore-design``, ``graph``, ``kill-matrix``):
counts, manifest, designs, graph, traces, usage errors."""

import json

import pytest

from mcp_resume.cli import main


def test_the_reference_engine_without_symmetry_finds_more_states(tmp_path):
    plain, reduced = tmp_path / "plain.json", tmp_path / "reduced.json"
    assert main(["explore", "--bound", "small", "--no-symmetry", "--json", str(plain), "--quiet"]) == 0
    assert main(["explore", "--bound", "small", "--json", str(reduced), "--quiet"]) == 0
    assert json.loads(plain.read_text())["states"] > json.loads(reduced.read_text())["states"]


def test_a_difference_no_rule_names_is_shown_as_a_note_not_as_a_broken_rule(capsys):
    """Design 21 differs from the reference where no catalog rule speaks (``agreement``):
    the table calls it a note, as the reports do (docs/design.md §3)."""
    main(["explore-design", "21", "--exhaustive"])
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("│ agreement "))
    assert "note" in row and "broken" not in row


@pytest.mark.parametrize("design", [[], ["--design", "7"]])
def test_a_graph_of_a_big_bound_is_refused_before_drawing_and_leaves_no_folder(tmp_path, capsys, design):
    assert main(["graph", "--out", str(tmp_path / "g" / "h"), "--bound", "kill", *design]) == 2
    assert "cannot draw" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
