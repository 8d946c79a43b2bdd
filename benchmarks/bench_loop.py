"""The contributor's loop, timed: ``mcp-resume check`` (whole and per stage) and the two test tiers.

Run from the repository root, in the editable install the README describes::

    python benchmarks/bench_loop.py               # check, the fast tier and the whole suite
    python benchmarks/bench_loop.py --no-suite    # check and the fast tier only

Each figure is the wall time of one run, in seconds, on this machine as it is
(quote it with the machine's load in mind). Stage times are those ``check``
reports for each stage in its progress lines (each stage runs in a worker
process, so they add up to more than the wall time on two cores).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from bench_check import run_check  # this folder is on sys.path when a benchmark runs as a script


def timed(command: list[str], **kwargs) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    return time.perf_counter() - started, done


def bench_check() -> None:
    run = run_check("mcp-resume")
    print(f"mcp-resume check: {run['wall']:.1f} s wall, {run['cpu']:.1f} cpu-s, everything holds: {run['holds']}")
    for seconds, stage, result in run["stages"]:
        print(f"  {stage:<28} {seconds:6.1f} s  {result}")


def bench_tests(label: str, extra: list[str]) -> None:
    seconds, done = timed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra])
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-200:]
    print(f"{label}: {seconds:.1f} s wall ({summary})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-suite", action="store_true", help="skip the whole suite (the slow tier takes minutes)")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    bench_check()
    bench_tests('fast tier (-m "not slow")', ["-m", "not slow"])
    if not args.no_suite:
        bench_tests("whole suite", [])
    return 0


if __name__ == "__main__":
    sys.exit(main())
