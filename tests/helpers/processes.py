"""Processes the tests start and watch: the live children of a pid, read from /proc (Linux)."""

from __future__ import annotations

from pathlib import Path


def child_pids(pid: int) -> list[int]:
    """The pids whose parent is ``pid`` and that are not zombies."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found
