"""Type-check the installed layout of the package with mypy (``.ci/run`` runs it).

The package's folders are mapped in ``pyproject.toml`` (``[tool.setuptools] package-dir``:
``mcp_resume`` is ``src/mcp_resume``, ``mcp_resume.spec`` is ``spec/``, ...), which an
editable install serves through an import hook that mypy cannot follow. So this builds
the layout a regular install has, as symbolic links under ``build/typecheck/``, and runs
``mypy -p mcp_resume`` there with the ``[tool.mypy]`` settings of ``pyproject.toml``;
errors name the files as ``mcp_resume/spec/...``. Exit code: mypy's (0 clean, 1 errors,
2 a usage error). Run from anywhere: ``python tools/typecheck.py``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT / "build" / "typecheck"


def package_dirs(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, Path]:
    """``{package: folder}`` from ``[tool.setuptools] package-dir``, folders absolute."""
    mapping = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    return {package: ROOT / folder for package, folder in mapping.items()}


def build_tree(dirs: dict[str, Path], tree: Path = TREE) -> Path:
    """Link each package's folder where a regular install puts it; return the tree's root.

    A package inside another (``mcp_resume.spec`` in ``mcp_resume``) is linked into a real
    folder made for the outer one, whose own entries are linked one by one."""
    shutil.rmtree(tree, ignore_errors=True)
    nested = {package.rsplit(".", 1)[0] for package in dirs if "." in package}
    for package in sorted(dirs, key=lambda name: name.count(".")):
        target = tree.joinpath(*package.split("."))
        if package in nested:
            target.mkdir(parents=True, exist_ok=True)
            for entry in dirs[package].iterdir():
                if entry.name != "__pycache__":
                    (target / entry.name).symlink_to(entry)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(dirs[package], target_is_directory=True)
    return tree


def main() -> int:
    tree = build_tree(package_dirs())
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "-p", "mcp_resume"]
    return subprocess.run(command, cwd=tree, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
