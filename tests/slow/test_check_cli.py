"""``mcp-resume check`` end to end: it runs, writes its artifacts and exits 0."""

import json

import pytest

from mcp_resume.jobs import checking as check
from mcp_resume.cli import main
from mcp_resume.spec.designs import NUMBERS
from mcp_resume.spec.profiles import Profile

from tests.helpers import SUITE_EXAMPLES


@pytest.mark.timeout(900)
def test_check_runs_every_stage_writes_artifacts_and_exits_zero(tmp_path, capsys):
    out = tmp_path / "out"
    (out / "traces").mkdir(parents=True)
    (out / "traces" / "design-3.json").write_text("{}")  # left by an older run: replaced
    (out / "traces" / "mine.json").write_text("{}")  # the user's: kept
    code = main(["check", "--out", str(out), "--json", str(tmp_path / "check.json"), "--examples", str(SUITE_EXAMPLES)])
    captured = capsys.readouterr()
    summary = json.loads((tmp_path / "check.json").read_text())
    assert code == 0, captured.out
    assert summary["holds"] is True and summary["profile"] == "boundary"
    items = {line["item"] for line in summary["checks"]}
    assert {"decision table", "spec", "reference", "decision and lifecycles", "spec within kill bound"} <= items
    assert "transition-system invariants" in items and "faulty designs (bounded model checking)" not in items
    assert {f"design-{n}" for n in NUMBERS} <= items
    assert set(check.IN_PROCESS_VARIATIONS) | {"spec, boundary", "spec, mcp-2025-11-25"} <= items
    assert (out / "proofs" / "machine" / "boundary" / "REPORT.md").exists()
    assert (out / "proofs" / "decision" / "DECISION.md").exists()
    assert len(list((out / "traces").glob("design-*.json"))) == len(NUMBERS) and (out / "traces" / "mine.json").exists()
    assert json.loads((out / "traces" / "design-3.json").read_text())["actions"]
    assert (out / "diagrams" / "decision-flow.dot").exists()
    kill = json.loads((out / "explorer" / "kill.json").read_text())
    assert kill["holds"] and kill["manifest_differences"] == []
    assert "everything holds" in captured.out
    assert not (out / "kill-matrix.json").exists()  # only with --kill-matrix
    total = len(check.stages(out, Profile.BOUNDARY, 1))
    assert f"[{total}/{total}]" in captured.err  # one progress line per stage, also when stderr is no terminal
