"""The Hypothesis machine against each faulty design: actions and seconds to the first counterexample.

Run from the repository root, in the editable install the README describes::

    python benchmarks/bench_machine.py                       # designs 1..18 under both kill-matrix profiles
    python benchmarks/bench_machine.py --profile boundary --designs 3 9 12 --seeds 0 1 2

Per design, profile and seed it prints the actions run up to the first failing
one, the wall seconds to it, the whole run's wall and CPU seconds (shortening
included), the shortened trace's length and rule, and actions per second (wall
and CPU). A design its profile does not break (``spec.designs``) is skipped: the
machine then runs every example, which is ``check``'s business, not this
benchmark's. The load average is printed before and after: the machine may be
shared, and wall time follows the load while CPU time mostly does not.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from mcp_resume.spec import designs
from mcp_resume.spec.profiles import Profile

from mcp_resume.model.explore.kill_cells import KILL_PROFILES
from mcp_resume.model.harness.stateful import run_machine
from mcp_resume.model.servers.inprocess import server_factory

COLUMNS = ("design", "profile", "seed", "first", "first s", "actions", "wall s", "cpu s", "trace", "rule", "act/s wall", "act/s cpu")


def measure(number: int, profile: Profile, seed: int) -> dict:
    """One run against design ``number``: the figures of ``COLUMNS``."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = run_machine(server_factory(f"design-{number}"), profile, seed=seed)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    trace = result.trace
    return {
        "design": number, "profile": profile.value, "seed": seed,
        "first": result.actions_to_first, "first s": _round(result.seconds_to_first),
        "actions": result.actions_run, "wall s": round(wall, 2), "cpu s": round(cpu, 2),
        "trace": len(trace.actions) if trace else None, "rule": trace.failure.rule if trace else "NOT FOUND",
        "act/s wall": round(result.actions_run / wall), "act/s cpu": round(result.actions_run / cpu) if cpu else None,
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def summary(rows: list[dict]) -> str:
    found = [row for row in rows if row["first"] is not None]
    if not found:
        return "nothing found"
    firsts = [row["first"] for row in found]
    return (f"found {len(found)}/{len(rows)}; actions to the first: median {statistics.median(firsts):g}, max {max(firsts)}; "
            f"wall s max {max(row['wall s'] for row in rows)}, cpu s max {max(row['cpu s'] for row in rows)}; "
            f"trace length median {statistics.median(row['trace'] for row in found):g}, max {max(row['trace'] for row in found)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="append", type=Profile.parse, help="default: the kill matrix's profiles")
    parser.add_argument("--designs", nargs="*", type=int, default=list(designs.NUMBERS))
    parser.add_argument("--seeds", nargs="*", type=int, default=[0])
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    print(" | ".join(COLUMNS))
    rows = []
    for profile in args.profile or KILL_PROFILES:
        for number in args.designs:
            if not designs.design(number).caught(profile):
                continue
            for seed in args.seeds:
                rows.append(measure(number, profile, seed))
                print(" | ".join(str(rows[-1][column]) for column in COLUMNS), flush=True)
    print(summary(rows))
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
