"""Time every checker to its first counterexample on every faulty design.

``python benchmarks/bench_checkers.py [--designs 1-29] [--checkers explorer,command,hypothesis,z3,spec] [--workers N] [--json FILE]``

Prints, in one run and one process, for each faulty design (docs/design.md §5) under
``boundary`` and each checker:

- ``explorer``: the design explorer (``explore_server``) within the kill bound,
  in this process, stopping at the first failing step (``Stop.FIRST``) and, as
  ``explore-design N`` does, once each rule of the design has its
  counterexample or at the end of that level (``Stop.LEVEL``), on one process and
  on ``--workers`` (the command's default: the cores, at most 4); the spec's side
  of each step is computed afresh for each design, as in a fresh process;
- ``command``: the whole ``mcp-resume explore-design N --quiet`` process, start-up
  included (the median of three runs);
- ``hypothesis``: the Hypothesis machine (``stateful.run_machine``), shrinking
  included, with its default examples: the seconds and actions to the first
  failing action, then the whole run;
- ``z3``: bounded model checking (``bmc.bmc_design``), for the designs the
  transition formulas can express;

the wall seconds to the first counterexample, its length in steps and the rule
it breaks; then (``spec``) the spec explorer's distinct states per second on the
default bound (``explore_fast``). Wall and CPU seconds are both printed, with
the load average before and after: the machine may be shared. Its speed drifts
too (by half, minute to minute, seen on 2026-12-02): the seconds a plain Python
loop of ten million additions takes (``calibrate``, best of three) are printed
before and after, so figures of two runs compare by their ratio to it. Nothing
is asserted; a design a checker does not catch shows ``-``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from mcp_resume.model.harness.workers import default_workers
from mcp_resume.model.explore import server as design_explorer
from mcp_resume.model.explore.fast import explore_fast
from mcp_resume.model.explore.server import Stop, explore_server
from mcp_resume.model.harness.stateful import run_machine
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.outputs import output_file_problem, write_output
from mcp_resume.proofs.system.bmc import bmc_design
from mcp_resume.proofs.system.faulty_systems import needs_encoding
from mcp_resume.spec.designs import NUMBERS, design as spec_design
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import DEFAULT_BOUND, KILL_BOUND, named_bound

CHECKERS = ("explorer", "command", "hypothesis", "z3", "spec")
PROFILE = Profile.BOUNDARY


@dataclass
class Timing:
    """One checker on one design: seconds to its first counterexample (``None``: not caught)."""

    checker: str
    design: int
    wall: float
    cpu: float
    steps: int | None = None
    rule: str | None = None
    detail: str = ""


class Clock:
    """Wall and CPU seconds of a block; CPU counts this process and the children it waited for
    (a subprocess, forked workers)."""

    def __enter__(self) -> "Clock":
        self.wall, self.cpu = time.perf_counter(), _cpu()
        return self

    def __exit__(self, *exc) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, _cpu() - self.cpu


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def explorer(number: int, stop: Stop, workers: int = 1) -> Timing:
    design_explorer.clear_spec_memo()
    with Clock() as clock:
        expect = spec_design(number).breaks(PROFILE)  # as explore-design N
        result = explore_server(DESIGNS[number], named_bound(KILL_BOUND), PROFILE, stop=stop, expect=expect,
                                workers=workers)
    first = result.first
    detail = f"{result.states} states, {result.notes['expanded']} expanded"
    name = f"explorer-{stop.value}" + (f"-{workers}w" if workers > 1 else "")
    return Timing(name, number, clock.wall, clock.cpu, first.steps if first else None,
                  first.rule if first else None, detail)


def command(number: int, runs: int = 3) -> Timing:
    """The whole ``mcp-resume explore-design N --quiet`` process, median wall of ``runs``."""
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "mcp_resume.cli", "explore-design", str(number), "--quiet"],
                              capture_output=True, text=True, timeout=120)
        walls.append(time.perf_counter() - started)
    wall = statistics.median(walls)
    shown = re.search(r"^(\S+) \((\d+) steps?\)", done.stdout, re.MULTILINE)
    return Timing("command", number, wall, 0.0, int(shown.group(2)) if shown else None, shown.group(1) if shown else None,
                  f"exit {done.returncode}, runs {', '.join(f'{w:.2f}' for w in walls)} s")


def hypothesis(number: int) -> Timing:
    with Clock() as clock:
        result = run_machine(DESIGNS[number], PROFILE)
    trace = result.trace
    detail = (f"first after {result.actions_to_first} actions, {result.seconds_to_first or 0:.2f} s; "
              f"{result.actions_run} actions in all")
    return Timing("hypothesis", number, clock.wall, clock.cpu, len(trace.actions) if trace else None,
                  trace.failure.rule if trace and trace.failure else None, detail)


def z3(number: int) -> Timing:
    missing = needs_encoding(spec_design(number))
    if missing is not None:
        return Timing("z3", number, 0.0, 0.0, detail=f"not encoded: {missing}")
    with Clock() as clock:
        result = bmc_design(number, PROFILE)
    return Timing("z3", number, clock.wall, clock.cpu, result.depth, result.rule)


def spec_rate(workers: int) -> dict:
    bounds = named_bound(DEFAULT_BOUND)
    with Clock() as clock:
        result = explore_fast(bounds, PROFILE, workers=workers)
    return {"bound": DEFAULT_BOUND, "workers": workers, "states": result.states, "wall": clock.wall, "cpu": clock.cpu,
            "states_per_second": result.states / clock.wall if clock.wall else 0.0}


def calibrate(additions: int = 10_000_000) -> float:
    """The best of three wall times, in seconds, of a Python loop of ``additions`` additions."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for number in range(additions):
            total += number
        best = min(best, time.perf_counter() - started)
    return best


def run(numbers: list[int], checkers: list[str], workers: int) -> dict:
    load = [os.getloadavg()]
    speed = [calibrate()]
    print(f"calibration: ten million additions in {speed[0]:.2f} s", flush=True)
    timings: list[Timing] = []
    for number in numbers:
        row: list[Timing] = []
        if "explorer" in checkers:
            row += [explorer(number, Stop.FIRST), explorer(number, Stop.LEVEL)]
            if workers > 1:
                row.append(explorer(number, Stop.LEVEL, workers))
        if "command" in checkers:
            row.append(command(number))
        if "hypothesis" in checkers:
            row.append(hypothesis(number))
        if "z3" in checkers:
            row.append(z3(number))
        for timing in row:
            print(_line(timing), flush=True)
        timings += row
    spec = spec_rate(workers) if "spec" in checkers else None
    if spec:
        print(f"spec explorer, {spec['bound']} bound, {workers} worker(s): {spec['states']:,} states in "
              f"{spec['wall']:.2f} s wall ({spec['cpu']:.2f} s CPU in this process), "
              f"{spec['states_per_second']:,.0f} states/s")
    load.append(os.getloadavg())
    speed.append(calibrate())
    print("load average before: {:.2f} {:.2f} {:.2f}; after: {:.2f} {:.2f} {:.2f}".format(*load[0], *load[1]))
    print(f"calibration: ten million additions in {speed[0]:.2f} s before, {speed[1]:.2f} s after")
    return {"profile": PROFILE.value, "cores": os.cpu_count(), "load_average": load, "calibration_seconds": speed,
            "timings": [asdict(t) for t in timings], "spec_explorer": spec}


def _line(t: Timing) -> str:
    found = f"{t.steps} steps, {t.rule}" if t.steps is not None else "-"
    return f"design {t.design:>2}  {t.checker:<16} {t.wall:7.2f} s wall {t.cpu:7.2f} s CPU  {found}  {t.detail}"


def parse_designs(text: str) -> list[int]:
    """``1-5,9,12`` -> [1, 2, 3, 4, 5, 9, 12]; ``ArgumentTypeError`` for a design that does not exist."""
    numbers: list[int] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        low, _, high = part.partition("-")
        try:
            numbers += range(int(low), int(high or low) + 1)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r} is neither a design number nor a range low-high") from None
    unknown = [n for n in numbers if n not in NUMBERS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown design(s) {unknown}; designs are {NUMBERS[0]}-{NUMBERS[-1]}")
    return list(dict.fromkeys(numbers))


def parse_checkers(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in CHECKERS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown checker(s) {unknown}; checkers are {', '.join(CHECKERS)}")
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", type=parse_designs, default=list(NUMBERS), help="e.g. 1-29 or 3,9,12 (default: all)")
    parser.add_argument("--checkers", type=parse_checkers, default=list(CHECKERS),
                        help=f"comma-separated, of {', '.join(CHECKERS)} (default: all)")
    parser.add_argument("--workers", type=int, default=default_workers(), metavar="N",
                        help="processes for the explorers, as the command's --workers (default: cores, at most 4)")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.json:
        problem = output_file_problem(args.json)
        if problem:
            parser.error(f"--json: {problem}")  # before minutes of runs, not after
    if not args.designs:
        parser.error("--designs names no design (a range is low-high)")
    data = run(args.designs, args.checkers, max(1, args.workers))
    if args.json:
        write_output(args.json, json.dumps(data, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
