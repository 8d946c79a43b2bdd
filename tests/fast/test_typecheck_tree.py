"""tools/typecheck.py lays the package out as a regular install does, from pyproject.toml's mapping."""

from __future__ import annotations

import importlib.util

from tests.helpers import ROOT

spec = importlib.util.spec_from_file_location("typecheck", ROOT / "tools" / "typecheck.py")
typecheck = importlib.util.module_from_spec(spec)
spec.loader.exec_module(typecheck)


def test_the_tree_has_every_mapped_package_where_an_install_puts_it(tmp_path):
    dirs = typecheck.package_dirs()
    assert dirs["mcp_resume.spec"] == ROOT / "spec" and dirs["mcp_resume"] == ROOT / "src" / "mcp_resume"
    typecheck.build_tree(dirs, tmp_path / "tree")
    tree = typecheck.build_tree(dirs, tmp_path / "tree")  # again: the old tree removed, its links not followed
    assert (tree / "mcp_resume" / "spec" / "catalog.py").resolve() == ROOT / "spec" / "catalog.py"
    assert (tree / "mcp_resume" / "cli.py").resolve() == ROOT / "src" / "mcp_resume" / "cli.py"
    assert (tree / "mcp_resume" / "model" / "verify" / "suite.py").is_file()
    assert not (tree / "mcp_resume" / "__pycache__").exists()
    assert (ROOT / "spec" / "catalog.py").exists()  # the tree's removal leaves the sources alone

