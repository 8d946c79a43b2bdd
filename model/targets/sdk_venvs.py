"""Embedded targets ``python-sdk@<version>``: one release of the MCP Python SDK in a cached virtualenv.

Releases 1.x and 2.x cannot share one environment (2.x moved the types into
``mcp_types`` and renamed the server class), so each release gets its own
virtualenv under ``cache_root()`` (``~/.cache/mcp-resume/python-sdk-<version>``),
created on first use with ``pip install mcp==<version> uvicorn`` within
``INSTALL_TIMEOUT_SECONDS``. The server run in it is a standalone fixture script
for the release's major version: ``sdk_fixtures/python_sdk1_server.py``
(``mcp.server.fastmcp.FastMCP``) for 1.x, ``python_sdk_server.py``
(``mcp.server.mcpserver.MCPServer``) for 2.x.

Raises ``TargetStartError`` when the virtualenv cannot be made or the server
does not start.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mcp_resume.model.targets.process import (HOST, ProgramTimedOut, TargetStartError, free_port, run_program,
                                               running_server)
from mcp_resume.model.targets.typescript_sdk import cache_root

INSTALL_TIMEOUT_SECONDS = 600.0
PROBE_TIMEOUT_SECONDS = 60.0
"""Longest wait for a probe of an installed package (``python -c``), in seconds."""
HERE = Path(__file__).parent
FIXTURES = {1: HERE / "sdk_fixtures" / "python_sdk1_server.py", 2: HERE / "python_sdk_server.py"}
COMPAT_RELEASES = ("1.30.0", "2.3.0")
"""The releases on the compatibility page: the newest 1.x and the newest 2.x."""


def venv_folder(version: str) -> Path:
    return cache_root() / f"python-sdk-{version}"


def ensure_venv(version: str) -> Path:
    """The python executable of a virtualenv holding ``mcp==version``, made if needed."""
    major = int(version.split(".")[0])
    if major not in FIXTURES:
        raise TargetStartError(f"python-sdk@{version}: only 1.x and 2.x releases have a fixture server")
    folder = venv_folder(version)
    python = folder / "bin" / "python"
    if _installed(python) == version:
        return python
    steps = [
        [sys.executable, "-m", "venv", str(folder)],
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"mcp=={version}", "uvicorn"],
    ]
    for argv in steps:
        try:
            done = run_program(argv, INSTALL_TIMEOUT_SECONDS)
        except ProgramTimedOut:
            raise TargetStartError(f"{' '.join(argv[:4])} took longer than {INSTALL_TIMEOUT_SECONDS:g} s") from None
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-10:])
            raise TargetStartError(f"python-sdk@{version}: {' '.join(argv[2:5])} failed:\n{tail}")
    if _installed(python) != version:
        raise TargetStartError(f"python-sdk@{version}: mcp {version} is not importable in {folder}")
    return python


@contextmanager
def running_python_sdk_release(version: str) -> Iterator[str]:
    """Run the fixture server of ``mcp==version`` in its virtualenv; yield its MCP endpoint URL."""
    python = ensure_venv(version)
    port = free_port()
    argv = [str(python), str(FIXTURES[int(version.split(".")[0])]), "--port", str(port)]
    with running_server(argv, f"http://{HOST}:{port}/mcp", name=f"python-sdk {version}") as url:
        yield url


def _installed(python: Path) -> str | None:
    if not python.exists():
        return None
    probe = "import importlib.metadata as m, mcp; print(m.version('mcp'))"
    try:
        done = run_program([str(python), "-c", probe], PROBE_TIMEOUT_SECONDS)
    except ProgramTimedOut:
        return None
    return done.stdout.strip() if done.returncode == 0 else None
