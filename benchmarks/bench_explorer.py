"""Time the explorers: ``python benchmarks/bench_explorer.py [--skip-default] [--skip-designs]``.

Prints, in one run (wall and CPU seconds):

1. symmetry reduction: the reference explorer (whole states, ``spec.step`` on
   each) on one bound with and without the reduction, its distinct states per
   second each way and the ratio of states between them; the fast explorer on
   the same bound;
2. the time to exhaust the default bound with the fast explorer on 1 and 2
   worker processes (``--workers``), its states per second, where the time goes
   (session forms expanded with ``spec.step``, the state graph over them), and
   the load average of the machine before each run (others' work slows it);
3. for the design explorer, the cost of reaching a server state again three
   ways (``pickle.loads`` of a snapshot, ``copy.deepcopy``, re-running the
   path from the start) at the deepest state of the kill bound, and the time to
   exhaust the kill bound beside design 11 under mcp-2025-11-25 (it passes, so
   every state is visited), twice in one process (the second reuses the spec's
   side of each step).

Timings depend on the machine and its load; they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import copy
import os
import pickle
import time

from mcp_resume.model.harness.checker import Checker
from mcp_resume.model.explore.fast import explore_fast
from mcp_resume.model.explore.server import explore_server
from mcp_resume.spec.space import DEFAULT_BOUND, KILL_BOUND, NAMED_BOUNDS, Bounds
from mcp_resume.model.explore.plain import explore_spec
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import Profile

SYMMETRY_BOUND = Bounds(sessions=2, streams=2, events=2, requests=1, depth=6)


class Clock:
    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu


def _rate(states: int, seconds: float) -> str:
    return f"{states / seconds:>10,.0f} states/s" if seconds > 0 else "-"


def symmetry() -> None:
    print(f"1. symmetry reduction, bound: {SYMMETRY_BOUND.describe()}")
    rows = []
    for label, run in (
        ("reference, no symmetry", lambda: explore_spec(SYMMETRY_BOUND, symmetry=False)),
        ("reference, symmetry", lambda: explore_spec(SYMMETRY_BOUND, symmetry=True)),
        ("fast (symmetry, session forms)", lambda: explore_fast(SYMMETRY_BOUND)),
    ):
        with Clock() as clock:
            result = run()
        rows.append((label, result.states, result.transitions, clock))
    for label, states, transitions, clock in rows:
        print(f"   {label:<32} {states:>9,} states {transitions:>10,} transitions  {clock.wall:7.2f} s wall "
              f"{clock.cpu:7.2f} s cpu {_rate(states, clock.cpu)} (cpu)")
    plain, reduced = rows[0][1], rows[1][1]
    print(f"   ratio of states without / with symmetry reduction: {plain / reduced:.2f}")
    print(f"   distinct states per second (cpu): without {plain / rows[0][3].cpu:,.0f}, "
          f"with {reduced / rows[1][3].cpu:,.0f}, fast explorer {rows[2][1] / rows[2][3].cpu:,.0f}")


def default_bound(workers: tuple[int, ...]) -> None:
    bounds = NAMED_BOUNDS[DEFAULT_BOUND]
    print(f"2. default bound: {bounds.describe()}")
    for count in workers:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        with Clock() as clock:
            result = explore_fast(bounds, workers=count)
        print(f"   {count} worker(s), load average {load:.2f} before the run:")
        print(f"   {result.states:,} distinct states, {result.transitions:,} transitions, depth {result.depth}, "
              f"holds: {result.holds}")
        print(f"   exhausted in {clock.wall:.2f} s wall, {clock.cpu:.2f} s cpu in this process; "
              f"{_rate(result.states, clock.wall)} (wall)")
        forms, steps, expanding = result.notes["session_forms"], result.notes["session_steps"], result.notes["session_seconds"]
        search = clock.wall - expanding
        print(f"   {forms:,} session forms expanded with {steps:,} spec steps and checks: {expanding:.2f} s wall")
        print(f"   the search over states of forms: {search:.2f} s wall, {_rate(result.states, search)}")


def snapshots() -> None:
    bounds = NAMED_BOUNDS[KILL_BOUND]
    path = [a.Initialize(), a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"),
            a.IssueServerRequest("T1"), a.CallTool("S2")]
    checker = Checker(DESIGNS[11]())
    for action in path:
        checker.apply(action)
    snapshot = pickle.dumps((checker.server, checker.ids), protocol=pickle.HIGHEST_PROTOCOL)
    repeat = 2000

    def rerun():
        again = Checker(DESIGNS[11]())
        for action in path:
            again.apply(action)

    print(f"3. design explorer: reaching a server state {len(path)} steps deep again ({len(snapshot)} byte snapshot)")
    for label, restore in (
        ("pickle.loads", lambda: pickle.loads(snapshot)),
        ("copy.deepcopy", lambda: copy.deepcopy((checker.server, checker.ids))),
        ("re-run the path", rerun),
    ):
        with Clock() as clock:
            for _ in range(repeat):
                restore()
        print(f"   {label:<16} {clock.cpu / repeat * 1e6:8.1f} us cpu each")
    for attempt in ("first run", "second run"):
        with Clock() as clock:
            result = explore_server(DESIGNS[11], bounds, Profile.MCP_2025_11_25)
        print(f"   design 11 under mcp-2025-11-25 within {KILL_BOUND} ({attempt}): {result.states:,} product states, "
              f"{result.transitions:,} transitions, caught: {result.caught}, {clock.wall:.2f} s wall, {clock.cpu:.2f} s cpu "
              f"({clock.cpu / result.transitions * 1e6:.0f} us cpu per transition)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-default", action="store_true", help="do not exhaust the default bound")
    parser.add_argument("--skip-designs", action="store_true", help="do not time the design explorer")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts for the default bound")
    args = parser.parse_args()
    symmetry()
    if not args.skip_default:
        default_bound(tuple(args.workers))
    if not args.skip_designs:
        snapshots()


if __name__ == "__main__":
    main()
