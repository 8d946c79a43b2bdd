"""``validate`` on traffic recorded through the proxy: the reference and the correct
variations give no FAIL, faulty designs FAIL the rule docs/design.md §5 names, and the
JSON-lines and HAR forms of one recording give the same verdicts."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone

import pytest

from mcp_resume.cli import main
from mcp_resume.model.traffic.records import RecordError, read, to_har, write_line
from mcp_resume.model.traffic.validate import validate
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

from tests.traffic_runs import recorded, session_of


def _verdicts(records, profile=Profile.BOUNDARY):
    return {r.rule: r.verdict for r in validate(records, profile).results}


@pytest.mark.parametrize("name", ["reference", "variation-cancel", "variation-ring-buffer", "variation-reserialised"])
def test_correct_servers_fail_nothing(name):
    verdicts = _verdicts(recorded(name))
    assert Verdict.FAIL not in verdicts.values(), {r: v for r, v in verdicts.items() if v is Verdict.FAIL}
    if name == "reference":
        judged = {r for r, v in verdicts.items() if v is Verdict.PASS}
        assert {"replay-suffix", "no-cross-session", "reemit-pending", "reject-foreign-event-id"} <= judged
        # no request stayed on an open connection during a session resumption: nothing could broadcast
        assert verdicts["no-broadcast"] is Verdict.SKIP


@pytest.mark.parametrize("number, rule", [(1, "reemit-pending"), (2, "no-cross-session"), (10, "reject-foreign-event-id")])
def test_a_faulty_design_fails_its_rule(number, rule):
    assert _verdicts(recorded(f"design-{number}"))[rule] is Verdict.FAIL


def test_json_lines_and_har_of_one_recording_give_the_same_verdicts(tmp_path):
    records = recorded("design-2")
    lines = tmp_path / "run.jsonl"
    lines.write_text("".join(write_line(r) for r in records))
    har = tmp_path / "run.har"
    har.write_text(json.dumps(to_har(records, datetime(2026, 12, 1, tzinfo=timezone.utc))))
    from_lines, from_har = read(lines), read(har)
    assert [r.exchange.status for r in from_lines] == [r.exchange.status for r in from_har] == [r.exchange.status for r in records]
    assert _verdicts(from_lines) == _verdicts(records)
    assert _verdicts(from_har) == _verdicts(records)


def test_a_session_begun_before_the_recording_is_left_open():
    records = recorded("design-2")
    later = [r for r in records if r.number > 2]  # the first session's initialize is cut off
    result = validate(later, Profile.BOUNDARY)
    assert any("began before the recording" in line for line in result.open)
    assert any("does not show whole" in line for line in result.open)  # the second session presents its event id
    verdict = result.result("no-cross-session")
    assert verdict.verdict is Verdict.INCONCLUSIVE and "began before the recording" in verdict.reason


@pytest.mark.parametrize("content, message", [
    ("not json\n", ":1: not an exchange record"),
    ('{"number": 1}\n', ":1: not an exchange record"),
    ("[" * 100_000 + "\n", ":1: "),
    ('{"number": 1, "started": 0, "request": {"method": "POST", "url": "u"}, "response": {"status": "abc"}}\n',
     ":1: not an exchange record: field response.status must be an integer"),
    ('{"number": 1, "started": 0, "request": {"method": null, "url": "u"}}\n', "missing field request.method"),
    ('{"number": 1, "started": 0, "request": {"method": "GET", "url": 5}}\n', "field request.url must be a string"),
])
def test_a_bad_record_file_names_the_line(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(RecordError, match=message.replace("[", r"\[")):
        read(path, "jsonl")


def _har(request: dict, response: dict) -> str:
    entry = {"startedDateTime": "2026-12-02T10:00:00Z", "time": 5,
             "request": {"method": "POST", "url": "http://127.0.0.1/mcp", "headers": [], **request},
             "response": {"status": 200, "headers": [], "content": {"text": ""}, **response}}
    return json.dumps({"log": {"entries": [entry]}})


@pytest.mark.parametrize("content, fmt, message", [
    (_har({}, {"status": 10**30}), "har", "entry 1: field response.status must be an HTTP status from 100 to 599"),
    (_har({}, {"status": -1}), "har", "must be an HTTP status from 100 to 599, got -1"),
    (_har({}, {"status": "200"}), "har", "field response.status must be an integer"),
    (_har({"method": 7}, {}), "har", "field request.method must be a string"),
    (_har({"headers": [{"name": 5, "value": None}]}, {}), "har", "field header.name must be a string"),
    (_har({"headers": {"a": "b"}}, {}), "har", "headers must be a list"),
    ("9" * 5000 + "\n", "jsonl", "a number with more than 4,300 digits"),
])
def test_nonsense_field_values_are_refused_with_the_entry(tmp_path, content, fmt, message):
    path = tmp_path / f"bad.{fmt}"
    path.write_text(content)
    with pytest.raises(RecordError, match=message.replace("[", r"\[")) as refused:
        read(path, fmt)
    assert "sys.set_int_max_str_digits" not in str(refused.value)


def test_validate_command_exit_codes_and_reports(tmp_path, capsys):
    records = recorded("design-2")
    path = tmp_path / "run.jsonl"
    path.write_text("".join(write_line(r) for r in records))
    report = tmp_path / "report.json"
    assert main(["validate", str(path), "--json", str(report), "--junit", str(tmp_path / "j.xml")]) == 1
    verdicts = {v["rule"]: v for v in json.loads(report.read_text())["verdicts"]}
    assert verdicts["no-cross-session"]["verdict"] == "FAIL" and verdicts["no-cross-session"]["exchanges"]
    assert "<failure" in (tmp_path / "j.xml").read_text()
    from xml.etree import ElementTree

    suite = ElementTree.parse(tmp_path / "j.xml").getroot()  # parses: the XML declaration and counts as verify's
    assert int(suite.get("skipped")) == sum(v["verdict"] == "SKIP" for v in verdicts.values())
    assert int(suite.get("failures")) == sum(v["verdict"] == "FAIL" for v in verdicts.values())
    missing = tmp_path / "missing.har"
    assert main(["validate", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_python_sdks_cross_session_replay_fails_no_cross_session_through_the_proxy():
    """The official Python SDK started for real: its event store replays the first
    session's events to a second session that presents one of its event ids."""
    result = validate(recorded("python-sdk"), Profile.BOUNDARY)
    assert result.result("no-cross-session").verdict is Verdict.FAIL
    assert "on a connection of session" in result.result("no-cross-session").reason


@pytest.mark.parametrize("design, rule", [(2, "no-cross-session"), (1, "reemit-pending")])
def test_a_findings_spec_trace_replays_the_finding_on_its_server_and_not_on_the_reference(tmp_path, design, rule):
    validation = validate(recorded(f"design-{design}"), Profile.BOUNDARY)
    trace = validation.trace(validation.result(rule))
    assert trace is not None and trace.failure.rule == rule
    assert trace.failure.step == len(trace.actions) and trace.meta["exchanges"]
    path = tmp_path / f"{rule}.trace.json"
    path.write_text(trace.dumps())
    assert main(["replay", str(path), f"design-{design}"]) == 1
    assert main(["replay", str(path), "reference"]) == 0
    assert validation.trace(validation.result("new-session-on-initialize")) is None  # held: nothing to replay


def _shifted(records, first: int, seconds: float):
    """The records with every moment from exchange ``first`` on moved ``seconds`` later."""
    moved = copy.deepcopy(records)
    for r in moved:
        if r.number >= first:
            r.started += seconds
            r.arrivals = [t + seconds for t in r.arrivals]
            r.ended = None if r.ended is None else r.ended + seconds
            r.head = None if r.head is None else r.head + seconds
    return moved


def _answered(records, number: int, status: int | None):
    """``records`` with exchange ``number`` answered ``status`` and no events (``None``: no answer)."""
    for r in records:
        if r.number == number:
            r.exchange.status, r.exchange.events, r.arrivals = status, [], []
    return records


def _answered_404(records, number: int):
    return _answered(records, number, 404)


def _session_resumption(records) -> int:
    first = next(r for r in records if r.exchange.response_headers.get("mcp-session-id")).exchange.response_headers["mcp-session-id"]
    return next(r.number for r in records if r.exchange.method == "GET" and "last-event-id" not in r.exchange.request_headers
                and session_of(r) == first)


def test_a_404_for_a_session_just_served_is_judged_and_after_a_quiet_spell_read_as_its_end():
    records = recorded("reference")
    number = _session_resumption(records)
    soon = validate(_answered_404(copy.deepcopy(records), number), Profile.BOUNDARY)
    assert soon.failed and not soon.assumed  # a server that forgets a session it just served
    later = _answered_404(_shifted(records, number, 60.0), number)
    quiet = validate(later, Profile.BOUNDARY)
    assert any("ended it unseen" in line for line in quiet.assumed)
    # the session's later exchanges were answered as if it lived: that is the finding now
    assert quiet.result("unknown-session-404").verdict is Verdict.FAIL
    assert "no-duplicate-tool-call" not in {r.rule for r in quiet.results if r.verdict is Verdict.FAIL}


def test_a_404_for_a_quiet_session_that_is_never_used_again_fails_nothing():
    records = recorded("reference")
    first = records[0].exchange.response_headers["mcp-session-id"]
    last = max(r.number for r in records if session_of(r) == first)
    later = [r for r in _answered_404(_shifted(records, last, 60.0), last)]
    result = validate(later, Profile.BOUNDARY)
    assert any("ended it unseen" in line for line in result.assumed)
    assert not result.failed, [r.reason for r in result.results if r.verdict is Verdict.FAIL]


@pytest.mark.parametrize("content", ["", "\n\n", '{"log": {"entries": []}}'])
def test_a_recording_with_no_exchange_is_a_usage_error(tmp_path, capsys, content):
    path = tmp_path / "empty.har"
    path.write_text(content)
    assert main(["validate", str(path)]) == 2
    assert "no exchanges recorded" in capsys.readouterr().err


def test_an_exchange_the_server_never_answered_is_left_open_with_the_rest_of_its_session():
    records = recorded("design-2")
    session = records[-1].exchange.request_headers["mcp-session-id"]  # the second session's foreign GET
    first = next(r.number for r in records if session_of(r) == session)
    result = validate(_answered(records, first, None), Profile.BOUNDARY)  # e.g. a HAR entry with status 0
    assert any("no answer from the server" in line for line in result.open)
    assert result.result("reject-foreign-event-id").verdict is not Verdict.FAIL  # its session is no longer judged


def test_a_request_body_that_is_not_json_is_left_open_and_said():
    records = recorded("reference")
    call = next(r for r in records if isinstance(r.exchange.request_body, dict) and r.exchange.request_body.get("method") == "tools/call")
    call.exchange.request_body = '{"jsonrpc": "2.0", "id": 2, "method": "tools/ca'  # cut, as a HAR export may
    result = validate(records, Profile.BOUNDARY)
    assert any(f"exchange {call.number}: its request body is not JSON" in line for line in result.open)


@pytest.mark.covers("reemit-pending")
def test_validate_shows_the_verdict_under_boundary_beside_the_negotiated_revisions(tmp_path, capsys):
    path = tmp_path / "design-1.jsonl"
    path.write_text("".join(write_line(r) for r in recorded("design-1")))
    report, markdown = tmp_path / "report.json", tmp_path / "report.md"
    code = main(["validate", str(path), "--json", str(report), "--markdown", str(markdown)])
    written = json.loads(report.read_text())
    assert (written["profile"], written["beside_profile"]) == ("mcp-2025-11-25", "boundary")
    verdicts = {v["rule"]: v for v in written["verdicts"]}
    reemit = verdicts["reemit-pending"]
    assert (reemit["verdict"], reemit["beside"]) == ("WARN", {"profile": "boundary", "verdict": "FAIL"})
    assert code == (1 if any(v["verdict"] == "FAIL" for v in verdicts.values()) else 0)  # follows the chosen profile
    assert "under boundary" in capsys.readouterr().out and "| under `boundary` |" in markdown.read_text()
    assert main(["validate", str(path), "--profile", "boundary", "--json", str(report)]) == 1
    assert json.loads(report.read_text())["beside_profile"] == "mcp-2025-11-25"


# -- long recordings: JSON lines are read line by line, in bounded memory --------------------------


def _line(number: int, data_chars: int) -> str:
    """One JSON line of an exchange: a POST whose SSE stream carried one event of ``data_chars``."""
    event = {"at": number + 0.5, "id": f"e{number}", "event": "message", "data": "x" * data_chars}
    return json.dumps({"number": number, "started": float(number), "ended": number + 1.0, "head": number + 0.1,
                       "request": {"method": "POST", "url": "http://127.0.0.1:8000/mcp", "headers": {}, "body": None},
                       "response": {"status": 200, "headers": {"content-type": "text/event-stream"},
                                    "events": [event], "body": None}, "end": "closed"}) + "\n"


def _recording(path, count: int, data_chars: int) -> int:
    with path.open("w", encoding="utf-8") as file:
        for number in range(1, count + 1):
            file.write(_line(number, data_chars))
    return path.stat().st_size


def test_a_recording_larger_than_the_har_limit_is_read_whole_line_by_line(tmp_path, monkeypatch):
    from mcp_resume.model.traffic import records

    monkeypatch.setattr(records, "MAX_RECORD_CHARS", 10_000)  # the HAR limit; JSON lines have none as a whole
    path = tmp_path / "long.jsonl"
    assert _recording(path, 200, 500) > 10 * records.MAX_RECORD_CHARS
    assert [r.number for r in read(path)] == list(range(1, 201))
    har = tmp_path / "big.har"
    har.write_text(json.dumps({"log": {"entries": [], "pad": "x" * 20_000}}))
    with pytest.raises(RecordError, match="larger than 10,000 characters"):
        read(har)


def test_a_line_longer_than_the_cap_is_named_without_reading_the_rest(tmp_path):
    from mcp_resume.model.traffic.records import iter_jsonl

    path = tmp_path / "run.jsonl"
    path.write_text(_line(1, 100) + _line(2, 5_000) + _line(3, 100))
    lines = iter_jsonl(path, max_line_chars=2_000)
    assert next(lines).number == 1
    with pytest.raises(RecordError, match=r"run.jsonl:2: line longer than 2,000 characters"):
        next(lines)
    with pytest.raises(RecordError, match=":2: line longer than 2,000"):
        read(path, max_line_chars=2_000)


def test_the_reader_holds_one_line_at_a_time(tmp_path):
    import tracemalloc

    from mcp_resume.model.traffic.records import iter_jsonl

    path = tmp_path / "run.jsonl"
    size = _recording(path, 2_000, 2_000)  # about 4.5 MB
    tracemalloc.start()
    try:
        count = sum(1 for _ in iter_jsonl(path, max_line_chars=10_000))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 2_000
    assert peak < 200_000 < size / 20, peak  # a few records' worth, not the file


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_200_mb_recording_is_read_in_bounded_memory(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "long.jsonl"
    size = _recording(path, 100_000, 2_000)
    assert size > 200_000_000
    # VmHWM is this process's own peak: ru_maxrss after exec keeps the forking parent's (a big pytest worker)
    reader = ("import re, sys; from pathlib import Path; from mcp_resume.model.traffic.records import iter_jsonl; "
              "count = sum(1 for _ in iter_jsonl(Path(sys.argv[1]))); "
              "print(count, re.search(r'VmHWM:\\s+(\\d+) kB', Path('/proc/self/status').read_text()).group(1))")
    done = subprocess.run([sys.executable, "-c", reader, str(path)], capture_output=True, text=True, timeout=500)
    assert done.returncode == 0, done.stderr
    count, peak_kib = map(int, done.stdout.split())
    assert count == 100_000
    assert peak_kib * 1024 < 150_000_000, f"peak RSS {peak_kib} KiB reading a {size:,}-byte recording"


def _session_lines(min_bytes: int, sessions: int = 3, events: int = 100, text_chars: int = 2_000):
    """JSON lines of a long recording with real work for the judge: ``sessions`` sessions
    initialized, then ``tools/call`` streams round-robin among them, each a priming event,
    ``events`` ``notifications/message`` of a ``text_chars`` text and the response, all with
    event ids; every tenth call's connection dropped half-way and its stream resumed with
    ``Last-Event-ID`` (the rest replayed). Lines until ``min_bytes`` are written."""
    url, sse, written, now, number = "http://127.0.0.1:8000/mcp", {"content-type": "text/event-stream"}, 0, 0.0, 0

    def line(method, headers, body, status, answer_headers, events, answer, end, started, ended) -> str:
        return json.dumps({"number": number, "started": started, "ended": ended, "head": started + 0.01,
                           "request": {"method": method, "url": url, "headers": headers, "body": body},
                           "response": {"status": status, "headers": answer_headers, "events": events, "body": answer},
                           "end": end}) + "\n"

    def event(at, event_id, message) -> dict:
        return {"at": round(at, 6), "id": event_id, "event": "message", "data": json.dumps(message) if message else ""}

    ids = [f"{n:032x}" for n in range(1, sessions + 1)]
    for session in ids:
        number += 1
        initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
                      "capabilities": {}, "clientInfo": {"name": "long", "version": "1"}}}
        answer = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {},
                                                        "serverInfo": {"name": "long", "version": "1"}}}
        yield line("POST", {}, initialize, 200, {"content-type": "application/json", "mcp-session-id": session}, [],
                   answer, "closed", now, now + 0.05)
        number, now = number + 1, now + 0.1
        yield line("POST", {"mcp-session-id": session}, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                   202, {}, [], None, "closed", now, now + 0.05)
        now += 0.1
    call = 0
    while written < min_bytes:
        call, number = call + 1, number + 1
        session = ids[call % sessions]
        name = f"{session[-4:]}-{call}"
        stream = [event(now + 0.01, f"{name}-0", None)]
        stream += [event(now + 0.01 + i / 1000, f"{name}-{i}", {"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "logger": "tail", "data": f"line {i} of call {call}: " + "x" * text_chars}})
                   for i in range(1, events + 1)]
        stream.append(event(now + 0.02 + events / 1000, f"{name}-{events + 1}",
                            {"jsonrpc": "2.0", "id": call, "result": {"content": [{"type": "text", "text": "done"}]}}))
        body = {"jsonrpc": "2.0", "id": call, "method": "tools/call", "params": {"name": "tail_logs", "arguments": {}}}
        headers = {"mcp-session-id": session}
        if call % 10:
            text = line("POST", headers, body, 200, sse, stream, None, "closed", now, stream[-1]["at"] + 0.001)
        else:  # dropped half-way, then resumed from the last event seen
            seen, rest = stream[: len(stream) // 2], stream[len(stream) // 2:]
            text = line("POST", headers, body, 200, sse, seen, None, "dropped", now, seen[-1]["at"] + 0.001)
            written, number, now = written + len(text), number + 1, seen[-1]["at"] + 0.05
            yield text
            rest = [dict(e, at=now + 0.02 + k / 1000) for k, e in enumerate(rest)]
            text = line("GET", {**headers, "last-event-id": seen[-1]["id"]}, None, 200, sse, rest, None, "closed",
                        now, rest[-1]["at"] + 0.01)
        written += len(text)
        yield text
        now += 0.2


def test_a_long_recording_of_sessions_is_judged_lean_as_in_full(tmp_path):
    """The long recording's shape, small: compact records judged lean give the whole records' verdicts."""
    path = tmp_path / "long.jsonl"
    path.write_text("".join(_session_lines(600_000, events=20)))
    whole, compact = read(path), read(path, compact=True)
    assert sum(len(r.exchange.events) for r in whole) > 150
    verdicts = {r.rule: r.verdict for r in validate(whole, Profile.MCP_2025_11_25).results}
    assert verdicts["replay-suffix"] is verdicts["no-cross-session"] is verdicts["event-id-unique"] is Verdict.PASS
    assert Verdict.FAIL not in verdicts.values()
    lean = validate(compact, Profile.MCP_2025_11_25, lean=True)
    assert {r.rule: r.verdict for r in lean.results} == verdicts


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_validate_judges_a_200_mb_recording_of_sessions_in_bounded_memory(tmp_path):
    """``mcp-resume validate`` of a 235 MB recording (about 107,000 events of 2 KB on three
    sessions): its peak RSS (the command alone, measured by a parent of its own) stays far
    below the file's size, and its verdicts are those of the recording's shape."""
    import subprocess
    import sys

    path, report = tmp_path / "long.jsonl", tmp_path / "report.json"
    with path.open("w", encoding="utf-8") as file:
        file.writelines(_session_lines(235_000_000))
    size = path.stat().st_size
    assert size > 200_000_000
    measure = ("import resource, subprocess, sys, time; began = time.monotonic(); "
               "done = subprocess.run([sys.executable, '-m', 'mcp_resume.cli', 'validate', sys.argv[1], '--json', sys.argv[2]], "
               "stdout=subprocess.DEVNULL); "
               "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, round(time.monotonic() - began))")
    done = subprocess.run([sys.executable, "-c", measure, str(path), str(report)], capture_output=True, text=True, timeout=880)
    assert done.returncode == 0, done.stderr
    code, peak_kib, seconds = map(int, done.stdout.split())
    verdicts = {v["rule"]: v["verdict"] for v in json.loads(report.read_text())["verdicts"]}
    assert code == 0, verdicts
    assert verdicts["replay-suffix"] == verdicts["no-cross-session"] == verdicts["event-id-unique"] == "PASS"
    assert peak_kib * 1024 < 150_000_000, f"peak RSS {peak_kib:,} KiB judging a {size:,}-byte recording in {seconds} s"
