"""``verify`` on servers that act as real ones do (docs/design.md §7, issue 10): each
behaviour, correct or faulty, is a switch of ``tests/helpers/servers/variants.py``, a
real server started here on 127.0.0.1 and stopped when the test ends."""

from __future__ import annotations

import pytest

from mcp_resume.model.http.evidence import End, ErrorKind, Exchange
from mcp_resume.model.traffic.records import records_of
from mcp_resume.model.traffic.trace_validation import validate
from mcp_resume.model.verify.judgement import Driven, verdict_of
from mcp_resume.model.verify.report import RuleVerdict
from mcp_resume.model.verify.suite import SCENARIOS
from mcp_resume.spec.catalog import RULES
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.verdicts import Verdict
from tests.helpers.servers.variants import Variant

from tests.helpers.verify_real import full_run


PASS, FAIL, SKIP = Verdict.PASS, Verdict.FAIL, Verdict.SKIP

pytestmark = [pytest.mark.timeout(120)]


def test_a_server_without_sessions_gets_no_session_rule_failed(tmp_path):
    code, report = full_run(Variant(sessionless=True), tmp_path, "--profile", "boundary")
    verdicts = {v["rule"]: v["verdict"] for v in report["verdicts"]}
    assert code == 0 and "FAIL" not in verdicts.values()
    assert verdicts["new-session-on-initialize"] == "SKIP"


def _sent(at: float, method: str, status: int | None, *, body=None, session=None, minted=None, headers=None) -> Exchange:
    headers = {**({"mcp-session-id": session} if session else {}), **(headers or {})}
    answer = {"mcp-session-id": minted} if minted else {}
    return Exchange(f"{method} at {at}", method, "http://127.0.0.1/mcp", headers, request_body=body, status=status,
                    response_headers=answer, end=End.CLOSED, started=at, head=at, ended=at + 0.01)


def test_what_a_may_rule_allows_passes_with_a_note_that_never_says_broken():
    # DELETE is a MAY (B35): a server may refuse it; the refusal is a PASS that says what it allowed
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    traffic = [_sent(0.0, "POST", 200, body=initialize, minted="s-1"), _sent(0.1, "DELETE", 400, session="s-1")]
    run = Driven("session-delete", traffic, validate(records_of(traffic), Profile.BOUNDARY, complete=True))
    verdict = verdict_of("session-delete", Profile.BOUNDARY, run, [run])
    assert verdict.verdict is Verdict.PASS and verdict.reason.startswith("allowed under boundary (MAY)")
    assert "broken" not in verdict.reason and "400" in verdict.reason
    assert [c.held for c in verdict.checks] == [False]


def test_a_5xx_for_a_may_rule_warns():
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    traffic = [_sent(0.0, "POST", 200, body=initialize, minted="s-1"), _sent(0.1, "DELETE", 503, session="s-1")]
    run = Driven("session-delete", traffic, validate(records_of(traffic), Profile.BOUNDARY, complete=True))
    verdict = verdict_of("session-delete", Profile.BOUNDARY, run, [run])
    assert verdict.verdict is Verdict.WARN and "outside what boundary accepts" in verdict.reason


def test_a_5xx_is_never_a_pass():
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    traffic = [_sent(0.0, "POST", 200, body=initialize, minted="s-1"),
               _sent(0.1, "GET", 500, session="s-1"), _sent(0.2, "DELETE", 500, session="s-1")]
    run = Driven("session-delete", traffic, validate(records_of(traffic), Profile.MCP_2025_11_25, complete=True))
    for rule in ("session-delete", "session-identity-stable"):
        assert verdict_of(rule, Profile.MCP_2025_11_25, run, [run]).verdict in (Verdict.FAIL, Verdict.WARN), rule


def test_every_catalog_rule_has_a_scenario_and_no_broadcast_is_one():
    assert set(SCENARIOS) == {r.id for r in RULES} and "no-broadcast" in SCENARIOS


def test_a_finding_once_seen_stays_when_the_scenario_then_fails_on_the_network():
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    traffic = [_sent(0.0, "POST", 200, body=initialize, minted="s-1"),
               _sent(0.1, "GET", 500, session="s-1", headers={"last-event-id": "nope"}),
               _sent(0.2, "GET", None, session="s-1").fail(ErrorKind.NETWORK, "the connection broke")]
    stopped = RuleVerdict("reject-foreign-event-id", Verdict.INCONCLUSIVE, "GET: the connection broke", Level.MUST)
    run = Driven("reject-foreign-event-id", traffic, validate(records_of(traffic), Profile.BOUNDARY, complete=True), stopped)
    verdict = verdict_of("reject-foreign-event-id", Profile.BOUNDARY, run, [run])
    assert verdict.verdict is Verdict.FAIL and "answered 500" in verdict.reason
