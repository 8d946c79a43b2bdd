"""``mcp-resume docs``: the committed documentation set is exactly what the spec generates."""

from __future__ import annotations

import re
import sys
import types

import pytest

from mcp_resume.cli import main
from mcp_resume.docgen import CoverageError, scan_tests
from mcp_resume.docgen import hooks
from mcp_resume.spec.catalog import RULES
from mcp_resume.spec.sources import SOURCES

from tests.helpers.docs import ROOT, TESTS


def test_every_source_the_catalog_cites_has_a_revision_section_and_gist():
    cited = {source for rule in RULES for source in rule.sources}
    assert cited <= set(SOURCES)
    for source in SOURCES.values():
        assert source.section and source.gist
        assert source.is_open_question or source.is_decision or source.revision is not None


def test_the_scan_reads_functions_classes_and_module_marks(tmp_path):
    (tmp_path / "test_a.py").write_text(
        "import pytest\nfrom pytest import mark\n"
        "pytestmark = [pytest.mark.timeout(5), pytest.mark.covers('event-id-unique')]\n"
        "@mark.covers('replay-suffix', 'no-cross-session')\n@pytest.mark.parametrize('x', [1])\ndef test_f(x):\n    pass\n"
        "class TestC:\n    @pytest.mark.covers('priming-event')\n    def test_m(self):\n        pass\n"
        "def helper():\n    pass\n"
    )
    refs = scan_tests(tmp_path, tmp_path, [r.id for r in RULES])
    assert [(r.name, r.rules) for r in refs] == [
        ("test_f", ("event-id-unique", "replay-suffix", "no-cross-session")),
        ("TestC::test_m", ("event-id-unique", "priming-event")),
    ]
    assert refs[0].node_id == "test_a.py::test_f"


@pytest.mark.parametrize(
    "source, words",
    [
        ("@pytest.mark.covers('no-such-rule')\ndef test_x():\n    pass\n", "test_b.py:2: covers() names unknown rule"),
        ("RULE = 'replay-suffix'\n@pytest.mark.covers(RULE)\ndef test_x():\n    pass\n", "string literals"),
        ("@pytest.mark.covers()\ndef test_x():\n    pass\n", "one or more rule ids"),
    ],
)
def test_a_bad_marker_is_an_error_that_says_where(tmp_path, source, words):
    (tmp_path / "test_b.py").write_text("import pytest\n" + source)
    with pytest.raises(CoverageError, match=re.escape(words)):
        scan_tests(tmp_path, tmp_path, [r.id for r in RULES])


def test_every_covers_marker_in_this_repository_names_a_known_rule():
    refs = scan_tests(TESTS, ROOT, [r.id for r in RULES])
    assert len(refs) > 30


def test_a_module_without_the_hook_is_left_out(monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp_resume.jobs.proving", types.ModuleType("mcp_resume.jobs.proving"))
    assert hooks.load(hooks.SECTIONS[0]) is None


def test_a_missing_test_folder_is_a_usage_error(tmp_path, capsys):
    assert main(["docs", "--out", str(tmp_path / "docs"), "--tests", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err.startswith("mcp-resume docs: error: no test folder")


def test_a_bad_marker_fails_the_command_with_its_location(tmp_path, capsys):
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_bad.py").write_text("import pytest\n@pytest.mark.covers('nope')\ndef test_x():\n    pass\n")
    assert main(["docs", "--out", str(tmp_path / "docs"), "--tests", str(tests)]) == 1
    err = capsys.readouterr().err
    assert "mcp-resume docs: error: " in err and "tests/test_bad.py:2" in err


def test_check_without_a_test_folder_is_still_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    assert main(["docs", "--out", "docs", "--check"]) == 2
    assert "no test folder" in capsys.readouterr().err
