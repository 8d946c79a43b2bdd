"""``mcp-resume check`` timed against its goal (under 30 s on two cores), with the machine's load.

Run from the repository root, in the editable install the README describes::

    python benchmarks/bench_check.py                       # three runs of this checkout's check
    python benchmarks/bench_check.py --runs 5
    python benchmarks/bench_check.py --before /tmp/old/.venv/bin/mcp-resume   # paired with another install

With ``--before`` the two commands run interleaved (before, after, before, ...), so a slow
hour of the machine weighs on both alike. Each run prints its wall seconds, the CPU seconds
of the command and its worker processes, the one-minute load average before it started,
whether everything held and the three longest stages (from ``check``'s progress lines).
Exit code 0 when every run held, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_SECONDS = 30.0
STAGE_LINE = re.compile(r"^check: \[\d+/\d+\] (.+): ([^:]+?) \(([\d.]+) s;")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_check(command: str) -> dict:
    """One ``check`` run in a scratch folder: ``{"wall", "cpu", "load", "holds", "stages"}``, seconds;
    ``stages`` as ``(seconds, stage, result)`` from ``check``'s progress lines, the longest first."""
    with tempfile.TemporaryDirectory() as folder:
        load = os.getloadavg()[0]
        cpu, started = children_cpu(), time.perf_counter()
        done = subprocess.run([command, "check", "--out", folder, "--json", f"{folder}/c.json"],
                              capture_output=True, text=True, timeout=900)
        wall, cpu = time.perf_counter() - started, children_cpu() - cpu
        holds = done.returncode == 0 and json.loads(Path(folder, "c.json").read_text())["holds"]
    stages = sorted(((float(m.group(3)), m.group(1), m.group(2))
                     for m in map(STAGE_LINE.match, done.stderr.splitlines()) if m), reverse=True)
    return {"wall": wall, "cpu": cpu, "load": load, "holds": holds, "stages": stages}


def describe(label: str, run: dict) -> str:
    longest = ", ".join(f"{name} {seconds:.1f} s" for seconds, name, _ in run["stages"][:3])
    return (f"  {label:<7} {run['wall']:5.1f} s wall, {run['cpu']:5.1f} cpu-s, load {run['load']:.2f} before, "
            f"{'holds' if run['holds'] else 'DOES NOT HOLD'}; longest: {longest}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each command (default: %(default)s)")
    parser.add_argument("--before", metavar="COMMAND", help="another install's mcp-resume, run interleaved")
    args = parser.parse_args()
    after = shutil.which("mcp-resume")
    if after is None:
        print("bench_check: mcp-resume is not on PATH: activate the editable install first", file=sys.stderr)
        return 2
    commands = {"before": args.before, "after": after} if args.before else {"after": after}
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, goal: check under {GOAL_SECONDS:.0f} s")
    runs: dict[str, list[dict]] = {label: [] for label in commands}
    for index in range(args.runs):
        print(f"run {index + 1} of {args.runs}")
        for label, command in commands.items():
            runs[label].append(run_check(command))
            print(describe(label, runs[label][-1]), flush=True)
    for label, done in runs.items():
        walls = [r["wall"] for r in done]
        print(f"{label}: wall min/median/max {min(walls):.1f}/{statistics.median(walls):.1f}/{max(walls):.1f} s, "
              f"cpu median {statistics.median(r['cpu'] for r in done):.1f} s")
    return 0 if all(r["holds"] for done in runs.values() for r in done) else 1


if __name__ == "__main__":
    sys.exit(main())
