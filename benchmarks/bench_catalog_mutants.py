"""In-process mutation run of spec/catalog.py's grades against tests/fast/test_catalog_levels.py.

Each mutant flips one grade's level (MUST->SHOULD, SHOULD->MUST, MAY->SHOULD, n/a->MAY) or drops one
grade's last source, in memory only (the file is never written). Run from the repository root:
``.venv/bin/python benchmarks/bench_catalog_mutants.py``; prints the count and every survivor, exits 1 if any.
"""
import contextlib
import io
import re
import sys
import types
from pathlib import Path

import pytest

import mcp_resume.spec as spec_pkg

ROOT = Path(__file__).resolve().parent.parent
CAT = ROOT / "spec/catalog.py"
orig = CAT.read_text()
FLIP = {"MUST": "SHOULD", "SHOULD": "MUST", "MAY": "SHOULD", "NA": "MAY"}
pat = re.compile(r'_g\((MUST|SHOULD|MAY|NA)((?:, "[^"]+")+)')
mutants = []
for m in pat.finditer(orig):
    line = orig.count("\n", 0, m.start()) + 1
    mutants.append((m.start(1), m.end(1), FLIP[m.group(1)], f"line {line}: level {m.group(1)}->{FLIP[m.group(1)]}"))
    srcs = m.group(2)
    last = srcs.rfind(", ")
    mutants.append((m.start(2) + last, m.end(2), "", f"line {line}: drop {srcs[last+2:]}"))
PURGE = ("mcp_resume.spec.verdicts", "mcp_resume.docgen.pages_spec", "mcp_resume.docgen.pages_rules", "test_catalog_levels",
         "tests.test_catalog_levels")

def install(text):
    mod = types.ModuleType("mcp_resume.spec.catalog")
    mod.__package__ = "mcp_resume.spec"
    mod.__file__ = str(CAT)
    exec(compile(text, str(CAT), "exec"), mod.__dict__)
    sys.modules[mod.__name__] = mod
    spec_pkg.catalog = mod
    for name in PURGE:
        sys.modules.pop(name, None)

def run():
    with contextlib.redirect_stdout(io.StringIO()):
        return pytest.main([str(ROOT / "tests/fast/test_catalog_levels.py"), "-x", "-q", "-n", "0", "-p", "no:cacheprovider",
                            "-p", "no:randomly"])
install(orig)
assert run() == 0, "the unmutated catalog must pass"
survivors = []
for a, b, new, name in mutants:
    install(orig[:a] + new + orig[b:])
    if run() == 0:
        survivors.append(name)
install(orig)
assert run() == 0
print(f"{len(mutants)} mutants, {len(survivors)} survived")
for survivor in survivors:
    print("  ", survivor)
sys.exit(1 if survivors else 0)
