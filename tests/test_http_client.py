"""The Streamable HTTP client: SSE decoding, bounded waits, errors as values, and the real SDK."""

from __future__ import annotations

import asyncio
import time

import pytest

import hostile_servers as hostile
from mcp_resume.model.http.client import Timeouts, StreamableHttpClient, _SseReader
from mcp_resume.model.http.evidence import End, ErrorKind
from mcp_resume.model.targets.process import running_python_sdk

FAST = Timeouts(connect=1.0, first_byte=1.0, idle=1.0, exchange=3.0, settle=0.5)


def run(coro):
    return asyncio.run(coro)


async def _initialize(url: str, bounds: Timeouts = FAST):
    async with StreamableHttpClient(url, bounds) as client:
        return await client.initialize()


# -- SSE decoding ---------------------------------------------------------------------


def test_sse_reader_keeps_each_events_own_id_and_discards_a_cut_off_event():
    reader = _SseReader()
    events = reader.feed('id: 1\ndata: \n\ndata: {"jsonrpc":"2.0","method":"m"}\n\nid: 3\r\ndata: {"a"')
    assert [(e.id, e.data) for e in events] == [("1", ""), (None, '{"jsonrpc":"2.0","method":"m"}')]
    assert events[0].is_priming and events[1].method == "m"
    assert reader.feed(": keep-alive comment\n") == []


def test_sse_reader_joins_data_lines_and_reads_retry():
    events = _SseReader().feed('id: a\nretry: 250\ndata: {"x":\ndata: 1}\n\n')
    assert events[0].data == '{"x":\n1}' and events[0].message == {"x": 1} and events[0].retry == 250


def test_sse_reader_notes_a_line_that_is_no_sse_field():
    reader = _SseReader()
    reader.feed("<html>\n\n")
    assert reader.stray_line == "<html>"


def test_bounds_reject_non_positive_values():
    with pytest.raises(ValueError, match="timeout"):
        Timeouts.from_timeout(0)
    with pytest.raises(ValueError, match="idle"):
        Timeouts(idle=float("nan"))
    assert Timeouts.from_timeout(2).exchange == 10.0


# -- errors as values, within bounds ------------------------------------------------------


@pytest.mark.timeout(20)
def test_refused_connection_is_a_connect_error():
    exchange = run(_initialize(hostile.down_url()))
    assert exchange.error_kind is ErrorKind.CONNECT and exchange.status is None
    assert "cannot connect" in exchange.error


@pytest.mark.timeout(20)
def test_silent_server_ends_at_the_first_byte_bound():
    with hostile.silent_server() as url:
        started = time.monotonic()
        exchange = run(_initialize(url))
        elapsed = time.monotonic() - started
    assert exchange.error_kind is ErrorKind.FIRST_BYTE
    assert elapsed < FAST.connect + FAST.first_byte + 1.0


@pytest.mark.timeout(20)
def test_stream_without_events_ends_at_the_idle_bound():
    with hostile.http_server(hostile.dripping_sse) as url:
        started = time.monotonic()
        exchange = run(_initialize(url))
        elapsed = time.monotonic() - started
    assert exchange.ok and exchange.end is End.IDLE and exchange.events == []
    assert elapsed < FAST.idle + 1.5


@pytest.mark.timeout(20)
def test_whole_exchange_bound_holds_even_while_bytes_keep_coming():
    bounds = Timeouts(connect=1.0, first_byte=1.0, idle=5.0, exchange=1.5, settle=0.5)
    with hostile.http_server(hostile.dripping_sse) as url:
        started = time.monotonic()
        exchange = run(_initialize(url, bounds))
        elapsed = time.monotonic() - started
    assert exchange.end is End.DEADLINE
    assert elapsed < bounds.exchange + 1.0


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    ("reply", "kind", "words"),
    [
        (hostile.broken_sse, ErrorKind.BROKEN_SSE, "not an SSE stream"),
        (hostile.sse_with_bad_json, ErrorKind.NOT_JSON, "not a JSON object"),
        (hostile.html_page, ErrorKind.CONTENT_TYPE, "text/html"),
        (hostile.json_that_is_not, ErrorKind.NOT_JSON, "not JSON"),
        (hostile.malformed_session_header, ErrorKind.SESSION_HEADER, "malformed Mcp-Session-Id"),
    ],
)
def test_misbehaving_answers_are_clear_error_values(reply, kind, words):
    with hostile.http_server(reply) as url:
        exchange = run(_initialize(url))
    assert exchange.error_kind is kind and exchange.end is End.ERROR
    assert words in exchange.error and "\n" not in exchange.error
    assert "error" in exchange.to_json()


@pytest.mark.timeout(20)
def test_an_error_status_is_an_observation_not_an_error():
    with hostile.http_server(hostile.not_found) as url:
        exchange = run(_initialize(url))
    assert exchange.ok and exchange.status == 404 and exchange.body == "no such endpoint"


# -- the real SDK -------------------------------------------------------------------------


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
