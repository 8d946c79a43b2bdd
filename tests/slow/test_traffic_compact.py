"""Compact records (``model.traffic.compact``) and the lean judgement that ``validate`` uses:
on recorded traffic they give the verdicts, reasons, open and assumed lines, traces and JSON
report of whole records judged in full; the walk's moments come in exactly the sorted order."""

from __future__ import annotations

import copy
import json

import pytest

from mcp_resume.cli import main
from mcp_resume.model.oracle.judge import judge, judge_beside
from mcp_resume.model.traffic.records import read, write_line
from mcp_resume.model.traffic.trace_validation import moments_in_order, moments_of
from mcp_resume.jobs.traffic_report import report_json

from tests.helpers.traffic_runs import recorded

from tests.helpers.traffic_compact import same_judgements


@pytest.mark.parametrize("name", ["reference", "design-1", "design-2", "design-10", "variation-cancel", "variation-reserialised",
                                  "variation-ring-buffer"])
def test_compact_records_of_recorded_traffic_judge_alike(tmp_path, name):
    """Through a JSON-lines file, as ``validate`` reads it: FAILs (design-1, -2, -10), a copy of
    another stream's message told by its value (variation-reserialised) and evictions alike."""
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(write_line(r) for r in recorded(name)))
    same_judgements(read(path), read(path, compact=True))


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
