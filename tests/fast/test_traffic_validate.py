"""``validate`` on traffic recorded through the proxy: the reference and the correct
variations give no FAIL, faulty designs FAIL the rule docs/design.md §5 names, and the
JSON-lines and HAR forms of one recording give the same verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_resume.cli import main
from mcp_resume.model.traffic.records import RecordError, read
from mcp_resume.model.traffic.trace_validation import validate
from mcp_resume.spec.catalog import RULES
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

from tests.helpers.traffic_runs import recorded, session_of

from tests.helpers.traffic_validate import answered, record_line, recording, session_lines


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
    result = validate(answered(records, first, None), Profile.BOUNDARY)  # e.g. a HAR entry with status 0
    assert any("no answer from the server" in line for line in result.open)
    assert result.result("reject-foreign-event-id").verdict is not Verdict.FAIL  # its session is no longer judged


@pytest.mark.covers("new-session-on-initialize")
def test_a_session_minted_malformed_fails_on_its_initialize_and_the_rest_of_it_is_not_judged():
    records = recorded("reference")
    session = next(r.exchange.session_header for r in records if r.exchange.session_header)
    for r in records:
        for headers in (r.exchange.request_headers, r.exchange.response_headers):
            if headers.get("mcp-session-id") == session:
                headers["mcp-session-id"] = "bad session id"  # a space: outside 0x21-0x7E (B30)
    result = validate(records, Profile.MCP_2025_11_25)
    failed = [r.id for r in RULES if result.result(r.id).verdict is Verdict.FAIL]
    assert failed == ["new-session-on-initialize"]
    assert any("'bad session id' was minted malformed" in line for line in result.open)


def test_a_request_body_that_is_not_json_is_left_open_and_said():
    records = recorded("reference")
    call = next(r for r in records if isinstance(r.exchange.request_body, dict) and r.exchange.request_body.get("method") == "tools/call")
    call.exchange.request_body = '{"jsonrpc": "2.0", "id": 2, "method": "tools/ca'  # cut, as a HAR export may
    result = validate(records, Profile.BOUNDARY)
    assert any(f"exchange {call.number}: its request body is not JSON" in line for line in result.open)


def test_a_recording_larger_than_the_har_limit_is_read_whole_line_by_line(tmp_path, monkeypatch):
    from mcp_resume.model.traffic import records

    monkeypatch.setattr(records, "MAX_RECORD_CHARS", 10_000)  # the HAR limit; JSON lines have none as a whole
    path = tmp_path / "long.jsonl"
    assert recording(path, 200, 500) > 10 * records.MAX_RECORD_CHARS
    assert [r.number for r in read(path)] == list(range(1, 201))
    har = tmp_path / "big.har"
    har.write_text(json.dumps({"log": {"entries": [], "pad": "x" * 20_000}}))
    with pytest.raises(RecordError, match="larger than 10,000 characters"):
        read(har)


def test_a_line_longer_than_the_cap_is_named_without_reading_the_rest(tmp_path):
    from mcp_resume.model.traffic.records import iter_jsonl

    path = tmp_path / "run.jsonl"
    path.write_text(record_line(1, 100) + record_line(2, 5_000) + record_line(3, 100))
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
    size = recording(path, 2_000, 2_000)  # about 4.5 MB
    tracemalloc.start()
    try:
        count = sum(1 for _ in iter_jsonl(path, max_line_chars=10_000))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 2_000
    assert peak < 200_000 < size / 20, peak  # a few records' worth, not the file


def test_a_long_recording_of_sessions_is_judged_lean_as_in_full(tmp_path):
    """The long recording's shape, small: compact records judged lean give the whole records' verdicts."""
    path = tmp_path / "long.jsonl"
    path.write_text("".join(session_lines(600_000, events=20)))
    whole, compact = read(path), read(path, compact=True)
    assert sum(len(r.exchange.events) for r in whole) > 150
    verdicts = {r.rule: r.verdict for r in validate(whole, Profile.MCP_2025_11_25).results}
    assert verdicts["replay-suffix"] is verdicts["no-cross-session"] is verdicts["event-id-unique"] is Verdict.PASS
    assert Verdict.FAIL not in verdicts.values()
    lean = validate(compact, Profile.MCP_2025_11_25, lean=True)
    assert {r.rule: r.verdict for r in lean.results} == verdicts


def test_piped_validate_keeps_every_rule_id_whole(capsys):
    recording_file = Path(__file__).parents[1] / "helpers" / "recordings" / "python-sdk-2.3-client-default.jsonl"
    main(["validate", str(recording_file)])
    out = capsys.readouterr().out  # captured: not a terminal, as in a pipe or a CI log
    assert "…" not in out and all(rule.id in out for rule in RULES)
