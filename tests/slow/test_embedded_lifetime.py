"""Embedded servers die with the process that started them, even when it is SIGKILLed.

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_embedded_lifetime.py``, whose docstring says more.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.processes import child_pids

from mcp_resume.model.targets.process import PARENT_PID_VARIABLE, guarded


DEADLINE_SECONDS = 5.0


def _alive(pid: int) -> bool:
    """Running (a zombie nobody reaps, as in some containers, counts as dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _listening_ports(pid: int) -> set[int]:
    inodes = set()
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        return set()
    ports = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        columns = line.split()
        if columns[3] == "0A" and columns[9] in inodes:  # 0A: LISTEN
            ports.add(int(columns[1].split(":")[1], 16))
    return ports


def _port_open(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _wait(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def _kill_if_alive(pid: int) -> None:
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_sigkilled_verify_takes_its_python_sdk_server_with_it(tmp_path):
    verify = subprocess.Popen([sys.executable, "-m", "mcp_resume.cli", "verify", "python-sdk", "--timeout", "2"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    server, ports = None, set()
    try:
        def server_listens() -> bool:
            nonlocal server, ports
            for child in child_pids(verify.pid):
                ports = _listening_ports(child)
                if ports:
                    server = child
                    return True
            return False

        assert _wait(server_listens, 60), "verify python-sdk never started a listening server"
        time.sleep(1.0)  # mid-run: the scenarios are under way
        os.kill(verify.pid, signal.SIGKILL)
        verify.wait(10)
        assert _wait(lambda: not _alive(server), DEADLINE_SECONDS), f"server pid {server} outlived its parent"
        assert _wait(lambda: not any(_port_open(port) for port in ports), 10), f"port {ports} still open"
    finally:
        if verify.poll() is None:
            os.kill(verify.pid, signal.SIGKILL)
            verify.wait(10)
        if server is not None:
            _kill_if_alive(server)


PARENT = """
import os, subprocess, sys, time
child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, env={**os.environ, "%s": str(os.getpid())})
print(child.pid, flush=True)
time.sleep(600)
""" % PARENT_PID_VARIABLE


def _orphaned_child_exits(argv: list[str]) -> None:
    """Start ``argv`` (guarded, without the parent-death signal) under a parent that is then
    SIGKILLed; the child must exit on its own within the deadline."""
    parent = subprocess.Popen([sys.executable, "-c", PARENT, *guarded(argv)], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    try:
        time.sleep(1.0)
        assert _alive(child), "the child did not start"
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        assert _wait(lambda: not _alive(child), DEADLINE_SECONDS), f"child {child} outlived its parent"
    finally:
        _kill_if_alive(child)
        parent.stdout.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_python_server_watches_its_parent_without_the_kernel_signal(tmp_path):
    script = tmp_path / "server.py"
    script.write_text("import time\nwhile True:\n    time.sleep(1)\n")
    _orphaned_child_exits([sys.executable, str(script)])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_node_server_reads_its_stdin_to_the_end_and_exits(tmp_path):
    script = tmp_path / "server.mjs"
    script.write_text("setInterval(() => {}, 1000);\n")
    _orphaned_child_exits([shutil.which("node"), str(script)])
