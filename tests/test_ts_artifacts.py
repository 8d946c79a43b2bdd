"""``mcp-resume prove``: artifacts, certificates that replay in Z3, the committed copy
matching a fresh regeneration byte for byte, exit codes."""

import json
from pathlib import Path

import pytest
import z3

from mcp_resume.cli import main
from mcp_resume.proofs.spec_hash import spec_hash
from mcp_resume.proofs.system.artifacts import encoding_hash
from mcp_resume.prove import prove_profile
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.trace import loads

COMMITTED = Path(__file__).resolve().parents[1] / "proofs" / "certificates" / "boundary"
REGENERATE = "mcp-resume prove --out proofs/certificates"


@pytest.fixture(scope="module")
def outcome(tmp_path_factory):
    return prove_profile(Profile.BOUNDARY, tmp_path_factory.mktemp("prove"))


def _replay_smt2(text: str) -> str:
    """Run an SMT-LIB2 script in a fresh context; its set-option commands change Z3's
    global defaults, so they are reset afterwards."""
    ctx = z3.Context()
    try:
        return z3.Z3_eval_smtlib2_string(ctx.ref(), text)
    finally:
        z3.reset_params()


def _files(folder: Path) -> dict[str, Path]:
    return {str(p.relative_to(folder)): p for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_committed_artifacts_match_a_regeneration_byte_for_byte(outcome):
    fresh, committed = _files(outcome.folder), _files(COMMITTED)
    advice = (f"the spec, the encoding or Z3 changed: regenerate with `{REGENERATE}` "
              "and commit proofs/certificates/boundary/")
    assert sorted(fresh) == sorted(committed), (
        f"files only in a regeneration: {sorted(set(fresh) - set(committed))[:5]}, only committed: "
        f"{sorted(set(committed) - set(fresh))[:5]}; {advice}")
    differing = [name for name in fresh if fresh[name].read_bytes() != committed[name].read_bytes()]
    assert not differing, f"{len(differing)} artifacts differ, first {differing[:5]}; {advice}"


def test_the_run_holds_and_writes_one_smt2_and_one_certificate_per_query(outcome):
    assert outcome.holds, outcome.problems
    files = _files(outcome.folder)
    queries = [r.query for r in outcome.proofs] + [b.query for b in outcome.bmc]
    for query in queries:
        assert f"{query}.smt2" in files and f"{query}.json" in files, query
    assert len(files) == 2 * len(queries) + 12 + 1  # + traces + REPORT.md


def test_certificates_carry_the_run_the_hashes_and_what_the_proof_used(outcome):
    digests = {"spec_hash": spec_hash(), "encoding_hash": encoding_hash()}
    for result in outcome.proofs:
        certificate = json.loads((outcome.folder / f"{result.query}.json").read_text())
        assert {k: certificate[k] for k in digests} == digests
        assert certificate["z3_version"] == z3.get_version_string()
        assert 0 < certificate["rlimit_used"] <= certificate["rlimit"]
        assert certificate["fragment"].startswith(("EPR", "quantifier-free"))
        if certificate["kind"] == "consecution":
            assert certificate["result"] == "unsat" and certificate["holds"] is True
            assert "goal" in certificate["unsat_core"] and certificate["invariant"]


def test_a_proof_query_replays_from_its_smt2_file_with_the_same_answer_and_core(outcome):
    certificate = json.loads((outcome.folder / "consecution.replay-suffix.step.reconnect.json").read_text())
    output = _replay_smt2((outcome.folder / certificate["smt2"]).read_text())
    answer, core = output.split("\n", 1)
    assert answer == "unsat"
    assert sorted(core.strip().strip("()").split()) == certificate["unsat_core"]


def test_each_design_certificate_points_to_a_trace_that_loads(outcome):
    for number in range(1, 13):
        certificate = json.loads((outcome.folder / f"bmc.design-{number}.json").read_text())
        assert certificate["caught"] is True and certificate["result"] == "sat"
        trace = loads((outcome.folder / certificate["trace"]).read_text())
        assert trace.source == "z3" and len(trace.actions) == certificate["depth"]
        assert [d["result"] for d in certificate["depths"]][-1] == "sat"


def test_the_report_lists_every_obligation_and_every_design(outcome):
    report = (outcome.folder / "REPORT.md").read_text()
    assert "obligations required by `boundary` that hold: 379 of 379" in report
    assert "faulty designs caught: 12 of 12; traces confirmed by replay: 12" in report
    assert "**NO**" not in report
    for result in outcome.proofs:
        if result.invariant:
            assert f"`{result.invariant}`" in report
    assert REGENERATE in report


def test_prove_exits_1_when_a_design_escapes_within_the_depth(tmp_path, capsys):
    code = main(["prove", "--out", str(tmp_path), "--max-depth", "1", "--quiet", "--json", str(tmp_path / "s.json")])
    printed = capsys.readouterr().out
    assert code == 1
    assert "design 10: not caught within 1 steps" in printed
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary[0]["holds"] is False and summary[0]["obligations_holding"] == summary[0]["obligations_required"]


def test_prove_refuses_a_sessionless_profile_with_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["prove", "--profile", "mcp-2026-07-28", "--out", str(tmp_path)])
    assert exited.value.code == 2 and "invalid choice: 'mcp-2026-07-28'" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_prove_rejects_a_non_positive_limit(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["prove", "--rlimit", "0"])
    assert exited.value.code == 2
    assert "must be a positive integer" in capsys.readouterr().err


def test_a_failing_obligation_is_printed_with_its_counterexample(outcome, capsys):
    from dataclasses import replace

    from mcp_resume.prove import ProfileOutcome, _print, _problems

    picture = "counterexample to induction of x\n  action: emit_event(stream=T1)"
    target = next(r.query for r in outcome.proofs if r.kind == "consecution")
    broken = [replace(r, result="sat", holds=False, counterexample=picture) if r.query == target else r
              for r in outcome.proofs]
    failed = ProfileOutcome(outcome.profile, outcome.folder, broken, outcome.bmc, outcome.replays, 1.0)
    failed.problems = _problems(failed)
    _print(failed)
    printed = capsys.readouterr().out
    assert f"FAILS: {target}: sat, expected unsat" in printed
    assert "    counterexample to induction of x\n      action: emit_event(stream=T1)" in printed
    assert not failed.holds
