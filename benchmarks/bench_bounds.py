"""What two server requests per session cost: the default bound, ``check``, a design, liveness.

``python benchmarks/bench_bounds.py [--runs N] [--only NAME,...] [--json FILE]``

Measures, each ``--runs`` times (default 3) and quoted as min / median, since the
machine may be shared:

- ``default-1`` and ``default-2``: the spec explorer (``explore_fast``, one worker, as
  ``check`` runs it) on the default bound with one and with two server requests per
  session, the rest of the bound as named: states, wall and CPU seconds, states/s;
- ``check``: the whole ``mcp-resume check`` process, wall seconds and its exit code;
- ``design-3``: the whole ``mcp-resume explore-design 3 --quiet`` process (the kill
  bound), and ``design-3-1`` with one server request per session (``--requests 1``);
- ``liveness``: the whole ``mcp-resume liveness 3 --quiet`` process
  (the liveness bound), and ``liveness-1`` with one event per stream and one server
  request per session.

The load average is printed before and after. Run it on a tree before and after a
change to compare the two; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from mcp_resume.model.explore.fast import explore_fast
from mcp_resume.spec.space import DEFAULT_BOUND, named_bound

COMMANDS = {
    "design-3": ("explore-design", "3", "--quiet"),
    "design-3-1": ("explore-design", "3", "--requests", "1", "--quiet"),
    "liveness": ("liveness", "3", "--quiet"),
    "liveness-1": ("liveness", "3", "--events", "1", "--requests", "1", "--quiet"),
}
"""The measures that time one ``mcp-resume`` process, by name."""

MEASURES = ("default-1", "default-2", "check", *COMMANDS)


@dataclass
class Runs:
    """The runs of one measure: wall and CPU seconds, and what each found."""

    name: str
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        walls = f"wall min {min(self.walls):6.2f} s, median {statistics.median(self.walls):6.2f} s"
        cpus = f"; CPU min {min(self.cpus):6.2f} s, median {statistics.median(self.cpus):6.2f} s" if self.cpus else ""
        return f"{self.name:<10} {walls}{cpus}  ({'; '.join(dict.fromkeys(self.notes))})"


def spec_explorer(requests: int) -> tuple[float, float, str]:
    """The default bound with ``requests`` server requests per session, on one worker."""
    bounds = replace(named_bound(DEFAULT_BOUND), requests=requests)
    wall, cpu = time.perf_counter(), time.process_time()
    result = explore_fast(bounds)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, f"{result.states:,} states, {result.transitions:,} transitions, {result.states / wall:,.0f} states/s"


def command(*argv: str) -> tuple[float, str]:
    """The wall seconds of one ``mcp-resume`` process, and its exit code."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mcp_resume.cli", *argv], capture_output=True, text=True, timeout=600)
    return time.perf_counter() - started, f"exit {done.returncode}"


def check_command() -> tuple[float, str]:
    with tempfile.TemporaryDirectory() as folder:
        return command("check", "--out", folder, "--quiet")


def measure(name: str, runs: int) -> Runs:
    """``runs`` runs of the measure called ``name``."""
    result = Runs(name)
    for _ in range(runs):
        if name.startswith("default-"):
            wall, cpu, note = spec_explorer(int(name.split("-")[1]))
            result.cpus.append(cpu)
        elif name == "check":
            wall, note = check_command()
        else:
            wall, note = command(*COMMANDS[name])
        result.walls.append(wall)
        result.notes.append(note)
        print(f"  {name}: {wall:.2f} s ({note})", file=sys.stderr, flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each measure (default: %(default)s)")
    parser.add_argument("--only", default=",".join(MEASURES), help=f"measures to run, of {', '.join(MEASURES)}")
    parser.add_argument("--json", type=Path, default=None, help="also write the runs as JSON")
    args = parser.parse_args(argv)
    names = [name for name in args.only.split(",") if name]
    unknown = sorted(set(names) - set(MEASURES))
    if unknown:
        parser.error(f"unknown measure(s) {', '.join(unknown)}; known: {', '.join(MEASURES)}")
    load = [os.getloadavg()]
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {load[0][0]:.2f}")
    results = [measure(name, args.runs) for name in names]
    load.append(os.getloadavg())
    for result in results:
        print(result.line())
    print("load average before: {:.2f} {:.2f} {:.2f}; after: {:.2f} {:.2f} {:.2f}".format(*load[0], *load[1]))
    if args.json:
        args.json.write_text(json.dumps({"load_average": load, "runs": [r.__dict__ for r in results]}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
