"""Mutation testing of ``spec/``: how much of the spec its tests pin down.

Usage::

    python tools/mutation.py [--files spec/catalog.py ...] [--limit N] [--json F] [--jobs 2]
                                  [--pool GLOB ...] [--resume [--survivors-only]] [--rescore F] [--list]

1. Coverage contexts (``coverage``, one context per test): which test of the pool
   (default: the spec's own tests, ``SPEC_TESTS``; ``--pool 'tests/fast/*'`` for the whole
   fast tier) runs which line of ``spec/``, and how long each test takes. Cached under
   ``build/mutation/`` by the hash of ``spec/``; a new or changed test file is
   collected again on its own (two xdist workers, ``-m "not slow"``).
2. One-line mutants of every module (``mutants``): flipped comparisons and boolean
   operators, dropped operands and ``not``, swapped HTTP statuses, enum members and
   levels, flipped booleans, dropped members of set/tuple/list/dict literals, dropped
   ``if``-checks (early returns among them), appends and ``+=``, off-by-one integers
   and a dropped ``+ 1``.
3. A control run of the whole pool on the unmutated spec; then each mutant in a
   forked child (``nice``'d, at most ``--jobs`` at once, two at most) whose import
   system serves the mutated module from memory: the working tree is never written.
   The child runs the pool's tests covering the mutated line, cheapest first, with
   ``-x -n 0``; a failure kills the mutant, a pass lets it survive, a child over its
   time budget (60 s + 4 times its tests' duration) is a timeout. A line that runs
   only at import time (data, definitions) is judged by the whole pool.
4. Mutants listed in ``tools/mutation_equivalents.txt`` (reviewed by hand,
   each with its reason) are equivalent and left out of the score.

The order is shuffled with a fixed seed, so a run stopped by SIGTERM (it finishes
the mutants under way) has judged an even sample. Prints per file: mutants judged,
killed, survived, timeout, equivalent, no test, and the score: (killed + timeout) /
the mutants judged that are not equivalent (a timeout made its tests run four times
longer than on the unmutated spec: detected); then the survivors. ``--json`` writes it all.

Why a script of our own rather than mutmut or cosmic-ray: both maintained tools write each
mutant to disk and run the tests against that copy (mutmut 3 in a ``mutants/`` copy of the
tree, cosmic-ray in the working tree itself). This package maps ``mcp_resume.spec`` onto the
top-level ``spec/`` folder (``package-dir`` in pyproject.toml) through an editable install,
so a copy is never what the tests import, and writing the working tree is unsafe while the
tree is worked on. Serving the mutated module from memory in a forked child, and running only
the tests whose coverage context reaches the mutated line, is also what keeps a run of
about 1,500 mutants within the hour on two cores. It is a tool, not a benchmark: it lives
in ``tools/``.
"""

from __future__ import annotations

import argparse
import ast
import copy
import fnmatch
import hashlib
import importlib.abc
import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec"
PACKAGE = "mcp_resume.spec"
CACHE = ROOT / "build" / "mutation"
EQUIVALENTS = Path(__file__).resolve().parent / "mutation_equivalents.txt"
FAST_TIER = ["-m", "not slow"]

HTTP_SWAPS = {200: 202, 202: 200, 204: 200, 400: 404, 404: 400, 405: 404, 409: 400}
LEVEL_SWAPS = {"MUST": "SHOULD", "SHOULD": "MUST", "MAY": "MUST", "NA": "MUST"}
COMPARE_SWAPS = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
    ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
}
DROPPED_CALLS = {"append", "extend", "add", "update"}
PLUGINS = ("-p", "xdist.plugin", "-p", "pytest_timeout", "-p", "hypothesis.extra.pytestplugin",
           "-p", "anyio.pytest_plugin", "-p", "mcp_resume.testing.pytest_plugin")
"""The plugins a mutant's pytest loads (named, since it does not scan entry points)."""


@dataclass
class Mutant:
    """One mutant: the module, the 1-based line, what changed, and where (an AST path)."""

    file: str
    line: int
    description: str
    path: tuple = field(repr=False)
    make: object = field(repr=False, compare=False)
    source_line: str = ""
    result: str = ""
    seconds: float = 0.0
    scope: str = ""

    @property
    def key(self) -> str:
        """How the equivalents list and ``--resume`` name the mutant, with no line number:
        file, line text, change, and the function or class the line is in."""
        return f"{self.file} | {self.source_line.strip()} | {self.description} @ {self.scope or '<module>'}"


# -- mutant generation -------------------------------------------------------------


def mutants(file: str) -> list[Mutant]:
    """Every mutant of ``file`` (a path relative to the repository root)."""
    source = (ROOT / file).read_text()
    tree = ast.parse(source)
    lines = source.splitlines()
    enums = _enum_members(tree) | _imported_enum_members()
    found: list[Mutant] = []
    skip = _skipped_nodes(tree)
    counts: dict[tuple[int, str], int] = {}
    scopes = _scopes(tree)
    for path, node in _walk(tree, ()):
        if id(node) in skip:
            continue
        for description, make in _node_mutations(node, enums):
            line = getattr(node, "lineno", 0)
            seen = counts.get((line, description), 0)
            counts[(line, description)] = seen + 1
            label = description if not seen else f"{description} #{seen + 1}"
            found.append(Mutant(file, line, label, path, make, lines[line - 1] if line else "", scope=scopes.get(line, "")))
    keys: dict[str, int] = {}
    for mutant in found:  # the same change to the same text twice in one function: number them
        keys[mutant.key] = keys.get(mutant.key, 0) + 1
        if keys[mutant.key] > 1:
            mutant.scope = f"{mutant.scope or '<module>'}#{keys[mutant.key]}"
    return found


def _scopes(tree) -> dict[int, str]:
    """``{line: qualified name of the innermost function or class holding it}``."""
    scopes: dict[int, str] = {}

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                for line in range(child.lineno, (child.end_lineno or child.lineno) + 1):
                    scopes[line] = name
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return scopes


def _walk(node, path):
    yield path, node
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield from _walk(item, path + ((name, index),))
        elif isinstance(value, ast.AST):
            yield from _walk(value, path + ((name, None),))


def _skipped_nodes(tree) -> set[int]:
    """Nodes never mutated: annotations, f-strings, docstrings, ``__all__``, asserts, class decorators."""
    skip: set[int] = set()

    def mark(node):
        for sub in ast.walk(node):
            skip.add(id(sub))

    for node in ast.walk(tree):
        if isinstance(node, (ast.JoinedStr, ast.Assert)):
            mark(node)
        elif isinstance(node, ast.AnnAssign):
            mark(node.annotation)
        elif isinstance(node, ast.ClassDef):
            for decorator in node.decorator_list:
                mark(decorator)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for arg in node.args.args + node.args.kwonlyargs:
                if arg.annotation:
                    mark(arg.annotation)
            if node.returns:
                mark(node.returns)
        elif isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            mark(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            mark(node)
    return skip


def _enum_members(tree) -> dict[str, list[str]]:
    """``{enum class name: [member, ...]}`` for the Enum classes defined in ``tree``."""
    members = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any("Enum" in ast.unparse(b) for b in node.bases):
            names = [t.id for s in node.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)]
            if len(names) > 1:
                members[node.name] = names
    return members


_ENUMS: dict[str, list[str]] | None = None


def _imported_enum_members() -> dict[str, list[str]]:
    global _ENUMS
    if _ENUMS is None:
        _ENUMS = {}
        for module in sorted(SPEC.rglob("*.py")):
            _ENUMS.update(_enum_members(ast.parse(module.read_text())))
    return _ENUMS


def _node_mutations(node, enums):
    if isinstance(node, ast.Compare):
        for index, op in enumerate(node.ops):
            swap = COMPARE_SWAPS.get(type(op))
            if swap:
                yield f"{_op(op)} -> {_op(swap())}", _compare_swap(index, swap)
    elif isinstance(node, ast.BoolOp):
        other = ast.Or if isinstance(node.op, ast.And) else ast.And
        yield f"{_op(node.op)} -> {_op(other())}", lambda n: ast.BoolOp(other(), n.values)
        if len(node.values) > 2:
            for index in range(len(node.values)):
                yield f"drop operand {index + 1} of {_op(node.op)}", _drop_item("values", index)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "drop not", lambda n: n.operand
    elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitOr, ast.Sub, ast.BitAnd)):
        yield f"{ast.unparse(node)} -> {ast.unparse(node.left)}", lambda n: n.left
    elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) and _is_int(node.right, 1):
        yield f"drop {_op(node.op)} 1", lambda n: n.left
    elif isinstance(node, ast.Constant):
        yield from _constant_mutations(node)
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in enums:
        members = enums[node.value.id]
        if node.attr in members:
            other = members[(members.index(node.attr) + 1) % len(members)]
            yield f"{node.value.id}.{node.attr} -> {other}", lambda n: ast.Attribute(n.value, other, n.ctx)
    elif isinstance(node, ast.Name) and node.id in LEVEL_SWAPS and isinstance(node.ctx, ast.Load):
        yield f"{node.id} -> {LEVEL_SWAPS[node.id]}", lambda n: ast.Name(LEVEL_SWAPS[n.id], n.ctx)
    elif isinstance(node, (ast.Set, ast.Tuple, ast.List)) and isinstance(getattr(node, "ctx", ast.Load()), ast.Load):
        if len(node.elts) > 1 and not any(isinstance(e, ast.Starred) for e in node.elts):
            for index, elt in enumerate(node.elts):
                yield f"drop {_short(elt)} from {type(node).__name__.lower()}", _drop_item("elts", index)
    elif isinstance(node, ast.Dict) and len(node.keys) > 1:
        for index, key in enumerate(node.keys):
            if key is not None:
                yield f"drop entry {_short(key)}", _drop_entry(index)
    yield from _statement_mutations(node)


def _statement_mutations(node):
    if isinstance(node, ast.If):
        yield "drop if-check", lambda n: ast.Pass()
        if not _is_early_exit(node.body[-1]):
            yield "if-check always true", lambda n: ast.If(ast.Constant(True), n.body, n.orelse)
    elif isinstance(node, ast.AugAssign):
        yield f"drop {_short(node)}", lambda n: ast.Pass()
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        if isinstance(func, ast.Attribute) and func.attr in DROPPED_CALLS:
            yield f"drop .{func.attr}()", lambda n: ast.Pass()
    elif isinstance(node, (ast.Continue, ast.Break)):
        yield f"drop {type(node).__name__.lower()}", lambda n: ast.Pass()


def _constant_mutations(node):
    value = node.value
    if isinstance(value, bool):
        yield f"{value} -> {not value}", lambda n: ast.Constant(not n.value)
    elif isinstance(value, int) and value in HTTP_SWAPS:
        yield f"{value} -> {HTTP_SWAPS[value]}", lambda n: ast.Constant(HTTP_SWAPS[n.value])
    elif isinstance(value, int) and 0 <= value <= 600 and value not in HTTP_SWAPS:
        yield f"{value} -> {value + 1}", lambda n: ast.Constant(n.value + 1)
        if value > 0:
            yield f"{value} -> {value - 1}", lambda n: ast.Constant(n.value - 1)


def _is_early_exit(statement) -> bool:
    return isinstance(statement, (ast.Return, ast.Raise, ast.Continue, ast.Break))


def _compare_swap(index, swap):
    def make(node):
        ops = list(node.ops)
        ops[index] = swap()
        return ast.Compare(node.left, ops, node.comparators)

    return make


def _drop_item(name, index):
    def make(node):
        new = copy.copy(node)
        setattr(new, name, [v for i, v in enumerate(getattr(node, name)) if i != index])
        return new

    return make


def _drop_entry(index):
    def make(node):
        keep = [i for i in range(len(node.keys)) if i != index]
        return ast.Dict([node.keys[i] for i in keep], [node.values[i] for i in keep])

    return make


def _is_int(node, value) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def _op(op) -> str:
    return {
        ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.GtE: ">=", ast.Gt: ">", ast.LtE: "<=",
        ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in", ast.And: "and",
        ast.Or: "or", ast.Add: "+", ast.Sub: "-",
    }[type(op)]


def _short(node) -> str:
    text = ast.unparse(node).replace("\n", " ")
    return text if len(text) <= 40 else text[:37] + "..."


def mutated_tree(mutant: Mutant):
    """The module's AST with ``mutant`` applied (a fresh parse: the original stays intact)."""
    tree = ast.parse((ROOT / mutant.file).read_text())
    parent = tree
    for name, index in mutant.path[:-1]:
        parent = getattr(parent, name) if index is None else getattr(parent, name)[index]
    name, index = mutant.path[-1]
    old = getattr(parent, name) if index is None else getattr(parent, name)[index]
    new = ast.copy_location(mutant.make(old), old)
    if index is None:
        setattr(parent, name, new)
    else:
        getattr(parent, name)[index] = new
    return ast.fix_missing_locations(tree)


# -- running a mutant ------------------------------------------------------------------


class _MutatedLoader(importlib.abc.Loader):
    def __init__(self, code):
        self.code = code

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(self.code, module.__dict__)


class _MutatedFinder(importlib.abc.MetaPathFinder):
    """Serves one module of ``mcp_resume.spec`` from a code object instead of its file."""

    def __init__(self, name, path, code):
        self.name, self.path, self.code = name, path, code

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        package = [str(self.path.parent)] if self.path.name == "__init__.py" else None
        return importlib.util.spec_from_file_location(
            fullname, self.path, loader=_MutatedLoader(self.code), submodule_search_locations=package
        )


def _module_name(file: str) -> str:
    """``spec/sessionless/checks.py`` -> ``mcp_resume.spec.sessionless.checks``."""
    parts = (ROOT / file).relative_to(SPEC).with_suffix("").parts
    return ".".join((PACKAGE, *parts[:-1])) if parts[-1] == "__init__" else ".".join((PACKAGE, *parts))


def _run_child(mutant: Mutant, tests: list[str], log: Path) -> None:
    """In the forked child: install the mutant, run ``tests``, exit with pytest's code."""
    os.setpgid(0, 0)
    os.nice(10)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    code = 3
    try:
        if mutant.path:
            compiled = compile(mutated_tree(mutant), str(ROOT / mutant.file), "exec")
            sys.meta_path.insert(0, _MutatedFinder(_module_name(mutant.file), ROOT / mutant.file, compiled))
        import pytest

        os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # scanning entry points costs more than most tests
        code = pytest.main(["-x", "-q", "-n", "0", "-p", "no:cacheprovider", "-o", "addopts=", *PLUGINS, *tests])
    except BaseException as error:  # a mutant that cannot even compile or import is killed
        print(f"mutant crashed: {error!r}", flush=True)
        code = 1
    sys.stdout.flush()
    os._exit(int(code))


def _verdict(code: int) -> str:
    """pytest's exit code: 0 all passed, 5 nothing ran; 1-4 (failures, a collection error, an
    internal or usage error the mutant caused, e.g. a test module that no longer imports) kill."""
    return {0: "survived", 5: "no-test"}.get(code, "killed")


def run_mutants(jobs: list[tuple[Mutant, list[str], float]], workers: int, logs: Path, report) -> None:
    """Run ``(mutant, tests, budget seconds)`` jobs, ``workers`` children at once."""
    logs.mkdir(parents=True, exist_ok=True)
    queue = list(jobs)
    running: dict[int, tuple[Mutant, float, float]] = {}
    number = 0
    stop = []
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    while (queue and not stop) or running:
        while queue and not stop and len(running) < workers:
            mutant, tests, budget = queue.pop(0)
            number += 1
            pid = os.fork()
            if pid == 0:
                _run_child(mutant, tests, logs / f"{number}.log")
            running[pid] = (mutant, time.monotonic(), budget)
        time.sleep(0.05)
        for pid, (mutant, started, budget) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            elapsed = time.monotonic() - started
            if done:
                mutant.result = _verdict(os.waitstatus_to_exitcode(status))
            elif elapsed > budget:
                _kill_group(pid)
                os.waitpid(pid, 0)
                mutant.result = "timeout"
            else:
                continue
            mutant.seconds = elapsed
            del running[pid]
            report(mutant)
    signal.signal(signal.SIGTERM, previous)
    for mutant, _, _ in queue:
        mutant.result = "not-run"


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# -- coverage contexts -------------------------------------------------------------------


def _digest(paths) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _test_files() -> dict[str, str]:
    """``{test file: digest}`` of the test modules (``conftest.py`` and helpers count for all)."""
    tests = ROOT / "tests"
    shared = _digest(sorted(p for p in tests.rglob("*.py") if not p.name.startswith("test_")))
    return {str(p.relative_to(ROOT)): _digest([p]) + shared for p in sorted(tests.rglob("test_*.py"))}


def _known_slow(longest: float) -> list[str]:
    """``--deselect`` arguments for the tests an earlier collection timed over ``longest``
    seconds: they are never in a pool, so collecting them again is wasted time."""
    slow: set[str] = set()
    for earlier in CACHE.glob("contexts-*.json"):
        if earlier.name != "contexts-part.json":
            slow |= {t for t, d in json.loads(earlier.read_text())["durations"].items() if d > longest}
    return [arg for test in sorted(slow) for arg in ("--deselect", test)]


def contexts(recollect: bool = False, exclude: tuple[str, ...] = (), pool: tuple[str, ...] = ("tests/fast/*",),
             longest: float = 2.0) -> dict:
    """``{"lines": {file: {line: [test id, ...]}}, "durations": {test id: s}, "files": {test file: digest}}``.

    Collected by running the fast tier under coverage (a subprocess, ``-n 0``),
    cached under ``build/mutation/`` by the hash of ``spec/``; a test file of
    ``pool`` that is new or changed since is collected again on its own and merged in.
    """
    cached = CACHE / f"contexts-{_digest(sorted(SPEC.rglob('*.py')))}.json"
    current = {f: d for f, d in _test_files().items() if _excluded(f, pool) and not _excluded(f, exclude)}
    old = json.loads(cached.read_text()) if cached.exists() and not recollect else None
    stale = sorted(current) if old is None else [f for f, d in current.items() if old["files"].get(f) != d]
    gone = [] if old is None else [f for f in old["files"] if f not in _test_files()]
    if not stale and not gone:
        return old
    CACHE.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    fresh = CACHE / "contexts-part.json"
    if stale:
        slow = _known_slow(longest)
        command = [sys.executable, __file__, "--collect-into", str(fresh), *stale, *slow]
        subprocess.run(["nice", "-n", "10", *command], check=True, cwd=ROOT)
        print(f"coverage contexts of {len(stale)} test file(s) collected in {time.monotonic() - started:.0f} s",
              file=sys.stderr)
    merged = _merge(old, json.loads(fresh.read_text()) if stale else None, set(stale) | set(gone))
    merged["files"] = {**(old or {}).get("files", {}), **current}
    for file in gone:
        merged["files"].pop(file, None)
    cached.write_text(json.dumps(merged))
    return merged


def _excluded(test: str, exclude: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatch(test.split("::")[0], pattern) for pattern in exclude)


def _merge(old: dict | None, new: dict | None, replaced: set[str]) -> dict:
    def keep(test: str) -> bool:
        return test.split("::")[0] not in replaced

    lines: dict = {}
    durations: dict = {}
    failed: set = set()
    for part, keep_test in ((old, keep), (new, lambda test: True)):
        if part is None:
            continue
        for file, by_line in part["lines"].items():
            target = lines.setdefault(file, {})
            for line, tests in by_line.items():
                target[line] = sorted(set(target.get(line, [])) | {t for t in tests if keep_test(t)})
        durations.update({t: d for t, d in part["durations"].items() if keep_test(t)})
        failed |= {t for t in part.get("failed", ()) if keep_test(t)}
    return {"lines": lines, "durations": durations, "failed": sorted(failed)}


COVERAGE_ENV = "MCP_RESUME_MUTATION_COVERAGE"
"""Where each pytest process (the controller and every xdist worker) saves its coverage."""


def pytest_configure(config):
    """Loaded as ``-p mutation`` by the collection: measure ``spec/`` per test, in this process."""
    import coverage

    config._mutation_cov = coverage.Coverage(data_file=os.environ[COVERAGE_ENV], data_suffix=True,
                                             source=[str(SPEC)], branch=False)
    config._mutation_cov.start()
    config._mutation_durations = {}
    config._mutation_failed = set()


def pytest_runtest_setup(item):
    item.config._mutation_cov.switch_context(item.nodeid)


def pytest_runtest_logreport(report):
    if not _CONFIG:
        return
    durations = _CONFIG[0]._mutation_durations
    durations[report.nodeid] = durations.get(report.nodeid, 0.0) + report.duration
    if report.failed:
        _CONFIG[0]._mutation_failed.add(report.nodeid)


_CONFIG: list = []


def pytest_sessionstart(session):
    _CONFIG.append(session.config)


def pytest_unconfigure(config):
    config._mutation_cov.stop()
    config._mutation_cov.save()
    if not hasattr(config, "workerinput"):
        durations = Path(os.environ[COVERAGE_ENV]).with_suffix(".durations.json")
        durations.write_text(json.dumps({"durations": config._mutation_durations,
                                         "failed": sorted(config._mutation_failed)}))


def _collect_into(target: Path, tests: list[str]) -> None:
    """Run ``tests`` (the fast tier of them) on two xdist workers under coverage, and write
    their contexts to ``target``."""
    import coverage

    data_file = target.with_suffix(".coverage")
    for old in data_file.parent.glob(data_file.name + "*"):
        old.unlink()
    env = dict(os.environ, PYTHONPATH=f"{Path(__file__).parent}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    env[COVERAGE_ENV] = str(data_file)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "mutation", "-n", "2", "-p", "no:cacheprovider",
               "-o", "addopts=--dist loadgroup", *FAST_TIER, *tests]
    code = subprocess.run(command, env=env, cwd=ROOT).returncode
    if code not in (0, 1, 5):
        raise SystemExit(f"the fast tier did not run (pytest exit {code})")
    timing = json.loads(data_file.with_suffix(".durations.json").read_text())
    combined = coverage.Coverage(data_file=str(data_file))
    combined.combine([str(p) for p in data_file.parent.glob(data_file.name + ".*") if not p.name.endswith(".json")])
    combined.save()
    data = combined.get_data()
    lines: dict[str, dict[str, list[str]]] = {}
    for measured in data.measured_files():
        relative = str(Path(measured).resolve().relative_to(ROOT))
        by_line = data.contexts_by_lineno(measured)
        lines[relative] = {str(n): sorted(c for c in ctx if c) for n, ctx in by_line.items()}
    target.write_text(json.dumps({"lines": lines, **timing}))


SPEC_TESTS = ("tests/fast/test_spec_*", "tests/fast/test_catalog*", "tests/fast/test_trace.py", "tests/fast/test_public_api.py")
"""The default test pool: the spec's own tests (pure, no servers, no explorers)."""


def test_pool(ctx: dict, globs: tuple[str, ...] = SPEC_TESTS, exclude: tuple[str, ...] = (),
              longest: float = 2.0) -> set[str]:
    """The fast-tier tests a mutant may run: those of the files matching ``globs``
    that took at most ``longest`` seconds each under coverage, less ``exclude``
    and less any test that failed on the unmutated spec (it would kill anything)."""
    broken = set(ctx.get("failed", ()))
    return {
        test for test, seconds in ctx["durations"].items()
        if seconds <= longest and test not in broken and not _excluded(test, exclude) and _excluded(test, globs)
    }


def select_tests(mutant: Mutant, ctx: dict, pool: set[str]) -> list[str]:
    """The tests of ``pool`` covering the mutant's line, cheapest first; for a line
    that runs only at import time (data, definitions), the whole pool."""
    by_line = ctx["lines"].get(mutant.file, {})
    tests = set(by_line.get(str(mutant.line), ())) or set(pool)  # import time: data any test may read
    durations = ctx["durations"]
    tests &= pool
    return sorted(tests, key=lambda t: (durations.get(t, 0.0), t))


# -- the run ---------------------------------------------------------------------------------


def load_equivalents() -> dict[str, str]:
    """``{mutant key: reason}`` from the committed list (``key  # reason`` per line)."""
    if not EQUIVALENTS.exists():
        return {}
    found = {}
    for line in EQUIVALENTS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, reason = line.partition("  # ")
            found[key.strip()] = reason.strip()
    return found


def summarize(all_mutants: list[Mutant]) -> dict:
    files: dict[str, dict] = {}
    for m in all_mutants:
        row = files.setdefault(m.file, {"mutants": 0, "killed": 0, "survived": 0, "timeout": 0, "equivalent": 0, "no-test": 0})
        if m.result == "not-run":
            continue
        row["mutants"] += 1
        row[m.result if m.result in row else "survived"] += 1
    total = {k: sum(r[k] for r in files.values()) for k in ("mutants", "killed", "survived", "timeout", "equivalent", "no-test")}
    for row in list(files.values()) + [total]:
        judged = row["killed"] + row["survived"] + row["timeout"] + row["no-test"]
        detected = row["killed"] + row["timeout"]
        row["score"] = round(100 * detected / judged, 1) if judged else 100.0
    return {"files": files, "total": total}


def print_summary(summary: dict, all_mutants: list[Mutant], seconds: float) -> None:
    header = f"{'file':24} {'mutants':>7} {'killed':>6} {'surv':>5} {'t/o':>4} {'equiv':>5} {'none':>5} {'score':>6}"
    print(header)
    for file, row in sorted(summary["files"].items()) + [("total", summary["total"])]:
        print(f"{file:24} {row['mutants']:7} {row['killed']:6} {row['survived']:5} {row['timeout']:4} "
              f"{row['equivalent']:5} {row['no-test']:5} {row['score']:5.1f}%")
    survivors = [m for m in all_mutants if m.result in ("survived", "timeout", "no-test") or m.result.startswith("error")]
    if survivors:
        print("\nsurvivors (file:line  change  [result]  line):")
        for m in survivors:
            print(f"  {m.file}:{m.line}  {m.description}  [{m.result}]  {m.source_line.strip()[:90]}")
    print(f"\nrun time {seconds:.0f} s")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", nargs="*", help="modules of spec/ to mutate (default: all)")
    parser.add_argument("--limit", type=int, help="run at most N mutants (evenly spread over the files)")
    parser.add_argument("--json", type=Path, help="write the per-file scores and every mutant here")
    parser.add_argument("--jobs", type=int, default=2, help="mutant processes at once (at most 2)")
    parser.add_argument("--recollect", action="store_true", help="collect coverage contexts again")
    parser.add_argument("--exclude-tests", nargs="*", default=[], metavar="GLOB",
                        help="leave these test files out (e.g. the baseline: 'tests/fast/test_spec_pins_*')")
    parser.add_argument("--longest", type=float, default=2.0, metavar="S",
                        help="leave out tests that took over S seconds under coverage (default 2)")
    parser.add_argument("--pool", nargs="*", default=list(SPEC_TESTS), metavar="GLOB",
                        help="test files a mutant may run (default: the spec's own tests); 'tests/fast/*' for the whole fast tier")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--resume", action="store_true",
                        help="keep the mutants an earlier run of the same spec killed (survivors run again)")
    parser.add_argument("--survivors-only", action="store_true",
                        help="with --resume: run again only the mutants the earlier run judged and did not kill")
    parser.add_argument("--rescore", type=Path, metavar="F",
                        help="print the scores of an earlier --json run again, with the equivalents list as it is now")
    parser.add_argument("--collect-into", type=Path, help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args(argv)
    if args.collect_into:
        _collect_into(args.collect_into, rest)
        return 0
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.rescore:
        return rescore(args.rescore)
    started = time.monotonic()
    files = args.files or sorted(str(p.relative_to(ROOT)) for p in SPEC.rglob("*.py"))
    all_mutants = [m for f in files for m in mutants(f)]
    if args.limit and args.limit < len(all_mutants):
        stride = len(all_mutants) / args.limit
        all_mutants = [all_mutants[int(i * stride)] for i in range(args.limit)]
    if args.list:
        for m in all_mutants:
            print(f"{m.file}:{m.line}  {m.description}  | {m.source_line.strip()}")
        return 0
    exclude = tuple(args.exclude_tests)
    ctx = contexts(args.recollect, exclude, tuple(args.pool), args.longest)
    equivalents = load_equivalents()
    done_before = _progress(CACHE / "progress.jsonl") if args.resume else {}
    judged_before = _progress(CACHE / "progress.jsonl", every=True) if args.survivors_only else None
    pool = test_pool(ctx, tuple(args.pool), exclude, args.longest)
    jobs = []
    for m in all_mutants:
        tests = select_tests(m, ctx, pool)
        if m.key in equivalents:
            m.result = "equivalent"
        elif m.key in done_before:
            m.result, m.seconds = done_before[m.key]
        elif judged_before is not None and m.key not in judged_before:
            m.result = "not-run"
        elif not tests:
            m.result = "no-test"
        else:
            budget = 60 + 4 * sum(ctx["durations"].get(t, 1.0) for t in tests)
            jobs.append((m, tests, budget))
    print(f"{len(all_mutants)} mutants, {len(jobs)} to run, {min(args.jobs, 2)} at once; test pool {len(pool)} "
          f"of {len(ctx['durations'])} fast-tier tests (<= {args.longest} s each, in {' '.join(args.pool)})", file=sys.stderr)
    _preimport()
    done = [0]

    progress = CACHE / "progress.jsonl"
    if not args.resume:
        progress.write_text("")

    def report(mutant):
        with progress.open("a") as out:
            out.write(json.dumps({"file": mutant.file, "line": mutant.line, "change": mutant.description,
                                  "result": mutant.result, "seconds": round(mutant.seconds, 1),
                                  "source": mutant.source_line.strip(), "key": mutant.key}) + "\n")
        done[0] += 1
        if done[0] % 25 == 0:
            print(f"  {done[0]}/{len(jobs)} ({time.monotonic() - started:.0f} s)", file=sys.stderr)

    random.Random(14).shuffle(jobs)  # a run stopped early (SIGTERM) has scored an even sample
    control = Mutant("spec/__init__.py", 0, "unmutated", (), None)
    run_mutants([(control, sorted(pool), 600)], 1, CACHE / "logs" / "control", lambda m: None)
    if control.result != "survived":
        print(f"the pool fails on the unmutated spec ({control.result}): see {CACHE / 'logs' / 'control' / '1.log'}", file=sys.stderr)
        return 2
    run_mutants(jobs, min(args.jobs, 2), CACHE / "logs", report)
    summary = summarize(all_mutants)
    seconds = time.monotonic() - started
    print_summary(summary, all_mutants, seconds)
    if args.json:
        payload = {"summary": summary, "seconds": round(seconds, 1),
                   "mutants": [{k: v for k, v in asdict(m).items() if k not in ("path", "make")} | {"key": m.key}
                               for m in all_mutants]}
        args.json.write_text(json.dumps(payload, indent=1) + "\n")
    return 0


def _progress(path: Path, every: bool = False) -> dict[str, tuple[str, float]]:
    """``{mutant key: (result, seconds)}`` of the kills (``every``: of every result) in a
    run's ``progress.jsonl``."""
    found = {}
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            key = row.get("key")
            if key and (every or row["result"] in ("killed", "timeout")):  # tests only grow: a survivor is run again
                found[key] = (row["result"], row["seconds"])
    return found


def rescore(path: Path) -> int:
    """Re-read a ``--json`` file, mark the mutants now listed as equivalent, print the scores."""
    payload = json.loads(path.read_text())
    equivalents = load_equivalents()
    found = []
    for row in payload["mutants"]:
        mutant = Mutant(row["file"], row["line"], row["description"], (), None, row["source_line"],
                        row["result"], row["seconds"], row.get("scope", ""))
        if mutant.key in equivalents:
            mutant.result = "equivalent"
        found.append(mutant)
    print_summary(summarize(found), found, payload["seconds"])
    return 0


def _preimport() -> None:
    """Import the heavy third-party modules once, so every forked child starts warm
    (never ``mcp_resume``: each child imports it afresh, with its mutant)."""
    for name in ("pytest", "xdist", "pytest_timeout", "hypothesis", "httpx", "httpx_sse", "z3", "pydot", "rich",
                 "mcp", "uvicorn", "starlette", "anyio"):
        try:
            __import__(name)
        except ImportError:
            pass
    assert not any(name.startswith("mcp_resume") for name in sys.modules), "mcp_resume imported before the fork"


if __name__ == "__main__":
    sys.exit(main())
