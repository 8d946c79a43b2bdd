"""A ``subscriptions/listen`` stream (MCP 2026-07-28, F22) carries the change notifications it
listens for, never another request's progress: a progress notification is about the request that
asked progress under its token (``params._meta.progressToken``, whatever the client chose), so on
another request's stream it breaks ``sessionless-request-scope`` (F6: a response stream carries
only messages about its own request)."""

from __future__ import annotations

import json

import pytest

from mcp_resume.model.sessionless.traffic import validate_sessionless
from mcp_resume.model.traffic.records import read_jsonl
from mcp_resume.spec.verdicts import Verdict

pytestmark = pytest.mark.covers("sessionless-request-scope")


def _listening(progress_on_listen: bool):
    """Q1 a tools/call asking progress under token "tok-7"; Q2 a subscriptions/listen whose stream
    carries a list_changed notification, and (``progress_on_listen``) Q1's progress."""
    def line(number, started, body, events):
        return json.dumps({
            "number": number, "started": started, "ended": started + 5, "head": started + 0.01,
            "request": {"method": "POST", "url": "http://127.0.0.1:8000/mcp", "body": body,
                        "headers": {"mcp-protocol-version": "2026-07-28", "mcp-method": body["method"]}},
            "response": {"status": 200, "headers": {"content-type": "text/event-stream"}, "body": None,
                         "events": [{"at": at, "id": None, "event": "message", "data": json.dumps(m)}
                                    for at, m in events]},
            "end": "closed"}) + "\n"

    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "t", "arguments": {}, "_meta": {**meta, "progressToken": "tok-7"}}}
    listen = {"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {"_meta": meta}}
    progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "tok-7", "progress": 1}}
    changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    listened = [(1.5, changed)] + ([(1.6, progress)] if progress_on_listen else [])
    return read_jsonl([line(1, 0.0, call, [(2.0, {"jsonrpc": "2.0", "id": 1, "result": {"content": []}})]),
                       line(2, 1.0, listen, listened)])


@pytest.mark.parametrize("stray,verdict", [(False, Verdict.PASS), (True, Verdict.FAIL)])
def test_a_listen_stream_carries_its_change_notifications_never_another_requests_progress(stray, verdict):
    assert validate_sessionless(_listening(stray)).result("sessionless-request-scope").verdict is verdict
