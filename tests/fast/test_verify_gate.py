"""``verify --require`` and ``--fail-on``: what a CI job can demand beyond "no FAIL" (issue 40)."""

from __future__ import annotations

import pytest

from mcp_resume.cli import main
from mcp_resume.jobs.gate import Gate, outcome, parse_fail_on, parse_required, unmet
from mcp_resume.jobs.targets import UsageError
from mcp_resume.model.verify.report import Report, RuleVerdict, skip
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.verdicts import Verdict


def _report(*verdicts: RuleVerdict) -> Report:
    return Report("demo", "http://127.0.0.1:1/mcp", Profile.MCP_2025_11_25, {}, list(verdicts))


NO_STORE = skip("replay-suffix", Profile.MCP_2025_11_25, "no stream carries event ids",
                unlock="SSE event ids: pass the transport an event store")
WARNED = RuleVerdict("priming-event", Verdict.WARN, "no priming event", Level.SHOULD)
PASSED = RuleVerdict("no-cross-session", Verdict.PASS, "12 steps held it", Level.MUST)


def test_rules_are_read_from_repeated_and_comma_separated_options_once_each():
    assert parse_required(["replay-suffix,reemit-pending", " replay-suffix ", "no-cross-session"]) == (
        "replay-suffix", "reemit-pending", "no-cross-session")
    assert parse_required(None) == () and parse_fail_on(["Warn", "skip,warn"]) == frozenset({"warn", "skip"})


@pytest.mark.parametrize("parse, value, words", [(parse_required, "replay-sufix", "not a rule id"),
                                                 (parse_fail_on, "fail", "expected warn or skip")])
def test_an_unknown_name_is_a_usage_error_that_lists_what_is_known(parse, value, words):
    with pytest.raises(UsageError, match=words):
        parse([value])


def test_a_required_rule_skipped_is_never_checked_and_says_how_to_check_it():
    [found] = unmet(_report(NO_STORE, PASSED), Gate(required=("replay-suffix", "no-cross-session")))
    assert not found.broken and found.line.startswith("required rule replay-suffix is SKIP: no stream carries")
    assert "to check it: SSE event ids: pass the transport an event store" in found.line


def test_fail_on_makes_a_warn_broken_and_an_applicable_skip_unchecked_but_not_a_rule_that_does_not_apply():
    not_applicable = skip("sessionless-get-405", Profile.MCP_2025_11_25, "not applicable under mcp-2025-11-25")
    found = unmet(_report(NO_STORE, WARNED, not_applicable, PASSED), Gate(fail_on=frozenset({"warn", "skip"})))
    assert [(f.line.split(":")[0], f.broken) for f in found] == [
        ("replay-suffix is SKIP (--fail-on skip)", False), ("priming-event is WARN (--fail-on warn)", True)]
    assert unmet(_report(NO_STORE, WARNED), Gate()) == []


@pytest.mark.parametrize("option", ["--require", "--fail-on"])
def test_a_bad_gate_option_is_refused_before_any_server_starts(option, capsys):
    assert main(["verify", "design-3", option, "nope"]) == 2
    assert "mcp-resume verify: error: " + option in capsys.readouterr().err


def test_a_required_rule_that_does_not_apply_under_the_profile_says_which_profile_checks_it():
    not_applicable = skip("reemit-pending", Profile.MCP_2025_11_25, "not applicable under mcp-2025-11-25")
    [found] = unmet(_report(not_applicable), Gate(required=parse_required(["REEMIT-PENDING"])))
    assert not found.broken and "does not apply under mcp-2025-11-25" in found.line and "--profile boundary" in found.line


def test_a_required_sessionless_rule_names_the_profile_that_applies_it():
    """A new user's trial (issue 40): the advice was --profile boundary, which does not apply it either."""
    not_applicable = skip("sessionless-get-405", Profile.MCP_2025_11_25, "not applicable under mcp-2025-11-25")
    [found] = unmet(_report(not_applicable), Gate(required=("sessionless-get-405",)))
    assert "it applies under --profile mcp-2026-07-28;" in found.line and "boundary" not in found.line


@pytest.mark.parametrize("argv, words", [
    (["--profile", "mcp-2025-11-25", "--require", "reemit-pending"], "it applies under --profile boundary"),
    (["--profile", "boundary", "--require", "sessionless-get-405"], "it applies under --profile mcp-2026-07-28"),
    (["--require", ""], "no rule named"),
])
def test_a_gate_that_cannot_be_met_is_a_usage_error_before_any_request(argv, words, capsys):
    assert main(["verify", "http://127.0.0.1:1/mcp", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcp-resume verify: error: --require") and words in err


def test_the_gate_shows_in_junit_json_and_markdown_so_a_test_view_matches_the_exit_code():
    """A new user's trial (issue 40): --fail-on warn exited 1 while the JUnit file said failures="0"."""
    from xml.etree import ElementTree

    from mcp_resume.model.verify.formats import junit_xml, markdown

    warned = RuleVerdict("priming-event", Verdict.WARN, "no priming event", Level.SHOULD, [])
    report = _report(warned)
    gate = Gate(fail_on=parse_fail_on(["warn"]))
    report.gate = outcome(gate, unmet(report, gate))
    suite = ElementTree.fromstring(junit_xml(report).split("\n", 1)[1])
    assert suite.get("failures") == "1" and suite.get("tests") == "2"
    failure = suite.find("testcase[@name='gate']/failure")
    assert failure is not None and "priming-event is WARN (--fail-on warn)" in failure.get("message")
    assert report.to_json()["gate"]["met"] is False
    assert "- gate (--require, --fail-on): **not met**: priming-event is WARN" in markdown(report)
    report.gate = outcome(Gate(required=("priming-event",)), [])
    suite = ElementTree.fromstring(junit_xml(report).split("\n", 1)[1])
    assert suite.get("failures") == "0" and suite.find("testcase[@name='gate']/failure") is None
