"""``mcp-resume verify`` against known-good and known-faulty servers: the in-process
reference server, the eighteen faulty designs and the four correct variations of
docs/design.md §5, served over real HTTP by the façade (``model.serving.facade``) on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
from xml.etree import ElementTree

import pytest

from mcp_resume.cli import main
from mcp_resume.model.harness.checker import Counterexample, replay
from mcp_resume.model.serving.designs_over_http import verify_server_over_http
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.model.verify.stateful_http import MACHINE_BOUNDS, run_http_machine
from mcp_resume.model.serving.facade import FIXTURE_TOOLS, serving_design
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec import designs
from mcp_resume.spec.catalog import RULES
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.trace import loads
from mcp_resume.model.verify.suite import IN_PROCESS_OVER_HTTP
from mcp_resume.spec.verdicts import Verdict

pytestmark = pytest.mark.timeout(240)  # verify against the reference and every design served over HTTP

@pytest.fixture(scope="module")
def reference_report(verify_report):
    return verify_report("reference", Profile.BOUNDARY)


@pytest.mark.xdist_group("test_verify_facade")  # shares a module-scoped fixture
def test_the_reference_server_over_http_passes_every_boundary_rule(reference_report):
    verdicts = {v.rule: v for v in reference_report.verdicts}
    assert list(verdicts) == [r.id for r in RULES]
    for rule in RULES:
        verdict = verdicts[rule.id]
        if rule.level(Profile.BOUNDARY) is Level.NOT_APPLICABLE:
            assert verdict.verdict is Verdict.SKIP and "not applicable" in verdict.reason
        elif rule.id in IN_PROCESS_OVER_HTTP:  # judged when the recorded traffic shows a case, else SKIP
            assert verdict.verdict is Verdict.PASS or "checked in process" in verdict.reason, (rule.id, verdict.reason)
        else:
            assert verdict.verdict is Verdict.PASS, (rule.id, verdict.reason)
            assert verdict.checks and verdict.exchanges


@pytest.mark.parametrize("number", designs.NUMBERS)
def test_each_design_over_http_fails_a_rule_it_breaks(design_over_http, number):
    caught, rules = design_over_http(number, Profile.BOUNDARY)
    assert caught and set(rules) & designs.design(number).rules, (number, rules)


@pytest.mark.parametrize("variation", designs.VARIATIONS, ids=lambda v: v.target)
def test_verify_blames_no_correct_variation(variation):
    """No FAIL, no WARN and nothing left INCONCLUSIVE: a server that answers POSTs with
    JSON gets its server requests driven over the GET stream (MCP B13, B16-B17)."""
    report = verify_server_over_http(variation.target, Profile.BOUNDARY)
    blamed = {v.rule: (v.verdict.value, v.reason) for v in report.verdicts if v.verdict not in (Verdict.PASS, Verdict.SKIP)}
    assert not blamed, blamed
    judged = {v.rule for v in report.verdicts if v.verdict is Verdict.PASS}
    assert {"reemit-pending", "no-broadcast", "server-request-ownership"} <= judged


@pytest.mark.timeout(60)
def test_the_facade_writes_what_each_variation_changes_on_the_wire():
    import httpx

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "test_tool_with_logging", "arguments": {}}}
    accept = {"accept": "application/json, text/event-stream"}
    with serving_design("variation-json-response") as url, httpx.Client(timeout=10) as client:
        session = client.post(url, json=init, headers=accept).headers["mcp-session-id"]
        answer = client.post(url, json=call, headers={**accept, "mcp-session-id": session})
        assert answer.headers["content-type"] == "application/json" and answer.json()["id"] == 2
    with serving_design("variation-reserialised") as url, httpx.Client(timeout=10) as client:
        session = client.post(url, json=init, headers=accept).headers["mcp-session-id"]
        first = client.post(url, json=call, headers={**accept, "mcp-session-id": session}).text
        cursor = first.split("id: ")[1].split("\n")[0]
        with client.stream("GET", url, headers={**accept, "mcp-session-id": session, "last-event-id": cursor}) as got:
            replayed = "".join(got.iter_text())
        live = [line for line in first.splitlines() if line.startswith("data: {")]
        assert live and all(line not in replayed for line in live)  # other bytes ...
        assert replayed.count("data: ") > len(live)  # ... over several data lines
        assert '"id": 2' in replayed and '"method": "notifications/message"' in replayed


@pytest.mark.covers("replay-suffix")
def test_off_by_one_replay_over_http_fails_replay_suffix_alone(design_over_http):
    # a notification delivered twice breaks replay-suffix; the call itself runs once (docs/design.md §2),
    # and the server request replayed under its own event id is a replay, not a re-emission
    caught, rules = design_over_http(7, Profile.BOUNDARY)
    assert caught and rules == ["replay-suffix"], rules


@pytest.mark.parametrize("number", [2, 6, 7, 9, 10, 11])
def test_under_mcp_2025_11_25_only_designs_breaking_its_musts_fail(design_over_http, number):
    caught, rules = design_over_http(number, "mcp-2025-11-25")
    assert caught == designs.design(number).caught(Profile.MCP_2025_11_25), rules


# -- reports, reproducers, replay -----------------------------------------------------------


@pytest.fixture(scope="module")
def design_3_run(tmp_path_factory):
    """``verify design-3`` with every report written: (exit code, folder)."""
    folder = tmp_path_factory.mktemp("design-3")
    argv = ["verify", "design-3", "--profile", "boundary", "--timeout", "2"]
    argv += ["--json", str(folder / "r.json"), "--junit", str(folder / "r.xml"), "--markdown", str(folder / "r.md")]
    return main(argv), folder


@pytest.mark.xdist_group("test_verify_facade")  # shares a module-scoped fixture
def test_junit_has_one_test_case_per_rule_with_the_failure(design_3_run):
    code, folder = design_3_run
    assert code == 1
    suite = ElementTree.parse(folder / "r.xml").getroot()
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert list(cases) == [r.id for r in RULES]
    assert suite.get("failures") == "1" and cases["reemit-keeps-pending"].find("failure") is not None
    assert cases["sessionless-get-405"].find("skipped") is not None
    assert cases["replay-suffix"].find("failure") is None and cases["replay-suffix"].find("skipped") is None


@pytest.mark.xdist_group("test_verify_facade")  # shares a module-scoped fixture
def test_markdown_and_json_name_the_finding_and_its_reproducers(design_3_run):
    _, folder = design_3_run
    text = (folder / "r.md").read_text()
    assert "| `reemit-keeps-pending` | MUST | **FAIL** |" in text and "reemit-keeps-pending.curl.sh" in text
    report = json.loads((folder / "r.json").read_text())
    assert report["summary"]["FAIL"] == 1 and report["profile"] == "boundary"
    assert sorted(p.name for p in (folder / "mcp-resume-findings" / "design-3.boundary").iterdir() if not p.name.startswith(".")) == [
        "reemit-keeps-pending.curl.sh",
        "reemit-keeps-pending.trace.json",
    ]


@pytest.mark.xdist_group("test_verify_facade")  # shares a module-scoped fixture
@pytest.mark.timeout(120)
def test_the_curl_reproducer_runs_and_shows_the_missing_reemission(design_3_run):
    _, folder = design_3_run
    script = folder / "mcp-resume-findings" / "design-3.boundary" / "reemit-keeps-pending.curl.sh"
    with serving_design("design-3") as url:
        done = subprocess.run(
            ["bash", str(script), url],
            capture_output=True,
            text=True,
            timeout=100,
            env={**os.environ, "MCP_RESUME_WAIT": "0.5"},
        )
    assert done.returncode == 0, done.stderr
    blocks = done.stdout.split("\n== ")
    first = next(b for b in blocks if b.startswith("4. first session resumption"))
    second = next(b for b in blocks if b.startswith("5. second session resumption"))
    assert '"method": "elicitation/create"' in first
    assert "HTTP/1.1 200" in second and "elicitation/create" not in second


@pytest.mark.xdist_group("test_verify_facade")  # shares a module-scoped fixture
@pytest.mark.timeout(120)
def test_replay_of_a_verify_trace_fails_on_the_design_and_holds_on_the_spec(design_3_run, capsys):
    _, folder = design_3_run
    trace = str(folder / "mcp-resume-findings" / "design-3.boundary" / "reemit-keeps-pending.trace.json")
    assert main(["replay", trace, "design-3", "--timeout", "2"]) == 1
    assert "reemit-keeps-pending: FAIL" in capsys.readouterr().out
    assert main(["replay", trace, "spec", "--timeout", "2"]) == 0
    out = capsys.readouterr().out
    assert "reemit-keeps-pending: PASS" in out and "[BROKEN]" not in out


def test_replay_refuses_what_is_not_a_trace(tmp_path, capsys):
    path = tmp_path / "not-a-trace.json"
    path.write_text('{"format": "something else"}')
    assert main(["replay", str(path), "spec"]) == 2
    assert "unknown trace format" in capsys.readouterr().err


# -- the Hypothesis machine over HTTP --------------------------------------------------------


@pytest.mark.timeout(300)
def test_the_machine_over_http_holds_on_the_reference_and_shrinks_a_design_to_few_exchanges(tmp_path, capsys):
    with serving_design("reference") as url:
        good = run_http_machine(url, list(FIXTURE_TOOLS), Profile.BOUNDARY, MACHINE_BOUNDS, max_examples=8)
    assert good.passed and good.action_counts.get("issue_server_request")
    with serving_design("design-10") as url:
        bad = run_http_machine(url, list(FIXTURE_TOOLS), Profile.BOUNDARY, MACHINE_BOUNDS)
    assert not bad.passed and bad.trace.failure.rule == "reject-foreign-event-id"
    assert len(bad.trace.actions) <= 10
    path = tmp_path / "http.trace.json"
    path.write_text(bad.trace.dumps())
    with pytest.raises(Counterexample):
        replay(loads(path.read_text()), DESIGNS[10]())
    assert len(replay(loads(path.read_text()), ReferenceServer())) == len(bad.trace.actions)
    assert main(["replay", str(path), "design-10"]) == 1
    with serving_design("design-10") as url:
        assert main(["replay", str(path), url, "--timeout", "2"]) == 1  # the same exchanges over HTTP
    with serving_design("reference") as url:
        assert main(["replay", str(path), url, "--timeout", "2"]) == 0
    assert "reject-foreign-event-id" in capsys.readouterr().out


@pytest.mark.timeout(120)
def test_a_spec_trace_with_steps_http_cannot_play_ends_in_one_line_and_exit_3(tmp_path, capsys):
    actions = [{"kind": "initialize"}, {"kind": "call_tool", "session": "S1"}, {"kind": "respond", "stream": "T1"},
               {"kind": "expire_stream", "stream": "T1"}, {"kind": "call_tool", "session": "S1"}]  # no tool expires a stream
    path = tmp_path / "design-8.json"
    path.write_text(json.dumps({"format": "mcp-resume-trace/1", "profile": "boundary", "actions": actions}))
    with serving_design("reference") as url:
        assert main(["replay", str(path), url, "--timeout", "2"]) == 3
    err = capsys.readouterr().err
    assert "cannot be driven through this trace" in err and "Traceback" not in err
    assert main(["replay", str(path), "no-such-target"]) == 2
    assert "invalid TARGET" in capsys.readouterr().err


@pytest.mark.parametrize("number, rule", [(3, "reemit-pending"), (13, "no-broadcast")])
def test_a_design_answering_posts_with_json_is_caught_over_its_get_stream(number, rule):
    """Its server requests can travel only on the GET stream: verify drives them there,
    so re-emission faults stay visible on a server that never streams a POST (B13, B16).
    Design 3 counts that first delivery on a GET as a re-emission and drains the request:
    to a client it was sent once and never again, which the spec files under reemit-pending."""
    import asyncio
    from dataclasses import replace

    from mcp_resume.model.serving.designs_over_http import FACADE_BOUNDS
    from mcp_resume.model.serving.facade import FacadeApp, serving
    from mcp_resume.model.verify.suite import VerifyRun, verify

    # the request reaches the GET stream a moment after the call: at 0.3 s a settle bound (0.9 s of
    # grace) once missed it on a loaded machine; 0.5 s costs each run about 7 s
    bounds = replace(FACADE_BOUNDS, settle=0.5)
    answering_json = type(f"Design{number}Json", (DESIGNS[number],), {"json_responses": True})
    with serving(FacadeApp(answering_json())) as url:
        report = asyncio.run(verify(VerifyRun(url, f"design-{number} with JSON answers", Profile.BOUNDARY, bounds)))
    verdicts = {v.rule: v for v in report.verdicts}
    assert verdicts["priming-event"].verdict is Verdict.SKIP  # the probe saw JSON answers
    assert verdicts[rule].verdict is Verdict.FAIL, verdicts[rule].reason


@pytest.mark.parametrize("number", [1, 3, 12, 13])
def test_a_design_over_http_fails_the_same_rules_twice_in_a_row(design_over_http, number):
    """The designs whose faults need pending server requests and timing (drops, GET
    streams of two sessions, an open connection) give the same FAILs on a second run."""
    from mcp_resume.model.serving.designs_over_http import verify_design_over_http

    assert verify_design_over_http(number, Profile.BOUNDARY) == design_over_http(number, Profile.BOUNDARY)


def test_a_replay_slower_than_settle_is_not_judged_a_skip(monkeypatch):
    """``back_to_back`` waits for each resumed ``tools/list`` response up to the idle bound: a
    server whose replays come three settle periods after the response head (a loaded machine, a
    store on disk) passes, where a settle-bounded read would be judged to skip the response."""
    import asyncio

    from mcp_resume.model.http.client import StreamableHttpClient
    from mcp_resume.model.serving.designs_over_http import FACADE_BOUNDS
    from mcp_resume.model.serving.facade import FacadeApp, serving
    from mcp_resume.model.verify import scenarios
    from mcp_resume.model.verify.probe import probe
    from mcp_resume.model.verify.scenarios import Context, Scenario, back_to_back
    from mcp_resume.model.verify.suite import STREAMS, judge_rule

    class SlowReplays(FacadeApp):
        async def stream_out(self, connection, first, receive, send, extra_headers, reserialised=frozenset()):
            async def send_slowly(message):
                await send(message)
                if first and message["type"] == "http.response.start":
                    await asyncio.sleep(3 * FACADE_BOUNDS.settle)
            await super().stream_out(connection, first, receive, send_slowly, extra_headers, reserialised)

    async def judged(url):
        async with StreamableHttpClient(url, FACADE_BOUNDS) as client:
            caps = await probe(client)
        return await judge_rule(Scenario("replay-suffix", back_to_back, STREAMS), url,
                                Context(Profile.BOUNDARY, FACADE_BOUNDS, caps), 60.0)

    monkeypatch.setattr(scenarios, "BACK_TO_BACK_STREAMS", 3)
    with serving(SlowReplays(ReferenceServer())) as url:
        verdict = asyncio.run(judged(url))
    assert verdict.verdict is Verdict.PASS, verdict.reason
    resumed = [x for x in verdict.exchanges if x.label.startswith("resume tools/list stream")]
    assert len(resumed) == 3 and all(x.seconds >= 3 * FACADE_BOUNDS.settle for x in resumed)
