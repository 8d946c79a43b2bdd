"""Reports for CI: an unreachable target still gets its --json/--junit/--markdown files, a
run owns (and clears) only the reproducers it wrote, and Markdown links are relative to it."""

import json
import socket
from xml.etree import ElementTree

from mcp_resume.cli import main
from mcp_resume.model.verify.formats import MANIFEST, junit_xml, markdown, write_findings
from mcp_resume.model.verify.report import Check, Report, RuleVerdict
from mcp_resume.model.verify.suite import VerifyRun
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.verdicts import Verdict


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_target_still_writes_every_report_saying_why(tmp_path, capsys):
    url = f"http://127.0.0.1:{_closed_port()}/mcp"
    files = {kind: tmp_path / f"report.{kind}" for kind in ("json", "junit", "markdown")}
    argv = ["verify", url, "--timeout", "2"] + [x for kind, path in files.items() for x in (f"--{kind}", str(path))]
    assert main(argv) == 3
    reason = capsys.readouterr().err.strip()
    data = json.loads(files["json"].read_text())
    assert data["verdicts"] == [] and data["unreachable"]["reason"] and data["unreachable"]["reason"] in reason
    suite = ElementTree.parse(files["junit"]).getroot()
    assert (suite.get("tests"), suite.get("errors")) == ("1", "1")
    error = suite.find("testcase/error")
    assert error is not None and error.get("type") == "unreachable" and error.get("message") == data["unreachable"]["reason"]
    assert "not verified" in files["markdown"].read_text()


def _report(verdict: Verdict) -> Report:
    check = Check("replay after E1", "[E2]", "[E1, E2]" if verdict is Verdict.FAIL else "[E2]", verdict is not Verdict.FAIL)
    rule = RuleVerdict("replay-suffix", verdict, "replay after E1: expected [E2]", Level.MUST, [check])
    return Report("x", "http://127.0.0.1:1/mcp", Profile.BOUNDARY, {}, [rule])


def test_a_later_passing_run_leaves_no_reproducer_of_an_earlier_run(tmp_path):
    folder = tmp_path / "mcp-resume-findings"
    first = write_findings(_report(Verdict.FAIL), folder)
    assert [p.name for p in first["replay-suffix"]] == ["replay-suffix.trace.json", "replay-suffix.curl.sh"]
    (folder / "notes.txt").write_text("mine")
    (folder / "other.trace.json").write_text("{}")
    assert write_findings(_report(Verdict.PASS), folder) == {}
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt", "other.trace.json"]


def test_an_interrupted_run_keeps_an_earlier_runs_reproducers_and_lists_both(tmp_path):
    """A run interrupted before it judged the earlier finding's rule cannot tell that the
    finding is stale: it once removed the earlier run's reproducers and wrote none."""
    folder = tmp_path / "mcp-resume-findings"
    write_findings(_report(Verdict.FAIL), folder)
    other = RuleVerdict("no-broadcast", Verdict.WARN, "sent twice", Level.SHOULD, [Check("sent", "once", "twice", False)])
    partial = Report("x", "http://127.0.0.1:1/mcp", Profile.BOUNDARY, {}, [other])
    assert list(write_findings(partial, folder, keep_earlier=True)) == ["no-broadcast"]
    listed = json.loads((folder / MANIFEST).read_text())["files"]
    assert listed == sorted(p.name for p in folder.iterdir() if p.name != MANIFEST) and len(listed) == 4
    assert write_findings(_report(Verdict.PASS), folder) == {}  # a whole run still clears them all
    assert not folder.exists(), "and the folder it left empty"


def test_a_manifest_cannot_make_a_run_remove_files_outside_its_folder(tmp_path):
    folder = tmp_path / "findings"
    folder.mkdir()
    outside = tmp_path / "keep.trace.json"
    outside.write_text("{}")
    (folder / MANIFEST).write_text(json.dumps({"files": ["../keep.trace.json", "/etc/passwd"]}))
    write_findings(_report(Verdict.PASS), folder)
    assert outside.exists()


def test_markdown_links_to_reproducers_relative_to_the_markdown_file(tmp_path):
    report = _report(Verdict.FAIL)
    files = write_findings(report, tmp_path / "ci" / "mcp-resume-findings")
    text = markdown(report, files, tmp_path / "ci" / "reports")
    assert "[`replay-suffix.trace.json`](../mcp-resume-findings/replay-suffix.trace.json)" in text
    assert str(tmp_path) not in text


def test_an_interrupted_run_s_reports_say_partial_and_why_and_a_whole_one_says_not():
    run = VerifyRun("http://127.0.0.1:1/mcp", "demo", Profile.BOUNDARY)
    stopped = "interrupted (Ctrl-C) before this rule was judged"
    partial, whole = run.report(stopped), run.report()
    data = partial.to_json()
    assert data["partial"] is True and data["stopped"] == stopped and data["seconds"] >= 0
    assert {v["verdict"] for v in data["verdicts"]} == {"INCONCLUSIVE"}
    assert "**partial**" in markdown(partial) and stopped in markdown(partial)
    properties = {p.get("name"): p.get("value") for p in ElementTree.fromstring(junit_xml(partial)).iter("property")}
    assert properties["partial"] == stopped
    assert whole.to_json()["partial"] is False and "stopped" not in whole.to_json() and "partial" not in markdown(whole)


def test_junit_time_is_the_run_s_wall_clock_not_the_sum_of_overlapping_exchanges():
    report = Report("demo", "http://127.0.0.1:1/mcp", Profile.BOUNDARY, {}, [], seconds=20.25)
    assert ElementTree.fromstring(junit_xml(report)).get("time") == "20.250"
