"""What tests/fast/test_write_failures.py and tests/slow/test_write_failures.py share."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


REASONS = {"/dev/full": "No space left on device", "/proc/version": ""}


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcp_resume.cli", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


def assert_one_line_naming(done: subprocess.CompletedProcess, path: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, done.stderr
    assert path in errors[0] and REASONS.get(path, "") in errors[0], errors[0]
