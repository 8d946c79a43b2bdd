"""``mcp-resume verify`` timed on the embedded targets, against its goals, with the verdicts of
another install compared rule by rule.

Run from the repository root, in the editable install the README describes::

    python benchmarks/bench_verify.py                      # this checkout, python-sdk, typescript-sdk, reference
    python benchmarks/bench_verify.py --before /tmp/old/.venv/bin/mcp-resume   # paired with another install
    python benchmarks/bench_verify.py --busy 2 --runs 3    # both cores kept busy by other processes

Each run is one whole command, ``verify TARGET --json ...`` (embedded target started and stopped
included). With ``--before`` the two installs run interleaved per target (before, after, before,
...), so a slow minute of the machine weighs on both alike, and every verdict (and the verdict
shown beside it under the other profile) of every run is compared with the first run of the
other install. ``--busy N`` starts N processes that spin on the CPU for the whole benchmark.
Prints, per target: wall seconds of each run, the one-minute load average before it, the goal,
and any verdict that differs. Exit code 0 when no verdict differs between runs and installs,
1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

GOALS = {"python-sdk": 15.0, "typescript-sdk": 15.0, "reference": 10.0}
"""Seconds a whole ``verify`` of each target must stay under (issue: verify in seconds)."""
RUN_TIMEOUT_SECONDS = 900


def spin() -> None:
    while True:
        pass


def run_verify(command: str, target: str, folder: str) -> dict:
    """One ``verify`` run: ``{"wall": s, "load": 1-min load before, "verdicts": {rule: (verdict, beside)}}``,
    ``beside`` the verdict under the profile shown beside (``None`` when none is)."""
    report = Path(folder, f"{target}.json")
    load = os.getloadavg()[0]
    started = time.perf_counter()
    subprocess.run([command, "verify", target, "--json", str(report), "--out", str(Path(folder, "findings")),
                    "--quiet"], capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS)
    wall = time.perf_counter() - started
    verdicts = {v["rule"]: (v["verdict"], (v.get("beside") or {}).get("verdict"))
                for v in json.loads(report.read_text())["verdicts"]}
    return {"wall": wall, "load": load, "verdicts": verdicts}


def differences(first: dict, other: dict) -> list[str]:
    """The rules whose verdict (or verdict beside) differs between two runs' verdicts."""
    return [f"{rule}: {first[rule]} -> {other.get(rule)}" for rule in first if first[rule] != other.get(rule)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default=",".join(GOALS), help="comma-separated (default: %(default)s)")
    parser.add_argument("--runs", type=int, default=1, help="runs of each install per target (default: %(default)s)")
    parser.add_argument("--before", metavar="COMMAND", help="another install's mcp-resume, run interleaved")
    parser.add_argument("--after", metavar="COMMAND", default="mcp-resume", help="this install (default: %(default)s)")
    parser.add_argument("--busy", type=int, default=0, metavar="N", help="processes spinning on the CPU meanwhile")
    args = parser.parse_args()
    installs = ([("before", args.before)] if args.before else []) + [("after", args.after)]
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for spinner in spinners:
        spinner.start()
    differing = 0
    try:
        print(f"{os.cpu_count()} cores, {args.busy} busy processes, {args.runs} run(s) per install and target")
        for target in args.targets.split(","):
            runs: dict[str, list[dict]] = {label: [] for label, _ in installs}
            with tempfile.TemporaryDirectory() as folder:
                for _ in range(args.runs):
                    for label, command in installs:
                        runs[label].append(run_verify(command, target, folder))
            reference = runs[installs[0][0]][0]["verdicts"]
            goal = GOALS.get(target)
            print(f"{target} (goal {'under ' + format(goal, 'g') + ' s' if goal else 'none'}):")
            for label, done in runs.items():
                walls = [r["wall"] for r in done]
                loads = ", ".join(f"{r['load']:.2f}" for r in done)
                print(f"  {label:<6} median {statistics.median(walls):6.2f} s (min {min(walls):.2f}, max "
                      f"{max(walls):.2f}); load before each: {loads}")
                for index, run in enumerate(done):
                    for line in differences(reference, run["verdicts"]):
                        differing += 1
                        print(f"    run {index + 1} differs from {installs[0][0]}'s first: {line}")
            if args.before:
                ratio = statistics.median(r["wall"] for r in runs["before"]) / statistics.median(
                    r["wall"] for r in runs["after"])
                print(f"  before / after: {ratio:.1f}x")
            print(f"  verdicts: {len(reference)} rules, "
                  f"{'identical in every run' if not differing else str(differing) + ' differences so far'}")
    finally:
        for spinner in spinners:
            spinner.terminate()
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
