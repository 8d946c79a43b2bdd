"""Compact records (``model.traffic.compact``) and the lean judgement that ``validate`` uses:
on recorded traffic they give the verdicts, reasons, open and assumed lines, traces and JSON
report of whole records judged in full; the walk's moments come in exactly the sorted order."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from mcp_resume.cli import main
from mcp_resume.model.http.client import event_from_fields
from mcp_resume.model.traffic.compact import MESSAGE_DATA, compact_event, digest, skeleton
from mcp_resume.model.oracle.judge import judge, judge_beside
from mcp_resume.model.traffic.records import read, write_line
from mcp_resume.model.traffic.validate import moments_in_order, moments_of
from mcp_resume.spec.profiles import Profile
from mcp_resume.jobs.traffic_report import report_json

from tests.traffic_runs import recorded

FIXTURES = Path(__file__).parent / "fixtures"


def _judgement(validation) -> dict:
    """All a report shows of a judgement, and its traces."""
    traces = {r.rule: validation.trace(r) for r in validation.results}
    return {"profile": validation.profile, "open": validation.open, "assumed": validation.assumed,
            "notes": validation.notes, "verdicts": [(r.rule, r.verdict, r.reason) for r in validation.results],
            "steps": {r.rule: [r.step_json(s) for s in r.steps] for r in validation.results},
            "traces": {rule: t.dumps() if t is not None else None for rule, t in traces.items()}}


def _same_judgements(whole, compact) -> None:
    for profile in (None, Profile.BOUNDARY, Profile.MCP_2025_11_25, Profile.MCP_2026_07_28):
        full = judge(whole, profile)
        lean = judge(compact, profile, lean=True)
        assert _judgement(lean) == _judgement(full), profile
        beside = judge_beside(whole, full)
        assert report_json(lean, "f", 1, beside) == report_json(full, "f", 1, beside)


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir() if p.suffix in (".jsonl", ".har")))
def test_compact_records_of_the_recorded_fixtures_judge_alike(name):
    path = FIXTURES / name
    _same_judgements(read(path), read(path, compact=True))


@pytest.mark.parametrize("name", ["reference", "design-1", "design-2", "design-10", "variation-cancel", "variation-reserialised",
                                  "variation-ring-buffer"])
def test_compact_records_of_recorded_traffic_judge_alike(tmp_path, name):
    """Through a JSON-lines file, as ``validate`` reads it: FAILs (design-1, -2, -10), a copy of
    another stream's message told by its value (variation-reserialised) and evictions alike."""
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(write_line(r) for r in recorded(name)))
    _same_judgements(read(path), read(path, compact=True))


def test_the_validate_command_writes_the_report_of_the_whole_records(tmp_path):
    """The JSON report ``validate`` streams equals ``json.dumps`` of the whole records' report."""
    path = tmp_path / "design-2.jsonl"
    path.write_text("".join(write_line(r) for r in recorded("design-2")))
    out = tmp_path / "report.json"
    assert main(["validate", str(path), "--json", str(out)]) == 1
    records = read(path)
    result = judge(records)
    expected = json.dumps(report_json(result, str(path), len(records), judge_beside(records, result)), indent=2) + "\n"
    assert out.read_text() == expected


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


def test_a_compact_event_stands_for_its_message_by_digest():
    text = json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "y" * 2000}})
    same = json.dumps(json.loads(text), indent=1, sort_keys=True)  # re-serialised by a store
    first, again = (compact_event(event_from_fields("1", "message", t)) for t in (text, same))
    assert first.digest == again.digest == digest(json.loads(text))
    assert first.data == MESSAGE_DATA and not first.is_priming and first.method == "notifications/message"
    other = compact_event(event_from_fields("2", "message", text.replace("y", "z", 1)))
    assert other.digest != first.digest
    priming = compact_event(event_from_fields("0", "message", ""))
    assert priming.is_priming and priming.message is None
    assert compact_event(event_from_fields(None, "message", "plain " * 40)).data == ("plain " * 40)[:80]


def test_the_walk_takes_the_moments_in_sorted_order():
    """Out-of-order arrivals, ties of seconds and equal exchange numbers: the same order as ``sorted``."""
    records = copy.deepcopy(recorded("design-2"))
    records[1].arrivals = [records[1].started] * len(records[1].arrivals)  # ties with its start
    records[2].arrivals = list(reversed(records[2].arrivals))  # arrivals out of order
    records[3].number = records[2].number  # two exchanges of one number
    records[4].started, records[4].ended = records[0].started, records[0].ended
    key = lambda m: (m[0], m[1], m[2], id(m[3]), m[4])
    expected = sorted(moments_of(records), key=lambda m: (m[0], m[1]))
    assert [key(m) for m in moments_in_order(records)] == [key(m) for m in expected]
