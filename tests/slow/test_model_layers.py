"""The packages of ``model/`` import each other one way only: the HTTP client below the

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_model_layers.py``, whose docstring says more.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.model_layers import ALLOWED
from tests.helpers import ROOT


MODEL = ROOT / "model"


def _imported_packages(package: Path) -> dict[str, set[str]]:
    """For each module of ``package``, the other ``model`` packages it imports."""
    found = {}
    for path in sorted(package.glob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mcp_resume.model."):
                names.add(node.module.split(".")[2])
        found[path.name] = names - {package.name}
    return found


def test_model_packages_import_only_the_layers_below_them():
    for name, allowed in ALLOWED.items():
        for module, imported in _imported_packages(MODEL / name).items():
            assert imported <= allowed, f"model/{name}/{module} imports {sorted(imported - allowed)}"
