"""Starting and stopping servers under test: the embedded python-sdk target and a failing one."""

from __future__ import annotations

import os
import sys

import httpx
import pytest

from mcp_resume.model.targets import process as targets
from mcp_resume.model.targets.process import TargetStartError, running_python_sdk, running_server


@pytest.mark.timeout(60)
def test_python_sdk_target_answers_on_loopback_and_is_stopped_by_pid(monkeypatch):
    started = []
    real_popen = targets.subprocess.Popen

    def recording_popen(*args, **kwargs):
        process = real_popen(*args, **kwargs)
        started.append(process)
        return process

    monkeypatch.setattr(targets.subprocess, "Popen", recording_popen)
    with running_python_sdk() as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        answer = httpx.get(url, headers={"accept": "text/event-stream"}, trust_env=False)
        assert answer.status_code == 400  # a GET without a session id (MCP B32)
    (process,) = started
    assert process.poll() is not None
    with pytest.raises(ProcessLookupError):
        os.kill(process.pid, 0)


@pytest.mark.timeout(30)
def test_a_server_that_never_answers_is_given_up_on_and_stopped():
    argv = [sys.executable, "-c", "import time; time.sleep(60)"]
    url = f"http://127.0.0.1:{targets.free_port()}/mcp"
    with pytest.raises(TargetStartError, match="did not answer .* within 1 s"):
        with running_server(argv, url, name="sleeper", start_timeout=1):
            pass
