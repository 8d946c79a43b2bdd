"""Every FAIL and WARN of verify carries its fix, in every report format: the rule's fix in the server
author's terms and, when serverInfo names a known SDK, that SDK's remedy; MCP rule ids link to their
gist in Markdown and stay bare in plain text."""

from __future__ import annotations

import io
import json
from xml.etree import ElementTree

from rich.console import Console

from mcp_resume.model.traffic.fixes import FIXES, fix_for
from mcp_resume.model.verify.formats import curl_script, junit_xml, markdown, verify_trace
from mcp_resume.model.verify.report import Check, Report, RuleVerdict
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.verdicts import Verdict
from mcp_resume.jobs.verifying import print_report, sdk_hint


PYTHON_SDK = {"name": "mcp-resume python-sdk target", "version": ""}


def _report(server_info=None) -> Report:
    broken = Check("session B presents session A's event id", "HTTP 400", "events [E1]", False)
    held = Check("replay after E1", "[E2]", "[E2]", True)
    verdicts = [
        RuleVerdict("no-cross-session", Verdict.FAIL, "session B got session A's event E1", Level.MUST, [broken]),
        RuleVerdict("priming-event", Verdict.WARN, "POST stream without priming event", Level.SHOULD, [broken]),
        RuleVerdict("replay-suffix", Verdict.PASS, "1 step held", Level.MUST, [held]),
    ]
    caps = {"session_ids": True, "fixture_tools": [], "server_info": server_info}
    return Report("demo", "http://127.0.0.1:1/mcp", Profile.BOUNDARY, caps, verdicts)


def test_json_gives_every_fail_and_warn_a_fix_beside_its_verdict_and_the_sdks_remedy():
    data = json.loads(json.dumps(_report(PYTHON_SDK).to_json()))
    by_rule = {v["rule"]: v for v in data["verdicts"]}
    assert by_rule["no-cross-session"]["fix"]["text"] == FIXES["no-cross-session"]
    assert by_rule["no-cross-session"]["fix"]["sdk"] == "python-sdk"
    assert "BoundedEventStore" in by_rule["no-cross-session"]["fix"]["remedy"]
    assert by_rule["priming-event"]["fix"]["text"] == FIXES["priming-event"]
    assert "fix" not in by_rule["replay-suffix"]
    assert data["capabilities"]["server_info"] == PYTHON_SDK


def test_without_a_known_sdk_the_fix_is_the_rules_own():
    data = _report({"name": "weather"}).to_json()
    fix = next(v["fix"] for v in data["verdicts"] if v["rule"] == "no-cross-session")
    assert fix == {"text": FIXES["no-cross-session"]}


def test_text_prints_a_fix_line_per_finding_with_ids_bare():
    console = Console(record=True, width=400)
    print_report(_report(PYTHON_SDK), console)
    text = console.export_text()
    assert f"fix no-cross-session (FAIL): {FIXES['no-cross-session']}" in text
    assert f"fix priming-event (WARN): {FIXES['priming-event']}" in text
    assert "With the official Python SDK: " in text and "fix replay-suffix" not in text
    assert "(MCP B26, D30)" in text and "](#source-" not in text


def test_markdown_says_how_to_fix_each_finding_and_links_its_mcp_ids_to_their_gist():
    text = markdown(_report(PYTHON_SDK))
    assert text.count("**How to fix:**") == 2 and "**With the official Python SDK:**" in text
    assert "[B26](#source-b26)" in text and '<a id="source-b26"></a>`B26`' in text
    assert "## MCP rule ids" in text and "must not replay anything meant for another stream" in text
    unknown = markdown(_report({"name": "weather"}))
    assert "Where the server is built with a known SDK or framework:" in unknown
    assert "- the official Python SDK: " in unknown and "- the official TypeScript SDK: " in unknown


def test_junit_carries_the_fix_of_a_failure_and_of_a_warning():
    suite = ElementTree.fromstring(junit_xml(_report(PYTHON_SDK)).split("\n", 1)[1])
    failure = suite.find("testcase[@name='no-cross-session']/failure")
    assert failure is not None and f"how to fix: {fix_for('no-cross-session', 'python-sdk').line()}" in failure.text
    warned = suite.find("testcase[@name='priming-event']/system-out")
    assert warned is not None and "how to fix: " in warned.text
    assert "how to fix" not in ElementTree.tostring(suite.find("testcase[@name='replay-suffix']"), encoding="unicode")


def test_the_verify_trace_and_the_curl_reproducer_carry_the_fix():
    report = _report(PYTHON_SDK)
    verdict = report.verdicts[0]
    assert verify_trace(report, verdict)["fix"]["sdk"] == "python-sdk"
    assert "# how to fix: " + FIXES["no-cross-session"][:40] in curl_script(report, verdict)


def test_the_no_sdk_hint_names_the_rules_with_a_remedy_in_agreement_with_their_number():
    def hint(*rules):
        return sdk_hint(Report("demo", "http://127.0.0.1:1/mcp", Profile.BOUNDARY, {"server_info": {"name": "mine"}},
                               [RuleVerdict(rule, Verdict.FAIL, "x", Level.MUST, []) for rule in rules]))

    assert "serverInfo names 'mine'" in hint("reject-foreign-event-id")
    assert "; reject-foreign-event-id has an SDK's remedy" in hint("reject-foreign-event-id")
    assert "reject-foreign-event-id, malformed-session-400 have an SDK's remedy" in hint(
        "reject-foreign-event-id", "malformed-session-400")


def test_a_finding_only_the_profile_beside_makes_has_its_evidence_and_fix_in_every_report():
    why = "session B presents session A's event id a1: answered 200, expected any 4xx except 404"
    verdict = RuleVerdict("reject-foreign-event-id", Verdict.PASS, "2 steps held it", Level.MAY, [],
                          beside=("boundary", Verdict.FAIL), beside_reason=why)
    report = Report("demo", "http://127.0.0.1:1/mcp", Profile.MCP_2025_11_25, {}, [verdict])
    text = io.StringIO()
    print_report(report, Console(file=text, width=200))
    printed = text.getvalue()
    assert f"under boundary, reject-foreign-event-id would FAIL: {why}" in printed
    assert "  fix: Check a Last-Event-ID against the session named" in printed
    assert report.to_json()["verdicts"][0]["beside"] == {"profile": "boundary", "verdict": "FAIL", "reason": why}
    page = markdown(report)
    assert "## reject-foreign-event-id: PASS, FAIL under boundary" in page and "**How to fix:**" in page


def test_the_curl_reproducer_ends_by_saying_what_to_compare_and_that_it_judges_nothing():
    import subprocess

    report = _report(PYTHON_SDK)
    script = curl_script(report, report.verdicts[0])
    tail = script.rstrip().splitlines()[-3:]
    assert tail[0].startswith("echo '== no-cross-session was FAIL when recorded; compare the answers above with:")
    assert "judges none (exit 0 says only that it ran)" in tail[-1]
    assert "mcp-resume replay no-cross-session.trace.json [URL]" in tail[-1]
    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0
