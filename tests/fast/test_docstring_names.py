"""Every module a docstring names exists (issue 27: docstrings named modules long gone).

A docstring names a module as a path (``model/explore/fast.py``) or dotted
(``spec.transitions.remember``, ``mcp_resume.testing.kit``); a dotted name may end in
attributes of the module. Each such name in a docstring of ours must resolve."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path


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


CONTRIBUTING = ROOT / "docs" / "contributing.md"
BACKTICKED_FILE = re.compile(r"`([\w./-]+\.(?:py|json|toml|md))`")
LINKED_FILE = re.compile(r"\]\((\.\./[^)#\s]+)")
BACKTICKED_DOTTED = re.compile(r"`((?:mcp_resume|spec|model|proofs)(?:\.\w+)+)")
LAYOUT_LINE = re.compile(r"^( *)([\w./-]+/)(?:\s|$)")


def _layout_folders(text: str) -> list[str]:
    """The folders of the page's layout block, as repository paths: a line indented
    under a top-level folder is a folder inside it."""
    block = text.split("```text\n", 1)[1].split("```", 1)[0]
    folders, parent = [], ""
    for line in block.splitlines():
        match = LAYOUT_LINE.match(line)
        if match is None:
            continue
        indent, name = match.groups()
        if not indent:
            parent = name
            folders.append(name)
        else:
            folders.append(parent + name)
    return folders


def _contributing_names(text: str) -> list[tuple[str, bool]]:
    """``(name, exists)`` for each file, folder and module docs/contributing.md names."""
    names = [(f, (ROOT / f).exists()) for f in BACKTICKED_FILE.findall(text)]
    names += [(link, (CONTRIBUTING.parent / link).resolve().exists()) for link in LINKED_FILE.findall(text)]
    names += [(dotted.split("(")[0], _resolves(dotted)) for dotted in BACKTICKED_DOTTED.findall(text)]
    names += [(folder, (ROOT / folder).is_dir()) for folder in _layout_folders(text)]
    return names


def test_docs_contributing_names_only_what_exists():
    text = CONTRIBUTING.read_text(encoding="utf-8")
    missing = [name for name, exists in _contributing_names(text) if not exists]
    assert not missing, "docs/contributing.md names what does not exist: " + ", ".join(missing)


def test_docs_contributing_lists_every_package_of_model_and_proofs():
    folders = set(_layout_folders(CONTRIBUTING.read_text(encoding="utf-8")))
    packages = {f"{path.parent.parent.name}/{path.parent.name}/" for top in ("model", "proofs")
                for path in (ROOT / top).glob("*/__init__.py")}
    assert packages <= folders, f"left out of the layout: {sorted(packages - folders)}"


def test_the_contributing_check_sees_a_name_that_is_gone():
    text = "`model/verify/suite.py`, `verify/outputs.py`, [x](../spec/gone.py), `spec.transitions.nothing`\n```text\nmodel/\n  gone/  x\n```"
    missing = {name for name, exists in _contributing_names(text) if not exists}
    assert missing == {"verify/outputs.py", "../spec/gone.py", "spec.transitions.nothing", "model/gone/"}
