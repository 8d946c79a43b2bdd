"""``mcp-resume docs``: the committed documentation set is exactly what the spec generates."""

from __future__ import annotations

import re
import shutil
import sys
import types
from pathlib import Path

import pytest

from mcp_resume.cli import build_parser, main
from mcp_resume.docgen import REGENERATE, build_docs, compare_sets, scan_tests
from mcp_resume.docgen import hooks
from mcp_resume.docgen.compare import svg_text
from mcp_resume.model.explore.state_graph import COUNTEREXAMPLE
from mcp_resume.proofs.diagrams import graphviz
from mcp_resume.spec.catalog import RULES
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.sources import SOURCES

from tests.helpers.docs import ROOT, TESTS


COMMITTED = ROOT / "docs"

DOT = graphviz.find_dot()
needs_dot = pytest.mark.skipif(DOT is None, reason="Graphviz's dot is not installed")


@pytest.fixture(scope="session")
def fresh(shared_runs, prove_outcome):
    """(folder, result) of one ``build_docs`` of this repository, made once per session
    (in the folder every xdist worker shares: ``conftest.SharedRuns``). Its proofs page is
    written from the ``boundary`` proofs and bounded searches the session's ``prove_outcome``
    solved (the functions ``jobs.proving.write_docs`` calls, with the same arguments), not
    solved a second time; the command's generation (``docs_cli_run``) solves its own, and
    ``test_generation_is_byte_identical_across_runs_svg_included`` compares the two."""
    import mcp_resume.jobs.proving as proving

    out = shared_runs.folder / "docs"

    def build():
        solved = prove_outcome(Profile.BOUNDARY)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(proving, "run_proofs", lambda profile: _solved(profile, solved.proofs))
            patch.setattr(proving, "bmc_designs", lambda profile: _solved(profile, solved.bmc))
            return build_docs(out, TESTS, DOT)

    return out, shared_runs.get("docs", build)


def _solved(profile: Profile, results: list) -> list:
    assert profile is Profile.BOUNDARY, profile  # write_docs solves boundary, with the defaults prove_outcome uses
    return results


@pytest.fixture
def proofs_page_as_fresh(fresh, monkeypatch):
    """For tests of what the generator does with the set's other pages: the proofs section
    (``jobs.proving.write_docs``, which solves every ``boundary`` proof, most of a
    generation's time) writes the page ``fresh`` solved, byte for byte. That solving is
    tested by ``fresh`` itself and byte identity across runs by
    ``test_generation_is_byte_identical_across_runs_svg_included``."""
    import mcp_resume.jobs.proving as proving

    solved = (fresh[0] / "proofs" / "README.md").read_bytes()

    def write_docs(out_dir, dot_program=None):
        page = Path(out_dir) / "README.md"
        page.write_bytes(solved)
        return [page]

    monkeypatch.setattr(proving, "write_docs", write_docs)


def test_the_committed_docs_are_what_the_spec_generates(fresh):
    out, _ = fresh
    differences = compare_sets(out, COMMITTED, svg=DOT is not None)
    if differences:
        listed = "\n".join(f"  {d}" for d in differences)
        pytest.fail(f"docs/ differs from what the spec generates:\n{listed}\nregenerate it from the repository root "
                    f"with: {REGENERATE}", pytrace=False)


@needs_dot
@pytest.mark.timeout(900)  # its setup may be a whole prove (``fresh``) and a whole docs command, as test_progress's
def test_generation_is_byte_identical_across_runs_svg_included(fresh, docs_cli_run):
    """This process's generation and the command's, in an interpreter of its own."""
    out, _ = fresh
    done, other = docs_cli_run
    assert done.returncode == 0, done.stderr
    first = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    second = {p.relative_to(other): p.read_bytes() for p in other.rglob("*") if p.is_file()}
    assert first == second


def test_every_rule_has_a_page_with_its_sources_checks_and_tests(fresh):
    out, result = fresh
    covered = _covered()
    for rule in RULES:
        text = (out / "rules" / f"{rule.id}.md").read_text()
        assert rule.statement in text
        for source_id in rule.sources:
            assert f"`{source_id}`" in text and SOURCES[source_id].gist in text
        for test_name in covered.get(rule.id, []):
            assert f"`{test_name}`" in text
        if rule.id not in covered:
            assert "No test covers this rule yet" in text
    assert set(result.uncovered) == {r.id for r in RULES} - set(covered)


def test_the_index_lists_every_rule_and_those_no_test_covers(fresh):
    out, result = fresh
    index = (out / "README.md").read_text()
    uncovered_part = index.split("## Rules no test covers", 1)[1]
    for rule in RULES:
        assert f"(rules/{rule.id}.md)" in index
        assert (f"(rules/{rule.id}.md)" in uncovered_part) == (rule.id in result.uncovered)


def test_a_rule_no_test_covers_is_listed_as_such(proofs_page_as_fresh, tmp_path):
    tests = tmp_path / "repo" / "tests"
    tests.mkdir(parents=True)
    (tests / "test_one.py").write_text('import pytest\n\n@pytest.mark.covers("replay-suffix")\ndef test_it():\n    pass\n')
    result = build_docs(tmp_path / "out", tests, None)
    assert result.uncovered == [r.id for r in RULES if r.id != "replay-suffix"]
    assert "`test_it`" in (tmp_path / "out" / "rules" / "replay-suffix.md").read_text()
    assert "No test covers this rule yet" in (tmp_path / "out" / "rules" / "event-id-unique.md").read_text()
    assert any("SVG diagrams not written" in note for note in result.notes)
    assert not list((tmp_path / "out").rglob("*.svg"))


def test_every_diagram_is_written_as_dot_mermaid_and_svg(fresh):
    out, _ = fresh
    names = {"decision-flow", "stream-lifecycle", "session-lifecycle"}
    suffixes = {".dot", ".mmd"} | ({".svg"} if DOT else set())
    assert {p.name for p in (out / "diagrams").iterdir()} == {n + s for n in names for s in suffixes}
    assert "stateDiagram-v2" in (out / "diagrams" / "stream-lifecycle.mmd").read_text()


def test_the_profile_comparison_shows_what_changes(fresh):
    out, _ = fresh
    text = (out / "profiles.md").read_text()
    first = text.split("### mcp-2025-03-26 → mcp-2025-06-18", 1)[1].split("###", 1)[0]
    assert "[`unsupported-version-400`](rules/unsupported-version-400.md) | n/a | MUST" in first  # the header (C37)
    assert first.count("](rules/") == 1  # the only change: 2025-06-18 restates 2025-03-26's rules
    boundary = text.split("### mcp-2025-11-25 → boundary", 1)[1].split("###", 1)[0]
    assert "[`reemit-pending`](rules/reemit-pending.md) | n/a | MUST" in boundary
    assert "[`reject-foreign-event-id`](rules/reject-foreign-event-id.md) | MAY | MUST" in boundary


def _fake_section_module(name: str, *, fail: bool = False, outside: Path | None = None):
    module = types.ModuleType(name)

    def write_docs(out_dir, dot_program=None):
        if fail:
            raise RuntimeError("boom")
        target = (outside or out_dir) / "REPORT.md"
        target.write_text("# Proofs\n\nAll invariants hold.\n")
        return [target]

    module.write_docs = write_docs
    module.covered_rules = lambda: {"replay-suffix": ["replay-suffix-inductive"]}
    return module


def test_an_importable_section_module_is_included_and_linked(tmp_path, monkeypatch):
    build_parser()  # the command reference loads every command module (``prove`` too) before the stand-in
    monkeypatch.setitem(sys.modules, "mcp_resume.jobs.proving", _fake_section_module("mcp_resume.jobs.proving"))
    result = build_docs(tmp_path, TESTS, None)
    assert (tmp_path / "proofs" / "REPORT.md").read_text().startswith("# Proofs")
    assert tmp_path / "proofs" / "REPORT.md" in result.written
    assert "(proofs/REPORT.md) (from `mcp-resume prove`)" in (tmp_path / "README.md").read_text()
    assert "`replay-suffix-inductive`" in (tmp_path / "rules" / "replay-suffix.md").read_text()


def test_the_explored_state_graph_section_draws_the_graph_a_red_counterexample_and_the_manifest(fresh):
    out, result = fresh
    page = (out / "state-graph" / "README.md").read_text()
    dot_text = (out / "state-graph" / "explored.dot").read_text()
    assert "(state-graph/README.md)" in (out / "README.md").read_text()
    assert "In red: the shortest counterexample of faulty design 4" in page and "no-replay-on-session-resume" in page
    assert dot_text.count(COUNTEREXAMPLE) > 1  # the legend, and the red path
    assert "## How to read the pictures" in page and "dashed box" in page
    parts = sorted((out / "state-graph").glob("explored-*.dot"))
    assert len(parts) > 1 and all(f"]({part.stem}.svg)" in page for part in parts)
    assert "| default | boundary | 2 | 2 | 3 | 2 | 826,721 | 12,425,678 |" in page
    assert "explorer: every state and transition" in (out / "rules" / "replay-suffix.md").read_text()


def test_a_missing_section_module_is_left_out(tmp_path, monkeypatch):
    absent = hooks.OptionalSection("absent", "Absent", "mcp_resume.no_such_module_here", "mcp-resume absent")
    monkeypatch.setattr(hooks, "SECTIONS", (absent,))
    monkeypatch.setattr("mcp_resume.docgen.build.SECTIONS", (absent,))
    build_docs(tmp_path, TESTS, None)
    assert not (tmp_path / "absent").exists()
    assert "Absent" not in (tmp_path / "README.md").read_text()


def test_a_section_module_that_breaks_the_contract_fails_generation(tmp_path, monkeypatch):
    build_parser()  # as above
    monkeypatch.setitem(sys.modules, "mcp_resume.jobs.proving", _fake_section_module("mcp_resume.jobs.proving", fail=True))
    with pytest.raises(hooks.HookError, match="write_docs failed: boom"):
        build_docs(tmp_path / "a", TESTS, None)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setitem(sys.modules, "mcp_resume.jobs.proving", _fake_section_module("mcp_resume.jobs.proving", outside=elsewhere))
    with pytest.raises(hooks.HookError, match="outside"):
        build_docs(tmp_path / "b", TESTS, None)


@needs_dot
def test_svg_comparison_ignores_layout_but_not_labels(fresh, tmp_path):
    out, _ = fresh
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    svg = copy / "diagrams" / "session-lifecycle.svg"
    original = svg.read_text()
    svg.write_text(re.sub(r'(x|y)="(-?[\d.]+)"', lambda m: f'{m[1]}="{float(m[2]) + 1.5}"', original)
                   .replace("graphviz version", "graphviz version 99"))
    assert svg.read_bytes() != (out / "diagrams" / "session-lifecycle.svg").read_bytes()
    assert compare_sets(out, copy) == []
    svg.write_text(original.replace(">live<", ">alive<"))
    assert [str(d) for d in compare_sets(out, copy)] == ["differs: diagrams/session-lifecycle.svg"]
    assert ("text", "live") in svg_text((out / "diagrams" / "session-lifecycle.svg").read_bytes())


def test_the_command_writes_the_set_and_names_the_rules_no_test_covers(proofs_page_as_fresh, tmp_path, capsys):
    tests = tmp_path / "repo" / "tests"
    tests.mkdir(parents=True)
    (tests / "test_one.py").write_text('import pytest\n\n@pytest.mark.covers("replay-suffix")\ndef test_it():\n    pass\n')
    assert main(["docs", "--out", str(tmp_path / "docs"), "--tests", str(tests)]) == 0
    out = capsys.readouterr().out
    assert "wrote" in out and "rules no test covers: " in out and "event-id-unique" in out and "replay-suffix" not in out
    assert (tmp_path / "docs" / "README.md").is_file()


def test_every_rule_of_this_repository_is_covered_by_a_test(fresh):
    out, result = fresh
    assert result.uncovered == []
    assert "Every rule is covered by at least one test." in (out / "README.md").read_text()


def test_check_passes_on_a_fresh_set_and_fails_with_the_command_on_a_stale_one(fresh, proofs_page_as_fresh, tmp_path, capsys,
                                                                               monkeypatch):
    monkeypatch.chdir(ROOT)
    out, _ = fresh
    copy = tmp_path / "docs"
    shutil.copytree(out, copy)
    assert main(["docs", "--out", str(copy), "--check"]) == 0
    (copy / "rules" / "replay-suffix.md").write_text("edited by hand\n")
    (copy / "stale.md").write_text("left over\n")
    capsys.readouterr()
    assert main(["docs", "--out", str(copy), "--check"]) == 1
    printed = capsys.readouterr().out
    assert "differs: rules/replay-suffix.md" in printed and "extra: stale.md" in printed
    # the folder checked, not the repository's docs/
    assert f"find {copy} -type f ! -name compatibility.md -delete && mcp-resume docs --out {copy}" in printed


def _covered() -> dict[str, list[str]]:
    covered: dict[str, list[str]] = {}
    for ref in scan_tests(TESTS, ROOT, [r.id for r in RULES]):
        for rule in ref.rules:
            covered.setdefault(rule, []).append(ref.name)
    return covered


def test_the_command_writes_every_page_from_a_folder_without_tests(fresh, proofs_page_as_fresh, tmp_path, monkeypatch,
                                                                    capsys):
    # as from an installed package: no tests/ beside it; every page is written and says the coverage is unknown
    monkeypatch.chdir(tmp_path)
    assert main(["docs", "--out", "docs"]) == 0
    captured = capsys.readouterr()
    assert "no test folder" in captured.err and "wrote" in captured.out
    out, _ = fresh
    written = sorted(p.relative_to(tmp_path / "docs") for p in (tmp_path / "docs").rglob("*") if p.is_file())
    assert written == sorted(p.relative_to(out) for p in out.rglob("*") if p.is_file())
    index = (tmp_path / "docs" / "README.md").read_text()
    assert "| n/a |" in index and "Every rule is covered" not in index and "Not available:" in index
    assert "Not available:" in (tmp_path / "docs" / "rules" / "replay-suffix.md").read_text()
