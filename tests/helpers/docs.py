"""What tests/fast/test_docs.py and tests/slow/test_docs.py share."""

from __future__ import annotations

from tests.helpers import ROOT


TESTS = ROOT / "tests"
