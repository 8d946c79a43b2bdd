"""``mcp-resume proxy`` started for real in front of a design served on 127.0.0.1: it
prints a finding while the client still runs, records the exchanges, and on SIGINT
writes the report; ``validate`` on the recording gives the same verdicts."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from mcp_resume.cli import main

from tests.helpers import hostile_servers as hostile


pytestmark = pytest.mark.timeout(120)


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


def test_an_interrupt_whose_exception_was_lost_still_stops_the_proxy():
    """A SIGINT that lands just before uvicorn takes the signals raises ``KeyboardInterrupt`` where it
    can be lost (a destructor); ``serve`` still stops, at once, because the interrupt was marked."""
    import signal
    import threading

    from mcp_resume import interrupts
    from mcp_resume.jobs.proxying import bind_listener, serve
    from mcp_resume.model.traffic.recording_proxy import RecordingProxy
    from mcp_resume.model.traffic.recording import Fanout

    listener = bind_listener("127.0.0.1", 0)
    before = signal.getsignal(signal.SIGINT)
    interrupts.mark()
    try:
        started = time.monotonic()
        serve(RecordingProxy("http://127.0.0.1:9/mcp", Fanout()), listener)
        assert time.monotonic() - started < 10
    finally:
        interrupts.reset()
        listener.close()
    assert signal.getsignal(signal.SIGINT) is before  # the command line's handler is back
    assert threading.current_thread() is threading.main_thread()  # the case where signals land
