"""What tests/fast/test_interrupts.py and tests/slow/test_interrupts.py share."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.helpers.processes import child_pids


def files(folder: Path) -> set[Path]:
    return {path.relative_to(folder) for path in folder.rglob("*")}


def interrupted(argv: list[str], cwd: Path, after: float, signum: int = signal.SIGINT,
                watch_children: bool = False, ready: str | None = None) -> tuple[int, str, list[int]]:
    """Run ``mcp-resume ARGV``, send ``signum`` ``after`` seconds in (counted from the stderr line
    containing ``ready``, when given); return its exit code, its stderr and the child processes it
    had just before the signal."""
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "mcp_resume.cli", *argv], cwd=cwd, text=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stderr), daemon=True)
    reader.start()
    try:
        while process.poll() is None and not (_catches_sigterm(process.pid) and _has(lines, ready)):
            time.sleep(0.02)
        if ready is not None:
            started = time.monotonic()
        time.sleep(max(0.0, after - (time.monotonic() - started)))
        children = child_pids(process.pid) if watch_children else []
        assert process.poll() is None, f"mcp-resume {argv[0]} ended before the signal: {''.join(lines)}"
        os.kill(process.pid, signum)
        code = process.wait(60)
        reader.join(10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    return code, "".join(lines), children


def _has(lines: list[str], ready: str | None) -> bool:
    return ready is None or any(ready in line for line in list(lines))


def _catches_sigterm(pid: int) -> bool:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    return False
