"""What makes verify run a scenario again alone (``suite.strain``): signs of a server strained by
scenarios side by side, never what the server says of a request."""

from __future__ import annotations

import pytest

from mcp_resume.model.http.evidence import End, ErrorKind, Exchange, SseEvent
from mcp_resume.model.verify.judgement import Driven
from mcp_resume.model.verify.report import inconclusive, skip
from mcp_resume.model.verify.scenarios import WATCH_LABEL
from mcp_resume.model.verify.suite import _provoked, leak, strain
from mcp_resume.spec.profiles import Profile


def driven(*exchanges: Exchange, stopped=None) -> Driven:
    return Driven("replay-suffix", list(exchanges), validation=None, stopped=stopped)


def exchange(label="GET", status=200, end=End.CLOSED, error_kind=None, seconds=0.1) -> Exchange:
    made = Exchange(label, "GET", "http://127.0.0.1/mcp", status=status, end=end, seconds=seconds)
    if error_kind is not None:
        made.fail(error_kind, "the connection broke")
    return made


@pytest.mark.parametrize("status", [200, 202, 400, 404, 405, 406])
def test_an_answer_about_the_request_is_no_strain(status):
    assert strain(driven(exchange(status=status), exchange(end=End.IDLE))) is None


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_an_overload_status_is_strain(status):
    assert strain(driven(exchange(), exchange("resume", status=status))) == f"resume: HTTP {status}"


@pytest.mark.parametrize("kind", [ErrorKind.CONNECT, ErrorKind.FIRST_BYTE, ErrorKind.NETWORK])
def test_a_refused_slow_or_broken_connection_is_strain(kind):
    assert strain(driven(exchange("open", status=None, error_kind=kind))).startswith("open: ")


@pytest.mark.parametrize("kind", [ErrorKind.NOT_JSON, ErrorKind.CONTENT_TYPE, ErrorKind.BROKEN_SSE])
def test_a_malformed_answer_is_the_server_s_own(kind):
    assert strain(driven(exchange(error_kind=kind))) is None


def test_a_stream_read_to_its_bound_is_no_strain():
    # a server that keeps an idle GET stream busy with keep-alive events does so alone too
    assert strain(driven(exchange("watch", end=End.DEADLINE, seconds=15.0))) is None


def test_a_scenario_cut_off_is_strain_but_one_that_skips_is_not():
    assert strain(driven(stopped=inconclusive("replay-suffix", Profile.BOUNDARY, "took too long", [], []))) \
        == "it did not finish"
    assert strain(driven(stopped=skip("replay-suffix", Profile.BOUNDARY, "no event ids"))) is None


def session_exchange(label, method="POST", status=200, session=None, minted=None, cursor=None, events=(), rid=None):
    headers = {k: v for k, v in (("mcp-session-id", session), ("last-event-id", cursor)) if v is not None}
    made = Exchange(label, method, "http://127.0.0.1/mcp", request_headers=headers, status=status, end=End.CLOSED)
    if minted is not None:
        made.response_headers["mcp-session-id"] = minted
    if rid is not None:
        made.request_body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call"}
    made.events = [SseEvent(event_id, "message", "{}", message={"jsonrpc": "2.0", "method": "notifications/message"})
                   for event_id in events]
    return made


def test_a_404_for_a_session_the_scenario_opened_and_kept_is_strain():
    opened = session_exchange("initialize", minted="s1")
    lost = session_exchange("call in s1", status=404, session="s1")
    assert strain(driven(opened, lost)) == "call in s1: HTTP 404 for a session it opened and had not deleted"


def test_a_404_after_its_own_delete_or_for_a_made_up_session_is_no_strain():
    opened = session_exchange("initialize", minted="s1")
    deleted = session_exchange("delete s1", method="DELETE", session="s1")
    after = session_exchange("call in s1", status=404, session="s1")
    made_up = session_exchange("call in an unknown session", status=404, session="nobody")
    assert strain(driven(opened, deleted, after, made_up)) is None


def test_provoked_exchanges_present_another_session_s_event_id_or_a_shared_request_id():
    a = session_exchange("stream in A", session="A", events=["a1", "a2"], rid="shared")
    b = session_exchange("stream in B", session="B", events=["b1"], rid="shared")
    own = session_exchange("A resumes its own stream", method="GET", session="A", cursor="a1")
    foreign = session_exchange("B presents A's id", method="GET", session="B", cursor="a2")
    c = session_exchange("stream in C", session="C", events=["c1"], rid="own")
    resumed = session_exchange("C resumes its own stream", method="GET", session="C", cursor="c1")
    # a1's stream has a request id session B used too: provoked; so is B presenting a2
    assert _provoked([a, b, own, foreign, c, resumed]) == {3, 4}


def test_a_watching_session_that_got_a_message_is_a_leak():
    quiet = session_exchange(f"session W: {WATCH_LABEL}", method="GET", session="W")
    assert leak(driven(quiet)) is None
    told = session_exchange(f"session W: {WATCH_LABEL}", method="GET", session="W", events=["x1"])
    assert leak(driven(told)) == f"session W: {WATCH_LABEL}: 1 message(s)"
