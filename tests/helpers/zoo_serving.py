"""The zoo test server (``tests/helpers/servers/zoo.py``), started for a test: a subprocess on a free
127.0.0.1 port, stopped by its process id."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SERVER = Path(__file__).resolve().parent / "servers" / "zoo.py"
START_SECONDS = 10.0
"""Longest wait for the zoo to accept connections, in seconds."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serving_zoo(variant: str | None = None) -> Iterator[str]:
    """The zoo with ``variant`` (comma-separated names; ``None``: the default server) listening on
    127.0.0.1; yields its endpoint URL. Raises ``RuntimeError`` when it does not listen in time."""
    port = free_port()
    argv = [sys.executable, str(SERVER), "--port", str(port)] + (["--variant", variant] if variant else [])
    server = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the zoo ({variant}) did not listen: {server.stderr.read().decode()[-500:]}") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        try:
            server.wait(5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
