"""Embedded targets of the official SDKs' servers for protocol revision 2026-07-28 (the sessionless era).

``MODERN_TARGETS`` names each once, as data:

- ``typescript-sdk-v2``: the TypeScript SDK v2 (``@modelcontextprotocol/server``), 2026-07-28
  only: ``createMcpHandler(factory, {legacy: "reject"})`` mounted on node:http with
  ``toNodeHandler`` of ``@modelcontextprotocol/node`` (``typescript_v2_fixture/server_modern.mjs``);
- ``typescript-sdk-v2-dual``: the same SDK serving both eras on one endpoint, as its
  documentation says to keep 2025 sessions: the SDK's ``isLegacyRequest(request)`` sends
  session-era traffic (``initialize``, GET, DELETE, requests without the ``_meta``
  envelope) to a sessionful ``WebStandardStreamableHTTPServerTransport`` per session (with
  an in-memory event store) and every other request to a strict ``createMcpHandler``
  (``typescript_v2_fixture/server_dual.mjs``);
- ``python-sdk-2026``: the Python SDK 2.x installed with mcp-resume (``mcp`` 2.3.x) with
  its session-era routes refused, so that only its 2026-07-28 entry answers
  (``sdk_fixtures/python_sdk_2026_server.py`` says why and how).

``ensure_installed()`` installs ``TS_V2_PACKAGES`` (each pinned) from npm into one cache folder
shared by both TypeScript targets (``cache_folder()``, by default
``~/.cache/mcp-resume/typescript-sdk-v2-<version>``; ``MCP_RESUME_CACHE`` moves the root) with
``npm install --no-audit --no-fund``, once, within ``INSTALL_TIMEOUT_SECONDS``.
``running_modern_sdk(name)`` copies the fixture server (package data) into that folder (the
Python one runs where it is, with this interpreter), starts it on a free port of 127.0.0.1,
yields its MCP endpoint URL (``http://127.0.0.1:PORT/mcp``) and stops it by its process id.

Raises ``ToolMissingError`` (``ToolMissing`` from ``running_modern_sdk``, exit code 2) when node
or npm is missing or node is older than ``NODE_MAJOR``, and ``TargetStartError``
(``RuntimeError`` when run as a script) when the install or the server fails.

Only the standard library is imported at the top, so CI can install before anything else:
``python3 model/targets/modern_sdks.py --install``.
"""

from __future__ import annotations

import json
import re
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
    from mcp_resume.model.targets.typescript_sdk import ToolMissingError, cache_root
except ImportError:  # run as a script, before mcp_resume is installed
    from typescript_sdk import ToolMissingError, cache_root

TS_V2_PACKAGES: tuple[tuple[str, str], ...] = (
    ("@modelcontextprotocol/server", "2.4.0"),
    ("@modelcontextprotocol/node", "2.1.2"),
    ("zod", "4.6.7"),
)
"""npm package -> pinned version: the SDK (the newest 2.x on npm when this was written; it pins
``@modelcontextprotocol/core`` to the same version), its Node.js adapter (``toNodeHandler``, the
localhost Host/Origin guards) and the zod the fixture tools declare their arguments with."""
TS_V2_VERSION = TS_V2_PACKAGES[0][1]
NODE_MAJOR = 20
"""Oldest Node.js major version the SDK supports (its package.json ``engines``)."""
INSTALL_TIMEOUT_SECONDS = 600.0
PROBE_TIMEOUT_SECONDS = 30.0
"""Longest wait for ``node --version``, in seconds."""
HERE = Path(__file__).parent
TS_V2_FIXTURES = HERE / "typescript_v2_fixture"
TS_V2_KIT = TS_V2_FIXTURES / "fixture_tools.mjs"
NODE_HINT = (
    f"the typescript-sdk-v2 targets need Node.js {NODE_MAJOR} or newer and npm: on Debian or Ubuntu "
    "'apt-get install nodejs npm', elsewhere see https://nodejs.org"
)
MODERN_FIXTURE_TOOLS = ("test_simple_text", "test_tool_with_logging", "test_tool_with_progress")
"""The fixture tools 2026-07-28 allows: no server request on a response stream, no resumable stream."""
SESSION_FIXTURE_TOOLS = MODERN_FIXTURE_TOOLS + ("test_sampling", "test_elicitation", "test_reconnection")
"""What the dual target's 2025-11-25 sessions list besides."""


@dataclass(frozen=True)
class ModernTarget:
    """One embedded target: its name, the SDK (``"typescript"`` or ``"python"``), the fixture
    server (a file name under ``typescript_v2_fixture/`` or ``sdk_fixtures/``), the fixture tools
    each era it serves lists (revision -> tool names) and one line on how it is set up."""

    target: str
    sdk: str
    fixture: str
    tools: tuple[tuple[str, tuple[str, ...]], ...]
    setup: str

    @property
    def fixture_path(self) -> Path:
        return (TS_V2_FIXTURES if self.sdk == "typescript" else HERE / "sdk_fixtures") / self.fixture

    @property
    def version(self) -> str | None:
        """The SDK release it runs: the pinned npm version, or the ``mcp`` installed here (None: none)."""
        return TS_V2_VERSION if self.sdk == "typescript" else _python_sdk_version()

    @property
    def label(self) -> str:
        package = TS_V2_PACKAGES[0][0] if self.sdk == "typescript" else "mcp (PyPI)"
        return f"{package} {self.version}"


MODERN_TARGETS: tuple[ModernTarget, ...] = (
    ModernTarget(
        target="typescript-sdk-v2",
        sdk="typescript",
        fixture="server_modern.mjs",
        tools=(("2026-07-28", MODERN_FIXTURE_TOOLS),),
        setup="createMcpHandler(factory, {legacy: 'reject'}): 2026-07-28 only",
    ),
    ModernTarget(
        target="typescript-sdk-v2-dual",
        sdk="typescript",
        fixture="server_dual.mjs",
        tools=(("2026-07-28", MODERN_FIXTURE_TOOLS), ("2025-11-25", SESSION_FIXTURE_TOOLS)),
        setup="isLegacyRequest routing: 2025-11-25 sessions (sessionful transport, event store) "
              "and 2026-07-28 (createMcpHandler, legacy: 'reject')",
    ),
    ModernTarget(
        target="python-sdk-2026",
        sdk="python",
        fixture="python_sdk_2026_server.py",
        tools=(("2026-07-28", MODERN_FIXTURE_TOOLS),),
        setup="MCPServer.streamable_http_app, session-era routes refused: 2026-07-28 only",
    ),
)
BY_TARGET = {t.target: t for t in MODERN_TARGETS}


def modern_target(name: str) -> ModernTarget | None:
    """The target called ``name``, also as ``name@version`` of the release it runs; None otherwise."""
    base, _, version = name.partition("@")
    found = BY_TARGET.get(base)
    return found if found and version in ("", found.version) else None


def cache_folder() -> Path:
    """Where ``TS_V2_PACKAGES`` are installed: ``<cache root>/typescript-sdk-v2-<version>``."""
    return cache_root() / f"typescript-sdk-v2-{TS_V2_VERSION}"


def installed_versions(folder: Path) -> dict[str, str | None]:
    """Each package of ``TS_V2_PACKAGES`` -> the version installed in ``folder`` (None: not there)."""
    found: dict[str, str | None] = {}
    for package, _ in TS_V2_PACKAGES:
        try:
            manifest = json.loads((folder / "node_modules" / package / "package.json").read_text(encoding="utf-8"))
            found[package] = manifest.get("version")
        except (OSError, ValueError):
            found[package] = None
    return found


def ensure_installed() -> Path:
    """The cache folder holding ``TS_V2_PACKAGES`` at their pinned versions, installed if needed.
    Raises ``ToolMissingError`` (no node or npm, node too old) or ``TargetStartError``."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise ToolMissingError(f"{'node' if node is None else 'npm'} not found: {NODE_HINT}")
    major = _node_major(node)
    if major is not None and major < NODE_MAJOR:
        raise ToolMissingError(f"node {major} is too old: {NODE_HINT}")
    folder = cache_folder()
    if installed_versions(folder) == dict(TS_V2_PACKAGES):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"name": "mcp-resume-typescript-sdk-v2", "private": True, "type": "module",
                "dependencies": dict(TS_V2_PACKAGES)}
    (folder / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    pins = " ".join(f"{name}@{version}" for name, version in TS_V2_PACKAGES)
    try:
        done = run_program([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"], INSTALL_TIMEOUT_SECONDS,
                           cwd=folder)
    except ProgramTimedOut:
        raise _start_error(f"npm install {pins} took longer than {INSTALL_TIMEOUT_SECONDS:g} s") from None
    if done.returncode != 0 or installed_versions(folder) != dict(TS_V2_PACKAGES):
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-10:])
        raise _start_error(f"npm install {pins} failed (exit {done.returncode}) in {folder}:\n{tail}")
    return folder


def server_argv(target: ModernTarget, port: int) -> list[str]:
    """The command that runs ``target``'s fixture server on ``port`` of 127.0.0.1 (a TypeScript
    fixture and its tool kit are copied into the cache folder first, so node finds the packages)."""
    if target.sdk == "python":
        if target.version is None or not target.version.startswith("2."):
            raise _start_error(f"{target.target} needs the MCP Python SDK 2.x (mcp {target.version} is installed)")
        return [sys.executable, str(target.fixture_path), "--port", str(port)]
    folder = ensure_installed()
    script = folder / target.fixture
    shutil.copyfile(target.fixture_path, script)
    shutil.copyfile(TS_V2_KIT, folder / TS_V2_KIT.name)
    return [shutil.which("node") or "node", str(script), str(port)]


@contextmanager
def running_modern_sdk(name: str) -> Iterator[str]:
    """Install (once) and run the fixture server of target ``name``; yield its MCP endpoint URL
    (``http://127.0.0.1:PORT/mcp``). Stops the server by its process id when the block ends."""
    from mcp_resume.model.targets.embedded import ToolMissing
    from mcp_resume.model.targets.process import HOST, TargetStartError, free_port, running_server

    target = modern_target(name)
    if target is None:
        raise TargetStartError(f"unknown target {name!r}; known: {', '.join(BY_TARGET)}")
    port = free_port()
    try:
        argv = server_argv(target, port)
    except ToolMissingError as error:
        raise ToolMissing(str(error)) from None
    with running_server(argv, f"http://{HOST}:{port}/mcp", name=f"{target.target} ({target.label})") as url:
        yield url


def _python_sdk_version() -> str | None:
    from importlib import metadata

    try:
        return metadata.version("mcp")
    except metadata.PackageNotFoundError:
        return None


def _node_major(node: str) -> int | None:
    try:
        done = run_program([node, "--version"], PROBE_TIMEOUT_SECONDS)
    except (ProgramTimedOut, OSError):
        return None
    found = re.match(r"v(\d+)\.", done.stdout.strip())
    return int(found.group(1)) if found else None


def _start_error(message: str) -> Exception:
    try:
        from mcp_resume.model.targets.process import TargetStartError
    except ImportError:  # run as a script: no package
        return RuntimeError(message)
    return TargetStartError(message)


if __name__ == "__main__":
    if sys.argv[1:] != ["--install"]:
        sys.exit("usage: python3 modern_sdks.py --install")
    try:
        folder = ensure_installed()
    except (ToolMissingError, RuntimeError) as error:
        sys.exit(f"error: {error}")
    print(f"{', '.join(f'{n} {v}' for n, v in TS_V2_PACKAGES)} in {folder}")
