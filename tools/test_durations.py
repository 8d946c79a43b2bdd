"""Write ``tests/durations.json`` from a JUnit XML report of a whole test run.

``tests/conftest.py`` starts the slow tier's longest tests first and deals them across the
xdist workers by these figures, so the workers finish together, and spreads the tests that
keep a core busy among those that wait. Refresh them after tests move or change cost::

    python -m pytest --junitxml=/tmp/run.xml && python tools/test_durations.py /tmp/run.xml

Keys are ``<file name>::<test name>`` (the folder left out, so a test keeps its figure when
it moves between ``tests/fast/`` and ``tests/slow/``); values are ``[wall, cpu]`` seconds,
rounded to 0.1 (the CPU seconds from the ``cpu`` property conftest gives each test case).
Only tests of at least ``MINIMUM_SECONDS`` are kept: the rest fill the gaps in any order.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

MINIMUM_SECONDS = 1.0
OUT = Path(__file__).resolve().parents[1] / "tests" / "durations.json"


def durations(junit_xml: Path) -> dict[str, list[float]]:
    """``{"test_x.py::test_y[case]": [wall, cpu]}`` seconds of every test case in ``junit_xml`` that took
    ``MINIMUM_SECONDS`` or more. Raises ``ElementTree.ParseError`` for a file that is not XML."""
    found = {}
    for case in ElementTree.parse(junit_xml).iter("testcase"):
        module = (case.get("classname") or "").split(".")[-1]
        seconds = float(case.get("time") or 0)
        cpu = next((float(p.get("value")) for p in case.iter("property") if p.get("name") == "cpu"), 0.0)
        if module and seconds >= MINIMUM_SECONDS:
            found[f"{module}.py::{case.get('name')}"] = [round(seconds, 1), round(cpu, 1)]
    return dict(sorted(found.items()))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    lines = [f" {json.dumps(key)}: {json.dumps(value)}" for key, value in durations(Path(argv[0])).items()]
    OUT.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")  # one test a line
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
