"""``mcp-resume proxy`` started for real in front of a design served on 127.0.0.1: it
prints a finding while the client still runs, records the exchanges, and on SIGINT
writes the report; ``validate`` on the recording gives the same verdicts."""

from __future__ import annotations

import asyncio
import json
import re
import queue
import signal
import subprocess
import sys
import threading
import time

import pytest

from mcp_resume.cli import main
from mcp_resume.model.serving.facade import serving_design

from tests.traffic_runs import scenario

pytestmark = pytest.mark.timeout(120)


def _lines(process) -> queue.Queue:
    """The process's stdout lines, read by a thread (select on a buffered pipe misses lines)."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    return lines


def _read_until(lines: queue.Queue, pattern: str, seconds: float) -> str:
    seen, deadline = "", time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=0.2)
        except queue.Empty:
            continue
        seen += line
        if re.search(pattern, line):
            return seen
    raise AssertionError(f"no line matching {pattern!r} within {seconds} s; got:\n{seen}")


def test_the_proxy_reports_live_and_its_recording_validates_the_same(tmp_path):
    record, report = tmp_path / "run.jsonl", tmp_path / "proxy.json"
    with serving_design("design-2") as upstream:
        process = subprocess.Popen(
            [sys.executable, "-c", "import sys; from mcp_resume.cli import main; sys.exit(main())", "proxy", "--upstream", upstream, "--listen", "127.0.0.1:0",
             "--record", str(record), "--json", str(report), "--out", str(tmp_path / "findings")],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        )
        try:
            lines = _lines(process)
            banner = _read_until(lines, r"proxy listening on", 20)
            front = re.search(r"point your client at (\S+)\.", banner)[1]
            asyncio.run(scenario(front))
            live = _read_until(lines, r"^FAIL no-cross-session", 30)
            process.send_signal(signal.SIGINT)
            code = process.wait(20)
        finally:
            if process.poll() is None:
                process.kill()
    err = process.stderr.read()
    assert code == 1, err
    assert report.exists(), err
    assert "reproducer:" in live + "".join(lines.get() for _ in range(lines.qsize()))
    assert "exchange 4" not in live  # no finding from a replay not yet complete
    assert (tmp_path / "findings" / "no-cross-session.curl.sh").read_text().count("curl ") >= 3
    assert main(["replay", str(tmp_path / "findings" / "no-cross-session.trace.json"), "design-2"]) == 1
    proxied = {v["rule"]: v["verdict"] for v in json.loads(report.read_text())["verdicts"]}
    validated = tmp_path / "validated.json"
    assert main(["validate", str(record), "--json", str(validated)]) == 1
    assert {v["rule"]: v["verdict"] for v in json.loads(validated.read_text())["verdicts"]} == proxied


def test_a_bad_upstream_or_address_is_a_usage_error(capsys):
    assert main(["proxy", "--upstream", "ftp://example.org/mcp"]) == 2
    assert "http:// or https://" in capsys.readouterr().err
    assert main(["proxy", "--upstream", "http://127.0.0.1:9/mcp", "--listen", "127.0.0.1:notaport"]) == 2
    assert "HOST:PORT" in capsys.readouterr().err


def test_a_proxy_that_cannot_listen_leaves_an_earlier_recording_alone(tmp_path, capsys):
    import socket

    record = tmp_path / "keep.jsonl"
    record.write_text("an earlier recording\n")
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        port = taken.getsockname()[1]
        assert main(["proxy", "--upstream", "http://127.0.0.1:9/mcp", "--listen", f"127.0.0.1:{port}",
                     "--record", str(record)]) == 2
    finally:
        taken.close()
    assert "cannot listen" in capsys.readouterr().err
    assert record.read_text() == "an earlier recording\n"
