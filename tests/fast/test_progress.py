"""Long runs say what they are doing and how far they are: in a CI log (stderr not a terminal)
one plain line per stage, through the one helper ``outputs.StageProgress``."""

from __future__ import annotations

from mcp_resume.outputs import StageProgress

from tests.helpers.progress import run


def test_in_a_log_each_stage_is_one_line_and_items_print_nothing(capsys):
    with StageProgress("prove", terminal=False, unit="queries", stages=2) as progress:
        progress.stage("proof obligations", total=3)
        for item in ("a", "b", "c"):
            progress.advance(item)
        progress.stage("replays")
        progress.note("a note")
    assert capsys.readouterr().err.splitlines() == [
        "prove: stage 1 of 2: proof obligations, 3 queries",
        "prove: stage 2 of 2: replays",
        "prove: a note",
    ]


def test_quiet_progress_prints_nothing(capsys):
    with StageProgress("docs", quiet=True, terminal=False) as progress:
        progress.stage("pages", total=4)
        progress.advance("x")
        progress.note("note")
    assert capsys.readouterr().err == ""


def test_on_a_terminal_the_line_is_redrawn_not_logged(capsys):
    with StageProgress("prove", terminal=True) as progress:
        progress.stage("proof obligations", total=2)
        progress.advance("a")
    assert "prove: proof obligations, 2 items" not in capsys.readouterr().err


def test_explore_design_says_what_it_explores(tmp_path):
    done = run("explore-design", "10", "--first", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "explore: design 10 beside the spec under boundary, within" in done.stderr
    assert "(until the first counterexample)" in done.stderr
