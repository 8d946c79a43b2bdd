"""Whether ``mcp-resume verify`` gives the same verdicts on a busy machine: each target verified
``--runs`` times while ``--load`` processes keep the cores busy, the verdicts compared rule by rule.

Run: ``python benchmarks/bench_verdicts_under_load.py [--runs 3] [--load 2] [--profile boundary]
TARGET ...`` where a TARGET is an MCP endpoint URL or an embedded target (``reference``,
``design-3``, ``zoo:<variant>`` or ``zoo:default`` for the zoo test server of
``tests/helpers/servers/zoo.py``).

Prints one line per target: ``stable`` with its verdict summary, or each rule whose verdict changed
from run to run (with the verdicts in run order); then the load average seen and the seconds each
run took. Exit code 0 when every target was stable, 1 otherwise.

The load is plain Python busy loops (one process each), started before the first run and stopped
by process id at the end; ``--load 0`` measures the quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the zoo test server's helper

from mcp_resume.model.http.client import Timeouts
from mcp_resume.model.targets.embedded import is_embedded, running_target
from mcp_resume.model.verify.suite import VerifyRun, verify
from mcp_resume.spec.profiles import Profile
from tests.helpers.zoo_serving import serving_zoo


def _busy() -> None:
    while True:
        pass


@contextmanager
def cores_busy(count: int) -> Iterator[None]:
    """``count`` processes spinning on a core each until the block ends (stopped by process id)."""
    workers = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(count)]
    for worker in workers:
        worker.start()
    try:
        yield
    finally:
        for worker in workers:
            worker.kill()
            worker.join(5)


@contextmanager
def serving(target: str) -> Iterator[str]:
    """The endpoint URL of ``target``: a URL as it is, an embedded target started, or ``zoo:NAME``
    started from the zoo test server; what was started is stopped by process id."""
    if target.startswith(("http://", "https://")):
        yield target
    elif target.startswith("zoo:"):
        variant = target.removeprefix("zoo:")
        with serving_zoo(None if variant == "default" else variant) as url:
            yield url
    elif is_embedded(target):
        with running_target(target) as url:
            yield url
    else:
        raise SystemExit(f"bench_verdicts_under_load: {target!r} is no URL, embedded target or zoo:VARIANT")


def verdicts(url: str, profile: Profile | None) -> tuple[dict[str, str], float]:
    """One whole verify of ``url``: each rule's verdict, and the run's seconds."""
    run = VerifyRun(url, url, profile, Timeouts())
    started = time.perf_counter()
    report = asyncio.run(verify(run))
    return {v.rule: v.verdict.value for v in report.verdicts}, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--load", type=int, default=os.cpu_count() or 2, help="busy processes (default: one a core)")
    parser.add_argument("--profile", default="boundary")
    args = parser.parse_args()
    profile = None if args.profile == "auto" else Profile.parse(args.profile)
    unstable = 0
    with cores_busy(args.load):
        for target in args.targets:
            with serving(target) as url:
                runs = [verdicts(url, profile) for _ in range(args.runs)]
            changed = {rule: [r[0][rule] for r in runs] for rule in runs[0][0]
                       if len({r[0].get(rule) for r in runs}) > 1}
            seconds = " ".join(f"{r[1]:.1f}" for r in runs)
            if changed:
                unstable += 1
                detail = "; ".join(f"{rule} {'/'.join(seen)}" for rule, seen in changed.items())
                print(f"{target}: UNSTABLE {detail} (runs {seconds} s)", flush=True)
            else:
                summary = ", ".join(f"{n} {v}" for v, n in sorted(_count(runs[0][0]).items()))
                print(f"{target}: stable, {summary} (runs {seconds} s)", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.load} busy process(es)")
    return 1 if unstable else 0


def _count(verdicts_by_rule: dict[str, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for verdict in verdicts_by_rule.values():
        counts[verdict] = counts.get(verdict, 0) + 1
    return counts


if __name__ == "__main__":
    sys.exit(main())
