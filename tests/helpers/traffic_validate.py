"""What tests/fast/test_traffic_validate.py and tests/slow/test_traffic_validate.py share."""

from __future__ import annotations

import json


def answered(records, number: int, status: int | None):
    """``records`` with exchange ``number`` answered ``status`` and no events (``None``: no answer)."""
    for r in records:
        if r.number == number:
            r.exchange.status, r.exchange.events, r.arrivals = status, [], []
    return records


def record_line(number: int, data_chars: int) -> str:
    """One JSON line of an exchange: a POST whose SSE stream carried one event of ``data_chars``."""
    event = {"at": number + 0.5, "id": f"e{number}", "event": "message", "data": "x" * data_chars}
    return json.dumps({"number": number, "started": float(number), "ended": number + 1.0, "head": number + 0.1,
                       "request": {"method": "POST", "url": "http://127.0.0.1:8000/mcp", "headers": {}, "body": None},
                       "response": {"status": 200, "headers": {"content-type": "text/event-stream"},
                                    "events": [event], "body": None}, "end": "closed"}) + "\n"


def recording(path, count: int, data_chars: int) -> int:
    with path.open("w", encoding="utf-8") as file:
        for number in range(1, count + 1):
            file.write(record_line(number, data_chars))
    return path.stat().st_size


def session_lines(min_bytes: int, sessions: int = 3, events: int = 100, text_chars: int = 2_000):
    """JSON lines of a long recording with real work for the judge: ``sessions`` sessions
    initialized, then ``tools/call`` streams round-robin among them, each a priming event,
    ``events`` ``notifications/message`` of a ``text_chars`` text and the response, all with
    event ids; every tenth call's connection dropped half-way and its stream resumed with
    ``Last-Event-ID`` (the rest replayed). Lines until ``min_bytes`` are written."""
    url, sse, written, now, number = "http://127.0.0.1:8000/mcp", {"content-type": "text/event-stream"}, 0, 0.0, 0

    def line(method, headers, body, status, answer_headers, events, answer, end, started, ended) -> str:
        return json.dumps({"number": number, "started": started, "ended": ended, "head": started + 0.01,
                           "request": {"method": method, "url": url, "headers": headers, "body": body},
                           "response": {"status": status, "headers": answer_headers, "events": events, "body": answer},
                           "end": end}) + "\n"

    def event(at, event_id, message) -> dict:
        return {"at": round(at, 6), "id": event_id, "event": "message", "data": json.dumps(message) if message else ""}

    ids = [f"{n:032x}" for n in range(1, sessions + 1)]
    for session in ids:
        number += 1
        initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
                      "capabilities": {}, "clientInfo": {"name": "long", "version": "1"}}}
        answer = {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {},
                                                        "serverInfo": {"name": "long", "version": "1"}}}
        yield line("POST", {}, initialize, 200, {"content-type": "application/json", "mcp-session-id": session}, [],
                   answer, "closed", now, now + 0.05)
        number, now = number + 1, now + 0.1
        yield line("POST", {"mcp-session-id": session}, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                   202, {}, [], None, "closed", now, now + 0.05)
        now += 0.1
    call = 0
    while written < min_bytes:
        call, number = call + 1, number + 1
        session = ids[call % sessions]
        name = f"{session[-4:]}-{call}"
        stream = [event(now + 0.01, f"{name}-0", None)]
        stream += [event(now + 0.01 + i / 1000, f"{name}-{i}", {"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "logger": "tail", "data": f"line {i} of call {call}: " + "x" * text_chars}})
                   for i in range(1, events + 1)]
        stream.append(event(now + 0.02 + events / 1000, f"{name}-{events + 1}",
                            {"jsonrpc": "2.0", "id": call, "result": {"content": [{"type": "text", "text": "done"}]}}))
        body = {"jsonrpc": "2.0", "id": call, "method": "tools/call", "params": {"name": "tail_logs", "arguments": {}}}
        headers = {"mcp-session-id": session}
        if call % 10:
            text = line("POST", headers, body, 200, sse, stream, None, "closed", now, stream[-1]["at"] + 0.001)
        else:  # dropped half-way, then resumed from the last event seen
            seen, rest = stream[: len(stream) // 2], stream[len(stream) // 2:]
            text = line("POST", headers, body, 200, sse, seen, None, "dropped", now, seen[-1]["at"] + 0.001)
            written, number, now = written + len(text), number + 1, seen[-1]["at"] + 0.05
            yield text
            rest = [dict(e, at=now + 0.02 + k / 1000) for k, e in enumerate(rest)]
            text = line("GET", {**headers, "last-event-id": seen[-1]["id"]}, None, 200, sse, rest, None, "closed",
                        now, rest[-1]["at"] + 0.01)
        written += len(text)
        yield text
        now += 0.2
