"""A GET the server takes and never answers (MCP B15: an SSE stream or 405). In verify's own
traffic, whose waits verify bounds itself, that silence is the server's answer and is judged;
in a recording (a proxy whose upstream may be unreachable) it stays open, unjudged."""

from __future__ import annotations

import pytest

from mcp_resume.model.http.evidence import End, ErrorKind, Exchange
from mcp_resume.model.oracle.judge import judge
from mcp_resume.model.traffic.records import records_of
from mcp_resume.model.verify.driver import Inconclusive, require
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

URL = "http://127.0.0.1:8000/mcp"
SESSION_PROFILES = (Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25, Profile.BOUNDARY)


def timed(x: Exchange, at: float, seconds: float = 0.01) -> Exchange:
    x.started, x.ended = at, at + seconds
    x.head = None if x.status is None else at + 0.001
    return x


def initialize(session: str, at: float) -> list[Exchange]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25", "capabilities": {},
                                                    "serverInfo": {"name": "t", "version": "1"}}}
    init = Exchange("initialize", "POST", URL, request_body=body, status=200, body=answer, end=End.CLOSED,
                    response_headers={"content-type": "application/json", "mcp-session-id": session})
    note = Exchange("initialized", "POST", URL, {"mcp-session-id": session},
                    request_body={"jsonrpc": "2.0", "method": "notifications/initialized"}, status=202, end=End.CLOSED)
    return [timed(init, at), timed(note, at + 0.1)]


def silent_get(session: str, at: float) -> Exchange:
    x = Exchange("GET with the session id alone", "GET", URL, {"mcp-session-id": session}, end=End.ERROR,
                 error_kind=ErrorKind.FIRST_BYTE, error="no response head within 10 s of sending the request")
    return timed(x, at, 10.0)


def delete(session: str, at: float) -> Exchange:
    return timed(Exchange("delete", "DELETE", URL, {"mcp-session-id": session}, status=200, end=End.CLOSED), at)


def traffic() -> list[Exchange]:
    return [*initialize("s-1", 0.0), silent_get("s-1", 0.5), delete("s-1", 11.0)]


@pytest.mark.parametrize("profile", SESSION_PROFILES, ids=lambda p: p.value)
@pytest.mark.covers("session-identity-stable")
def test_a_get_never_answered_in_a_live_session_fails_session_identity_stable_in_verifys_traffic(profile):
    judged = judge(records_of(traffic()), profile, complete=True, bounded_waits=True)
    result = judged.result("session-identity-stable")
    assert result.verdict is Verdict.FAIL
    assert "no answer" in result.reason
    assert judged.open == []


@pytest.mark.covers("session-identity-stable")
def test_the_same_silence_in_a_recording_is_left_open_not_blamed():
    judged = judge(records_of(traffic()), Profile.BOUNDARY)
    assert judged.result("session-identity-stable").verdict is not Verdict.FAIL
    assert any("no answer from the server" in line for line in judged.open)


def test_a_get_answered_with_a_status_but_no_sse_body_is_the_servers_answer_not_an_undrivable_step():
    answered = Exchange("an event id never issued", "GET", URL, status=200, end=End.CLOSED,
                        error_kind=ErrorKind.CONTENT_TYPE, error="HTTP 200 with no content type")
    assert require(answered, "resume") is answered
    for unanswered in (silent_get("s-1", 0.0),
                       Exchange("a call", "POST", URL, status=200, error_kind=ErrorKind.CONTENT_TYPE, error="x")):
        with pytest.raises(Inconclusive):
            require(unanswered, "step")
