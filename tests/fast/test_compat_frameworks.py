"""Third-party framework targets (``model.targets.frameworks``) and the compatibility page that
``mcp-resume compat`` writes for them (``mcp_resume.jobs.compatibility``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from mcp_resume.jobs import compatibility as compat
from mcp_resume.model.targets import framework_notes, frameworks
from mcp_resume.model.targets.embedded import is_embedded
from mcp_resume.model.verify.report import Report, RuleVerdict
from mcp_resume.spec.catalog import RULES
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

from tests.helpers import ROOT



def test_each_framework_is_pinned_and_has_its_fixture_server():
    assert len({f.registry for f in frameworks.FRAMEWORKS}) == 2  # PyPI and npm
    for fw in frameworks.FRAMEWORKS:
        assert (frameworks.FIXTURES / fw.fixture).is_file(), fw.target
        for name, version in fw.packages:
            assert version.count(".") == 2 and version[0].isdigit(), (fw.target, name, version)
        assert set(fw.fixture_tools) <= set(frameworks.ALL_FIXTURE_TOOLS)
        assert is_embedded(fw.target) and is_embedded(f"{fw.target}@{fw.version}")
    assert frameworks.framework("tmcp@0.0.1") is None
    assert not is_embedded("tmcp@0.0.1")


def test_every_fixture_defines_exactly_the_tools_it_declares():
    for fw in frameworks.FRAMEWORKS:
        source = (frameworks.FIXTURES / fw.fixture).read_text(encoding="utf-8")
        defined = {tool for tool in frameworks.ALL_FIXTURE_TOOLS if f'"{tool}"' in source or f"def {tool}(" in source}
        assert defined == set(fw.fixture_tools), fw.target


def test_a_framework_is_installed_into_its_own_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("MCP_RESUME_CACHE", str(tmp_path))
    fw = frameworks.framework("mcp-lite")
    assert fw.folder() == tmp_path / f"mcp-lite-{fw.version}"
    steps = frameworks._npm_steps(fw) if shutil.which("npm") else None
    if steps is None:
        pytest.skip("npm is not installed")
    manifest = json.loads((fw.folder() / "package.json").read_text())
    assert manifest["dependencies"] == dict(fw.packages)
    assert steps[0][1] == "install"


def test_the_install_script_runs_before_mcp_resume_is_installed():
    base = getattr(sys, "_base_executable", sys.executable)  # outside the venv: no mcp_resume to import
    done = subprocess.run([base, "-s", str(ROOT / "model/targets/frameworks.py"), "--install", "no-such"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "unknown framework target 'no-such'" in done.stderr


def test_every_note_names_a_catalog_rule_and_a_source_file():
    assert set(framework_notes.NOTES) <= set(frameworks.BY_TARGET)
    for target, notes in framework_notes.NOTES.items():
        for note in notes:
            assert note.text and note.where and all(w.package and w.path for w in note.where), (target, note.rules)
            assert framework_notes.note_for(target, note.rules[0]) is note
    assert framework_notes.note_for("tmcp", "no-such-rule") is None


def _report(target: str, profile: Profile, verdicts: dict[str, Verdict]) -> Report:
    rows = [RuleVerdict(rule=r.id, level=r.level(Profile.BOUNDARY), verdict=verdicts.get(r.id, Verdict.PASS), reason="seen")
            for r in RULES]
    return Report(target, "http://127.0.0.1:1/mcp", profile, {"protocol_version": "2025-06-18"}, rows)


def test_the_page_explains_each_framework_verdict_that_is_not_pass(monkeypatch):
    where = (framework_notes.Where("@tmcp/transport-http", "src/index.js"),)
    note = framework_notes.Note(("missing-session-400",), "mints a session for any request", where)
    mistake = framework_notes.Note(("priming-event",), "verify applies a later revision's rule", where, True)
    monkeypatch.setitem(framework_notes.NOTES, "tmcp", (note, mistake))
    broken = {"missing-session-400": Verdict.FAIL, "priming-event": Verdict.WARN, "replay-suffix": Verdict.SKIP}
    result = compat.TargetResult(
        reports={"boundary": _report("tmcp", Profile.BOUNDARY, broken),
                 "auto": _report("tmcp", Profile.MCP_2025_06_18, {"replay-suffix": Verdict.SKIP})},
        seconds={"boundary": 33.4, "auto": 21.0},
    )
    text = compat.page({"tmcp": result})
    assert "## Third-party frameworks" in text and "## The official SDKs" not in text
    assert "| `missing-session-400` | **FAIL** / PASS |" in text
    assert "`missing-session-400` **FAIL** / PASS: mints a session for any request (@tmcp/transport-http: src/index.js)" in text
    assert "`priming-event` **WARN** / PASS: **not the framework's fault**: verify applies" in text
    assert "`replay-suffix` SKIP / SKIP: not yet read against the framework's source." in text
    assert "| 33 s | 21 s |" in text
    assert "`missing-session-400` PASS" not in text
    assert "`session-delete`" in text and "`session-delete` PASS / PASS:" not in text
