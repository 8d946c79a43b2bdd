"""Proof artifacts of the decision: one results file, a report, SMT-LIB2 on request."""

from __future__ import annotations

from mcp_resume.proofs.spec_hash import spec_hash


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
