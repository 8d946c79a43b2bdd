"""Which profile ``verify`` applies, and the sessionless revision's rules over HTTP."""

from __future__ import annotations

import json
import time

import pytest

from tests.helpers import hostile_servers as hostile
from mcp_resume.cli import main
from mcp_resume.model.verify.suite import resolve_profile
from mcp_resume.spec.profiles import PROFILE_OF_REVISION
from mcp_resume.spec.profiles import Profile


@pytest.mark.parametrize(("revision", "profile"), sorted(PROFILE_OF_REVISION.items()))
def test_auto_applies_the_profile_of_the_negotiated_revision(revision, profile):
    chosen, note = resolve_profile(None, revision)
    assert chosen is profile and revision in note


def test_auto_names_boundary_as_the_stricter_profile_and_falls_back_for_unknown_revisions():
    assert "--profile boundary is the stricter one" in resolve_profile(None, "2025-06-18")[1]
    chosen, note = resolve_profile(None, "1999-01-01")
    assert chosen is Profile.MCP_2025_11_25 and "does not know" in note
    assert resolve_profile(Profile.BOUNDARY, "2025-03-26") == (Profile.BOUNDARY, None)


@pytest.mark.timeout(60)
@pytest.mark.covers("sessionless-request-validated")
def test_a_sessionless_server_serving_requests_it_cannot_take_as_sent_fails(tmp_path):
    path = tmp_path / "report.json"
    with hostile.http_server(hostile.sessionless_server_taking_anything) as url:
        code = main(["verify", url, "--profile", "mcp-2026-07-28", "--timeout", "1", "--json", str(path)])
    judged = {v["rule"]: v for v in json.loads(path.read_text())["verdicts"]}["sessionless-request-validated"]
    assert code == 1 and judged["verdict"] == "FAIL", judged["evidence"]
    assert "version-mismatch was answered 200, not 400" in judged["evidence"]["reason"]


def test_a_sessionless_server_answering_a_notification_200_fails_notification_202(tmp_path):
    def answer(handler):
        if handler.command == "POST" and b'"id"' not in handler.request_body:
            hostile.send(handler, 200, "application/json", b'{"jsonrpc": "2.0", "result": {}}')
        else:
            hostile.sessionless_server(handler)

    path = tmp_path / "report.json"
    with hostile.http_server(answer) as url:
        code = main(["verify", url, "--profile", "mcp-2026-07-28", "--timeout", "1", "--json", str(path)])
    verdicts = {v["rule"]: v["verdict"] for v in json.loads(path.read_text())["verdicts"]}
    assert code == 1 and verdicts["sessionless-notification-202"] == "FAIL"
    assert verdicts["sessionless-request-validated"] == "PASS"


def test_a_sessionless_server_holding_a_stream_open_after_its_final_response_warns(tmp_path):
    def answer(handler):
        if handler.command != "POST" or b'"tools/list"' not in handler.request_body:
            hostile.sessionless_server(handler)
            return
        result = {"jsonrpc": "2.0", "id": hostile.request_id(handler), "result": {"tools": []}}
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.end_headers()
        handler.wfile.write(f"data: {json.dumps(result)}\n\n".encode())
        handler.wfile.flush()
        time.sleep(3)  # the stream stays open after the final response (F8)

    path = tmp_path / "report.json"
    with hostile.http_server(answer) as url:
        main(["verify", url, "--profile", "mcp-2026-07-28", "--timeout", "1", "--json", str(path)])
    verdicts = {v["rule"]: v for v in json.loads(path.read_text())["verdicts"]}
    scope = verdicts["sessionless-request-scope"]
    assert scope["verdict"] == "WARN" and "stayed open after its final response" in scope["evidence"]["reason"]


def test_a_sessionless_server_passes_the_sessionless_rules(tmp_path):
    path = tmp_path / "report.json"
    with hostile.http_server(hostile.sessionless_server) as url:
        code = main(["verify", url, "--profile", "mcp-2026-07-28", "--timeout", "1", "--json", str(path)])
    verdicts = {v["rule"]: v for v in json.loads(path.read_text())["verdicts"]}
    assert code == 0
    assert verdicts["sessionless-get-405"]["verdict"] == "PASS"
    assert verdicts["sessionless-ignores-headers"]["verdict"] == "PASS"
    assert verdicts["sessionless-request-validated"]["verdict"] == "PASS"
    assert verdicts["sessionless-notification-202"]["verdict"] == "PASS"
    assert verdicts["replay-suffix"]["verdict"] == "SKIP"
