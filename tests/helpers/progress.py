"""What tests/fast/test_progress.py and tests/slow/test_progress.py share."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcp_resume.cli", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=900)
