"""What tests/fast/test_docs.py and tests/slow/test_docs.py share."""

from __future__ import annotations

from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]

TESTS = ROOT / "tests"
