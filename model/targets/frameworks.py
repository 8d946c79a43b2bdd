"""Embedded targets for third-party MCP server frameworks (PyPI and npm), each pinned.

``FRAMEWORKS`` names each framework once, as data: its target name (what
``mcp-resume verify`` and ``mcp-resume compat`` accept), the registry, the
exact versions installed and the fixture server written with the framework's
own API (``framework_fixtures/``: the conformance fixture tools of docs/design.md §7
the framework can express). ``ensure_installed(framework)`` installs the
packages once into a cache folder of their own
(``~/.cache/mcp-resume/<target>-<version>``; ``MCP_RESUME_CACHE`` moves the
root): a virtualenv with ``pip install`` for PyPI, ``npm install`` for npm.
``running_framework(name)`` starts the fixture server on a free port of
127.0.0.1, yields its MCP endpoint URL and stops it by its process id.

Raises ``ToolMissingError`` when node or npm is missing for an npm framework,
and ``TargetStartError`` (``RuntimeError`` when run as a script) when an
install fails or the server does not start.

Only the standard library is imported at the top, so CI can install before
anything else: ``python3 model/targets/frameworks.py --install [TARGET ...]``.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

try:
    from mcp_resume.model.targets.process import ProgramTimedOut, run_program
except ImportError:  # run as a script, before mcp_resume is installed
    from process import ProgramTimedOut, run_program

try:
    from mcp_resume.model.targets.typescript_sdk import NODE_HINT, ToolMissingError, cache_root
except ImportError:  # run as a script, before mcp_resume is installed
    from typescript_sdk import NODE_HINT, ToolMissingError, cache_root

INSTALL_TIMEOUT_SECONDS = 900.0
PROBE_TIMEOUT_SECONDS = 60.0
"""Longest wait for a probe of an installed package (``python -c``), in seconds."""
FIXTURES = Path(__file__).with_name("framework_fixtures")


@dataclass(frozen=True)
class Framework:
    """One third-party framework: ``packages`` maps each package to its pinned version;
    the first is the framework itself."""

    target: str
    registry: str  # "pypi" or "npm"
    packages: tuple[tuple[str, str], ...]
    fixture: str
    fixture_tools: tuple[str, ...]
    home: str
    path: str = "/mcp"

    @property
    def package(self) -> str:
        return self.packages[0][0]

    @property
    def version(self) -> str:
        return self.packages[0][1]

    @property
    def label(self) -> str:
        return f"{self.package} {self.version} ({'PyPI' if self.registry == 'pypi' else 'npm'})"

    def folder(self) -> Path:
        return cache_root() / f"{self.target}-{self.version}"


ALL_FIXTURE_TOOLS = ("test_tool_with_logging", "test_tool_with_progress", "test_sampling", "test_elicitation",
                     "test_reconnection")

FRAMEWORKS: tuple[Framework, ...] = (
    Framework(
        target="fastmcp-python",
        registry="pypi",
        packages=(("fastmcp", "4.2.3"), ("uvicorn", "0.54.0")),
        fixture="fastmcp_python_server.py",
        fixture_tools=ALL_FIXTURE_TOOLS,
        home="https://github.com/PrefectHQ/fastmcp",
    ),
    Framework(
        target="fastmcp-typescript",
        registry="npm",
        packages=(("fastmcp", "4.20.16"), ("zod", "4.6.7")),
        fixture="fastmcp_typescript_server.mjs",
        fixture_tools=ALL_FIXTURE_TOOLS[:4],
        home="https://github.com/punkpeye/fastmcp",
    ),
    Framework(
        target="tmcp",
        registry="npm",
        packages=(("tmcp", "1.20.0"), ("@tmcp/transport-http", "0.9.0"), ("@tmcp/adapter-zod", "0.1.7"),
                  ("@hono/node-server", "2.1.9"), ("zod", "4.6.7")),
        fixture="tmcp_server.mjs",
        fixture_tools=ALL_FIXTURE_TOOLS[:4],
        home="https://github.com/paoloricciuti/tmcp",
    ),
    Framework(
        target="mcp-lite",
        registry="npm",
        packages=(("mcp-lite", "0.10.0"), ("hono", "4.13.19"), ("@hono/node-server", "2.1.9"), ("zod", "4.6.7")),
        fixture="mcp_lite_server.mjs",
        fixture_tools=("test_tool_with_progress", "test_sampling", "test_elicitation"),
        home="https://github.com/fiberplane/mcp-lite",
    ),
)
BY_TARGET = {f.target: f for f in FRAMEWORKS}


def framework(target: str) -> Framework | None:
    """The framework whose target name is ``target`` (also ``target@version`` of its pin)."""
    name, _, version = target.partition("@")
    found = BY_TARGET.get(name)
    return found if found and version in ("", found.version) else None


def ensure_installed(fw: Framework) -> Path:
    """The cache folder holding ``fw``'s pinned packages, installed if needed."""
    if _installed(fw):
        return fw.folder()
    steps = _pypi_steps(fw) if fw.registry == "pypi" else _npm_steps(fw)
    for argv in steps:
        _run(fw, argv)
    if not _installed(fw):
        raise _start_error(f"{fw.target}: {fw.package} {fw.version} is not installed in {fw.folder()} after the install")
    return fw.folder()


def _pypi_steps(fw: Framework) -> list[list[str]]:
    python = str(fw.folder() / "bin" / "python")
    pins = [f"{name}=={version}" for name, version in fw.packages]
    return [[sys.executable, "-m", "venv", str(fw.folder())],
            [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *pins]]


def _npm_steps(fw: Framework) -> list[list[str]]:
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        raise ToolMissingError(f"{fw.target} needs node and npm: {NODE_HINT}")
    folder = fw.folder()
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"name": f"mcp-resume-{fw.target}", "private": True, "type": "module",
                "dependencies": dict(fw.packages)}
    (folder / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return [[npm, "install", "--no-audit", "--no-fund", "--loglevel=error"]]


def _run(fw: Framework, argv: list[str]) -> None:
    try:
        done = run_program(argv, INSTALL_TIMEOUT_SECONDS, cwd=fw.folder() if fw.registry == "npm" else None)
    except ProgramTimedOut:
        raise _start_error(f"{fw.target}: {' '.join(argv[:4])} took longer than {INSTALL_TIMEOUT_SECONDS:g} s") from None
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-10:])
        raise _start_error(f"{fw.target}: {' '.join(argv[:5])} failed (exit {done.returncode}):\n{tail}")


def _installed(fw: Framework) -> bool:
    return all(_installed_version(fw, name) == version for name, version in fw.packages)


def _installed_version(fw: Framework, package: str) -> str | None:
    if fw.registry == "npm":
        manifest = fw.folder() / "node_modules" / package / "package.json"
        try:
            return json.loads(manifest.read_text(encoding="utf-8")).get("version")
        except (OSError, ValueError):
            return None
    python = fw.folder() / "bin" / "python"
    if not python.exists():
        return None
    probe = f"import importlib.metadata as m; print(m.version({package!r}))"
    try:
        done = run_program([str(python), "-c", probe], PROBE_TIMEOUT_SECONDS)
    except ProgramTimedOut:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def server_argv(fw: Framework, port: int) -> list[str]:
    """The command that runs ``fw``'s fixture server on ``port`` (the fixture copied into its folder)."""
    folder = ensure_installed(fw)
    script = folder / fw.fixture
    shutil.copyfile(FIXTURES / fw.fixture, script)
    if fw.registry == "pypi":
        return [str(folder / "bin" / "python"), str(script), "--port", str(port)]
    return [shutil.which("node") or "node", str(script), str(port)]


@contextmanager
def running_framework(target: str) -> Iterator[str]:
    """Install (once) and run the fixture server of framework ``target``; yield its MCP endpoint URL."""
    from mcp_resume.model.targets.embedded import ToolMissing
    from mcp_resume.model.targets.process import HOST, TargetStartError, free_port, running_server

    fw = framework(target)
    if fw is None:
        raise TargetStartError(f"unknown framework target {target!r}; known: {', '.join(BY_TARGET)}")
    port = free_port()
    try:
        argv = server_argv(fw, port)
    except ToolMissingError as error:
        raise ToolMissing(str(error)) from None
    with running_server(argv, f"http://{HOST}:{port}{fw.path}", name=fw.label) as url:
        yield url


def _start_error(message: str) -> Exception:
    try:
        from mcp_resume.model.targets.process import TargetStartError
    except ImportError:  # run as a script: no package
        return RuntimeError(message)
    return TargetStartError(message)


def main(argv: list[str]) -> int:
    if not argv or argv[0] != "--install":
        print("usage: python3 frameworks.py --install [TARGET ...]", file=sys.stderr)
        return 2
    for target in argv[1:] or list(BY_TARGET):
        fw = framework(target)
        if fw is None:
            print(f"error: unknown framework target {target!r}", file=sys.stderr)
            return 2
        try:
            print(f"{fw.label} in {ensure_installed(fw)}")
        except (ToolMissingError, RuntimeError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
