"""What the tests share: servers, event stores, recorded traffic, and per topic what a
fast and a slow half of it both use. ``ROOT`` is the checkout the tests run from."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root folder (the one holding ``spec/``, ``model/``, ``tests/``)."""

SUITE_EXAMPLES = 200
"""Examples of the suite's machine runs, two fifths of the machine's default (500). A run that
finds its counterexample stops long before either (every faulty design is found within 150);
the count matters for the runs that pass, a correct server's or a design its profile does not
blame, and those reach full coverage from 200 on (benchmarks/RESULTS.md, 2026-12-04): a run
that passes with less than full coverage fails its test (``MachineResult.holds``)."""
