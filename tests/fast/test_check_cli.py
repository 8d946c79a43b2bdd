"""``mcp-resume check`` end to end: it runs, writes its artifacts and exits 0."""

import json

import pytest

from mcp_resume.jobs import checking as check
from mcp_resume.cli import main
from mcp_resume.spec.designs import NUMBERS
from mcp_resume.spec.profiles import Profile


def _line_stage(holds: bool):
    return [check.Line("stub", "holds" if holds else "breaks", holds, "detail")]


def test_check_prints_a_line_per_stage_writes_json_and_exits_1_when_a_stage_fails(tmp_path, monkeypatch, capsys):
    work = [check.Stage("first", _line_stage, (True,)), check.Stage("second", _line_stage, (False,))]
    monkeypatch.setattr(check, "stages", lambda out, profile, examples: work)
    code = main(["check", "--out", str(tmp_path / "out"), "--json", str(tmp_path / "c.json"), "--workers", "1"])
    captured = capsys.readouterr()
    assert code == 1 and "SOME CHECKS FAIL" in captured.out
    assert "[1/2] first: holds" in captured.err and "[2/2] second: FAILS" in captured.err
    summary = json.loads((tmp_path / "c.json").read_text())
    assert summary["holds"] is False and [c["holds"] for c in summary["checks"]] == [True, False]


def test_check_runs_stages_in_worker_processes_in_stage_order(tmp_path):
    work = [check.Stage(f"stage {n}", _line_stage, (n % 2 == 0,)) for n in range(4)]
    seen = []
    lines = check.run_stages(work, 2, lambda stage, lines, seconds, finished, total: seen.append(stage.name))
    assert [line.holds for line in lines] == [True, False, True, False]
    assert sorted(seen) == sorted(stage.name for stage in work)


def test_check_has_a_stage_for_every_design_and_every_checker_it_promises(tmp_path):
    names = [stage.name for stage in check.stages(tmp_path, Profile.BOUNDARY, 1)]
    assert {"explorer: kill bound", "machine vs spec", "machine vs reference", "transition-system proofs",
            "decision proofs", "diagrams"} <= set(names)
    assert [n for n in names if n.startswith("explorer vs design-")] == [f"explorer vs design-{n}" for n in NUMBERS]
    assert {"liveness", "explorer: mcp-2025-11-25", "explorer: mcp-2026-07-28"} <= set(names)
    variations = [n.removeprefix("explorer vs ") for n in names if n.startswith("explorer vs variation-")]
    assert variations == list(check.IN_PROCESS_VARIATIONS) and "variation-cancel" in variations
    assert "variation-reserialised" not in variations  # wire-only: the reference server in process


@pytest.mark.covers("reemit-pending")
def test_the_liveness_stage_explores_re_emitting_session_resumptions_under_both_profiles():
    boundary, mcp = check.liveness_stage()
    assert boundary.holds and boundary.detail.startswith("holds under boundary")
    assert mcp.holds and mcp.detail.startswith("allowed under mcp-2025-11-25")  # the revision lets a request strand
    assert " 0 session resumptions re-emit" not in boundary.detail


def test_the_liveness_bound_is_one_where_a_session_resumption_re_emits():
    from mcp_resume.model.explore import liveness_check
    from mcp_resume.spec.space import NAMED_BOUNDS

    assert liveness_check.reemitting_resumptions(liveness_check.spec_graph(liveness_check.CHECK_BOUNDS)) > 0
    assert liveness_check.reemitting_resumptions(liveness_check.spec_graph(NAMED_BOUNDS["tiny"])) == 0  # one stream: out of bound


def test_a_variation_stage_holds_for_a_correct_variation_and_blames_a_faulty_design():
    from mcp_resume.spec.space import NAMED_BOUNDS

    [correct] = check.variation_stage("variation-cancel", NAMED_BOUNDS["small"])
    assert correct.holds and "no rule broken" in correct.detail
    [blamed] = check.variation_stage("design-7", NAMED_BOUNDS["small"])  # a faulty design posing as a variation
    assert not blamed.holds and blamed.result == "BLAMED" and "replay-suffix" in blamed.detail


def test_the_mcp_profile_stage_exhausts_the_spec_under_2025_11_25():
    [line] = check.mcp_profile_stage(bound="small")
    assert line.holds and line.item == "spec, mcp-2025-11-25" and line.detail.startswith("holds within the small bound")


def test_the_sessionless_stage_exhausts_the_2026_machine_and_catches_each_faulty_server():
    from mcp_resume.model.sessionless.sessionless_server import FAULTY

    machine, reference, *faulty = check.sessionless_stage()
    assert machine.holds and machine.item == "spec, mcp-2026-07-28" and " 0 findings" in machine.detail
    assert reference.holds and reference.item == "reference, mcp-2026-07-28"
    assert [line.item for line in faulty] == [f"faulty {rule}" for rule in FAULTY]
    assert all(line.holds and line.result == "caught" and line.item.endswith(line.detail.split(",")[0])
               for line in faulty)


def test_the_sessionless_stage_blames_a_faulty_reference_and_a_server_it_cannot_catch(monkeypatch):
    from mcp_resume.model.sessionless import sessionless_server

    reference_server = sessionless_server.SessionlessServer
    monkeypatch.setattr(sessionless_server, "SessionlessServer", sessionless_server.FAULTY["sessionless-close-cancels"])
    monkeypatch.setitem(sessionless_server.FAULTY, "sessionless-get-405", reference_server)  # the reference posing as a fault
    lines = {line.item: line for line in check.sessionless_stage()}
    reference = lines["reference, mcp-2026-07-28"]
    assert not reference.holds and reference.result == "BLAMED" and "sessionless-close-cancels" in reference.detail
    missed = lines["faulty sessionless-get-405"]
    assert not missed.holds and missed.result == "NOT caught"


def test_a_design_the_explorer_cannot_catch_fails_its_stage(tmp_path, monkeypatch):
    from mcp_resume.model.servers import faulty
    from mcp_resume.model.servers.reference import ReferenceServer

    monkeypatch.setitem(faulty.DESIGNS, 1, ReferenceServer)  # the reference posing as design 1
    lines = check.design_stage(1, tmp_path, bound="small")
    assert [line.result for line in lines] == ["NOT caught"] and not lines[0].holds


def test_a_caught_design_saves_its_shortest_trace_confirmed_by_replay(tmp_path):
    [line] = check.design_stage(7, tmp_path)
    assert line.holds and "replay-suffix" in line.detail and "replay confirmed" in line.detail
    assert json.loads((tmp_path / "design-7.json").read_text())["failure"]["rule"] == "replay-suffix"


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
    assert "does not exist (create it first)" in capsys.readouterr().err and not (tmp_path / "out").exists()
