"""The judge knows a message by where it went, never by what it says, and scopes ids by session
(issue classes seen on servers others wrote): recordings made by hand, judged under every
session-era profile. Each case is a correct server's traffic that an earlier judge blamed."""

from __future__ import annotations

import json

import pytest

from mcp_resume.model.oracle.judge import judge
from mcp_resume.model.traffic.records import read
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

URL = "http://127.0.0.1:8000/mcp"
SSE = {"content-type": "text/event-stream"}
SESSION_PROFILES = (Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25, Profile.BOUNDARY)
BLAME = (Verdict.FAIL, Verdict.WARN)


class Log:
    """Builds a proxy recording (JSON lines), one exchange at a time, on its own clock (seconds)."""

    def __init__(self) -> None:
        self.lines: list[dict] = []
        self.now = 0.0

    def exchange(self, method, headers, body, status, answer_headers, events, end="closed", answer=None, seconds=0.05,
                 at=None):
        start = self.now
        offsets = at or [0.01 * (i + 1) for i in range(len(events))]
        timed = [{"at": round(start + offsets[i], 6), "id": e[0], "event": "message",
                  "data": json.dumps(e[1]) if e[1] is not None else ""} for i, e in enumerate(events)]
        ended = start + max(seconds, 0.01 + max(offsets, default=0.0))
        self.lines.append({"number": len(self.lines) + 1, "started": start, "ended": ended, "head": start + 0.005,
                           "request": {"method": method, "url": URL, "headers": headers, "body": body},
                           "response": {"status": status, "headers": answer_headers, "events": timed, "body": answer},
                           "end": end})
        self.now = ended + 0.05

    def initialize(self, session: str, rid) -> None:
        body = {"jsonrpc": "2.0", "id": rid, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        answer = {"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-11-25", "capabilities": {},
                                                          "serverInfo": {"name": "t", "version": "1"}}}
        self.exchange("POST", {}, body, 200, {"content-type": "application/json", "mcp-session-id": session}, [],
                      answer=answer)
        self.exchange("POST", {"mcp-session-id": session}, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                      202, {}, [])

    def call(self, session: str, rid, events, end="closed") -> None:
        body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "tail_logs", "arguments": {}}}
        self.exchange("POST", {"mcp-session-id": session}, body, 200, SSE, events, end)

    def get(self, session: str, events, cursor=None, end="dropped", at=None) -> None:
        headers = {"mcp-session-id": session, **({"last-event-id": cursor} if cursor else {})}
        self.exchange("GET", headers, None, 200, SSE, events, end, seconds=0.3, at=at)

    def judged(self, tmp_path, profile: Profile):
        path = tmp_path / "log.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in self.lines))
        return judge(read(path), profile)


def log_line(n: int) -> dict:
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": f"log line {n}"}}


def result(rid) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "done"}]}}


def blamed(log: Log, tmp_path, profile: Profile) -> dict[str, str]:
    return {r.rule: r.reason for r in log.judged(tmp_path, profile).results if r.verdict in BLAME}


@pytest.mark.parametrize("profile", SESSION_PROFILES, ids=lambda p: p.value)
@pytest.mark.covers("no-cross-session", "replay-suffix")
def test_a_tool_that_repeats_its_texts_is_not_taken_for_a_replay(profile, tmp_path):
    # two calls send the same three texts; the second drops after its first and resumes its own stream
    log = Log()
    log.initialize("s-a", 1)
    log.call("s-a", 2, [("a-0", None), ("a-1", log_line(1)), ("a-2", log_line(2)), ("a-3", log_line(3)), ("a-4", result(2))])
    log.call("s-a", 3, [("b-0", None), ("b-1", log_line(1))], end="dropped")
    log.get("s-a", [("b-2", log_line(2)), ("b-3", log_line(3)), ("b-4", result(3))], cursor="b-1", end="closed")
    assert blamed(log, tmp_path, profile) == {}


@pytest.mark.parametrize("profile", SESSION_PROFILES, ids=lambda p: p.value)
@pytest.mark.covers("no-cross-session", "event-id-unique", "reject-foreign-event-id")
def test_event_ids_counted_per_session_are_each_sessions_own(profile, tmp_path):
    # both sessions count 1, 2, 3 (MCP B23/D27: unique within a session); B resumes from its own 2
    log = Log()
    for session, rid in (("s-a", 1), ("s-b", 10)):
        log.initialize(session, rid)
    log.call("s-a", 2, [("1", None), ("2", log_line(1)), ("3", result(2))])
    log.call("s-b", 11, [("1", None), ("2", log_line(1))], end="dropped")
    log.get("s-b", [("3", result(11))], cursor="2", end="closed")
    log.exchange("GET", {"mcp-session-id": "s-b", "last-event-id": "7"}, None, 400, {"content-type": "application/json"},
                 [], answer={"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": "unknown event"}})
    judged = log.judged(tmp_path, profile)
    assert {r.rule: r.reason for r in judged.results if r.verdict in BLAME} == {}
    assert judged.result("event-id-unique").verdict is Verdict.PASS


@pytest.mark.parametrize("profile", SESSION_PROFILES, ids=lambda p: p.value)
@pytest.mark.covers("replay-suffix", "reemit-pending")
def test_a_re_emitted_request_after_the_new_streams_priming_event_has_nothing_after_it(profile, tmp_path):
    # a pending request re-emitted on a new GET stream (priming first); that GET drops; resumed from the
    # request's own event id, nothing came after it: an empty replay is exact
    ask = {"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {"message": "?", "requestedSchema": {}}}
    log = Log()
    log.initialize("s-a", 1)
    log.call("s-a", 2, [("p-0", None), ("p-1", ask)], end="dropped")
    log.get("s-a", [("g-0", None), ("g-1", ask)])
    log.get("s-a", [], cursor="g-1")
    assert blamed(log, tmp_path, profile) == {}


def elicitation(rid) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "method": "elicitation/create", "params": {"message": "?", "requestedSchema": {}}}


def call_asking_on_the_get_stream(log: Log, session: str, rid, asked: dict) -> None:
    """``session`` opens its GET stream; 0.1 s later it calls a tool, whose server request comes
    0.2 s after the GET opened, on the GET stream (not the call's POST stream)."""
    opened = log.now
    log.get(session, [("g-" + session, asked)], at=[0.2])
    after_get = log.now
    log.now = opened + 0.1
    log.call(session, rid, [("p-" + session, None)], end="dropped")
    log.now = max(log.now, after_get)


@pytest.mark.parametrize("profile", SESSION_PROFILES, ids=lambda p: p.value)
@pytest.mark.covers("server-request-ownership", "no-cross-session")
def test_server_requests_numbered_per_session_on_the_get_stream_are_each_sessions_own(profile, tmp_path):
    # each session's Server counts its own requests from 1 and sends a call's request on the GET stream
    log = Log()
    for session, rid in (("s-a", 1), ("s-b", 10)):
        log.initialize(session, rid)
        call_asking_on_the_get_stream(log, session, rid + 1, elicitation(1))
    blame = blamed(log, tmp_path, profile)
    assert "server-request-ownership" not in blame and "no-cross-session" not in blame, blame


@pytest.mark.parametrize("profile", SESSION_PROFILES, ids=lambda p: p.value)
@pytest.mark.covers("server-request-ownership")
def test_another_sessions_request_on_a_get_stream_as_it_opens_is_still_a_leak(profile, tmp_path):
    # one counter for the whole server: A's request 1 stays pending; B's call asks 2 on B's GET
    # stream, which opened with A's request 1 (handed over by JSON-RPC id alone, B41)
    log = Log()
    log.initialize("s-a", 1)
    call_asking_on_the_get_stream(log, "s-a", 2, elicitation(1))
    log.initialize("s-b", 10)
    opened = log.now
    log.get("s-b", [("g-b1", elicitation(1)), ("g-b2", elicitation(2))], at=[0.01, 0.2])
    after_get, log.now = log.now, opened + 0.1
    log.call("s-b", 11, [("p-b", None)], end="dropped")
    log.now = max(log.now, after_get)
    assert "server-request-ownership" in blamed(log, tmp_path, profile)
