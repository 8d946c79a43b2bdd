"""``mcp-resume check`` end to end: it runs, writes its artifacts and exits 0."""

import contextlib
import json

import pytest

from mcp_resume.cli import main


@pytest.mark.timeout(1800)  # every stage, the kill matrix included: minutes on a busy machine
def test_check_runs_every_stage_writes_artifacts_and_exits_zero(tmp_path, capsys):
    out = tmp_path / "out"
    (out / "traces").mkdir(parents=True)
    (out / "traces" / "design-3.json").write_text("{}")  # left by an older run: replaced
    (out / "traces" / "mine.json").write_text("{}")  # the user's: kept
    code = main(["check", "--out", str(out), "--json", str(tmp_path / "check.json"), "--quiet"])
    printed = capsys.readouterr().out
    summary = json.loads((tmp_path / "check.json").read_text())
    assert code == 0, printed
    assert summary["holds"] is True and summary["profile"] == "boundary"
    assert all(line["result"] for line in summary["checks"])
    items = {line["item"] for line in summary["checks"]}
    assert {"decision table", "spec", "reference", "decision and lifecycles"} <= items
    assert {"transition-system invariants", "faulty designs (bounded model checking)"} <= items
    assert (out / "proofs" / "machine" / "boundary" / "REPORT.md").exists()
    assert {f"design-{n}" for n in range(1, 13)} <= items
    assert (out / "proofs" / "decision" / "DECISION.md").exists()
    assert len(list((out / "traces").glob("design-*.json"))) == 12 and (out / "traces" / "mine.json").exists()
    assert json.loads((out / "traces" / "design-3.json").read_text())["actions"]
    assert (out / "diagrams" / "decision-flow.dot").exists()
    assert "everything holds" in printed
    assert {"spec within default bound", "hypothesis", "explorer", "z3-bmc", "http-verify"} <= items
    default = json.loads((out / "explorer" / "default.json").read_text())
    assert default["holds"] and default["manifest_differences"] == []
    matrix = json.loads((out / "kill-matrix.json").read_text())
    assert matrix["holds"] is True
    eleven = {(c["checker"], c["profile"]): c["outcome"] for c in matrix["cells"] if c["design"] == 11}
    assert eleven[("explorer", "boundary")] == eleven[("hypothesis", "boundary")] == "caught"
    assert eleven[("explorer", "mcp-2025-11-25")] == eleven[("hypothesis", "mcp-2025-11-25")] == "passed"
    assert eleven[("z3-bmc", "boundary")] == eleven[("http-verify", "boundary")] == "caught"
    assert eleven[("z3-bmc", "mcp-2025-11-25")] == eleven[("http-verify", "mcp-2025-11-25")] == "passed"
    assert "## mcp-2025-11-25" in (out / "kill-matrix.md").read_text()
    assert len(list((out / "traces" / "explorer").glob("design-*.json"))) == 12 + 5


def test_check_fails_with_exit_1_when_a_design_escapes(tmp_path, monkeypatch):
    import mcp_resume.check as check
    from mcp_resume.model.harness import runs as design_runs

    monkeypatch.setattr(check, "design_names", lambda: ["reference-posing-as-design"])

    def fake_run_server(name, profile, examples):
        return design_runs.run_server("reference", profile, 20) if name != "reference-posing-as-design" else _as_design(design_runs.run_server("reference", profile, 20))

    def _as_design(run):
        run.server = "design-99"
        return run

    monkeypatch.setattr(check, "run_server", fake_run_server)
    monkeypatch.setattr(check.check_explore, "explore_default_bound",
                        lambda out: {"stage": "explorer", "item": "stub", "holds": True, "detail": "", "result": ""})
    monkeypatch.setattr(check.check_explore, "start_kill_matrix", lambda examples: contextlib.nullcontext())
    monkeypatch.setattr(check.check_explore, "kill_matrix_stage", lambda runs, out, examples, progress, started: [])
    assert main(["check", "--out", str(tmp_path), "--quiet", "--examples", "20"]) == 1


@pytest.mark.parametrize("argv, message", [
    (["--examples", "0"], "must be at least 1"),
    (["--examples", "-3"], "must be at least 1"),
    (["--examples", "many"], "is not a whole number"),
    (["--profile", "mcp-2026-07-28"], "invalid choice"),
])
def test_check_rejects_bad_arguments_with_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["check", *argv])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_check_refuses_an_out_path_that_is_a_file_before_any_work(tmp_path, capsys):
    a_file = tmp_path / "taken"
    a_file.write_text("keep me")
    assert main(["check", "--out", str(a_file), "--quiet"]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err and a_file.read_text() == "keep me"


def test_check_refuses_a_json_path_in_a_missing_folder_before_any_work(tmp_path, capsys):
    assert main(["check", "--out", str(tmp_path / "out"), "--json", str(tmp_path / "nowhere" / "c.json"), "--quiet"]) == 2
    assert "is not an existing folder" in capsys.readouterr().err and not (tmp_path / "out").exists()
