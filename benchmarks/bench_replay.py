"""Replay time against trace length: ``python benchmarks/bench_replay.py [--steps 1000,4000,16000,32000]``.

Replays, with ``model.harness.checker.replay`` against the in-process reference
server, a trace of one session that emits N events on one stream (the longest
kind of trace a long-running server produces), and prints for each N the best
of two runs in CPU seconds, the microseconds per step, and the growth against
the previous N (a linear replay grows by the ratio of the step counts). Nothing
is asserted: the figures are for reading, as benchmarks/RESULTS.md quotes them.
"""

from __future__ import annotations

import argparse
import time

from mcp_resume.model.harness.checker import replay
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec import actions as a
from mcp_resume.spec.trace import Trace


def long_trace(steps: int) -> Trace:
    """``initialize``, one call, then ``steps - 2`` events on its stream."""
    return Trace((a.Initialize(), a.CallTool("S1")) + (a.EmitEvent("T1"),) * (steps - 2))


def seconds(steps: int, runs: int = 2) -> float:
    """The best CPU seconds of ``runs`` replays of ``long_trace(steps)``."""
    trace, best = long_trace(steps), float("inf")
    for _ in range(runs):
        started = time.process_time()
        replay(trace, ReferenceServer())
        best = min(best, time.process_time() - started)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="1000,4000,16000,32000", help="comma-separated trace lengths")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.steps.split(",")]
    previous: tuple[int, float] | None = None
    print(f"{'steps':>8} {'cpu s':>8} {'us/step':>8}  growth")
    for steps in counts:
        cpu = seconds(steps)
        growth = "" if previous is None else f"x{cpu / previous[1]:.1f} for x{steps / previous[0]:.1f} the steps"
        print(f"{steps:>8,} {cpu:>8.2f} {cpu / steps * 1e6:>8.0f}  {growth}", flush=True)
        previous = (steps, cpu)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
