"""``mcp-resume verify``: bad input, hostile targets, and the printed table."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
from rich.console import Console

from mcp_resume.cli import main
from mcp_resume.model.verify.report import Check, Report, RuleVerdict, skip
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.verdicts import Verdict
from mcp_resume.jobs.targets import parse_target
from mcp_resume.jobs.verifying import findings_folder, print_report, write_outputs
from mcp_resume.model.verify.formats import MANIFEST


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("", "empty TARGET"),
        ("python-sdk2", "expected an http:// or https:// URL"),
        ("127.0.0.1:8000/mcp", "did you mean http://127.0.0.1:8000/mcp?"),
        ("localhost:8814", "did you mean http://localhost:8814/mcp?"),
        ("http://127.0.0.1:/mcp", "has a ':' with no port after it"),
        ("ftp://127.0.0.1/mcp", "unsupported scheme 'ftp'"),
        ("http://", "names no host"),
        ("http://127.0.0.1:99999/mcp", "invalid TARGET"),
    ],
)
def test_invalid_targets_are_usage_errors(target, words, capsys):
    started = time.monotonic()
    assert main(["verify", target]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
    assert time.monotonic() - started < 2


def test_parse_target_keeps_an_https_url():
    assert parse_target("https://mcp.example.com/mcp") == "https://mcp.example.com/mcp"


def test_parse_target_keeps_a_good_url():
    assert parse_target("http://127.0.0.1:8000/mcp") == "http://127.0.0.1:8000/mcp"


@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "inf"])
def test_bad_timeouts_are_usage_errors(timeout, capsys):
    assert main(["verify", "http://127.0.0.1:1/mcp", "--timeout", timeout]) == 2
    assert "timeout must be a positive number" in capsys.readouterr().err


def test_json_into_a_missing_folder_is_refused_before_anything_runs(tmp_path, capsys):
    assert main(["verify", "python-sdk", "--json", str(tmp_path / "nowhere" / "r.json")]) == 2
    assert "does not exist (create it first)" in capsys.readouterr().err


def test_json_into_an_unwritable_folder_is_refused_before_anything_runs(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    if os.access(locked, os.W_OK):
        pytest.skip("running as a user who can write anywhere")
    assert main(["verify", "python-sdk", "--json", str(locked / "r.json")]) == 2
    assert "not writable" in capsys.readouterr().err


@pytest.mark.parametrize("timeout", ["601", "1e307"])
def test_timeouts_beyond_ten_minutes_are_usage_errors(timeout, capsys):
    assert main(["verify", "http://127.0.0.1:1/mcp", "--timeout", timeout]) == 2
    assert "at most 600" in capsys.readouterr().err


def test_an_invalid_address_is_a_usage_error_with_a_short_message(capsys):
    assert main(["verify", "http://256.1.1.1/mcp"]) == 2
    assert main(["verify", "http://127.0.0.1/" + "x" * 100_000]) == 2
    err = capsys.readouterr().err
    assert "Invalid IPv4 address" in err and len(err) < 2000


def test_table_prints_rule_level_verdict_and_evidence():
    checks = [Check("GET with a foreign event id", "4xx except 404", "200", False, "reject-foreign-event-id")]
    report = Report(
        "demo",
        "http://127.0.0.1:1/mcp",
        Profile.BOUNDARY,
        {
            "session_ids": True,
            "event_ids": True,
            "priming": False,
            "get_stream": False,
            "get_status": 405,
            "fixture_tools": [],
        },
        [
            RuleVerdict("reject-foreign-event-id", Verdict.FAIL,
                        f"{checks[0].what}: expected {checks[0].expected}, observed {checks[0].observed}", Level.MUST, checks),
            skip("reemit-pending", Profile.BOUNDARY, "the server offers no GET stream (GET answered 405, B15)"),
        ],
    )
    console = Console(record=True, width=200)
    print_report(report, console)
    text = console.export_text()
    assert "reject-foreign-event-id" in text and "FAIL" in text and "expected 4xx except 404, observed 200" in text
    assert "reemit-pending" in text and "SKIP" in text and "GET answered 405" in text
    assert "summary: 1 FAIL, 1 SKIP" in text


def test_the_table_shortens_a_long_session_id_and_the_json_keeps_it():
    session = "s" * 3000 + "END"
    reason = f"GET with session {session} answered 200, expected 404"
    report = Report("demo", "http://127.0.0.1:1/mcp", Profile.BOUNDARY, {},
                    [RuleVerdict("unknown-session-404", Verdict.FAIL, reason, Level.MUST, [])])
    console = Console(record=True, width=200)
    print_report(report, console)
    text = console.export_text()
    assert session not in text and "(3003 chars)" in text and "answered 200, expected 404" in text
    assert report.to_json()["verdicts"][0]["evidence"]["reason"] == reason


def test_verify_help_lists_every_embedded_target(capsys):
    from mcp_resume.model.targets.frameworks import BY_TARGET
    from mcp_resume.spec import designs

    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    text = " ".join(re.sub(r"-\n\s*", "-", capsys.readouterr().out).split())
    names = ["python-sdk", "python-sdk@VERSION", "typescript-sdk", "typescript-sdk@VERSION", "reference", "spec",
             *BY_TARGET, *(v.target for v in designs.VARIATIONS)]
    assert [name for name in names if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)] == []
    assert f"design-N (N = {designs.numbers_text()}" in text


def _findings_of(target: str) -> Report:
    broken = RuleVerdict("replay-suffix", Verdict.FAIL, "replay after E1", Level.MUST, [Check("replay", "[E2]", "[E1]", False)])
    return Report(target, "http://127.0.0.1:1/mcp", Profile.BOUNDARY, {}, [broken])


def _written(report: Report, folder, asked: str) -> str:
    console = Console(record=True, width=300)
    write_outputs(report, {"json": None, "junit": None, "markdown": None}, folder, console, asked=asked)
    return console.export_text()


def test_each_target_and_profile_has_its_own_default_findings_folder(tmp_path):
    reports = {"json": tmp_path / "ci" / "report.json", "junit": None, "markdown": None}
    assert findings_folder(reports, None, "http://127.0.0.1:8000/mcp", "auto") == \
        tmp_path / "ci" / "mcp-resume-findings" / "127.0.0.1_8000_mcp.auto"
    none = {"json": None, "junit": None, "markdown": None}
    assert findings_folder(none, None, "design-2", "boundary") == Path("mcp-resume-findings") / "design-2.boundary"
    assert findings_folder(none, tmp_path / "mine", "design-2", "boundary") == tmp_path / "mine"
    first = findings_folder(none, None, "http://127.0.0.1:8000/mcp", "auto")
    assert first != findings_folder(none, None, "http://127.0.0.1:8001/mcp", "auto")
    assert first != findings_folder(none, None, "http://127.0.0.1:8000/mcp", "boundary")


def test_a_run_into_another_run_s_out_replaces_its_reproducers_and_says_so(tmp_path):
    folder = tmp_path / "findings"
    assert "reproducers (verify trace and curl script per finding) in" in _written(_findings_of("design-2"), folder, "auto")
    said = _written(_findings_of("design-3"), folder, "auto")
    assert "the reproducers of an earlier run against design-2 (profile auto)" in said and "its own --out" in said
    assert json.loads((folder / MANIFEST).read_text())["target"] == "design-3"
    passing = Report("design-3", "http://127.0.0.1:1/mcp", Profile.BOUNDARY, {}, [])
    assert f"no finding: this run's earlier reproducers in {folder} were removed" in _written(passing, folder, "auto")
    assert not folder.exists(), "a folder left empty by a clean rerun is removed too"
    mine = tmp_path / "mine"
    _written(_findings_of("design-2"), mine, "auto")
    (mine / "notes.txt").write_text("the user's own")
    _written(passing, mine, "auto")
    assert [p.name for p in mine.iterdir()] == ["notes.txt"], "a folder with other files stays"


def test_an_unreachable_run_leaves_the_earlier_reproducers_as_they_were(tmp_path, capsys):
    folder = tmp_path / "findings"
    _written(_findings_of("http://127.0.0.1:9/mcp"), folder, "auto")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert main(["verify", "http://127.0.0.1:9/mcp", "--timeout", "1", "--out", str(folder)]) == 3
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_two_reports_on_stdout_print_verify_s_own_usage(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["verify", "reference", "--markdown", "-", "--json", "-"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: mcp-resume verify ") and "mcp-resume verify: error: only one report" in err


@pytest.mark.parametrize("argv", [["verify", "--foo", "http://127.0.0.1:1/mcp"], ["check", "extra"]],
                         ids=["verify", "check"])
def test_an_unknown_option_is_said_in_the_command_s_own_usage(argv, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    command = argv[0]
    assert err.startswith(f"usage: mcp-resume {command} ") and f"mcp-resume {command}: error: unrecognized" in err

def test_the_header_keeps_each_capability_label_with_its_value_on_a_narrow_console():
    """Issue 25: 'fixture tools: \\nnone' wrapped on an 80-column terminal."""
    caps = {"session_ids": True, "event_ids": True, "priming": True, "get_stream": True, "get_status": 200,
            "delete_status": 200, "protocol_version": "2025-11-25", "fixture_tools": []}
    report = Report("http://127.0.0.1:1/mcp", "http://127.0.0.1:1/mcp", Profile.BOUNDARY, caps, [])
    console = Console(record=True, width=60)
    print_report(report, console)
    lines = console.export_text().splitlines()
    header = [line for line in lines if line.startswith("capabilities:")]
    assert len(header) == 1 and header[0].endswith("fixture tools: none"), lines


def test_the_header_names_the_tools_given_with_tool_beside_the_fixture_tools():
    caps = {"fixture_tools": [], "tool_roles": [{"tool": "book_flight", "role": "server-request"},
                                                 {"tool": "tail_logs", "role": "notifications"}]}
    from mcp_resume.jobs.verifying import capabilities_line

    assert capabilities_line(caps).endswith("fixture tools: none; given with --tool: book_flight (server-request), "
                                            "tail_logs (notifications)")


def test_progress_says_a_verdict_is_provisional_until_no_later_scenario_can_judge_it(capsys):
    from mcp_resume.model.verify.suite import RULES
    from mcp_resume.jobs.verifying import progress_printer

    show = progress_printer(True)
    for rule in RULES:
        show(skip(rule.id, Profile.BOUNDARY, "no traffic yet"))
    show(RuleVerdict(RULES[0].id, Verdict.PASS, "judged with a later scenario's traffic", Level.MUST, []))
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"verify: rule 1 of {len(RULES)}: {RULES[0].id}: SKIP (provisional)"
    assert lines[len(RULES) - 1] == f"verify: rule {len(RULES)} of {len(RULES)}: {RULES[-1].id}: SKIP"
    assert lines[-1] == f"verify: final: {RULES[0].id}: PASS (was SKIP): judged with a later scenario's traffic"


def test_a_rule_only_boundary_applies_says_so_in_its_boundary_cell_and_how_to_judge_it():
    """A new user's trial (issue 40): reemit-pending had a blank boundary cell in a default run."""
    from mcp_resume.model.verify.suite import _skip_not_applicable

    verdict = _skip_not_applicable("reemit-pending", Profile.MCP_2025_11_25, "not applicable under mcp-2025-11-25",
                                   Profile.BOUNDARY)
    assert verdict.verdict is Verdict.SKIP and verdict.beside == ("boundary", Verdict.SKIP)
    assert "--profile boundary judges it" in verdict.reason and "--profile boundary" in verdict.unlock
    report = Report("u", "u", Profile.MCP_2025_11_25, {}, [verdict])
    console = Console(record=True, width=200)
    print_report(report, console)
    text = console.export_text()
    assert "to check 1 more rule(s) (reemit-pending): run verify --profile boundary" in text
    both_na = _skip_not_applicable("sessionless-get-405", Profile.MCP_2025_11_25, "n/a", Profile.BOUNDARY)
    assert both_na.beside is None and both_na.unlock is None


@pytest.mark.parametrize("quiet", [True, False])
def test_quiet_turns_the_progress_lines_off(quiet, monkeypatch, tmp_path):
    """A new user's trial (issue 40): verify had no way to silence its progress lines."""
    import mcp_resume.verify as command

    given = {}

    def stub(target, url, profile, bounds, run_seconds, progress, *rest):
        given["progress"] = progress
        raise KeyboardInterrupt  # stop before any request; the run reports it was interrupted

    monkeypatch.setattr(command, "run_suite", stub)
    monkeypatch.chdir(tmp_path)
    main(["verify", "http://127.0.0.1:1/mcp"] + (["--quiet"] if quiet else []))
    assert (given["progress"] is None) == quiet


def test_a_tool_given_for_two_roles_is_credited_under_both():
    """A new user's trial (issue 40): the second role's credit replaced the first's."""
    caps = {"tool_roles": [{"tool": "tail_logs", "role": "notifications"}, {"tool": "tail_logs", "role": "long-running"}]}
    class DrivenByTailLogs(RuleVerdict):
        tools = ["tail_logs"]  # the evidence's tools/call names, without building exchanges

    verdict = DrivenByTailLogs("replay-suffix", Verdict.PASS, "held", Level.MAY, [], [])
    [entry] = Report("u", "u", Profile.BOUNDARY, caps, [verdict]).drivers()
    assert entry["role"] == "notifications, long-running" and entry["rules"] == ["replay-suffix"]
