"""The fixture-tool kits beyond the installed SDK: ``add_fixture_tools`` on a ``FastMCP`` of
the Python SDK 1.x (in that release's virtualenv, ``model.targets.sdk_venvs``) and the
TypeScript kit ``fixture_tools.mjs`` (run with node by the embedded ``typescript-sdk``
target, whose server imports it).

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_fixture_kit_sdks.py``, whose docstring says more.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

import mcp_resume
import mcp_resume.model
from mcp_resume.model.http.client import StreamableHttpClient
from mcp_resume.model.targets.process import HOST, free_port, running_server
from mcp_resume.model.targets.typescript_sdk import running_typescript_sdk
from mcp_resume.model.verify import fixture_tools
from mcp_resume.model.verify.probe import probe
from mcp_resume.model.verify.scenarios import Context
from mcp_resume.model.verify.suite import SCENARIOS, judge_rule
from mcp_resume.spec.profiles import Profile
from tests.helpers.bounds import SHORT_BOUNDS


RULES = ("reemit-pending", "replay-suffix", "no-duplicate-tool-call")
SDK1 = "1.30.0"

pytestmark = [pytest.mark.timeout(900)]


async def _judged(url):
    async with StreamableHttpClient(url, SHORT_BOUNDS) as client:
        caps = await probe(client)
    ctx = Context(Profile.BOUNDARY, SHORT_BOUNDS, caps)
    return caps, {rule: await judge_rule(SCENARIOS[rule], url, ctx, 120.0) for rule in RULES}


def _assert_driven(caps, found):
    assert set(caps.fixture_tools) == set(fixture_tools.NAMES)
    for rule, verdict in found.items():
        assert verdict.verdict.value in ("PASS", "FAIL", "WARN"), (rule, verdict.reason)


@pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None, reason="needs node and npm")
def test_the_typescript_kit_runs_with_node_and_drives_the_rules():
    with running_typescript_sdk() as url:
        caps, found = asyncio.run(_judged(url))
    _assert_driven(caps, found)


def test_the_kit_on_fastmcp_of_the_sdk_1x(tmp_path, monkeypatch):
    from mcp_resume.model.targets.sdk_venvs import ensure_venv

    python = ensure_venv(SDK1)
    shim = tmp_path / "path" / "mcp_resume"  # this checkout's mcp_resume, for the 1.x virtualenv
    shim.mkdir(parents=True)
    package = Path(mcp_resume.__file__).parent
    for name in ("__init__.py", "fixtures.py"):
        (shim / name).symlink_to(package / name)
    (shim / "model").symlink_to(Path(mcp_resume.model.__file__).parent)
    port = free_port()
    script = Path(__file__).resolve().parents[1] / "helpers" / "servers" / "sdk1_kit_server.py"
    argv = [str(python), str(script), "--port", str(port)]
    monkeypatch.setenv("PYTHONPATH", str(shim.parent))
    with running_server(argv, f"http://{HOST}:{port}/mcp", name=f"python-sdk {SDK1} with the kit") as url:
        caps, found = asyncio.run(_judged(url))
    assert "add" in caps.tools
    _assert_driven(caps, found)
