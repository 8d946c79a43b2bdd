"""``mcp-resume verify`` against the official MCP Python SDK, started for real on 127.0.0.1.

The verdicts asserted here are what the SDK (with an EventStore written to its
interface, ``model.targets.python_sdk_server``) was measured to do; a FAIL is a finding
about the SDK, not about this checker.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from mcp_resume.cli import main
from mcp_resume.model.http.client import Timeouts
from mcp_resume.model.targets.process import running_python_sdk
from mcp_resume.model.verify.probe import Capabilities
from mcp_resume.model.verify.scenarios import Context
from mcp_resume.model.verify.suite import SCENARIOS, judge_rule
from mcp_resume.spec.catalog import RULES, RULES_BY_ID
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict, verdict_for_broken

REQUIRED_RULES = (
    "replay-suffix",
    "no-cross-session",
    "no-replay-on-session-resume",
    "reemit-pending",
    "reject-orphan-event-id",
    "reject-foreign-event-id",
    "unknown-session-404",
    "malformed-session-400",
    "missing-session-400",
    "priming-event",
    "no-reemit-on-stream-resume",
    "event-id-unique",
    "server-request-ownership",
    "no-duplicate-tool-call",
    "new-session-on-initialize",
    "session-delete",
)
TIMEOUT = "2"

pytestmark = [pytest.mark.timeout(180),  # the official Python SDK started for real and verified
              pytest.mark.xdist_group("test_verify_python_sdk")]  # every test shares its module-scoped fixtures


@pytest.fixture(scope="module")
def sdk_url():
    with running_python_sdk() as url:
        yield url


@pytest.fixture(scope="module")
def boundary_run(sdk_url, tmp_path_factory):
    """One full ``verify`` under the default profile: (exit code, JSON report)."""
    path = tmp_path_factory.mktemp("verify") / "report.json"
    code = main(["verify", sdk_url, "--profile", "boundary", "--json", str(path), "--timeout", TIMEOUT])
    return code, json.loads(path.read_text())


def _by_rule(report):
    return {v["rule"]: v for v in report["verdicts"]}


def test_report_has_the_documented_shape(boundary_run, sdk_url):
    _, report = boundary_run
    assert report["target"] == sdk_url and report["url"] == sdk_url and report["profile"] == "boundary"
    assert set(report["summary"]) == {v.value for v in Verdict}
    assert sum(report["summary"].values()) == len(report["verdicts"]) == len(SCENARIOS) == len(RULES)
    assert [v["rule"] for v in report["verdicts"]] == [r.id for r in RULES]
    for verdict in report["verdicts"]:
        assert verdict["rule"] in RULES_BY_ID
        assert verdict["verdict"] in {v.value for v in Verdict}
        assert set(verdict["evidence"]) == {"reason", "checks", "exchanges"}
        for exchange in verdict["evidence"]["exchanges"]:
            assert exchange["request"]["method"] in {"GET", "POST", "DELETE"}
            assert "status" in exchange and "end" in exchange
    assert report["capabilities"]["probe"]


def test_every_required_rule_is_judged_with_evidence(boundary_run):
    _, report = boundary_run
    verdicts = _by_rule(report)
    for rule in REQUIRED_RULES:
        verdict = verdicts[rule]
        assert verdict["verdict"] in {"PASS", "FAIL", "WARN"}, (rule, verdict["evidence"]["reason"])
        assert verdict["evidence"]["checks"] and verdict["evidence"]["exchanges"]


def test_capabilities_of_the_sdk_target(boundary_run):
    _, report = boundary_run
    caps = report["capabilities"]
    assert caps["session_ids"] and caps["event_ids"] and caps["priming"] and caps["get_stream"]
    assert set(caps["fixture_tools"]) >= {"test_tool_with_logging", "test_elicitation", "test_reconnection"}


def test_verdicts_follow_the_checks_and_the_catalog_levels(boundary_run):
    _, report = boundary_run
    for verdict in report["verdicts"]:
        checks = verdict["evidence"]["checks"]
        if verdict["verdict"] == "SKIP":
            assert not checks and verdict["evidence"]["reason"]
        elif all(c["held"] for c in checks):
            assert verdict["verdict"] == "PASS"
        else:
            assert verdict["verdict"] == verdict_for_broken(verdict["rule"], Profile.BOUNDARY).value


@pytest.mark.covers(
    "replay-suffix",
    "no-cross-session",
    "no-replay-on-session-resume",
    "reemit-pending",
    "reject-orphan-event-id",
    "reject-foreign-event-id",
    "unknown-session-404",
    "missing-session-400",
    "malformed-session-400",
    "session-identity-stable",
    "priming-event",
)
def test_measured_sdk_behaviour_under_boundary(boundary_run):
    code, report = boundary_run
    verdicts = _by_rule(report)
    assert code == 1
    for rule in (
        "no-replay-on-session-resume",
        "reject-orphan-event-id",
        "unknown-session-404",
        "missing-session-400",
        "session-identity-stable",
        "priming-event",
        "no-reemit-on-stream-resume",
        "event-id-unique",
        "no-duplicate-tool-call",
        "new-session-on-initialize",
        "session-delete",
    ):
        assert verdicts[rule]["verdict"] == "PASS", (rule, verdicts[rule]["evidence"]["reason"])
    # A deleted session's event id still replays its events, in another session (§3.8: an ended
    # session's event ids are dead); no-cross-session's finding too.
    assert verdicts["expiry-independent"]["verdict"] == "FAIL"
    assert "deleted session" in verdicts["expiry-independent"]["evidence"]["reason"]
    # Session C's stream resumption replays session D's events too: no-cross-session's finding;
    # of its own stream's events it replays the exact suffix.
    assert verdicts["replay-suffix"]["verdict"] == "PASS"
    assert verdicts["no-cross-session"]["verdict"] == "FAIL"
    # Nothing is re-emitted, so whether re-emission keeps a request pending cannot be seen.
    assert verdicts["reemit-keeps-pending"]["verdict"] == "SKIP"
    assert "never re-emitted" in verdicts["reemit-keeps-pending"]["evidence"]["reason"]
    # The EventStore interface sees no session: another session's event id replays
    # that session's events, and two sessions using the same request id share a stream.
    cross = verdicts["no-cross-session"]
    leaks = ("session B presents", "session C resumes", "session F presents")
    assert cross["verdict"] == "FAIL"
    assert not any(c["held"] for c in cross["evidence"]["checks"] if c["what"].startswith(leaks))
    # Nothing re-emits a server request whose connection dropped.
    assert verdicts["reemit-pending"]["verdict"] == "FAIL"
    # Unusable event ids on a live session get an empty 200 stream, malformed session ids 404.
    foreign = verdicts["reject-foreign-event-id"]
    assert foreign["verdict"] == "FAIL"
    refused = [c for c in foreign["evidence"]["checks"] if c.get("branch") == "reject-foreign-event-id"]
    assert refused and all("answered 200" in c["observed"] for c in refused if not c["held"])
    assert verdicts["malformed-session-400"]["verdict"] == "FAIL"


def test_scenarios_use_fresh_sessions(boundary_run):
    _, report = boundary_run
    owners: dict[str, str] = {}
    for verdict in report["verdicts"]:
        if "in the traffic of the" in verdict["evidence"]["reason"] or verdict["verdict"] in ("FAIL", "WARN"):
            continue  # its evidence is, or takes in, other scenarios' steps that broke the rule
        for exchange in verdict["evidence"]["exchanges"]:
            session = exchange["response_headers"].get("mcp-session-id")
            if session is None or exchange["status"] != 200:
                continue
            assert owners.setdefault(session, verdict["rule"]) == verdict["rule"], session


def _one_scenario(sdk_url, rule, profile):
    scenario = SCENARIOS[rule]
    bounds = Timeouts.from_timeout(float(TIMEOUT))
    tools = ["test_tool_with_logging", "test_elicitation"]
    caps = Capabilities(
        session_ids=True,
        post_stream="sse",
        event_ids=True,
        post_event_ids=True,
        priming=True,
        get_status=200,
        get_stream=True,
        tools=tools,
        fixture_tools=tools,
    )
    return asyncio.run(judge_rule(scenario, sdk_url, Context(profile, bounds, caps), 120.0))


@pytest.mark.covers("malformed-session-400", "reject-foreign-event-id")
def test_expectations_come_from_the_profile(sdk_url):
    # a malformed session id answered 404: MCP 2025-06-18 accepts 400 or 404, boundary 400 only
    lenient = _one_scenario(sdk_url, "malformed-session-400", Profile.MCP_2025_06_18)
    assert lenient.verdict is Verdict.PASS and all(c.held for c in lenient.checks)
    strict = _one_scenario(sdk_url, "malformed-session-400", Profile.BOUNDARY)
    assert strict.verdict is Verdict.FAIL and any("answered 404" in c.observed for c in strict.checks)
    # an empty 200 to a foreign event id: what MCP 2025-11-25 accepts (its check held, no MAY failed)
    foreign = _one_scenario(sdk_url, "reject-foreign-event-id", Profile.MCP_2025_11_25)
    assert foreign.verdict is Verdict.PASS and "not required" not in foreign.reason
    assert all(c.held for c in foreign.checks if c.branch == "reject-foreign-event-id")


@pytest.mark.covers("sessionless-get-405")
def test_sessionless_profile_judges_the_sessionless_rules(sdk_url, tmp_path):
    path = tmp_path / "sessionless.json"
    code = main(["verify", sdk_url, "--profile", "mcp-2026-07-28", "--json", str(path), "--timeout", TIMEOUT])
    report = json.loads(path.read_text())
    verdicts = _by_rule(report)
    assert code == 0  # SHOULDs only
    # the SDK serves both eras: a GET in the 2026-07-28 shape (its version header) gets 405 (F17),
    # and a valid 2026-07-28 POST (its _meta envelope, F12) that names a made-up session is served
    assert verdicts["sessionless-get-405"]["verdict"] == "PASS", verdicts["sessionless-get-405"]["evidence"]
    assert verdicts["sessionless-ignores-headers"]["verdict"] == "PASS", verdicts["sessionless-ignores-headers"]["evidence"]
    assert all(v["verdict"] == "SKIP" for r, v in verdicts.items() if not r.startswith("sessionless"))


def test_auto_profile_follows_the_negotiated_revision(sdk_url, tmp_path):
    path = tmp_path / "auto.json"
    code = main(["verify", sdk_url, "--json", str(path), "--timeout", TIMEOUT])
    report = json.loads(path.read_text())
    assert report["profile"] == "mcp-2025-11-25" and report["capabilities"]["protocol_version"] == "2025-11-25"
    assert "--profile boundary is the stricter one" in report["note"]
    verdicts = _by_rule(report)
    # not a rule of MCP (it is silent, rules §3.7): not applicable, only boundary drives it
    assert verdicts["reemit-pending"]["verdict"] == "SKIP"
    assert "not applicable" in verdicts["reemit-pending"]["evidence"]["reason"]
    # a deleted session's event id replays its events: MCP's SHOULD (§3.8), boundary's MUST beside it
    assert verdicts["expiry-independent"]["verdict"] == "WARN"
    beside = verdicts["expiry-independent"]["beside"]
    assert (beside["profile"], beside["verdict"]) == ("boundary", "FAIL") and "replayed its events" in beside["reason"]
    assert verdicts["no-cross-session"]["verdict"] == "FAIL" and code == 1  # B26 is a MUST of every revision
