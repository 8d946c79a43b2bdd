"""At most two modules start processes (issue 27): ``model/harness/workers.py`` the worker
processes, ``model/targets/process.py`` the external programs (servers under test, pip,
npm). Anywhere else in the package, importing ``subprocess``, ``multiprocessing`` or
``concurrent.futures.ProcessPoolExecutor``, or calling ``os.fork`` (or another of ``os``'s
ways to start a program), is a second way to use the cores or to run a program."""

from __future__ import annotations

import ast

from tests.helpers import ROOT

PACKAGE_FOLDERS = ("src/mcp_resume", "spec", "model", "proofs")
STARTERS = {"model/harness/workers.py", "model/targets/process.py"}

FORBIDDEN_MODULES = ("subprocess", "multiprocessing", "pty")
FORBIDDEN_NAMES = {("concurrent.futures", "ProcessPoolExecutor"), ("asyncio", "create_subprocess_exec"),
                   ("asyncio", "create_subprocess_shell")}
OS_STARTERS = {"fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp", "execv", "execve", "execl",
               "execle", "execlp", "execlpe", "execvp", "execvpe", "spawnv", "spawnve", "spawnl", "spawnle",
               "spawnlp", "spawnlpe", "spawnvp", "spawnvpe"}


def _forbidden(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in FORBIDDEN_MODULES)


def process_starts(source: str) -> list[str]:
    """What in ``source`` starts processes or brings a way to: ``"import subprocess"``,
    ``"os.fork()"``..., in file order."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names if _forbidden(alias.name)]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            module = node.module or ""
            if _forbidden(module):
                found.append(f"from {module} import ...")
            found += [f"from {module} import {alias.name}" for alias in node.names
                      if (module, alias.name) in FORBIDDEN_NAMES or (module == "os" and alias.name in OS_STARTERS)
                      or _forbidden(f"{module}.{alias.name}")]
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "os" and node.attr in OS_STARTERS:
                found.append(f"os.{node.attr}")
            elif node.attr in {name for _, name in FORBIDDEN_NAMES}:
                found.append(f"... .{node.attr}")
    return found


def test_only_two_modules_start_processes():
    starting = {}
    for folder in PACKAGE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            found = process_starts(path.read_text(encoding="utf-8"))
            if found:
                starting[path.relative_to(ROOT).as_posix()] = found
    assert set(starting) - STARTERS == set(), {name: starting[name] for name in set(starting) - STARTERS}
    assert set(starting) == STARTERS  # both still do: this test would see a move


def test_the_check_sees_every_way_in():
    sources = ["import subprocess", "import multiprocessing.connection", "from multiprocessing import Pipe",
               "from concurrent.futures import ProcessPoolExecutor", "import concurrent.futures as f\nf.ProcessPoolExecutor",
               "import os\nos.fork()", "from os import fork", "import os\nos.system('x')",
               "import asyncio\nasyncio.create_subprocess_exec('x')"]
    assert [source for source in sources if not process_starts(source)] == []
    assert process_starts("from concurrent.futures import ThreadPoolExecutor\nimport os\nos.getpid()") == []
