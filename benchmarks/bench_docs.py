"""Time ``mcp-resume docs``: ``python benchmarks/bench_docs.py [--repeat N]``.

Prints the median wall time (seconds) of generating the whole documentation set
into a scratch folder, with and without Graphviz rendering the SVG files, and
the number of files written. Run from the repository root (it scans ``tests/``).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from mcp_resume.docgen import build_docs
from mcp_resume.proofs.diagrams import graphviz


def _median(repeat: int, dot_program):
    times, written = [], 0
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as scratch:
            start = time.perf_counter()
            written = len(build_docs(Path(scratch), Path("tests"), dot_program).written)
            times.append(time.perf_counter() - start)
    return statistics.median(times), written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement, median reported (default 3)")
    args = parser.parse_args()
    dot = graphviz.find_dot()
    for label, program in (("with SVG (Graphviz)", dot), ("without SVG", None)):
        if label.startswith("with SVG") and dot is None:
            print(f"{label:22} skipped: Graphviz's dot is not installed")
            continue
        seconds, written = _median(args.repeat, program)
        print(f"{label:22} {seconds:6.2f} s  {written} files")


if __name__ == "__main__":
    main()
