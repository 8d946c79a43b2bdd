"""What ``mcp-resume validate`` costs on a long recording: seconds and peak memory.

Writes a JSON-lines recording of three sessions whose ``tools/call`` streams carry
``notifications/message`` events of 2 KB (every tenth stream dropped half-way and
resumed with ``Last-Event-ID``; the shape of ``tests/helpers/traffic_validate.py``),
then runs ``python -m mcp_resume.cli validate`` on it in a child process and prints the
recording's size and event count, the command's wall seconds and its peak RSS (MB).

Usage, from the checkout's root: ``python benchmarks/bench_validate.py [--megabytes N]``
(default 60). Exit status: the command's.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.helpers.traffic_validate import session_lines  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=60, help="size of the recording, in MB (default 60)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path, report = Path(folder) / "long.jsonl", Path(folder) / "report.json"
        with path.open("w", encoding="utf-8") as file:
            file.writelines(session_lines(args.megabytes * 1_000_000))
        events = sum(line.count('"at":') for line in path.open(encoding="utf-8"))
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "mcp_resume.cli", "validate", str(path), "--json", str(report)],
                              stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        verdicts = {v["verdict"] for v in json.loads(report.read_text())["verdicts"]} if report.exists() else set()
        print(f"{path.stat().st_size / 1e6:.1f} MB, {events} events: validate took {seconds:.1f} s, "
              f"peak RSS {peak_mb:.0f} MB, exit {done.returncode}, verdicts {sorted(verdicts)}")
        return done.returncode


if __name__ == "__main__":
    sys.exit(main())
