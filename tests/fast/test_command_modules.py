"""The command line is thin (issue 27): each command module parses, calls the library
(``mcp_resume.jobs``) and prints. No command module imports another, the library imports no
command module, and ``cli`` and ``command`` do not import each other's way round."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

from mcp_resume.cli import build_parser

from tests.helpers import ROOT

PACKAGE = ROOT / "src" / "mcp_resume"


def command_modules() -> dict[str, str]:
    """Each command's name -> the module its handler lives in (``mcp_resume.<module>``)."""
    found = {}
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, parser in action.choices.items():
                module = parser.get_default("handler").__qualname__.split(".")[0]
                found[name] = module
    return found


def imported_modules(path: Path) -> set[str]:
    """The ``mcp_resume`` modules ``path`` imports, as dotted names below ``mcp_resume`` (relative
    imports resolved), at any depth of the file (imports inside functions too)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
                base = list(package[: len(package) - node.level + 1])
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.add(module)
            names |= {f"{module}.{alias.name}" for alias in node.names}
    return {name.removeprefix("mcp_resume.") for name in names if name.startswith("mcp_resume.")}


def test_every_command_has_a_module_of_its_own_file():
    modules = command_modules()
    assert {"explore", "explore-design", "liveness", "kill-matrix", "graph", "check", "verify", "prove", "validate", "proxy", "replay"} <= set(modules)
    for module in modules.values():
        assert (PACKAGE / f"{module}.py").is_file(), module


def test_no_command_module_imports_another():
    modules = set(command_modules().values())
    for module in sorted(modules):
        others = {name.split(".")[0] for name in imported_modules(PACKAGE / f"{module}.py")} & (modules - {module})
        assert not others, f"mcp_resume/{module}.py imports the command module(s) {sorted(others)}: move what they share to mcp_resume.jobs"


def test_the_library_imports_no_command_module_nor_the_command_line():
    forbidden = set(command_modules().values()) | {"cli", "command"}
    for path in sorted((PACKAGE / "jobs").glob("*.py")):
        imported = {name.split(".")[0] for name in imported_modules(path)}
        assert not imported & forbidden, f"jobs/{path.name} imports {sorted(imported & forbidden)}"


def test_cli_and_command_import_each_other_one_way_only():
    """``command.entry`` imports ``cli`` (late, so Ctrl-C while loading is one line); ``cli``
    takes the exit codes from ``jobs.exits``, not from ``command``."""
    assert "command" not in {name.split(".")[0] for name in imported_modules(PACKAGE / "cli.py")}
    assert "cli" in {name.split(".")[0] for name in imported_modules(PACKAGE / "command.py")}


def test_the_tests_use_the_library_not_a_command_module():
    """``tests/conftest.py`` proves through ``jobs.proving``, not the ``prove`` command."""
    imported = {name.split(".")[0] for name in imported_modules(Path(__file__).resolve().parents[1] / "conftest.py")}
    assert not imported & set(command_modules().values())
