"""Proof artifacts of the decision: one results file, a report, SMT-LIB2 on request."""

from __future__ import annotations

import json

import pytest
import z3

from mcp_resume.proofs.artifacts import DECISION_REPORT, DECISION_RESULTS, write_decision_artifacts
from mcp_resume.proofs.decision.queries import run_decision_queries
from mcp_resume.proofs.solving import SatResult, ProofStatus
from mcp_resume.proofs.spec_hash import spec_hash


QUERY_KEYS = {"id", "description", "expected", "result", "verdict", "witness", "reason_unknown", "sources"}


@pytest.fixture(scope="module")
def results():
    return run_decision_queries()


@pytest.mark.xdist_group("test_decision_artifacts")  # shares a module-scoped fixture
def test_the_results_file_and_the_report_list_every_query(results, tmp_path):
    written = write_decision_artifacts(results, tmp_path)
    assert [p.name for p in written] == [DECISION_RESULTS, DECISION_REPORT]
    document = json.loads((tmp_path / DECISION_RESULTS).read_text())
    assert [q["id"] for q in document["queries"]] == [r.query for r in results]
    report = (tmp_path / DECISION_REPORT).read_text()
    assert f"queries holding: {len(results)} of {len(results)}" in report
    for result in results:
        assert f"`{result.query}`" in report
    assert "**NO**" not in report


@pytest.mark.xdist_group("test_decision_artifacts")  # shares a module-scoped fixture
def test_the_results_carry_the_run_and_the_spec_hash_but_no_costs(results, tmp_path):
    write_decision_artifacts(results, tmp_path)
    text = (tmp_path / DECISION_RESULTS).read_text()
    document = json.loads(text)
    assert "rlimit_used" not in text and "rlimit used" not in (tmp_path / DECISION_REPORT).read_text()
    assert document["spec_hash"] == spec_hash() and document["z3_version"] == z3.get_version_string()
    for query in document["queries"]:
        assert set(query) == QUERY_KEYS
        assert query["verdict"] == ProofStatus.PROVEN.value and query["result"] == query["expected"]
        if query["expected"] == SatResult.SAT.value:
            assert query["witness"]["profile"]


def test_smt2_files_are_written_only_on_request_and_replay(tmp_path):
    with_text = run_decision_queries(smt2=True)
    written = write_decision_artifacts(with_text, tmp_path, smt2=True)
    assert [p.name for p in written[2:]] == [f"{r.query}.smt2" for r in with_text]
    for result in with_text:
        solver = z3.Solver()
        solver.from_string((tmp_path / "smt2" / f"{result.query}.smt2").read_text())
        assert SatResult.of(solver.check()) is result.result, result.query


@pytest.mark.xdist_group("test_decision_artifacts")  # shares a module-scoped fixture
def test_asking_for_smt2_of_results_solved_without_it_is_refused(results, tmp_path):
    with pytest.raises(ValueError, match="smt2=True"):
        write_decision_artifacts(results, tmp_path, smt2=True)
    assert not any(tmp_path.iterdir())


@pytest.mark.xdist_group("test_decision_artifacts")  # shares a module-scoped fixture
def test_artifacts_are_byte_identical_across_runs(results, tmp_path):
    first = write_decision_artifacts(results, tmp_path / "one")
    second = write_decision_artifacts(run_decision_queries(), tmp_path / "two")
    assert [p.name for p in first] == [p.name for p in second]
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.name


@pytest.mark.xdist_group("test_decision_artifacts")  # shares a module-scoped fixture
def test_a_failing_query_is_marked_in_the_report(results, tmp_path):
    from dataclasses import replace

    broken = [replace(results[0], result=SatResult.SAT, verdict=ProofStatus.REFUTED, witness={"method": "GET"})]
    write_decision_artifacts(broken + results[1:], tmp_path)
    report = (tmp_path / DECISION_REPORT).read_text()
    assert f"queries holding: {len(results) - 1} of {len(results)}" in report
    assert "**NO**" in report and "method=GET" in report
    document = json.loads((tmp_path / DECISION_RESULTS).read_text())
    assert document["queries"][0]["verdict"] == "refuted"


@pytest.mark.xdist_group("test_decision_artifacts")  # shares a module-scoped fixture
def test_duplicate_query_ids_are_refused(results, tmp_path):
    with pytest.raises(ValueError, match=results[0].query):
        write_decision_artifacts([results[0], results[0]], tmp_path)


@pytest.mark.xdist_group("test_decision_artifacts")  # shares a module-scoped fixture
def test_artifacts_are_byte_identical_in_a_fresh_process(results, tmp_path):
    import subprocess
    import sys

    here = write_decision_artifacts(results, tmp_path / "here")
    code = (
        "import sys; from pathlib import Path; "
        "from mcp_resume.proofs.decision.queries import run_decision_queries; "
        "from mcp_resume.proofs.artifacts import write_decision_artifacts; "
        "write_decision_artifacts(run_decision_queries(), Path(sys.argv[1]))"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "there")], check=True)
    for path in here:
        assert (tmp_path / "there" / path.name).read_bytes() == path.read_bytes(), path.name
