"""An interrupt (SIGINT, SIGTERM) ends every command with exit 130 and writes nothing that looks
like a result: no new file under the output folder, no worker process left running.

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_interrupts.py``, whose docstring says more.
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.interrupts import files, interrupted


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

EXIT_INTERRUPTED = 130


@pytest.mark.parametrize("after", [1.0, 3.0, 5.0])
def test_an_interrupted_prove_exits_130_and_writes_nothing(tmp_path, after):
    out = tmp_path / "proofs"
    out.mkdir()
    (out / "kept.txt").write_text("an earlier file")
    code, stderr, _ = interrupted(["prove", "--out", str(out), "--json", str(tmp_path / "summary.json")], tmp_path, after)
    assert code == EXIT_INTERRUPTED, stderr
    assert files(out) == {Path("kept.txt")}
    assert not (tmp_path / "summary.json").exists()
    assert "Traceback" not in stderr and "interrupted" in stderr


def test_sigterm_stops_prove_like_ctrl_c(tmp_path):
    code, stderr, _ = interrupted(["prove", "--out", str(tmp_path / "out")], tmp_path, 2.0, signal.SIGTERM)
    assert code == EXIT_INTERRUPTED, stderr
    assert files(tmp_path / "out") == set()


def test_an_interrupted_check_ends_its_workers_and_writes_nothing(tmp_path):
    out = tmp_path / "check"
    out.mkdir()
    code, stderr, children = interrupted(["check", "--out", str(out), "--workers", "2"], tmp_path, 3.0,
                                         watch_children=True, ready="stages on")
    assert code == EXIT_INTERRUPTED, stderr
    assert "leaked semaphore" not in stderr, stderr
    assert files(out) == set()
    assert children, "check had started no worker process"
    assert not _running(children)


def test_an_interrupted_kill_matrix_ends_its_workers(tmp_path):
    markdown = tmp_path / "kill.md"
    # half a second after the first cell's line: both workers started and busy with the others
    code, stderr, children = interrupted(["kill-matrix", "--workers", "2", "--markdown", str(markdown),
                                          "--json", str(tmp_path / "kill.json")], tmp_path, 0.5, watch_children=True,
                                         ready=" vs ")
    assert code == EXIT_INTERRUPTED, stderr
    assert "leaked semaphore" not in stderr, stderr  # workers talk over pipes: nothing for a tracker to report
    assert not markdown.exists() and not (tmp_path / "kill.json").exists()
    assert children, "the kill matrix had started no worker process"
    assert not _running(children)


def test_an_interrupted_explore_writes_no_result(tmp_path):
    code, stderr, _ = interrupted(["explore", "--bound", "default", "--json", str(tmp_path / "explore.json"),
                                   "--traces", str(tmp_path / "traces")], tmp_path, 3.0)
    assert code == EXIT_INTERRUPTED, stderr
    assert not (tmp_path / "explore.json").exists()
    assert not list((tmp_path / "traces").glob("*"))


def test_an_interrupted_docs_leaves_its_folder_as_it_was(tmp_path):
    out = tmp_path / "docs"
    out.mkdir()
    tests = Path(__file__).resolve().parents[1]
    code, stderr, _ = interrupted(["docs", "--out", str(out), "--tests", str(tests)], tmp_path, 3.0)
    assert code == EXIT_INTERRUPTED, stderr
    assert files(out) == set()


def _running(pids: list[int], seconds: float = 5.0) -> list[str]:
    """The command lines of ``pids`` still running after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(_state(pid) != "Z" for pid in pids):
        time.sleep(0.1)
    return [_cmdline(pid) for pid in pids if _state(pid) != "Z"]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
    except OSError:
        return str(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
