"""The recording proxy in front of the reference server served over HTTP on 127.0.0.1:
it forwards unchanged, streams SSE events as they come, and records every exchange
(JSON lines that ``records.read`` reads back the same)."""

from __future__ import annotations

import asyncio

import pytest

from mcp_resume.model.http.evidence import End
from mcp_resume.model.serving.facade import serving_design
from mcp_resume.model.traffic.records import read

from tests.helpers.traffic_runs import scenario, until_every_exchange_ended
from tests.helpers.traffic_proxy import proxied  # noqa: F401 (fixtures)


def _kind(event):
    """What an event is, without the ids that differ between two clients' runs."""
    return event.is_priming, event.method, event.message.get("params") if event.method else "result" in (event.message or {})


def test_the_proxy_forwards_unchanged_and_records_every_exchange(proxied):
    upstream, front, memory, path = proxied
    direct, direct_call, direct_resumed = asyncio.run(scenario(upstream))
    through, call, resumed = asyncio.run(scenario(front))
    assert [x.status for x in through] == [x.status for x in direct]
    assert [_kind(e) for e in call.events] == [_kind(e) for e in direct_call.events]
    assert [_kind(e) for e in resumed.events] == [_kind(e) for e in direct_resumed.events] != []
    until_every_exchange_ended(memory)
    recorded = read(path)
    assert [r.exchange.method for r in recorded] == [x.method for x in through]
    assert [r.exchange.status for r in recorded] == [x.status for x in through]
    tool = next(r for r in recorded if r.exchange.request_body and r.exchange.request_body.get("method") == "tools/call")
    assert [e.id for e in tool.exchange.events] == [e.id for e in call.events]
    assert tool.arrivals == sorted(tool.arrivals) and tool.started <= tool.arrivals[0]
    get = next(r for r in recorded if r.exchange.method == "GET")
    assert get.exchange.request_headers["last-event-id"] == resumed.request_headers["last-event-id"]
    assert get.exchange.end is End.CLOSED  # the call had ended: the server closes the replay
    elicitation = next(r.exchange for r in recorded if r.exchange.events and r.exchange.events[-1].is_server_request)
    assert elicitation.method == "POST" and elicitation.end is End.DROPPED  # the client went away at the request
    assert {r.number for r in recorded} == {r.number for r in memory.records}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("server, replays", [("design-2", True), ("reference", False)])
def test_a_findings_curl_script_runs_on_a_fresh_server_with_the_ids_it_mints(tmp_path, server, replays):
    import os
    import subprocess

    from mcp_resume.model.traffic.trace_validation import validate
    from mcp_resume.jobs.proxying import curl_script
    from mcp_resume.spec.profiles import Profile
    from tests.helpers.traffic_runs import recorded

    records = recorded("design-2")
    finding = validate(records, Profile.BOUNDARY).result("no-cross-session")
    script = tmp_path / "no-cross-session.curl.sh"
    script.write_text(curl_script(finding, records))
    with serving_design(server) as url:
        done = subprocess.run(["bash", str(script), url], capture_output=True, text=True, timeout=100,
                              env={**os.environ, "MCP_RESUME_WAIT": "0.5"})
    assert done.returncode == 0, done.stderr
    last = done.stdout.split("\n== ")[-1]  # the second session presents the first one's event id
    assert ("HTTP/1.1 200" in last and "logging step" in last) is replays, last
