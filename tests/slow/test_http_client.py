"""The Streamable HTTP client: SSE decoding, bounded waits, errors as values, and the real SDK."""

from __future__ import annotations

import time

import pytest

from tests.helpers import hostile_servers as hostile
from mcp_resume.model.http.client import Timeouts, StreamableHttpClient
from mcp_resume.model.http.evidence import End, ErrorKind
from mcp_resume.model.targets.process import running_python_sdk

from tests.helpers.http_client import FAST, initialize, run


@pytest.mark.timeout(20)
def test_silent_server_ends_at_the_first_byte_bound():
    with hostile.silent_server() as url:
        started = time.monotonic()
        exchange = run(initialize(url))
        elapsed = time.monotonic() - started
    assert exchange.error_kind is ErrorKind.FIRST_BYTE
    assert elapsed < FAST.connect + FAST.first_byte + 1.0


@pytest.mark.timeout(20)
def test_stream_without_events_ends_at_the_idle_bound():
    with hostile.http_server(hostile.dripping_sse) as url:
        started = time.monotonic()
        exchange = run(initialize(url))
        elapsed = time.monotonic() - started
    assert exchange.ok and exchange.end is End.IDLE and exchange.events == []
    assert elapsed < FAST.idle + 1.5


@pytest.mark.timeout(20)
def test_whole_exchange_bound_holds_even_while_bytes_keep_coming():
    bounds = Timeouts(connect=1.0, first_byte=1.0, idle=5.0, exchange=1.5, settle=0.5)
    with hostile.http_server(hostile.dripping_sse) as url:
        started = time.monotonic()
        exchange = run(initialize(url, bounds))
        elapsed = time.monotonic() - started
    assert exchange.end is End.DEADLINE
    assert elapsed < bounds.exchange + 1.0


@pytest.fixture(scope="module")
def sdk_url():
    with running_python_sdk() as url:
        yield url


async def _session_story(url: str):
    async with StreamableHttpClient(url, FAST) as client:
        init = await client.initialize()
        session = init.session_header
        await client.notify(session, "notifications/initialized", label="initialized")
        call = await client.call_tool(session, "test_tool_with_logging", label="call")
        cursor = call.events[1]
        resumed = await client.get(label="resume", session=session, last_event_id=cursor.id)
        weird = await client.get(label="malformed", session="not well formed", last_event_id="also bad")
        elicit = await client.call_tool(session, "test_elicitation", label="elicit", stop=lambda e: e.is_server_request)
        answer = await client.respond(session, elicit.events[-1].request_id, {"action": "decline"}, label="answer")
        deleted = await client.delete(session)
        return client.exchanges, init, call, cursor, resumed, weird, elicit, answer, deleted


@pytest.mark.xdist_group("test_http_client")  # shares a module-scoped fixture
@pytest.mark.timeout(60)
def test_client_drives_the_sdk_through_a_session(sdk_url):
    exchanges, init, call, cursor, resumed, weird, elicit, answer, deleted = run(_session_story(sdk_url))
    assert init.status == 200 and init.session_header and init.end is End.RESPONSE
    assert call.events[0].is_priming and call.events[0].id is not None
    assert [e.method for e in call.data_events[:-1]] == ["notifications/message"] * 3
    assert call.end is End.RESPONSE
    assert [e.id for e in resumed.data_events] == [e.id for e in call.events[2:]]
    assert resumed.end is End.IDLE  # the SDK keeps the resumed connection open
    assert weird.status == 404 and weird.request_headers["mcp-session-id"] == "not well formed"
    assert elicit.end is End.DROPPED and elicit.events[-1].method == "elicitation/create"
    assert answer.status == 202 and deleted.status == 200
    assert all(x.ok for x in exchanges)
    recorded = call.to_json()
    assert recorded["request"]["headers"]["mcp-session-id"] == init.session_header
    assert (
        call.one_line().startswith("POST request tools/call")
        and "-> 200 text/event-stream, 5 events (response)" in call.one_line()
    )
    assert recorded["events"][1] == {
        "id": call.events[1].id,
        "data": "notification notifications/message 'logging step 1'",
    }


@pytest.mark.timeout(30)
def test_a_get_read_until_an_event_takes_what_comes_after_its_idle_bound():
    """``get(until=...)``: the idle wait starts once the event is set (how verify watches a
    session's GET stream while other sessions work); without it the stream ends at the first
    quiet period."""
    import asyncio

    async def read(url: str, release_after: float | None):
        bounds = Timeouts(connect=5.0, first_byte=5.0, idle=0.3, exchange=10.0, settle=0.3)
        async with StreamableHttpClient(url, bounds) as client:
            until = None
            if release_after is not None:
                until = asyncio.Event()
                asyncio.get_running_loop().call_later(release_after, until.set)
            return await client.get(label="watched", session="s", idle=0.3, until=until)

    with hostile.http_server(hostile.late_event_sse) as url:
        plain = asyncio.run(read(url, None))
        watched = asyncio.run(read(url, 2.0))
    assert [e.method for e in plain.events if e.message] == [] and plain.end is End.IDLE
    assert [e.method for e in watched.events if e.message] == ["notifications/message"]
    assert watched.end is End.IDLE and watched.seconds >= 2.3  # quiet for 0.3 s after the release
