"""``mcp-resume proxy`` started for real in front of a design served on 127.0.0.1: it
prints a finding while the client still runs, records the exchanges, and on SIGINT
writes the report; ``validate`` on the recording gives the same verdicts."""

from __future__ import annotations

import asyncio
import json
import os
import re
import queue
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import pytest

from mcp_resume.cli import main
from mcp_resume.model.serving.facade import serving_design

from tests.helpers import hostile_servers as hostile
from tests.helpers.traffic_runs import scenario


pytestmark = pytest.mark.timeout(120)


def _lines_of(stream) -> queue.Queue:
    """A pipe's lines, read by a thread (select on a buffered pipe misses lines)."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in stream], daemon=True).start()
    return lines


@contextmanager
def _proxy(tmp_path, *argv: str):
    """``mcp-resume proxy ARGV`` started in ``tmp_path`` (text pipes), killed on the way out
    if it is still running."""
    process = subprocess.Popen([sys.executable, "-c", "import sys; from mcp_resume.cli import main; sys.exit(main())",
                                "proxy", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()


def _plain(upstream: str, tmp_path) -> list[str]:
    """The arguments of a proxy in front of ``upstream``, on any free port, findings in ``tmp_path``."""
    return ["--upstream", upstream, "--listen", "127.0.0.1:0", "--timeout", "2", "--out", str(tmp_path / "findings")]


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
        with _proxy(tmp_path, "--upstream", upstream, "--listen", "127.0.0.1:0", "--record", str(record),
                    "--json", str(report), "--out", str(tmp_path / "findings")) as process:
            lines = _lines_of(process.stdout)
            banner = _read_until(lines, r"proxy listening on", 20)
            assert f"forwarding to {upstream};" in banner  # its path too, not just host:port
            front = re.search(r"point your client at (\S+)\.", banner)[1]
            assert "upstream: an MCP server (protocol " in _read_until(lines, r"^upstream: ", 10)
            asyncio.run(scenario(front))
            live = _read_until(lines, r"^FAIL no-cross-session", 30)
            assert "(live, provisional until the final report)" in live
            assert not (tmp_path / "findings").exists()  # reproducers follow the final report only
            process.send_signal(signal.SIGINT)
            final = _read_until(lines, r"no-cross-session reproducer: ", 30)
            code = process.wait(20)
    err = process.stderr.read()
    assert code == 1, err
    assert report.exists(), err
    assert "summary: " in final  # after the final report
    assert "exchange 4" not in live  # no finding from a replay not yet complete
    assert (tmp_path / "findings" / "no-cross-session.curl.sh").read_text().count("curl ") >= 3
    assert os.access(tmp_path / "findings" / "no-cross-session.curl.sh", os.X_OK)
    assert main(["replay", str(tmp_path / "findings" / "no-cross-session.trace.json"), "design-2"]) == 1
    proxied = {v["rule"]: v["verdict"] for v in json.loads(report.read_text())["verdicts"]}
    validated = tmp_path / "validated.json"
    assert main(["validate", str(record), "--json", str(validated)]) == 1
    assert {v["rule"]: v["verdict"] for v in json.loads(validated.read_text())["verdicts"]} == proxied


def test_an_unreachable_upstream_is_a_warning_at_start_and_the_proxy_runs(tmp_path):
    with hostile.down_server() as upstream, _proxy(tmp_path, *_plain(upstream, tmp_path)) as process:
        errors = _lines_of(process.stderr)
        warning = _read_until(errors, r"warning: the upstream is unreachable", 20)
        assert "proxy answers 502" in warning
        _read_until(_lines_of(process.stdout), r"proxy listening on", 20)
        process.send_signal(signal.SIGINT)
        said = _read_until(errors, r"nothing was judged", 20)
        assert process.wait(20) == 3  # nothing recorded: nothing judged
    assert "0 exchanges recorded (no client came to /mcp, and at start the upstream was unreachable" in said, said


def test_a_run_no_client_came_to_exits_3_and_says_so(tmp_path):
    with serving_design("reference") as upstream:
        with _proxy(tmp_path, *_plain(upstream, tmp_path)) as process:
            _read_until(_lines_of(process.stdout), r"proxy listening on", 20)
            process.send_signal(signal.SIGINT)
            code = process.wait(20)
    said = process.stderr.read()
    assert code == 3, said
    assert "0 exchanges recorded (no client came to /mcp): nothing was judged" in said


def test_ctrl_c_in_the_milliseconds_after_the_banner_always_ends_in_the_report(tmp_path):
    """The banner is printed before uvicorn takes the signals; a Ctrl-C in that moment used to be lost
    about one time in ten, and the proxy served on until it was killed."""
    with serving_design("reference") as upstream:
        for attempt, delay in enumerate([0, 0.0005, 0.001, 0.002, 0.003, 0.005] * 2):
            with _proxy(tmp_path, *_plain(upstream, tmp_path)) as process:
                _read_until(_lines_of(process.stdout), r"proxy listening on", 20)
                time.sleep(delay)
                process.send_signal(signal.SIGINT)
                code = process.wait(20)
            assert code == 3, (attempt, delay, process.stderr.read())


def test_ctrl_c_with_a_stream_held_open_prints_no_cancel_lines(tmp_path):
    import httpx

    with serving_design("reference") as upstream:
        with _proxy(tmp_path, *_plain(upstream, tmp_path)) as process:
            banner = _read_until(_lines_of(process.stdout), r"proxy listening on", 20)
            front = re.search(r"point your client at (\S+)\.", banner)[1]
            with httpx.Client(timeout=10) as client:
                session = asyncio.run(_initialized(front))
                with client.stream("GET", front, headers={"mcp-session-id": session, "accept": "text/event-stream",
                                                          "mcp-protocol-version": "2025-11-25"}) as held:
                    assert held.status_code == 200
                    process.send_signal(signal.SIGINT)
                    code = process.wait(20)
    err = process.stderr.read()
    assert code == 0, err
    assert "Cancel" not in err and "running task" not in err and "ASGI callable" not in err, err


async def _initialized(url: str) -> str:
    from mcp_resume.model.http.client import StreamableHttpClient, Timeouts

    async with StreamableHttpClient(url, Timeouts.from_timeout(5)) as client:
        session = (await client.initialize()).session_header
        await client.notify(session, "notifications/initialized", label="initialized")
        return session


def test_the_out_check_at_start_leaves_no_empty_folder_behind(tmp_path):
    with hostile.down_server() as upstream, _proxy(tmp_path, *_plain(upstream, tmp_path)) as process:
        _read_until(_lines_of(process.stdout), r"proxy listening on", 20)
        process.send_signal(signal.SIGINT)
        process.wait(20)
    assert not (tmp_path / "findings").exists()
