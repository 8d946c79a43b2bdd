"""The CI recipe of docs/ci.md works when copied: its install step, run as GitHub Actions
runs it (``$RUNNER_TEMP``, ``$GITHUB_PATH``), installs mcp-resume from a checkout of this
repository into a fresh virtualenv, and its verify step, run with the ``PATH`` that step
left, holds a server started here on 127.0.0.1 to the spec.

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_ci_recipe.py``, whose docstring says more.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_resume.docgen.pages_kit import INSTALL_STEP, MCP_RESUME_CHECKOUT, SERVER_URL, VERIFY_STEP, ci_page

from tests.helpers.ci_recipe import run_of
from tests.helpers import ROOT


INSTALL_SECONDS = 900
"""Bound on the install step: every dependency comes from the package registry."""


def _checkout(into: Path) -> None:
    """What ``actions/checkout`` of this repository gives: its files (tracked and not ignored),
    as they are in this working tree."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True, timeout=60).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)


def _step(commands: str, cwd: Path, env: dict[str, str], seconds: float) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-eo", "pipefail", "-c", commands], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=seconds)


@pytest.mark.timeout(INSTALL_SECONDS + 600)
def test_the_ci_recipe_installs_from_a_checkout_and_verifies_a_server(tmp_path):
    from mcp_resume.model.serving.facade import serving_design

    page = ci_page()
    workspace, runner = tmp_path / "workspace", tmp_path / "runner-temp"
    runner.mkdir()
    _checkout(workspace / MCP_RESUME_CHECKOUT)
    tools = tmp_path / "setup-python"  # what actions/setup-python puts first on PATH: a python of the versions supported
    tools.mkdir()
    (tools / "python").symlink_to(os.path.realpath(sys.executable))  # the base interpreter, not our venv
    github_path = tmp_path / "github_path"
    github_path.touch()
    env = {"PATH": f"{tools}:/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path), "RUNNER_TEMP": str(runner),
           "GITHUB_PATH": str(github_path), "PIP_DEFAULT_TIMEOUT": "60", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.update({k: v for k, v in os.environ.items() if k.startswith(("PIP_", "SSL_", "REQUESTS_CA", "http_", "https_",
                                                                      "HTTP_", "HTTPS_", "NO_PROXY", "no_proxy"))
                and k != "PIP_DEFAULT_TIMEOUT"})
    installed = _step(run_of(page, INSTALL_STEP), workspace, env, INSTALL_SECONDS)
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    later = dict(env, PATH=":".join(github_path.read_text().split()) + ":" + env["PATH"])  # as Actions does
    found = _step("command -v mcp-resume", workspace, later, 30)
    assert found.stdout.strip().startswith(str(runner)), found.stdout + found.stderr  # the installed one, nothing else
    with serving_design("reference") as url:
        verified = _step(run_of(page, VERIFY_STEP).replace(SERVER_URL, url), workspace, later, 600)
    assert verified.returncode == 0, verified.stdout[-3000:] + verified.stderr[-3000:]
    report = json.loads((workspace / "report.json").read_text())
    assert report["url"] == url and report["summary"].get("PASS", 0) > 0
    assert (workspace / "report.xml").read_text().startswith("<?xml")
    # the installed package writes the documentation set with no tests/ beside it
    documented = _step("mcp-resume docs --out docs-from-the-package", tmp_path, later, 300)
    assert documented.returncode == 0, documented.stderr[-3000:]
    assert (tmp_path / "docs-from-the-package" / "ci.md").read_text().count(INSTALL_STEP) == 1


def test_the_proxy_step_stops_the_proxy_and_keeps_the_tests_failing_status(tmp_path):
    """docs/ci.md's proxy step, run as written with the client tests replaced by one request and
    a failure: the step fails with the tests' status, and the proxy was stopped first, so that its
    recording and its report are written."""
    from mcp_resume.docgen.pages_kit import PROXY_STEPS
    from mcp_resume.model.serving.facade import serving_design

    from tests.helpers import hostile_servers as hostile

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mcp-resume").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mcp_resume.cli "$@"\n')
    (bin_dir / "mcp-resume").chmod(0o755)
    failing_tests = ("sh -c 'curl -s -o /dev/null -X POST -H \"content-type: application/json\" "
                     "-H \"accept: application/json, text/event-stream\" -d "
                     "\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":1,\\\"method\\\":\\\"ping\\\"}\" \"$MCP_URL\"; exit 5'")
    step = run_of(PROXY_STEPS, "Record the client tests through the proxy")
    assert "python -m pytest tests/client" in step
    front = f"127.0.0.1:{hostile.free_port()}"
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    with serving_design("reference") as url:
        commands = (step.replace("http://127.0.0.1:8000/mcp", url).replace("127.0.0.1:8808", front)
                    .replace("python -m pytest tests/client", failing_tests))
        ran = _step(commands, tmp_path, env, 120)
    assert ran.returncode == 5, ran.stdout[-3000:] + ran.stderr[-3000:]
    pid = int((tmp_path / "proxy.pid").read_text())
    left_running = Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    if left_running:
        os.kill(pid, signal.SIGKILL)  # this test started it
    assert not left_running, "the step ended with the proxy still running"
    assert (tmp_path / "traffic.jsonl").read_text().strip(), (tmp_path / "proxy.log").read_text()
    assert json.loads((tmp_path / "proxy.json").read_text())["verdicts"]
