"""The embedded target ``typescript-sdk``: the official MCP TypeScript SDK, run with node.

``ensure_installed(version)`` installs ``@modelcontextprotocol/sdk`` at exactly
``version`` from npm into a cache folder (``cache_folder(version)``, by default
``~/.cache/mcp-resume/typescript-sdk-<version>``; ``MCP_RESUME_CACHE`` moves the
root) with ``npm install --no-audit --no-fund``, once, within
``INSTALL_TIMEOUT_SECONDS``. ``running_typescript_sdk(version)`` copies the
fixture server (``typescript_fixture/server.mjs``, package data) and the kit it
imports (``typescript_fixture/fixture_tools.mjs``) next to it and runs it with node
on a free port of 127.0.0.1.

Raises ``ToolMissing`` (exit code 2) when node or npm is not installed, and
``TargetStartError`` when the install or the server fails.

This module imports only the standard library at the top, so CI can install
the node packages before anything else: ``python3 model/targets/typescript_sdk.py --install``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    from mcp_resume.model.targets.process import ProgramTimedOut, run_program
except ImportError:  # run as a script, before mcp_resume is installed
    from process import ProgramTimedOut, run_program

PACKAGE = "@modelcontextprotocol/sdk"
DEFAULT_VERSION = "1.32.2"
"""The pinned SDK release (the newest 1.x on npm when this was written)."""
INSTALL_TIMEOUT_SECONDS = 600.0
FIXTURE = Path(__file__).with_name("typescript_fixture") / "server.mjs"
FIXTURE_TOOLS = FIXTURE.with_name("fixture_tools.mjs")
"""The TypeScript kit: ``addFixtureTools(server)`` for an ``McpServer`` (docs/fixtures.md)."""
NODE_HINT = (
    "the typescript-sdk target needs Node.js 18 or newer and npm: on Debian or Ubuntu "
    "'apt-get install nodejs npm', elsewhere see https://nodejs.org"
)


class ToolMissingError(RuntimeError):
    """node or npm is not installed (the message says how to get them)."""


def cache_root() -> Path:
    return Path(os.environ.get("MCP_RESUME_CACHE") or Path.home() / ".cache" / "mcp-resume")


def cache_folder(version: str) -> Path:
    return cache_root() / f"typescript-sdk-{version}"


def installed_version(folder: Path) -> str | None:
    manifest = folder / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json"
    try:
        return json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None


def ensure_installed(version: str = DEFAULT_VERSION) -> Path:
    """The cache folder holding ``PACKAGE`` at ``version``, installed if needed."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise ToolMissingError(f"{'node' if node is None else 'npm'} not found: {NODE_HINT}")
    folder = cache_folder(version)
    if installed_version(folder) == version:
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"name": "mcp-resume-typescript-sdk", "private": True, "type": "module", "dependencies": {PACKAGE: version}}
    (folder / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    argv = [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"]
    try:
        done = run_program(argv, INSTALL_TIMEOUT_SECONDS, cwd=folder)
    except ProgramTimedOut:
        raise _start_error(f"npm install {PACKAGE}@{version} took longer than {INSTALL_TIMEOUT_SECONDS:g} s") from None
    if done.returncode != 0 or installed_version(folder) != version:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-10:])
        raise _start_error(f"npm install {PACKAGE}@{version} failed (exit {done.returncode}) in {folder}:\n{tail}")
    return folder


@contextmanager
def running_typescript_sdk(version: str = DEFAULT_VERSION) -> Iterator[str]:
    """Install (once) and run the TypeScript SDK fixture server; yield its MCP endpoint URL."""
    from mcp_resume.model.targets.embedded import ToolMissing
    from mcp_resume.model.targets.process import HOST, free_port, running_server

    try:
        folder = ensure_installed(version)
    except ToolMissingError as error:
        raise ToolMissing(str(error)) from None
    server = folder / "server.mjs"
    shutil.copyfile(FIXTURE, server)
    shutil.copyfile(FIXTURE_TOOLS, folder / FIXTURE_TOOLS.name)
    port = free_port()
    argv = [shutil.which("node") or "node", str(server), str(port)]
    with running_server(argv, f"http://{HOST}:{port}/mcp", name=f"typescript-sdk {version}") as url:
        yield url


def _start_error(message: str) -> Exception:
    try:
        from mcp_resume.model.targets.process import TargetStartError
    except ImportError:  # run as a script: no package
        return RuntimeError(message)
    return TargetStartError(message)


if __name__ == "__main__":
    if sys.argv[1:] != ["--install"]:
        sys.exit("usage: python3 typescript_sdk.py --install")
    try:
        print(f"{PACKAGE} {DEFAULT_VERSION} in {ensure_installed(DEFAULT_VERSION)}")
    except (ToolMissingError, RuntimeError) as error:
        sys.exit(f"error: {error}")
