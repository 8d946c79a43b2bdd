"""The framework notes of the compatibility page (``model.targets.framework_notes``): each
verdict the page lists for a framework has a note, no note covers a rule that PASSes,
and each note points at code that is in the pinned package's installed copy."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcp_resume.jobs import compatibility as compat
from mcp_resume.model.targets import framework_notes, frameworks
from mcp_resume.model.targets.framework_notes import Note, Where
from mcp_resume.model.verify.report import Report, RuleVerdict
from mcp_resume.spec.catalog import RULES
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

from tests.helpers import ROOT

PAGE = ROOT / "docs" / "compatibility.md"
SECTION = re.compile(r"^### `([^`]+)`: ", re.M)
LISTED = re.compile(r"`([a-z0-9-]+)` (?:\*\*)?[A-Z]+(?:\*\*)? / (?:\*\*)?[A-Z]+(?:\*\*)?")


def _report(profile: Profile, verdicts: dict[str, Verdict]) -> Report:
    rows = [RuleVerdict(rule=r.id, level=r.level(profile), verdict=verdicts.get(r.id, Verdict.PASS),
                        reason="not applicable under x" if r.id.startswith("sessionless") else "seen")
            for r in RULES]
    return Report("tmcp", "http://127.0.0.1:1/mcp", profile, {"protocol_version": "2025-06-18"}, rows)


def _result(boundary: dict[str, Verdict], auto: dict[str, Verdict]) -> compat.TargetResult:
    return compat.TargetResult({"boundary": _report(Profile.BOUNDARY, boundary),
                                "auto": _report(Profile.MCP_2025_06_18, auto)}, {"boundary": 1.0, "auto": 1.0})


def test_a_listed_verdict_without_a_note_and_a_note_of_a_passing_rule_are_both_reported(monkeypatch):
    notes = (Note(("missing-session-400", "replay-suffix"), "mints a session", (Where("@tmcp/transport-http", "src/index.js"),)),)
    monkeypatch.setitem(framework_notes.NOTES, "tmcp", notes)
    result = _result({"missing-session-400": Verdict.FAIL, "priming-event": Verdict.WARN},
                     {"missing-session-400": Verdict.WARN})
    shown = compat.shown_rules(result)
    assert shown == ["missing-session-400", "priming-event"]
    problems = framework_notes.audit("tmcp", shown)
    assert problems == ["priming-event: no note for a verdict that is not PASS",
                        "replay-suffix: stale note (the rule PASSes or does not apply)"]
    assert framework_notes.audit("tmcp", ["missing-session-400", "replay-suffix"]) == []


def test_a_rule_that_does_not_apply_under_either_profile_is_not_listed():
    result = _result({"sessionless-get-405": Verdict.SKIP}, {"sessionless-get-405": Verdict.SKIP})
    assert "sessionless-get-405" not in compat.shown_rules(result)


def test_a_rule_verify_checks_in_process_only_is_not_listed_while_it_skips():
    skipped = _result({"cancel-notifies": Verdict.SKIP}, {"cancel-notifies": Verdict.SKIP})
    assert "cancel-notifies" not in compat.shown_rules(skipped)
    judged = _result({"cancel-notifies": Verdict.FAIL}, {"cancel-notifies": Verdict.SKIP})
    assert "cancel-notifies" in compat.shown_rules(judged)


def _page_sections() -> dict[str, list[str]]:
    text = PAGE.read_text(encoding="utf-8")
    starts = list(SECTION.finditer(text))
    sections = {}
    for here, after in zip(starts, starts[1:] + [None]):
        body = text[here.end():after.start() if after else len(text)]
        sections[here.group(1)] = [rule for line in body.splitlines() if line.startswith("- ")
                                   for rule in LISTED.findall(line)]
    return sections


def test_the_committed_page_lists_a_note_for_every_framework_verdict_and_no_stale_note():
    sections = _page_sections()
    assert set(frameworks.BY_TARGET) <= set(sections), sorted(sections)
    text = PAGE.read_text(encoding="utf-8")
    assert "not yet read against the framework's source" not in text
    for target in frameworks.BY_TARGET:
        assert framework_notes.audit(target, sections[target]) == [], target


def _site_packages(folder: Path) -> Path:
    found = sorted(folder.glob("lib/python*/site-packages"))
    return found[0] if found else folder / "missing"


def _files(fw: frameworks.Framework, where: Where) -> list[Path]:
    root = _site_packages(fw.folder()) if fw.registry == "pypi" else fw.folder() / "node_modules" / where.package
    return sorted(root.glob(where.path))


@pytest.mark.parametrize("target", sorted(framework_notes.NOTES))
def test_every_note_points_at_code_in_the_pinned_packages_installed_copy(target):
    fw = frameworks.BY_TARGET[target]
    if not frameworks._installed(fw):
        pytest.skip(f"{fw.label} is not installed here (python3 model/targets/frameworks.py --install)")
    for note in framework_notes.NOTES[target]:
        assert note.where and note.text, (target, note.rules)
        for where in note.where:
            files = _files(fw, where)
            assert len(files) == 1, (target, str(where), files)
            code = files[0].read_text(encoding="utf-8")
            for name in where.names:
                assert name in code, (target, str(where), name)


def test_every_note_names_catalog_rules_once_per_target():
    rule_ids = {r.id for r in RULES}
    for target, notes in framework_notes.NOTES.items():
        covered = [rule for note in notes for rule in note.rules]
        assert set(covered) <= rule_ids and len(covered) == len(set(covered)), target


def test_the_page_shows_how_long_verify_took_on_each_sdk():
    result = _result({}, {})
    result.seconds = {"boundary": 70.4, "auto": 63.6}
    text = compat.page({"python-sdk@1.30.0": result})
    assert "Seconds verify took (`boundary` / `auto`): `python-sdk@1.30.0` 70 / 64." in text
