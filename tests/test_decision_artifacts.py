"""Proof artifacts: one SMT-LIB2 problem and one certificate per query, and a report."""

from __future__ import annotations

import json

import pytest

from mcp_resume.proofs.artifacts import write_decision_artifacts
from mcp_resume.proofs.decision.queries import run_decision_queries
from mcp_resume.proofs.spec_hash import spec_hash

CERTIFICATE_KEYS = {
    "query", "description", "expected", "result", "holds", "z3_version", "rlimit",
    "rlimit_used", "random_seed", "spec_hash", "witness", "sources", "smt2", "reason_unknown",
}


@pytest.fixture(scope="module")
def results():
    return run_decision_queries()


def test_every_query_gets_smt2_and_json_and_the_report_lists_it(results, tmp_path):
    written = write_decision_artifacts(results, tmp_path)
    names = [p.name for p in written]
    for result in results:
        assert f"{result.query}.smt2" in names and f"{result.query}.json" in names
    assert names[-1] == "DECISION.md"
    report = (tmp_path / "DECISION.md").read_text()
    assert f"queries holding: {len(results)} of {len(results)}" in report
    for result in results:
        assert f"`{result.query}`" in report
    assert "**NO**" not in report


def test_certificates_carry_the_run_and_the_spec_hash(results, tmp_path):
    write_decision_artifacts(results, tmp_path)
    digest = spec_hash()
    for result in results:
        certificate = json.loads((tmp_path / f"{result.query}.json").read_text())
        assert set(certificate) == CERTIFICATE_KEYS
        assert certificate["holds"] is True and certificate["result"] == certificate["expected"]
        assert certificate["spec_hash"] == digest
        assert certificate["rlimit_used"] <= certificate["rlimit"]
        assert (tmp_path / certificate["smt2"]).read_text() == result.smt2
        if certificate["expected"] == "sat":
            assert certificate["witness"]["profile"]


def test_artifacts_are_byte_identical_across_runs(results, tmp_path):
    first = write_decision_artifacts(results, tmp_path / "one")
    second = write_decision_artifacts(run_decision_queries(), tmp_path / "two")
    assert [p.name for p in first] == [p.name for p in second]
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_a_failing_query_is_marked_in_the_report(results, tmp_path):
    from dataclasses import replace

    broken = [replace(results[0], result="sat", holds=False, witness={"method": "GET"})] + results[1:]
    write_decision_artifacts(broken, tmp_path)
    report = (tmp_path / "DECISION.md").read_text()
    assert f"queries holding: {len(results) - 1} of {len(results)}" in report
    assert "**NO**" in report and "method=GET" in report


def test_duplicate_query_ids_are_refused(results, tmp_path):
    with pytest.raises(ValueError, match=results[0].query):
        write_decision_artifacts([results[0], results[0]], tmp_path)


def test_spec_hash_follows_the_sources_and_nothing_else(tmp_path, monkeypatch):
    package = tmp_path / "fake_spec"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("X = 1\n")
    (package / "notes.txt").write_text("not a module")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = spec_hash("fake_spec")
    assert spec_hash("fake_spec") == before
    (package / "notes.txt").write_text("changed, but not a module")
    assert spec_hash("fake_spec") == before
    (package / "a.py").write_text("X = 2\n")
    assert spec_hash("fake_spec") != before
    assert len(spec_hash()) == 64


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
