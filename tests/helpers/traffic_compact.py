"""What tests/fast/test_traffic_compact.py and tests/slow/test_traffic_compact.py share."""

from __future__ import annotations

from mcp_resume.model.oracle.judge import judge, judge_beside
from mcp_resume.spec.profiles import Profile
from mcp_resume.jobs.traffic_report import report_json


def _judgement(validation) -> dict:
    """All a report shows of a judgement, and its traces."""
    traces = {r.rule: validation.trace(r) for r in validation.results}
    return {"profile": validation.profile, "open": validation.open, "assumed": validation.assumed,
            "notes": validation.notes, "verdicts": [(r.rule, r.verdict, r.reason) for r in validation.results],
            "steps": {r.rule: [r.step_json(s) for s in r.steps] for r in validation.results},
            "traces": {rule: t.dumps() if t is not None else None for rule, t in traces.items()}}


def same_judgements(whole, compact) -> None:
    for profile in (None, Profile.BOUNDARY, Profile.MCP_2025_11_25, Profile.MCP_2026_07_28):
        full = judge(whole, profile)
        lean = judge(compact, profile, lean=True)
        assert _judgement(lean) == _judgement(full), profile
        beside = judge_beside(whole, full)
        assert report_json(lean, "f", 1, beside) == report_json(full, "f", 1, beside)
