"""A notification POSTed in the 2026-07-28 request shape gets 202 with no body when the server
accepts it, or an error status when it does not (MCP F4): any other success is a FAIL of
``sessionless-notification-202``, judged alike on the machine's steps and on recorded traffic."""

from __future__ import annotations

import json

import pytest

from mcp_resume.model.sessionless.traffic import validate_sessionless
from mcp_resume.model.traffic.records import read_jsonl
from mcp_resume.spec.sessionless import machine as s
from mcp_resume.spec.sessionless.checks import NOTIFICATION_202, check_observation
from mcp_resume.spec.verdicts import Verdict

pytestmark = pytest.mark.covers("sessionless-notification-202")


@pytest.mark.parametrize("status", [202, 400, 404, 500])
def test_a_notification_accepted_with_202_or_refused_with_an_error_status_holds(status):
    assert check_observation(s.SessionlessState(), s.SendNotification(), s.Observation(status)) == []


@pytest.mark.parametrize("status", [200, 204, 302])
def test_a_notification_answered_with_another_status_breaks_the_rule(status):
    findings = check_observation(s.SessionlessState(), s.SendNotification(), s.Observation(status))
    assert [f.rule for f in findings] == [NOTIFICATION_202] and f"answered {status}" in findings[0].message


def _recording(status):
    body = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}
    return read_jsonl([json.dumps({
        "number": 1, "started": 0.0, "ended": 0.1, "head": 0.05,
        "request": {"method": "POST", "url": "http://127.0.0.1:8000/mcp", "body": body,
                    "headers": {"mcp-protocol-version": "2026-07-28", "mcp-method": body["method"]}},
        "response": {"status": status, "headers": {"content-type": "application/json"}, "events": [],
                     "body": {"jsonrpc": "2.0", "result": {}} if status == 200 else None},
        "end": "closed"}) + "\n"])


@pytest.mark.parametrize("status,verdict", [(202, Verdict.PASS), (400, Verdict.PASS), (200, Verdict.FAIL)])
def test_recorded_traffic_is_judged_by_the_same_rule(status, verdict):
    assert validate_sessionless(_recording(status)).result(NOTIFICATION_202).verdict is verdict

