"""``mcp-resume prove``: the results file, the report and the traces; the committed copy
matching a fresh regeneration by meaning; SMT-LIB2 on request that replays in Z3; exit codes."""

import json
import re
from pathlib import Path

import pytest
import z3

from mcp_resume.cli import main
from mcp_resume.proofs.artifacts import REPORT, RESULTS, differences
from mcp_resume.proofs.report_page import REGENERATE
from mcp_resume.proofs.solving import SatResult, ProofStatus
from mcp_resume.proofs.spec_hash import spec_hash
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.trace import loads

from mcp_resume.proofs.system.faulty_systems import needs_encoding
from mcp_resume.spec.designs import DESIGNS as SPEC_DESIGNS

from tests.helpers.proof_artifacts import replay_smt2
from tests.helpers import ROOT


Z3_DESIGNS = tuple(d.number for d in SPEC_DESIGNS if needs_encoding(d) is None)
"""The designs the transition formulas can express (the others wait for encodings, with the reason)."""

COMMITTED = ROOT / "proofs" / "results" / "boundary"
ADVICE = (f"the spec, the encoding or Z3 changed the proofs: regenerate with `{REGENERATE}` "
          "(from the repository root) and commit proofs/results/boundary/")


@pytest.fixture(scope="module")
def outcome(prove_outcome):
    return prove_outcome(Profile.BOUNDARY)


@pytest.fixture(scope="module")
def results(outcome):
    return json.loads((outcome.folder / RESULTS).read_text())


def _files(folder: Path) -> dict[str, Path]:
    return {str(p.relative_to(folder)): p for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.xdist_group("test_proof_artifacts")  # shares a module-scoped fixture
def test_the_committed_results_match_a_regeneration_by_meaning(outcome, results):
    committed = json.loads((COMMITTED / RESULTS).read_text())
    found = differences(results, committed)
    assert not found, "; ".join(found) + f"; {ADVICE}"
    assert sorted(_files(outcome.folder)) == sorted(_files(COMMITTED)), ADVICE
    for name, path in _files(outcome.folder).items():
        if name.startswith("traces/"):
            assert json.loads(path.read_text()) == json.loads((COMMITTED / name).read_text()), f"{name} differs; {ADVICE}"
    assert (outcome.folder / REPORT).read_text() == (COMMITTED / REPORT).read_text(), f"{REPORT} differs; {ADVICE}"


@pytest.mark.xdist_group("test_proof_artifacts")  # shares a module-scoped fixture
def test_a_changed_result_is_named_by_the_comparison(results):
    changed = json.loads(json.dumps(results))
    changed["queries"][0]["result"] = "sat"
    del changed["queries"][-1]
    found = differences(changed, results)
    assert any(results["queries"][0]["id"] in line and "'unsat' -> 'sat'" in line for line in found), found
    assert any("1 queries gone" in line for line in found), found
    assert differences(results, results) == []


@pytest.mark.xdist_group("test_proof_artifacts")  # shares a module-scoped fixture
def test_the_run_holds_and_writes_the_results_the_traces_and_the_report_only(outcome, results):
    assert outcome.holds, outcome.problems
    files = _files(outcome.folder)
    assert sorted(files) == sorted([RESULTS, REPORT] + [f"traces/design-{n}.json" for n in Z3_DESIGNS])
    queries = [r.query for r in outcome.proofs] + [b.query for b in outcome.bmc]
    assert [q["id"] for q in results["queries"]] == queries
    assert all(r.smt2 is None for r in outcome.proofs) and all(b.smt2 is None for b in outcome.bmc)


@pytest.mark.xdist_group("test_proof_artifacts")  # shares a module-scoped fixture
def test_results_carry_the_spec_hash_and_what_each_proof_used_but_no_costs(outcome, results):
    text = (outcome.folder / RESULTS).read_text()
    assert "rlimit_used" not in text and "smt2" not in text
    assert (results["spec_hash"], results["profile"]) == (spec_hash(), "boundary")
    assert results["z3_version"] == z3.get_version_string()
    for query in results["queries"]:
        if query["verdict"] == "not applicable":
            assert query["result"] is None and query["unsat_core"] == [] and query["applicability"]
            continue
        assert query["fragment"].startswith(("EPR", "quantifier-free"))
        if query["kind"] == "consecution":
            assert (query["result"], query["vacuous"]) == ("unsat", False)
            assert "goal" in query["unsat_core"] and query["invariant"]
            trivial = query["verdict"] == "trivial"
            assert query["verdict"] in ("proven", "trivial") and query["effect_only"] in ("sat", "unsat")
            assert trivial == (query["effect_only"] == "unsat") == bool(query["effect_core"])
        if query["kind"] == "inductive-alone":
            assert query["expected"] is None and query["verdict"] is None


@pytest.mark.xdist_group("test_proof_artifacts")  # shares a module-scoped fixture
def test_results_are_enums_in_memory(outcome):
    consecution = next(r for r in outcome.proofs if r.kind == "consecution")
    assert (consecution.result, consecution.verdict, consecution.holds) == (SatResult.UNSAT, ProofStatus.PROVEN, True)


@pytest.mark.xdist_group("test_proof_artifacts")  # shares a module-scoped fixture
def test_each_design_points_to_a_trace_that_loads(outcome, results):
    designs = [q for q in results["queries"] if q["kind"] == "bmc"]
    assert [q["design"] for q in designs] == list(Z3_DESIGNS)
    for query in designs:
        assert query["caught"] is True and (query["result"], query["verdict"]) == ("sat", "proven")
        trace = loads((outcome.folder / query["trace"]).read_text())
        assert trace.source == "z3" and len(trace.actions) == query["depth"]
        assert query["depths"] == ["unsat"] * (query["depth"] - 1) + ["sat"]


@pytest.mark.xdist_group("test_proof_artifacts")  # shares a module-scoped fixture
def test_the_report_lists_every_obligation_and_every_design_and_no_costs(outcome):
    report = (outcome.folder / REPORT).read_text()
    counted = outcome.summary()["tally"]
    assert (f"required obligations of `boundary`: {counted['proven']} proven by induction, "
            f"{counted['invariant_free']} invariant-free steps, {counted['initiations']} initiations, "
            f"{counted['witnesses']} enabled witnesses, {counted['trivial']} trivial, "
            f"{counted['not_applicable']} not applicable, 0 vacuous") in report
    solved_or_skipped = sum(1 for r in outcome.proofs if r.kind in ("initiation", "consecution", "enabled"))
    classes = ("proven", "invariant_free", "initiations", "witnesses", "trivial", "not_applicable")
    assert sum(counted[k] for k in classes) == counted["required"] == solved_or_skipped
    assert "## Trivial obligations" in report and "`consecution.no-replay-on-session-resume.step.reconnect`" in report
    assert (f"faulty designs caught: {len(Z3_DESIGNS)} of the {len(Z3_DESIGNS)} searched; traces confirmed by replay: "
            f"{len(Z3_DESIGNS)}; left out of the search: design 30 (") in report
    assert "**NO**" not in report and "rlimit used" not in report
    for result in outcome.proofs:
        if result.invariant:
            assert f"`{result.invariant}`" in report
    assert REGENERATE in report


def test_prove_exits_1_when_a_design_escapes_within_the_depth_and_writes_smt2_on_request(tmp_path, capsys):
    code = main(["prove", "--out", str(tmp_path), "--max-depth", "1", "--quiet", "--smt2",
                 "--json", str(tmp_path / "s.json")])
    printed = capsys.readouterr().out
    assert code == 1
    assert "design 10: not caught within 1 steps" in printed
    summary = json.loads((tmp_path / "s.json").read_text())
    first = summary[0]
    assert first["holds"] is False and first["obligations_refuted"] == first["obligations_unknown"] == 0
    assert sum(first[f"obligations_{k}"] for k in ("proven", "invariant_free", "initiations", "witnesses", "trivial",
                                                   "not_applicable")) == first["obligations_required"]
    folder = tmp_path / "boundary"
    queries = [q["id"] for q in json.loads((folder / RESULTS).read_text())["queries"] if q["result"] is not None]
    assert sorted(p.name for p in (folder / "smt2").iterdir()) == sorted(f"{q}.smt2" for q in queries)
    assert replay_smt2((folder / "smt2" / "bmc.design-10.smt2").read_text()).split() == ["unsat"]
    # only designs 17 and 19 are caught within one step: an orphan Last-Event-ID answered 200, a session id
    # never issued answered 400
    assert sorted(p.name for p in (folder / "traces").iterdir()) == ["design-17.json", "design-19.json"]


@pytest.mark.xdist_group("test_proof_artifacts")  # shares a module-scoped fixture
def test_a_rerun_removes_what_it_no_longer_writes(outcome, tmp_path):
    from dataclasses import replace

    from mcp_resume.proofs.artifacts import write_prove_artifacts

    folder = tmp_path / "boundary"
    (folder / "smt2").mkdir(parents=True)
    (folder / "smt2" / f"{outcome.proofs[0].query}.smt2").write_text("old")
    (folder / "smt2" / "mine.smt2").write_text("not the writer's")
    (folder / "traces").mkdir()
    (folder / "traces" / "design-1.json").write_text("old")
    escaped = [replace(b, trace=None, caught=False) if b.design == 1 else b for b in outcome.bmc]
    write_prove_artifacts(outcome.profile, outcome.proofs, escaped, outcome.replays, folder)
    assert sorted(p.name for p in (folder / "smt2").iterdir()) == ["mine.smt2"]
    assert not (folder / "traces" / "design-1.json").exists() and (folder / "traces" / "design-2.json").exists()


@pytest.mark.xdist_group("test_proof_artifacts")  # shares a module-scoped fixture
def test_a_failing_obligation_is_printed_with_its_counterexample(outcome, capsys):
    from dataclasses import replace

    from mcp_resume.jobs.proving import ProfileOutcome, _problems, print_outcome as _print

    picture = "counterexample to induction of x\n  action: emit_event(stream=T1)"
    target = next(r.query for r in outcome.proofs if r.kind == "consecution")
    broken = [replace(r, result=SatResult.SAT, verdict=ProofStatus.REFUTED, counterexample=picture) if r.query == target else r
              for r in outcome.proofs]
    failed = ProfileOutcome(outcome.profile, outcome.folder, broken, outcome.bmc, outcome.replays, 1.0)
    failed.problems = _problems(failed)
    _print(failed)
    printed = capsys.readouterr().out
    assert f"FAILS: {target}: sat, expected unsat" in printed
    assert "    counterexample to induction of x\n      action: emit_event(stream=T1)" in printed
    assert not failed.holds


@pytest.mark.xdist_group("test_proof_artifacts")  # shares a module-scoped fixture
def test_the_printed_outcome_names_every_design_searched_or_left_out_with_why(outcome, capsys):
    from mcp_resume.jobs.proving import print_outcome
    from mcp_resume.model.servers.faulty import DESIGNS as SERVERS

    print_outcome(outcome)
    printed = capsys.readouterr().out
    left_out = [number for number in SERVERS if number not in {b.design for b in outcome.bmc}]
    for number in SERVERS:
        assert re.search(rf"^  design +{number}: ", printed, re.MULTILINE), number
    for number in left_out:
        assert re.search(rf"design +{number}: not searched by Z3 \(.+; the other checkers catch it\)", printed), printed
