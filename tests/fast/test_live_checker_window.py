"""The proxy's live checker counts an exchange that began after a DELETE of its session only once
that DELETE counts (``REPLAY_WINDOW`` seconds after its answer): a client that reconnects at once
to the session it just ended (the official SDK clients do, after a close with an SSE retry field)
is judged against the DELETE, as the final validation judges it."""

from __future__ import annotations

from mcp_resume.model.http.evidence import End, Exchange
from mcp_resume.model.oracle.live import _counted
from mcp_resume.model.traffic.records import Record
from mcp_resume.model.traffic.trace_validation import REPLAY_WINDOW


def _record(number: int, method: str, session: str, started: float, ended: float) -> Record:
    exchange = Exchange(f"#{number}", method, "http://127.0.0.1:8000/mcp", request_headers={"mcp-session-id": session})
    exchange.status, exchange.end = 200, End.CLOSED
    return Record(number, started, exchange, [], ended, head=started)


def test_an_exchange_after_an_unsettled_delete_of_its_session_waits_for_it():
    delete = _record(1, "DELETE", "s1", 1.0, 1.1)
    after = _record(2, "GET", "s1", 1.2, 1.3)
    other = _record(3, "GET", "s2", 1.2, 1.3)
    before = _record(0, "POST", "s1", 0.5, 0.6)
    records = [before, delete, after, other]
    assert _counted(records, 1.4) == [before, other]
    assert _counted(records, 1.1 + REPLAY_WINDOW + 0.01) == records
