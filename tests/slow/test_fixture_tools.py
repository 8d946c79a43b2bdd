"""The fixture tools as a kit (``mcp_resume.fixtures.add_fixture_tools``) and a server's own
tools in their roles (``verify --tool ROLE=NAME[:ARGUMENTS_JSON]``), on servers written as
the official Python SDK's README shows, started here on 127.0.0.1 (issue 25)."""

from __future__ import annotations

import asyncio
import io
import json

import pytest

from rich.console import Console

from mcp_resume.cli import main
from mcp_resume.model.http.client import StreamableHttpClient, Timeouts
from mcp_resume.model.verify import fixture_tools
from mcp_resume.model.verify.probe import probe
from mcp_resume.model.verify.roles import parse_tool_option
from mcp_resume.model.verify.scenarios import UNLOCKS, Context
from mcp_resume.model.verify.formats import markdown
from mcp_resume.model.verify.suite import SCENARIOS, VerifyRun, judge_rule, verify
from mcp_resume.jobs.verifying import print_report
from mcp_resume.spec.catalog import level
from mcp_resume.spec.profiles import Level, Profile
from tests.helpers.servers.sdk_readme import BOOKING, lowlevel_app, readme_app, serving_app


TIMEOUT = "2"
BOUNDS = Timeouts.from_timeout(float(TIMEOUT))
FIXTURE_UNLOCKS = (UNLOCKS["server-request-tool"], UNLOCKS["history-tool"])
SERVER_REQUEST_RULES = [rule for rule, s in SCENARIOS.items() if "server-request-tool" in s.needs]

pytestmark = [pytest.mark.timeout(300)]


def _verify(url, tmp_path, *options):
    path = tmp_path / "report.json"
    markdown = tmp_path / "report.md"
    code = main(["verify", url, "--profile", "boundary", "--timeout", TIMEOUT, "--json", str(path),
                 "--markdown", str(markdown), *options])
    return code, json.loads(path.read_text()), markdown.read_text()


def _by_rule(report):
    return {v["rule"]: v for v in report["verdicts"]}


def _session_era(report):
    return {rule: v for rule, v in _by_rule(report).items() if level(rule, Profile.BOUNDARY) is not Level.NOT_APPLICABLE}


def _fixture_skips(report):
    """The verdicts SKIPped for want of a fixture tool (or a tool given in its role)."""
    return {rule: v["evidence"]["reason"] for rule, v in _by_rule(report).items() if v["verdict"] == "SKIP"
            and (v.get("unlock") in FIXTURE_UNLOCKS or "fixture tool" in v["evidence"]["reason"])}


@pytest.mark.covers("reemit-pending", "no-reemit-on-stream-resume", "server-request-ownership", "no-broadcast",
                    "standalone-stream-scope", "priming-event", "replay-suffix")
def test_a_readme_server_with_the_kit_is_judged_on_every_session_rule(tmp_path):
    with serving_app(readme_app(fixtures=True)) as url:
        _, report, markdown = _verify(url, tmp_path)
    assert set(report["capabilities"]["fixture_tools"]) == set(fixture_tools.NAMES)
    assert not _fixture_skips(report)
    verdicts = _session_era(report)
    for rule in SERVER_REQUEST_RULES + ["replay-suffix", "no-duplicate-tool-call", "priming-event"]:
        if rule == "reemit-keeps-pending":  # the SDK never re-emits: nothing to observe, whatever the tools
            assert "never re-emitted" in verdicts[rule]["evidence"]["reason"]
            continue
        assert verdicts[rule]["verdict"] in ("PASS", "FAIL", "WARN"), (rule, verdicts[rule]["evidence"]["reason"])
    drivers = {entry["tool"]: entry for entry in report["tools"]}
    assert "reemit-pending" in drivers["test_elicitation"]["rules"] and not drivers["test_elicitation"]["given"]
    assert "replay-suffix" in drivers["test_reconnection"]["rules"]
    assert "tool test_elicitation (server-request, fixture tool) drove" in markdown


def test_the_kit_on_the_low_level_server_keeps_its_own_tools():
    async def run(url):
        async with StreamableHttpClient(url, BOUNDS) as client:
            caps = await probe(client)
            session = (await client.initialize("initialize")).session_header
            await client.notify(session, "notifications/initialized", label="initialized")
            echoed = await client.call_tool(session, "echo", {"x": 1}, label="call its own tool")
        ctx = Context(Profile.BOUNDARY, BOUNDS, caps)
        rules = ("reemit-pending", "replay-suffix", "no-duplicate-tool-call")
        return caps, echoed, {r: await judge_rule(SCENARIOS[r], url, ctx, 120.0) for r in rules}

    with serving_app(lowlevel_app()) as url:
        caps, echoed, found = asyncio.run(run(url))
    assert caps.tools[0] == "echo" and set(caps.fixture_tools) == set(fixture_tools.NAMES)
    assert any("echo {'x': 1}" in json.dumps(m) for m in echoed.messages)
    for rule, verdict in found.items():
        assert verdict.verdict.value in ("PASS", "FAIL", "WARN"), (rule, verdict.reason)


def test_a_tool_the_server_does_not_list_is_a_usage_error(tmp_path, capsys):
    with serving_app(readme_app(fixtures=False)) as url:
        code = main(["verify", url, "--tool", "server-request=cancel_flight", "--json", str(tmp_path / "r.json")])
    assert code == 2
    err = capsys.readouterr().err
    assert "does not list a tool 'cancel_flight'" in err and "book_flight" in err


@pytest.mark.covers("reemit-pending", "no-reemit-on-stream-resume", "server-request-ownership", "no-broadcast",
                    "standalone-stream-scope")
def test_a_server_s_own_elicitation_tool_drives_the_server_request_rules():
    uses = [parse_tool_option(f"server-request=book_flight:{json.dumps(BOOKING)}"),
            parse_tool_option('notifications=tail_logs:{"lines": 3}'),
            parse_tool_option('long-running=tail_logs:{"lines": 10}')]
    with serving_app(readme_app(fixtures=False)) as url:
        bare = asyncio.run(_judge_one(url, "reemit-pending"))
        run = VerifyRun(url, url, Profile.BOUNDARY, BOUNDS, tools=uses)
        report = asyncio.run(verify(run))
    # without --tool: SKIP, and the unlock line names the page, the kit and --tool
    assert bare.verdict.value == "SKIP" and fixture_tools.PAGE in bare.unlock and "--tool server-request" in bare.unlock
    data = report.to_json()
    assert not data["capabilities"]["fixture_tools"]
    assert not _fixture_skips(data)
    verdicts = {v.rule: v for v in report.verdicts}
    for rule in SERVER_REQUEST_RULES:
        if rule == "reemit-keeps-pending":  # the SDK never re-emits: nothing to observe, whatever the tools
            assert "never re-emitted" in verdicts[rule].reason
            continue
        assert verdicts[rule].verdict.value in ("PASS", "FAIL", "WARN"), (rule, verdicts[rule].reason)
        assert "book_flight" in verdicts[rule].tools
    calls = [x for run_ in run.runs for x in run_.exchanges
             if isinstance(x.request_body, dict) and x.request_body.get("method") == "tools/call"]
    booked = [x for x in calls if x.request_body["params"]["name"] == "book_flight"]
    assert booked and all(x.request_body["params"]["arguments"] == BOOKING for x in booked)
    assert "booked 2 to Oslo" in json.dumps([x.messages for x in booked])  # verify's answer fitted the form
    drivers = {entry["tool"]: entry for entry in data["tools"]}
    assert drivers["book_flight"]["given"] and drivers["book_flight"]["role"] == "server-request"
    assert "reemit-pending" in drivers["book_flight"]["rules"]
    assert {"replay-suffix", "event-id-unique"} <= set(drivers["tail_logs"]["rules"])
    assert any("resume the unfinished tail_logs call" in x.label for x in verdicts["replay-suffix"].exchanges)
    assert data["capabilities"]["tool_roles"][0] == {"role": "server-request", "tool": "book_flight",
                                                     "arguments": BOOKING, "given": True}
    assert "book_flight" in data["verdicts"][[v["rule"] for v in data["verdicts"]].index("reemit-pending")]["tools"]
    text = io.StringIO()
    print_report(report, Console(file=text, width=200))
    line = "tool book_flight (server-request, --tool) drove"
    assert line in text.getvalue() and line in markdown(report)


async def _judge_one(url, rule):
    async with StreamableHttpClient(url, BOUNDS) as client:
        caps = await probe(client)
    return await judge_rule(SCENARIOS[rule], url, Context(Profile.BOUNDARY, BOUNDS, caps), 60.0)


def test_replay_calls_the_tools_verify_was_given_and_exits_1_while_the_warn_reproduces(tmp_path, capsys):
    """Issue 25: a verify trace records its ``--tool`` uses, replay checks a ``--tool`` given
    against the server's list, and a WARN that reproduces exits 1 (0 only for PASS)."""
    booking = f"server-request=book_flight:{json.dumps(BOOKING)}"
    with serving_app(readme_app(fixtures=False)) as url:
        assert main(["verify", url, "--timeout", TIMEOUT, "--json", str(tmp_path / "report.json"), "--tool", booking,
                     "--out", str(tmp_path / "findings")]) in (0, 1)  # auto: the SDK's revision
        report = json.loads((tmp_path / "report.json").read_text())
        out = capsys.readouterr().out  # serverInfo names "Demo": no SDK recognised, the summary says --sdk
        assert "no SDK recognised (serverInfo names 'Demo')" in out and "verify --sdk NAME" in out
        # a deleted session's event id replays its events in another session: a SHOULD there (§3.8)
        assert "remedy" not in _by_rule(report)["expiry-independent"]["fix"]
        warned = [v["rule"] for v in report["verdicts"] if v["verdict"] == "WARN"]
        assert "expiry-independent" in warned, _by_rule(report)["expiry-independent"]
        trace_path = tmp_path / "findings" / "expiry-independent.trace.json"
        trace = json.loads(trace_path.read_text())
        assert trace["tools"] == [{"role": "server-request", "tool": "book_flight", "arguments": BOOKING, "given": True}]
        capsys.readouterr()
        assert main(["replay", str(trace_path), url, "--timeout", TIMEOUT]) == 1
        out, err = capsys.readouterr()
        assert "tool book_flight for server-request" in out and "expiry-independent: WARN" in out
        assert out.rstrip().endswith("expiry-independent is still WARN on " + url + ": the finding reproduces")
        assert "error" not in err and "no --tool server-request=NAME" not in out + err
        assert main(["replay", str(trace_path), url, "--timeout", TIMEOUT, "--tool", "server-request=cancel"]) == 2
        assert "does not list a tool 'cancel'" in capsys.readouterr().err
    # the spec's reference has only the fixture tools: it plays the role with its own (issue 40)
    assert main(["replay", str(trace_path), "spec", "--timeout", TIMEOUT]) == 0
    out = capsys.readouterr().out
    assert "plays every role with its own, not book_flight" in out
    assert out.rstrip().endswith("expiry-independent holds on spec (PASS): the finding does not reproduce")


def test_verify_sdk_gives_the_python_sdk_remedy_to_a_server_named_demo(tmp_path, capsys):
    booking = f"server-request=book_flight:{json.dumps(BOOKING)}"
    with serving_app(readme_app(fixtures=False)) as url:
        assert main(["verify", url, "--profile", "boundary", "--timeout", TIMEOUT, "--json", str(tmp_path / "report.json"),
                     "--tool", booking, "--sdk", "python-sdk"]) in (0, 1)
    out = capsys.readouterr().out
    fix = _by_rule(json.loads((tmp_path / "report.json").read_text()))["reemit-pending"]["fix"]
    assert fix["sdk"] == "python-sdk" and "never re-emits a pending server request" in fix["remedy"]
    assert "With the official Python SDK: " in out and "no SDK recognised" not in out


def test_a_tool_that_does_not_play_its_role_drives_no_rule_and_hides_no_finding(tmp_path, capsys):
    """Issue 25: ``--tool notifications=add`` credited add with 11 rules although add sends no
    notification; a long-running tool answered at once has nothing to resume. Issue 40: such a
    tool made rules SKIP that the run judges without it (a FAIL turned into exit 0): it is dropped
    and the run goes on as if it had not been given."""
    booking = f"server-request=book_flight:{json.dumps(BOOKING)}"
    with serving_app(readme_app(fixtures=False)) as url:
        quiet = VerifyRun(url, url, Profile.BOUNDARY, BOUNDS, tools=[parse_tool_option('notifications=add:{"a": 1, "b": 2}'),
                                                                      parse_tool_option(booking)])
        silent = asyncio.run(verify(quiet)).to_json()
        quick = VerifyRun(url, url, Profile.BOUNDARY, BOUNDS, tools=[parse_tool_option('long-running=add:{"a": 1, "b": 2}'),
                                                                     parse_tool_option('notifications=tail_logs:{"lines": 3}')])
        fast = asyncio.run(verify(quick)).to_json()
    said = "tool add (--tool notifications=add) does not play its role: its call sent no notification before its response"
    skipped = [rule for rule, v in _by_rule(silent).items() if "does not play its role" in v["evidence"]["reason"]]
    assert skipped == [], "a tool dropped from its role makes no rule SKIP"
    judged = {rule for rule, v in _by_rule(silent).items() if v["verdict"] in ("PASS", "FAIL", "WARN")}
    assert {"unknown-session-404", "replay-suffix", "no-cross-session", "event-id-unique"} <= judged
    assert "add" not in {entry["tool"] for entry in silent.get("tools", [])}
    assert silent["capabilities"]["unplayed_tools"] == {"add": "its call sent no notification before its response"}
    assert "book_flight" in {entry["tool"] for entry in silent["tools"]}
    # replay-suffix's own run stops at add (a SKIP), the verdict comes from the other scenarios' traffic
    assert "answered at once" in fast["capabilities"]["unplayed_tools"]["add"]
    assert "add" not in _by_rule(fast)["replay-suffix"].get("tools", [])
    assert "add" not in {entry["tool"] for entry in fast.get("tools", [])}
    text = io.StringIO()
    print_report(quiet.report(), Console(file=text, width=300))
    lines = [line for line in text.getvalue().splitlines() if line.startswith("tool add ")]
    assert lines == [said + "; it drives no rule, and verify judged what it could without it (see docs/fixtures.md "
                     "for what a notifications tool must do)"], lines


def test_a_finding_s_curl_script_takes_every_session_id_from_the_server(tmp_path):
    """Issue 25: steps taken from other scenarios' traffic hard-coded their session ids (404 on a
    re-run); a trace that calls a tool, stripped of the tools it recorded, needs ``--tool``."""
    import subprocess

    booking = f"server-request=book_flight:{json.dumps(BOOKING)}"
    with serving_app(readme_app(fixtures=False)) as url:
        assert main(["verify", url, "--profile", "boundary", "--timeout", TIMEOUT, "--json", str(tmp_path / "r.json"),
                     "--tool", booking, "--out", str(tmp_path / "findings")]) in (0, 1)
    report = json.loads((tmp_path / "r.json").read_text())
    script = (tmp_path / "findings" / "reemit-pending.curl.sh").read_text()
    sent = {x["request"]["headers"].get("mcp-session-id") for x in _by_rule(report)["reemit-pending"]["evidence"]["exchanges"]
            if isinstance(x.get("request"), dict)}
    assert "-H 'mcp-session-id:" not in script and not any(sid and sid in script for sid in sent)
    with serving_app(readme_app(fixtures=False)) as fresh:  # a new server: none of the run's ids exist
        done = subprocess.run(["bash", str(tmp_path / "findings" / "reemit-pending.curl.sh"), fresh],
                              capture_output=True, text=True, timeout=240,
                              env={"PATH": "/usr/bin:/bin", "MCP_RESUME_WAIT": "1", "MCP_RESUME_LONG": "5"})
        assert done.returncode == 0, done.stderr
        assert " 404" not in "\n".join(line for line in done.stdout.splitlines() if line.startswith("HTTP/"))
        # its trace calls book_flight: without the tools it recorded, replay needs --tool (exit 3)
        trace_path = tmp_path / "findings" / "reemit-pending.trace.json"
        trace = json.loads(trace_path.read_text())
        trace.pop("tools")
        trace_path.write_text(json.dumps(trace))
        assert main(["replay", str(trace_path), fresh, "--timeout", TIMEOUT]) == 3
        assert main(["replay", str(trace_path), fresh, "--timeout", TIMEOUT, "--tool", booking]) == 1
