"""External programs: the one module that starts them (worker processes are ``harness.workers``').

``run_program(argv, timeout_seconds)`` runs a program to its end (pip, npm, a probe of an
installed package), bounded: past the timeout it is killed and ``ProgramTimedOut`` raised.

Real servers under test run as subprocesses on 127.0.0.1.

``running_python_sdk()`` is the embedded target ``python-sdk``
(``model.targets.python_sdk_server``): it picks a free port, starts the server, waits
(bounded) until it answers HTTP, yields the MCP endpoint URL and stops the
process by its id afterwards, whatever happened in between.

Every server started here dies with this process, even when this process is
SIGKILLed and no clean-up runs: on Linux the kernel sends it SIGKILL when its
parent dies (``prctl(PR_SET_PDEATHSIG)``, set between fork and exec); and a
Python or node server also watches its parent itself, on every system
(``lifetime/watch_parent.py`` runs before the server's own code, node preloads
``lifetime/watch_parent.cjs``): its stdin is a pipe this process keeps open and
never writes, whose end means the parent is gone, and it polls the parent pid.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


HOST = "127.0.0.1"
START_TIMEOUT_SECONDS = 30.0
"""Longest wait for a started server to answer HTTP, in seconds."""
STOP_GRACE_SECONDS = 5.0
"""How long a server may take to exit after SIGTERM before it gets SIGKILL, in seconds."""
STDERR_TAIL_LINES = 15
LIFETIME = Path(__file__).with_name("lifetime")
PARENT_PID_VARIABLE = "MCP_RESUME_PARENT_PID"
PR_SET_PDEATHSIG = 1


class ProgramTimedOut(TimeoutError):
    """A program run by ``run_program`` did not end within its timeout (it was killed)."""

    def __init__(self, argv: list[str], timeout_seconds: float) -> None:
        super().__init__(f"{' '.join(argv[:4])} took longer than {timeout_seconds:g} s")
        self.argv, self.timeout_seconds = argv, timeout_seconds


def run_program(argv: list[str], timeout_seconds: float, cwd: Path | str | None = None) -> subprocess.CompletedProcess:
    """Run ``argv`` (in ``cwd``) to its end; its exit code, stdout and stderr as text (captured).
    Killed after ``timeout_seconds`` s: ``ProgramTimedOut``. A program that is not there:
    ``FileNotFoundError``."""
    try:
        return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout_seconds, check=False)
    except subprocess.TimeoutExpired:
        raise ProgramTimedOut(argv, timeout_seconds) from None


class TargetStartError(RuntimeError):
    """A server under test did not start or did not answer in time; the message
    ends with the tail of its stderr."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


@contextmanager
def running_server(
    argv: list[str], url: str, *, name: str, start_timeout: float = START_TIMEOUT_SECONDS
) -> Iterator[str]:
    """Run ``argv`` as a subprocess until the block ends; yield ``url`` once it answers.

    Raises ``TargetStartError`` (with the stderr tail) when the process exits or
    stays silent for ``start_timeout`` seconds. The process is stopped by its id:
    SIGTERM, then SIGKILL after ``STOP_GRACE_SECONDS``.
    """
    with tempfile.TemporaryFile(mode="w+b") as stderr:
        parent = os.getpid()
        process = subprocess.Popen(guarded(argv), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stderr,
                                   env={**os.environ, PARENT_PID_VARIABLE: str(parent)},
                                   preexec_fn=_die_with(parent) if _PRCTL is not None else None)
        try:
            _wait_until_answers(process, url, name, start_timeout, stderr)
            yield url
        finally:
            stop_process(process)


@contextmanager
def running_python_sdk(start_timeout: float = START_TIMEOUT_SECONDS) -> Iterator[str]:
    """Run the official MCP Python SDK (``model.targets.python_sdk_server``) on a free port
    of 127.0.0.1; yield its MCP endpoint URL (``http://127.0.0.1:PORT/mcp``)."""
    from mcp_resume.model.targets.python_sdk_server import MCP_PATH

    port = free_port()
    argv = [sys.executable, "-m", "mcp_resume.model.targets.python_sdk_server", "--port", str(port)]
    with running_server(argv, f"http://{HOST}:{port}{MCP_PATH}", name="python-sdk", start_timeout=start_timeout) as url:
        yield url


def guarded(argv: list[str]) -> list[str]:
    """``argv`` with the parent watch of a Python (``lifetime/watch_parent.py`` run first, the script
    or ``-m`` module after it) or node (``--require lifetime/watch_parent.cjs``) server; other
    programs as they are (on Linux the parent-death signal still ends them)."""
    program = os.path.basename(argv[0]).lower()
    if program.startswith("python"):
        return [argv[0], "-c", (LIFETIME / "watch_parent.py").read_text(encoding="utf-8"), *argv[1:]]
    if program.startswith("node"):
        return [argv[0], "--require", str(LIFETIME / "watch_parent.cjs"), *argv[1:]]
    return list(argv)


def _libc_prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _libc_prctl()


def _die_with(parent: int):
    """The child's step between fork and exec: SIGKILL when the parent dies (Linux), and exit now if
    it already has (it died before the request took effect)."""

    def set_parent_death_signal() -> None:
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)

    return set_parent_death_signal


def stop_process(process: subprocess.Popen) -> None:
    """Stop ``process`` by its id: SIGTERM, wait, then SIGKILL; reap it (and close its stdin pipe)."""
    if process.poll() is not None:
        _close_stdin(process)
        return
    try:
        os.kill(process.pid, signal.SIGTERM)
        process.wait(STOP_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(STOP_GRACE_SECONDS)
    except ProcessLookupError:
        pass
    _close_stdin(process)


def _close_stdin(process: subprocess.Popen) -> None:
    if process.stdin is not None:
        try:
            process.stdin.close()
        except OSError:
            pass


def _wait_until_answers(process: subprocess.Popen, url: str, name: str, timeout: float, stderr) -> None:
    import httpx  # here: the install scripts import this module before httpx is there

    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=1.0, trust_env=False) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise TargetStartError(f"{name} exited with code {process.returncode} before answering{_tail(stderr)}")
            try:
                with client.stream("GET", url, headers={"accept": "text/event-stream"}):
                    return  # any status line counts: a server may hold a GET stream open
            except httpx.HTTPError:
                time.sleep(0.1)
    raise TargetStartError(f"{name} did not answer at {url} within {timeout:g} s{_tail(stderr)}")


def _tail(stderr) -> str:
    stderr.flush()
    stderr.seek(0)
    lines = stderr.read().decode("utf-8", errors="replace").strip().splitlines()[-STDERR_TAIL_LINES:]
    return "; stderr tail:\n" + "\n".join(lines) if lines else " (stderr empty)"
