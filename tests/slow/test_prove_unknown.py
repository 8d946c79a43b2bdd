"""``prove --rlimit 1``: an unknown answer is its own verdict, neither a proof nor a
counterexample; the summary names its one cause and the fix once; exit code 3."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mcp_resume.jobs.proving import EXIT_UNKNOWN


@pytest.mark.timeout(900)
def test_prove_with_rlimit_1_says_unknown_and_why_once(tmp_path):
    out = tmp_path / "proofs"
    done = subprocess.run([sys.executable, "-m", "mcp_resume.cli", "prove", "--rlimit", "1", "--out", str(out),
                           "--json", str(tmp_path / "summary.json"), "--quiet"],
                          capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert done.returncode == EXIT_UNKNOWN, done.stdout + done.stderr
    assert done.stdout.count("ran out of resource units") == 1
    assert "raise --rlimit" in done.stdout
    assert "FAILS" not in done.stdout and "expected unsat" not in done.stdout
    assert "not caught" not in done.stdout
    summary = json.loads((tmp_path / "summary.json").read_text())[0]
    assert summary["unknown"] and not summary["problems"] and not summary["holds"]
    report = (out / "boundary" / "REPORT.md").read_text()
    matrix = report.split("## Initiation and consecution, per action", 1)[1].split("\n## ", 1)[0]
    assert "| unknown |" in matrix or " unknown " in matrix
    assert "**NO**" not in matrix
