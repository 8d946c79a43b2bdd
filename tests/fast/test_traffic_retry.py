"""The judge reads ``retry-before-close`` (MCP D10, D23) off recorded traffic: a server's close of
a stream's connection is judged against the SSE retry field of any earlier connection of that
stream (a POST stream primed with retry, resumed, closed again, holds); a GET stream closed with no
retry field ever sent is a WARN under 2025-11-25 and not judged under 2025-06-18. A retry field in a
block of its own (no event) counts: the recording keeps it on the exchange. A call's stream closed
before any event had an id leaves its client nothing to resume from (D9): a WARN too."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from mcp_resume.model.traffic.records import read_har, read_jsonl, to_har
from mcp_resume.model.traffic.trace_validation import validate
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

pytestmark = pytest.mark.covers("retry-before-close")

SESSION = "s-1"
SSE = {"content-type": "text/event-stream"}


def _line(number, method, body, status, answer_headers, events, end, headers=None):
    started = float(number)
    return json.dumps({
        "number": number, "started": started, "ended": started + 0.5, "head": started + 0.01,
        "request": {"method": method, "url": "http://127.0.0.1:8000/mcp",
                    "headers": {"mcp-session-id": SESSION, **(headers or {})} if number > 1 else {}, "body": body},
        "response": {"status": status, "headers": answer_headers, "body": None,
                     "events": [{"at": started + 0.1 + i / 100, **e} for i, e in enumerate(events)]},
        "end": end}) + "\n"


def _log(poll_events, get_events, get_retry=None):
    initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
    note = {"event": "message", "data": json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                                                     "params": {"level": "info", "data": "x"}})}
    lines = [
        _line(1, "POST", initialize, 200, {"content-type": "application/json", "mcp-session-id": SESSION}, [], "closed"),
        _line(2, "POST", call, 200, SSE, [{"id": "p1", "event": "message", "data": "", **poll_events},
                                          {"id": "p2", **note}], "closed"),
        _line(3, "GET", None, 200, SSE, [{"id": "p3", **note}], "closed", {"last-event-id": "p2"}),
        _line(4, "GET", None, 200, SSE, [{"id": "g1", "event": "message", "data": "", **get_events}], "closed"),
    ]
    if get_retry is not None:
        last = json.loads(lines[-1])
        last["response"]["retry"] = get_retry
        lines[-1] = json.dumps(last) + "\n"
    return read_jsonl(lines)


def _verdict(records, profile):
    return validate(records, profile, complete=True).result("retry-before-close").verdict


def test_a_stream_primed_with_retry_may_be_closed_on_every_connection():
    assert _verdict(_log({"retry": 1000}, {"retry": 1000}), Profile.MCP_2025_11_25) is Verdict.PASS


def test_a_get_stream_closed_without_retry_warns():
    assert _verdict(_log({"retry": 1000}, {}), Profile.MCP_2025_11_25) is Verdict.WARN


def test_a_post_stream_closed_without_retry_warns_under_boundary_too():
    assert _verdict(_log({}, {"retry": 1000}), Profile.BOUNDARY) is Verdict.WARN


def test_before_2025_11_25_a_close_asks_for_no_retry():
    result = validate(_log({}, {}), Profile.MCP_2025_06_18, complete=True).result("retry-before-close")
    assert result.verdict is Verdict.SKIP and "not applicable" in result.reason


def test_a_retry_in_a_block_of_its_own_counts_and_survives_a_har_round_trip():
    records = _log({"retry": 1000}, {}, get_retry=2000)
    assert records[-1].exchange.retry == 2000
    assert _verdict(records, Profile.MCP_2025_11_25) is Verdict.PASS
    again = read_har(json.dumps(to_har(records, datetime(2026, 1, 1, tzinfo=timezone.utc))))
    assert again[-1].exchange.retry == 2000 and again[-1].exchange.events[0].retry is None


def test_a_calls_stream_closed_before_any_event_id_warns_under_2025_11_25():
    records = _log({"retry": 1000}, {"retry": 1000})
    for event in records[1].exchange.events:
        event.id = None  # a server without ids: the call's client has nothing to resume from (D9)
    result = validate(records, Profile.MCP_2025_11_25, complete=True).result("retry-before-close")
    assert result.verdict is Verdict.WARN and "no Last-Event-ID to resume the call from (D9)" in result.reason
