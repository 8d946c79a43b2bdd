"""Long runs say what they are doing and how far they are: in a CI log (stderr not a terminal)
one plain line per stage, through the one helper ``outputs.StageProgress``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_resume.model.verify.suite import RULES
from mcp_resume.outputs import StageProgress

ROOT = Path(__file__).resolve().parent.parent


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcp_resume.cli", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=900)


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


def test_explore_design_logs_how_far_it_got(tmp_path):
    """A design beside the spec reports its count of states while it walks, not only at the start."""
    done = run("explore-design", "3", cwd=tmp_path)  # several hundred product states expanded
    assert done.returncode == 1, done.stderr
    counts = re.findall(r"^explored ([\d,]+) states, depth (\d+)", done.stderr, re.MULTILINE)
    assert counts and all(int(depth) <= 7 for _, depth in counts), done.stderr


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_prove_logs_its_four_stages_with_counts(tmp_path):
    done = run("prove", "--out", str(tmp_path / "proofs"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("prove: boundary: stage")]
    assert [re.sub(r":.*", "", line.split("stage ", 1)[1]) for line in lines] == [f"{n} of 4" for n in (1, 2, 3, 4)]
    assert re.search(r"stage 1 of 4: proof obligations, \d+ queries", lines[0])
    assert re.search(r"stage 3 of 4: bounded model checking of the faulty designs, \d+ queries", lines[2])


@pytest.mark.slow
def test_verify_logs_rule_n_of_all(tmp_path):
    done = run("verify", "design-1", "--timeout", "2", cwd=tmp_path)
    lines = [line for line in done.stderr.splitlines() if line.startswith("verify: rule ")]
    assert len(lines) == len(RULES), done.stderr
    assert re.fullmatch(rf"verify: rule 1 of {len(RULES)}: {RULES[0].id}: [A-Z]+ \(provisional\)", lines[0])
    assert not lines[-1].endswith("(provisional)")  # no scenario after the last one
    assert [int(line.split()[2]) for line in lines] == list(range(1, len(RULES) + 1))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_docs_logs_each_stage(tmp_path):
    done = run("docs", "--out", str(tmp_path / "docs"), "--tests", str(ROOT / "tests"), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    stages = [line for line in done.stderr.splitlines() if line.startswith("docs: stage ")]
    assert len(stages) >= 2 and stages[-1].endswith("diagrams and pages"), done.stderr
    total = int(stages[0].split(" of ")[1].split(":")[0])
    assert len(stages) == total
