"""Compact records (``model.traffic.compact``) and the lean judgement that ``validate`` uses:
on recorded traffic they give the verdicts, reasons, open and assumed lines, traces and JSON
report of whole records judged in full; the walk's moments come in exactly the sorted order."""

from __future__ import annotations

import json

import pytest

from mcp_resume.model.http.client import event_from_fields
from mcp_resume.model.traffic.compact import MESSAGE_DATA, compact_event, skeleton
from mcp_resume.model.traffic.records import read

from tests.helpers.traffic_runs import RECORDINGS

from tests.helpers.traffic_compact import same_judgements


@pytest.mark.parametrize("name", sorted(p.name for p in RECORDINGS.iterdir() if p.suffix in (".jsonl", ".har")))
def test_compact_records_of_the_recorded_fixtures_judge_alike(name):
    path = RECORDINGS / name
    same_judgements(read(path), read(path, compact=True))


def test_a_skeleton_keeps_what_the_judge_reads():
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "x" * 500}}
    assert skeleton(cancel) == {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
    progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "3-progress", "progress": 1}}
    assert skeleton(progress) == progress
    answer = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"a": 1}}}
    assert skeleton(answer) == {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25"}}
    asking = skeleton({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {"k": [1] * 99}}})
    assert asking["result"]["resultType"] == "input_required" and "inputRequests" in asking["result"]
    refusal = skeleton({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "m" * 999, "data": [1] * 99}})
    assert refusal["error"] == {"code": -32600, "message": "m" * 80}
    meta = skeleton({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "t", "arguments": {"a": "b" * 999}, "_meta": {"v": "2026-07-28", "big": {"x": 1}}}})
    assert meta["params"] == {"_meta": {"v": "2026-07-28"}}
    assert skeleton("not json " * 50) == ("not json " * 50)[:80]


def test_a_compact_event_keeps_what_the_judge_reads_never_the_text():
    text = json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "y" * 2000}})
    first = compact_event(event_from_fields("1", "message", text))
    assert first.data == MESSAGE_DATA and not first.is_priming and first.method == "notifications/message"
    assert "y" not in json.dumps(first.message)
    priming = compact_event(event_from_fields("0", "message", ""))
    assert priming.is_priming and priming.message is None
    assert compact_event(event_from_fields(None, "message", "plain " * 40)).data == ("plain " * 40)[:80]
