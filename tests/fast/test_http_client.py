"""The Streamable HTTP client: SSE decoding, bounded waits, errors as values, and the real SDK."""

from __future__ import annotations

import json

import pytest

from tests.helpers import hostile_servers as hostile
from mcp_resume.model.http.client import Timeouts, _SseReader
from mcp_resume.model.http.evidence import End, ErrorKind

from tests.helpers.http_client import initialize, run


def test_sse_reader_keeps_each_events_own_id_and_discards_a_cut_off_event():
    reader = _SseReader()
    events = reader.feed('id: 1\ndata: \n\ndata: {"jsonrpc":"2.0","method":"m"}\n\nid: 3\r\ndata: {"a"')
    assert [(e.id, e.data) for e in events] == [("1", ""), (None, '{"jsonrpc":"2.0","method":"m"}')]
    assert events[0].is_priming and events[1].method == "m"
    assert reader.feed(": keep-alive comment\n") == []


def test_sse_reader_joins_data_lines_and_reads_retry():
    events = _SseReader().feed('id: a\nretry: 250\ndata: {"x":\ndata: 1}\n\n')
    assert events[0].data == '{"x":\n1}' and events[0].message == {"x": 1} and events[0].retry == 250


def test_sse_reader_keeps_a_retry_sent_in_a_block_of_its_own_without_an_event():
    reader = _SseReader()
    assert reader.feed("retry: 3000\n\n") == [] and reader.retry == 3000
    events = reader.feed('id: 1\ndata: {"a": 1}\n\nretry: 40\n\n')
    assert [e.retry for e in events] == [None] and reader.retry == 40


def test_sse_reader_ignores_a_retry_that_is_not_ascii_digits():
    reader = _SseReader()
    assert reader.feed("retry: \u00b2\nid: 1\ndata: \n\nretry: 1.5\n\n")[0].retry is None
    assert reader.retry is None


def test_a_retry_block_of_its_own_reaches_the_exchange():
    def answer(handler):
        body = json.dumps({"jsonrpc": "2.0", "id": hostile.request_id(handler), "result": hostile.INITIALIZE_RESULT})
        hostile.send(handler, 200, "text/event-stream", f"retry: 1500\n\nid: 1\ndata: {body}\n\n".encode(),
                     {"Mcp-Session-Id": "s-1"})

    with hostile.http_server(answer) as url:
        exchange = run(initialize(url))
    assert exchange.ok and exchange.retry == 1500 and [e.retry for e in exchange.events] == [None]


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


@pytest.mark.timeout(20)
def test_refused_connection_is_a_connect_error():
    with hostile.down_server() as url:
        exchange = run(initialize(url))
    assert exchange.error_kind is ErrorKind.CONNECT and exchange.status is None
    assert "cannot connect to 127.0.0.1:" in exchange.error


@pytest.mark.timeout(20)
def test_https_to_a_plain_http_server_says_it_speaks_no_tls_and_names_the_port():
    with hostile.http_server(hostile.not_found) as url:
        exchange = run(initialize(url.replace("http://", "https://")))
    port = url.split(":")[2].split("/")[0]
    assert exchange.error_kind is ErrorKind.CONNECT
    assert f"cannot connect to 127.0.0.1:{port}: the server there does not speak TLS" in exchange.error
    assert "WRONG_VERSION_NUMBER" not in exchange.error


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    ("reply", "kind", "words"),
    [
        (hostile.broken_sse, ErrorKind.BROKEN_SSE, "not an SSE stream"),
        (hostile.sse_with_bad_json, ErrorKind.NOT_JSON, "not a JSON object"),
        (hostile.html_page, ErrorKind.CONTENT_TYPE, "text/html"),
        (hostile.json_that_is_not, ErrorKind.NOT_JSON, "not JSON"),
    ],
)
def test_misbehaving_answers_are_clear_error_values(reply, kind, words):
    with hostile.http_server(reply) as url:
        exchange = run(initialize(url))
    assert exchange.error_kind is kind and exchange.end is End.ERROR
    assert words in exchange.error and "\n" not in exchange.error
    assert "error" in exchange.to_json()


@pytest.mark.timeout(20)
def test_a_malformed_minted_session_id_is_an_observation_not_an_error():
    """B30 is the judge's to apply (new-session-on-initialize, case malformed-id): the exchange
    keeps the answer, so the run goes on and the report can say what was wrong."""
    with hostile.http_server(hostile.malformed_session_header) as url:
        exchange = run(initialize(url))
    assert exchange.ok and exchange.status == 200 and exchange.names_malformed_session
    assert exchange.session_header == "bad session id" and exchange.messages[0]["result"]


@pytest.mark.timeout(20)
def test_an_error_status_is_an_observation_not_an_error():
    with hostile.http_server(hostile.not_found) as url:
        exchange = run(initialize(url))
    assert exchange.ok and exchange.status == 404 and exchange.body == "no such endpoint"



def test_a_close_that_outlasts_its_wait_still_closes_the_connection(monkeypatch):
    """The client's drop must reach the server: a close held up past ``CLOSE_WAIT_SECONDS`` (a
    loop busy with other work) goes on in the background instead of being cut off half done."""
    import asyncio

    from mcp_resume.model.http import client

    closed = []

    class SlowClose:
        async def aclose(self) -> None:
            await asyncio.sleep(0.05)
            closed.append(True)

    async def drop_then_wait() -> None:
        await client._close_quietly(SlowClose())
        assert not closed  # the wait ended first
        await asyncio.sleep(0.2)

    monkeypatch.setattr(client, "CLOSE_WAIT_SECONDS", 0.01)
    asyncio.run(drop_then_wait())
    assert closed == [True]
