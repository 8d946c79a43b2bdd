"""Every module a docstring names exists (issue 27: docstrings named modules long gone).

A docstring names a module as a path (``model/explore/fast.py``) or dotted
(``spec.transitions.remember``, ``mcp_resume.testing.kit``); a dotted name may end in
attributes of the module. Each such name in a docstring of ours must resolve."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from tests.helpers import ROOT

SOURCES = ("src/mcp_resume", "spec", "model", "proofs", "benchmarks", "tools")
PACKAGES = {"spec": "mcp_resume.spec", "model": "mcp_resume.model", "proofs": "mcp_resume.proofs",
            "mcp_resume": "mcp_resume"}
PATH = re.compile(r"(?<![\w/.])((?:src/mcp_resume|spec|model|proofs|tests|benchmarks|tools)/[\w/]+\.py)\b")
DOTTED = re.compile(r"``((?:mcp_resume|spec|model|proofs)(?:\.\w+)+)|(?<![\w.])(mcp_resume(?:\.\w+)+)")


def _docstrings(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text:
                yield text


def _files():
    for folder in SOURCES:
        yield from sorted((ROOT / folder).rglob("*.py"))


def _resolves(dotted: str) -> bool:
    head, *rest = dotted.split(".")
    parts = PACKAGES[head].split(".") + rest
    for cut in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(target, name):
                return False
            target = getattr(target, name)
        return True
    return False


def _named():
    for path in _files():
        for text in _docstrings(path):
            for match in PATH.finditer(text):
                yield path, match.group(1), (ROOT / match.group(1)).is_file()
            for match in DOTTED.finditer(text):
                yield path, (match.group(1) or match.group(2)).rstrip("."), None


def test_every_module_a_docstring_names_exists():
    missing = []
    for path, name, exists in _named():
        ok = exists if exists is not None else _resolves(name)
        if not ok:
            missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert not missing, "docstrings name what does not exist:\n" + "\n".join(sorted(set(missing)))


def test_the_check_sees_a_missing_module(tmp_path):
    assert _resolves("spec.transitions.remember") and _resolves("mcp_resume.testing")
    assert not _resolves("spec.no_such_module") and not _resolves("model.explore.fast.no_such_name")
