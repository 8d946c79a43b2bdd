"""Which tests cover which catalog rule, by a static scan of the test files.

A test says what it covers with the marker ``@pytest.mark.covers("rule-id", ...)``
on a test function or class, or ``pytestmark = pytest.mark.covers(...)`` (or a
list of marks) for a whole module. Nothing is imported or run: the files are
parsed with ``ast``, in sorted order, so the result is the same on every machine.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterable

MARKER = "covers"


class CoverageError(ValueError):
    """A ``covers`` marker that cannot be read or names an unknown rule; says where."""


@dataclass(frozen=True)
class TestRef:
    """One test: its file (POSIX path relative to the repository root) and node name."""

    path: str
    name: str  # "test_x" or "TestClass::test_x"
    rules: tuple[str, ...]

    @property
    def node_id(self) -> str:
        return f"{self.path}::{self.name}"


def scan_tests(tests_dir: Path, root: Path, known_rules: Iterable[str]) -> list[TestRef]:
    """Every test under ``tests_dir`` that carries a ``covers`` marker, in file then line order.

    Paths are given relative to ``root``. Raises ``CoverageError`` for a marker
    whose arguments are not string literals or that names a rule not in
    ``known_rules``, and ``SyntaxError`` for a test file that does not parse.
    """
    known = set(known_rules)
    refs: list[TestRef] = []
    for path in sorted(Path(tests_dir).rglob("test_*.py")):
        relative = PurePosixPath(path.resolve().relative_to(Path(root).resolve()).as_posix())
        refs += _scan_file(path, str(relative), known)
    return refs


def tests_by_rule(refs: Iterable[TestRef]) -> dict[str, list[TestRef]]:
    by_rule: dict[str, list[TestRef]] = {}
    for ref in refs:
        for rule in ref.rules:
            by_rule.setdefault(rule, []).append(ref)
    return by_rule


def _scan_file(path: Path, relative: str, known: set[str]) -> list[TestRef]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module_rules = ()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            module_rules = _rules_in(node.value, relative, known)
    refs = []
    for node in tree.body:
        if _is_test_function(node):
            refs.append(_ref(relative, node.name, module_rules + _decorated(node, relative, known)))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            class_rules = module_rules + _decorated(node, relative, known)
            for item in node.body:
                if _is_test_function(item):
                    refs.append(_ref(relative, f"{node.name}::{item.name}", class_rules + _decorated(item, relative, known)))
    return [ref for ref in refs if ref.rules]


def _ref(path: str, name: str, rules: tuple[str, ...]) -> TestRef:
    return TestRef(path, name, tuple(dict.fromkeys(rules)))


def _is_test_function(node: ast.AST) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")


def _decorated(node, path: str, known: set[str]) -> tuple[str, ...]:
    rules: tuple[str, ...] = ()
    for decorator in node.decorator_list:
        rules += _rules_in(decorator, path, known)
    return rules


def _rules_in(value: ast.AST, path: str, known: set[str]) -> tuple[str, ...]:
    """The rule ids of every ``covers`` call in ``value`` (a mark, or a list/tuple of marks)."""
    if isinstance(value, (ast.List, ast.Tuple)):
        return tuple(rule for item in value.elts for rule in _rules_in(item, path, known))
    if not (isinstance(value, ast.Call) and _is_covers(value.func)):
        return ()
    rules = []
    for arg in value.args:
        if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
            raise CoverageError(f"{path}:{value.lineno}: covers() takes rule ids as string literals")
        if arg.value not in known:
            raise CoverageError(f"{path}:{value.lineno}: covers() names unknown rule {arg.value!r}")
        rules.append(arg.value)
    if not rules or value.keywords:
        raise CoverageError(f"{path}:{value.lineno}: covers() takes one or more rule ids and nothing else")
    return tuple(rules)


def _is_covers(func: ast.AST) -> bool:
    """``pytest.mark.covers`` or ``mark.covers``."""
    if not (isinstance(func, ast.Attribute) and func.attr == MARKER):
        return False
    owner = func.value
    return (isinstance(owner, ast.Attribute) and owner.attr == "mark") or (isinstance(owner, ast.Name) and owner.id == "mark")
