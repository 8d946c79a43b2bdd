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

import pytest

from mcp_resume.cli import main
from mcp_resume.model.serving.facade import serving_design

import hostile_servers as hostile
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
        finally:
            if process.poll() is None:
                process.kill()
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


def test_an_out_that_is_a_file_is_refused_at_start(tmp_path, capsys):
    taken = tmp_path / "findings"
    taken.write_text("a file, not a folder")
    assert main(["proxy", "--upstream", "http://127.0.0.1:9/mcp", "--listen", "127.0.0.1:0", "--out", str(taken)]) == 2
    assert "--out" in capsys.readouterr().err and taken.read_text() == "a file, not a folder"


@pytest.mark.parametrize("reply", [hostile.html_page, hostile.redirect_elsewhere], ids=["html", "redirect"])
def test_an_upstream_that_is_not_mcp_is_said_at_start_and_exits_3(reply, tmp_path, capsys):
    with hostile.http_server(reply) as upstream:
        started = time.monotonic()
        assert main(["proxy", "--upstream", upstream, "--listen", "127.0.0.1:0", "--timeout", "2",
                     "--out", str(tmp_path / "findings")]) == 3
    assert time.monotonic() - started < 15
    err = capsys.readouterr().err
    assert f"the upstream {upstream} is not an MCP" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("reply", [hostile.post_not_allowed], ids=["405"])
def test_an_upstream_that_refuses_the_post_exits_3(reply, tmp_path, capsys):
    with hostile.http_server(reply) as upstream:
        assert main(["proxy", "--upstream", upstream, "--listen", "127.0.0.1:0", "--timeout", "2",
                     "--out", str(tmp_path / "findings")]) == 3
    assert "HTTP 405" in capsys.readouterr().err


def test_a_plain_file_server_answering_501_exits_3_at_start(tmp_path, capsys):
    port = hostile.free_port()
    files = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"], cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_port(port, 10)
        started = time.monotonic()
        assert main(["proxy", "--upstream", f"http://127.0.0.1:{port}/mcp", "--listen", "127.0.0.1:0",
                     "--timeout", "2", "--out", str(tmp_path / "findings")]) == 3
        assert time.monotonic() - started < 15
    finally:
        files.kill()
        files.wait(10)
    assert "501 Not Implemented" in capsys.readouterr().err


def test_a_5xx_other_than_501_is_a_warning_not_a_verdict():
    from mcp_resume.model.traffic.upstream import Kind, check_upstream

    with hostile.http_server(hostile.unavailable) as upstream:
        found = check_upstream(upstream, 2)
    assert found.kind is Kind.UNSURE and "503" in found.detail


def _wait_for_port(port: int, seconds: float) -> None:
    import socket

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on port {port} after {seconds} s")


def _proxy(upstream: str, tmp_path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", "import sys; from mcp_resume.cli import main; sys.exit(main())", "proxy", "--upstream",
         upstream, "--listen", "127.0.0.1:0", "--timeout", "2", "--out", str(tmp_path / "findings")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)


def test_an_unreachable_upstream_is_a_warning_at_start_and_the_proxy_runs(tmp_path):
    process = _proxy(hostile.down_url(), tmp_path)
    try:
        errors = _lines_of(process.stderr)
        warning = _read_until(errors, r"warning: the upstream is unreachable", 20)
        assert "proxy answers 502" in warning
        _read_until(_lines(process), r"proxy listening on", 20)
        process.send_signal(signal.SIGINT)
        said = _read_until(errors, r"nothing was judged", 20)
        assert process.wait(20) == 3  # nothing recorded: nothing judged
    finally:
        if process.poll() is None:
            process.kill()
    assert "0 exchanges recorded (no client came to /mcp, and at start the upstream was unreachable" in said, said


def test_a_run_no_client_came_to_exits_3_and_says_so(tmp_path):
    with serving_design("reference") as upstream:
        process = _proxy(upstream, tmp_path)
        try:
            _read_until(_lines(process), r"proxy listening on", 20)
            process.send_signal(signal.SIGINT)
            code = process.wait(20)
        finally:
            if process.poll() is None:
                process.kill()
    said = process.stderr.read()
    assert code == 3, said
    assert "0 exchanges recorded (no client came to /mcp): nothing was judged" in said


def test_ctrl_c_with_a_stream_held_open_prints_no_cancel_lines(tmp_path):
    import httpx

    with serving_design("reference") as upstream:
        process = _proxy(upstream, tmp_path)
        try:
            banner = _read_until(_lines(process), r"proxy listening on", 20)
            front = re.search(r"point your client at (\S+)\.", banner)[1]
            with httpx.Client(timeout=10) as client:
                session = asyncio.run(_initialized(front))
                with client.stream("GET", front, headers={"mcp-session-id": session, "accept": "text/event-stream",
                                                          "mcp-protocol-version": "2025-11-25"}) as held:
                    assert held.status_code == 200
                    process.send_signal(signal.SIGINT)
                    code = process.wait(20)
        finally:
            if process.poll() is None:
                process.kill()
    err = process.stderr.read()
    assert code == 0, err
    assert "Cancel" not in err and "running task" not in err and "ASGI callable" not in err, err


async def _initialized(url: str) -> str:
    from mcp_resume.model.http.client import StreamableHttpClient, Timeouts

    async with StreamableHttpClient(url, Timeouts.from_timeout(5)) as client:
        session = (await client.initialize()).session_header
        await client.notify(session, "notifications/initialized", label="initialized")
        return session


def _lines_of(stream) -> queue.Queue:
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in stream], daemon=True).start()
    return lines


def test_the_out_check_at_start_leaves_no_empty_folder_behind(tmp_path):
    process = _proxy(hostile.down_url(), tmp_path)
    try:
        _read_until(_lines(process), r"proxy listening on", 20)
        process.send_signal(signal.SIGINT)
        process.wait(20)
    finally:
        if process.poll() is None:
            process.kill()
    assert not (tmp_path / "findings").exists()


def test_a_live_finding_the_final_report_revises_leaves_no_reproducer(tmp_path, capsys):
    from mcp_resume.model.oracle.judge import judge
    from mcp_resume.jobs.proxying import write_reproducers

    final = judge([], None)  # nothing judged: every rule SKIPs
    write_reproducers(final, [], tmp_path / "findings", {"reject-foreign-event-id"})
    assert not (tmp_path / "findings").exists()
    said = capsys.readouterr().out
    assert "reject-foreign-event-id: the live finding was revised by the final judgement: SKIP" in said


def test_printed_lines_shorten_long_ids_and_keep_paths():
    from mcp_resume.outputs import short_ids

    session = "s" * 3000 + "END"
    line = short_ids(f"404 for session {session} at /tmp/" + "p" * 80 + " via http://h/" + "q" * 80)
    assert session not in line and "(3003 chars)" in line and line.count("…") == 1
    assert "/tmp/" + "p" * 80 in line and "http://h/" + "q" * 80 in line
