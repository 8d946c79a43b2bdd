"""A task's messages may go on any SSE stream, the GET stream too (MCP D47): a server request
that says it is sent for a task (``params._meta`` names the related task) is about no running
call, so it is no call's message strayed onto the standalone stream (standalone-stream-scope).
The same request without that mark, while one call runs, is that call's and FAILs under boundary.
A compact reading (long recordings) keeps the mark."""

from __future__ import annotations

import json

import pytest

from mcp_resume.model.traffic.compact import RELATED_TASK
from mcp_resume.model.traffic.records import read_jsonl
from mcp_resume.model.traffic.trace_validation import validate
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

pytestmark = pytest.mark.covers("standalone-stream-scope")

SESSION = "s-1"
SSE = {"content-type": "text/event-stream"}


def _line(number, started, ended, method, body, answer_headers, events, headers=None):
    return json.dumps({
        "number": number, "started": started, "ended": ended, "head": started + 0.01,
        "request": {"method": method, "url": "http://127.0.0.1:8000/mcp",
                    "headers": {"mcp-session-id": SESSION, **(headers or {})} if number > 1 else {}, "body": body},
        "response": {"status": 200, "headers": answer_headers, "body": None,
                     "events": [{"at": at, "id": event_id, "event": "message", "data": data}
                                for at, event_id, data in events]},
        "end": "closed"}) + "\n"


def _log(meta):
    initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}}
    ask = {"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create",
           "params": {"message": "?", "requestedSchema": {"type": "object"}, **meta}}
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}
    return [
        _line(1, 1.0, 1.1, "POST", initialize, {"content-type": "application/json", "mcp-session-id": SESSION}, []),
        _line(2, 1.5, 9.0, "GET", None, SSE, [(2.5, "g1", ""), (3.0, "g2", json.dumps(ask))]),
        _line(3, 2.0, 8.0, "POST", call, SSE, [(2.1, "p1", ""), (7.9, "p2", json.dumps(answer))]),
    ]


def _verdict(lines, compact=False):
    records = read_jsonl(lines)
    if compact:
        from mcp_resume.model.traffic.compact import compact_record
        records = [compact_record(r) for r in records]
    return validate(records, Profile.BOUNDARY, complete=True).result("standalone-stream-scope").verdict


def test_a_server_request_for_no_task_on_the_get_stream_while_a_call_runs_is_that_calls():
    assert _verdict(_log({})) is Verdict.FAIL


@pytest.mark.parametrize("compact", [False, True])
def test_a_server_request_for_a_task_may_go_on_the_get_stream(compact):
    verdict = _verdict(_log({"_meta": {RELATED_TASK: {"taskId": "task-1"}}}), compact)
    assert verdict not in (Verdict.FAIL, Verdict.WARN)
