"""What tests/fast/test_diagrams.py and tests/slow/test_diagrams.py share."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from mcp_resume.proofs.diagrams import graphviz


NO_GRAPHVIZ = "Graphviz's dot is not installed, SVG/PNG rendering not tested (apt-get install graphviz)"
needs_graphviz = pytest.mark.skipif(graphviz.find_dot() is None, reason=NO_GRAPHVIZ)


def args(out: Path, formats=None):
    return argparse.Namespace(out=out, format=formats)


def no_graphviz(monkeypatch):
    monkeypatch.setattr(graphviz, "find_dot", lambda: None)
