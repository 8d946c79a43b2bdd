"""The recording proxy in front of the reference server served over HTTP on 127.0.0.1:
it forwards unchanged, streams SSE events as they come, and records every exchange
(JSON lines that ``records.read`` reads back the same)."""

from __future__ import annotations

from pathlib import Path

from mcp_resume.model.serving.facade import serving
from mcp_resume.model.traffic.recording_proxy import RecordingProxy
from mcp_resume.model.traffic.recording import JsonLinesRecorder, MemoryRecorder
from tests.helpers.traffic_proxy import proxied  # noqa: F401 (fixtures)


def test_an_unreachable_upstream_is_answered_502_and_left_unjudged():
    import httpx

    from mcp_resume.model.traffic.trace_validation import validate
    from mcp_resume.spec.profiles import Profile

    memory = MemoryRecorder()
    with serving(RecordingProxy("http://127.0.0.1:9/mcp", memory)) as front:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        answer = httpx.post(front, json=init, timeout=30)
    assert answer.status_code == 502 and "upstream unreachable" in answer.text
    result = validate(memory.records, Profile.BOUNDARY)
    assert not result.failed and any("no answer from the server" in line for line in result.open)


def test_requests_beside_the_endpoint_are_forwarded_but_not_recorded(proxied):
    import httpx

    upstream, front, memory, path = proxied
    beside = front.rsplit("/", 1)[0] + "/elsewhere"
    assert httpx.get(beside, timeout=10).status_code == httpx.get(upstream.rsplit("/", 1)[0] + "/elsewhere", timeout=10).status_code
    assert memory.records == []


def test_a_recording_that_cannot_be_written_stops_and_says_why(tmp_path):
    from mcp_resume.model.http.evidence import Exchange
    from mcp_resume.model.traffic.records import Record

    recorder = JsonLinesRecorder(Path("/dev/full"))
    recorder.ended(Record(1, 0.0, Exchange("exchange 1", "GET", "http://127.0.0.1/mcp")))  # no raise into the proxy
    assert recorder.failure and "/dev/full" in recorder.failure and "exchange 1" in recorder.failure


def test_a_curl_script_sends_a_body_that_is_not_json_as_it_was():
    from mcp_resume.model.http.curl import exchanges_script
    from mcp_resume.model.http.evidence import Exchange

    script = exchanges_script([], "http://127.0.0.1:1/mcp", [Exchange("broken", "POST", "http://127.0.0.1:1/mcp", request_body='{"jsonrpc":')])
    assert "--data-binary '{\"jsonrpc\":'" in script


def test_credentials_and_given_headers_are_forwarded_but_recorded_masked(tmp_path):
    import httpx

    from mcp_resume.model.traffic.recording_proxy import MASKED
    from mcp_resume.model.traffic.recording import Fanout

    seen = []

    async def upstream_app(scope, receive, send):  # a stand-in upstream that tells what it was sent
        seen.append(dict(scope["headers"]))
        await send({"type": "http.response.start", "status": 202, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    memory, path = MemoryRecorder(), tmp_path / "run.jsonl"
    lines = JsonLinesRecorder(path)
    with serving(upstream_app) as upstream:
        proxy = RecordingProxy(upstream, Fanout(memory, lines), headers=(("X-Tenant-Key", "tenant-secret"),))
        with serving(proxy) as front:
            httpx.post(front, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                       headers={"Authorization": "Bearer client-secret"}, timeout=10)
    lines.close()
    assert seen[0][b"authorization"] == b"Bearer client-secret" and seen[0][b"x-tenant-key"] == b"tenant-secret"
    recorded = memory.records[0].exchange.request_headers
    assert recorded["authorization"] == MASKED
    text = path.read_text()
    assert "client-secret" not in text and "tenant-secret" not in text
