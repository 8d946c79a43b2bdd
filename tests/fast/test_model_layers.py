"""The packages of ``model/`` import each other one way only: the HTTP client below the
traffic validators of both eras (``traffic``, ``sessionless``), those below the one oracle
(``oracle``), that below ``verify``, and the servers served over HTTP above all of them.
A cycle would make "fix it once" untrue again: every package's imports are read here."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.model_layers import ALLOWED
from tests.helpers import ROOT


MODEL = ROOT / "model"


def test_every_model_package_is_placed_in_the_layers():
    packages = {p.name for p in MODEL.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == set(ALLOWED)


def test_the_allowed_imports_have_no_cycle():
    def reaches(start: str, goal: str, seen: frozenset = frozenset()) -> bool:
        return any(n == goal or n not in seen and reaches(n, goal, seen | {n}) for n in ALLOWED[start])

    assert not [name for name in ALLOWED if reaches(name, name)]


PACKAGES = {"spec": ROOT / "spec", "model": MODEL, "proofs": ROOT / "proofs"}
ALLOWED_PACKAGES = {"spec": {"spec"}, "model": {"spec", "model"}, "proofs": {"spec", "proofs"}}
"""What each package may import of ``mcp_resume``: the spec imports nothing of ours, model and
proofs only the spec (never each other), and none the command line (``src/mcp_resume``: ``cli``,
the commands, ``jobs``), which may import all of them."""


def _mcp_resume_imports(path: Path) -> set[str]:
    """The top-level ``mcp_resume`` names ``path`` imports (``spec``, ``model``, ``cli``, ``jobs`` ...)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module] if node.module != "mcp_resume" else [f"mcp_resume.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        names |= {m.split(".")[1] for m in modules if m.startswith("mcp_resume.")}
    return names


def test_spec_imports_nothing_of_ours_and_model_and_proofs_never_each_other():
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            imported = _mcp_resume_imports(path)
            assert imported <= ALLOWED_PACKAGES[package], \
                f"{path.relative_to(ROOT)} imports mcp_resume.{sorted(imported - ALLOWED_PACKAGES[package])}"
