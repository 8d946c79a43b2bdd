"""A report or artifact that cannot be written ends every command with exit 2 and one line on
stderr naming the file and the reason, never a traceback (``outputs.write_output``,
``cli.main``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.write_failures import assert_one_line_naming, run
from tests.helpers import ROOT


pytestmark = pytest.mark.skipif(not Path("/dev/full").exists() or not Path("/proc/version").exists(),
                                reason="needs /dev/full and /proc")


@pytest.mark.parametrize("argv", [
    ["prove", "--out", "/proc/mcp-resume-out"],
    ["check", "--out", "/proc/mcp-resume-out"],
    ["docs", "--out", "/proc/mcp-resume-out"],
    ["explore", "--bound", "tiny", "--traces", "/proc/mcp-resume-out"],
    ["verify", "design-1", "--out", "/proc/mcp-resume-out"],
], ids=lambda argv: argv[0])
def test_an_unwritable_folder_is_refused_before_the_run(tmp_path, argv):
    done = run(*argv, cwd=ROOT)
    assert_one_line_naming(done, "/proc/mcp-resume-out")


@pytest.mark.timeout(900)
def test_prove_json_that_cannot_be_written(prove_to_dev_full):
    # the other reasons: tests/fast/test_write_failures.py
    assert_one_line_naming(prove_to_dev_full, "/dev/full")


@pytest.mark.parametrize("option", ["--json", "--junit", "--markdown"])
def test_verify_reports_that_cannot_be_written(tmp_path, option):
    # --max-seconds 1: the rules left unjudged are INCONCLUSIVE, and the report is written all the same
    done = run("verify", "design-1", "--timeout", "2", "--max-seconds", "1", option, "/dev/full",
               "--out", str(tmp_path / "found"), cwd=tmp_path)
    assert_one_line_naming(done, "/dev/full")
