"""Recorded exchanges: the JSON-lines format the proxy writes, and HAR 1.2 files.

A ``Record`` is one HTTP exchange with a Streamable HTTP server as it was seen
on the wire: the request (method, URL, headers, body), the response head, every
SSE event with the second it arrived, a JSON body, and how the exchange ended.
Times are seconds since the recording began (``started``, ``ended``,
``Record.arrivals``), so records of concurrent exchanges can be interleaved.

Two file formats are read into records:

- JSON lines (``.jsonl``), one ``Record.to_json()`` per line, as
  ``mcp-resume proxy --record`` writes them;
- HAR 1.2 (what browser devtools and mitmproxy export): ``log.entries`` with
  ``startedDateTime`` and ``time``; an SSE body is ``response.content.text``.
  A HAR file has no arrival time per event and does not say who ended a
  stream: its events are spread over the exchange's duration and its ``end``
  is ``None`` (unknown), which the validator leaves open.

``read(path, fmt)`` raises ``RecordError`` naming the file, the line or entry,
and what is wrong; nothing else escapes for bad input.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Iterator

from mcp_resume.model.http.client import SseStreamReader, event_from_fields
from mcp_resume.model.http.evidence import End, Exchange, SseEvent
from mcp_resume.model.traffic.compact import Skeletons, compact_record

FORMATS = ("auto", "har", "jsonl")
MAX_RECORD_CHARS = 50_000_000
"""Longest line of a JSON-lines file (one exchange), and largest HAR file, read, in characters.
A JSON-lines file as a whole has no limit: it is read line by line."""


class RecordError(ValueError):
    """A recorded file that cannot be read: the message names the file and the place."""


@dataclass
class Record:
    """One recorded exchange; times in seconds since the recording began.

    ``arrivals[i]`` is when ``exchange.events[i]`` arrived; ``ended`` is when the
    exchange ended (``None`` while it runs); ``exchange.end`` ``None`` when the
    recording does not say how it ended (HAR).
    """

    number: int
    started: float
    exchange: Exchange
    arrivals: list[float] = field(default_factory=list)
    ended: float | None = None
    timed: bool = True  # False when the arrival times are made up (HAR has none per event)
    head: float | None = None  # when the response head arrived

    def to_json(self) -> dict[str, Any]:
        x = self.exchange
        item: dict[str, Any] = {
            "number": self.number,
            "started": round(self.started, 6),
            "ended": None if self.ended is None else round(self.ended, 6),
            "head": None if self.head is None else round(self.head, 6),
            "request": {"method": x.method, "url": x.url, "headers": x.request_headers, "body": x.request_body},
            "response": {
                "status": x.status,
                "headers": x.response_headers,
                "events": [_event_json(e, t) for e, t in zip(x.events, self.arrivals)],
                "body": x.body,
            },
            "end": x.end.value if x.end else None,
        }
        if x.retry is not None:
            item["response"]["retry"] = x.retry
        if x.error:
            item["error"] = x.error
        return item


def records_of(exchanges: list[Exchange]) -> list[Record]:
    """The exchanges a client timed (``Exchange.started`` set) as records on one time
    line whose second 0 is the first one's start, in the order they were sent;
    ``Record.number`` is the exchange's 1-based position in ``exchanges``. The
    untimed ones are left out."""
    timed = [(number, x) for number, x in enumerate(exchanges, start=1) if x.started is not None]
    origin = min((x.started for _, x in timed), default=0.0)
    records = [
        Record(number, x.started - origin, x, [at - origin for at in x.arrivals],
               None if x.ended is None else x.ended - origin, head=None if x.head is None else x.head - origin)
        for number, x in timed
    ]
    return sorted(records, key=lambda r: (r.started, r.number))


def write_line(record: Record) -> str:
    """One JSON line for ``record`` (with its newline)."""
    return json.dumps(record.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"


def read(path: Path, fmt: str = "auto", max_line_chars: int = MAX_RECORD_CHARS, *,
         compact: bool = False) -> list[Record]:
    """The records of ``path``, in the order their requests were sent.

    ``fmt`` is ``auto`` (by content: a JSON object with ``log`` is HAR), ``har``
    or ``jsonl``. JSON lines are read line by line (``iter_jsonl``): a recording of any
    size is read, holding one line at a time beside the records, each line at most
    ``max_line_chars`` characters. A HAR file is one JSON document, read whole, at most
    ``MAX_RECORD_CHARS`` characters. ``compact``: each record reduced as it is read to
    what the judge reads of it (``model.traffic.compact``: the judge's verdicts are the
    same; bodies and event data are excerpts), so that the records take memory by their
    count of exchanges and events, not by the recording's bytes. Raises ``RecordError``
    for an unreadable or malformed file, ``ValueError`` for an unknown ``fmt``.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if fmt == "auto":
        fmt = "har" if _looks_like_har(_head(path)) else "jsonl"
    if fmt == "jsonl":
        records = list(iter_jsonl(path, max_line_chars, compact=compact))
    else:
        records = read_har(_whole(path), str(path))
        skeletons = Skeletons()
        records = [compact_record(r, skeletons) for r in records] if compact else records
    records.sort(key=lambda r: (r.started, r.number))
    return records


def iter_jsonl(path: Path, max_line_chars: int = MAX_RECORD_CHARS, *, compact: bool = False) -> Iterator[Record]:
    """The records of the JSON-lines file ``path`` one at a time, in file order (blank lines
    skipped), reading one line at a time: never more than ``max_line_chars + 1`` characters
    of the file are held; ``compact``: each record compacted (``compact.compact_record``)
    before the next line is read. ``RecordError`` names the line: one longer than ``max_line_chars``
    (found without reading the rest of it), one that is no exchange record, a file that
    cannot be read or is not UTF-8."""
    skeletons = Skeletons()
    try:
        with path.open(encoding="utf-8", newline="") as lines:
            number = 0
            while line := lines.readline(max_line_chars + 1):
                number += 1
                if len(line) > max_line_chars and not line.endswith("\n"):
                    raise RecordError(f"{path}:{number}: line longer than {max_line_chars:,} characters")
                record = _line_record(line, str(path), number)
                if record is not None:
                    yield compact_record(record, skeletons) if compact else record
    except UnicodeDecodeError:
        raise RecordError(f"{path}: cannot read: not UTF-8 text (a HAR file or JSON lines is)") from None
    except OSError as error:
        raise RecordError(f"{path}: cannot read: {error.strerror or error}") from None


def read_jsonl(lines: Iterable[str], name: str = "<records>") -> list[Record]:
    """Records from JSON lines (blank lines skipped); ``RecordError`` names the line."""
    records = []
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_RECORD_CHARS:
            raise RecordError(f"{name}:{number}: line longer than {MAX_RECORD_CHARS:,} characters")
        record = _line_record(line, name, number)
        if record is not None:
            records.append(record)
    return records


def _line_record(line: str, name: str, number: int) -> Record | None:
    """The record of one JSON line, ``None`` for a blank one; ``RecordError`` naming the line."""
    if not line.strip():
        return None
    try:
        return _record_from_json(json.loads(line))
    except RecursionError:
        raise RecordError(f"{name}:{number}: JSON nested too deeply") from None
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise RecordError(f"{name}:{number}: not an exchange record: {_reason(error)}") from None


HEAD_CHARS = 4096
"""Characters read from the start of a file to tell HAR from JSON lines."""


def _head(path: Path) -> str:
    try:
        with path.open(encoding="utf-8", errors="replace") as file:
            return file.read(HEAD_CHARS)
    except OSError as error:
        raise RecordError(f"{path}: cannot read: {error.strerror or error}") from None


def _whole(path: Path) -> str:
    """The whole text of a HAR file, refused beyond ``MAX_RECORD_CHARS`` (told by its size in
    bytes before reading it when it is certainly larger)."""
    try:
        if path.stat().st_size > 4 * MAX_RECORD_CHARS:  # UTF-8: at most 4 bytes a character
            raise RecordError(f"{path}: larger than {MAX_RECORD_CHARS:,} characters")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{path}: cannot read: not UTF-8 text (a HAR file or JSON lines is)") from None
    except OSError as error:
        raise RecordError(f"{path}: cannot read: {error.strerror or error}") from None
    if len(text) > MAX_RECORD_CHARS:
        raise RecordError(f"{path}: larger than {MAX_RECORD_CHARS:,} characters")
    return text


def read_har(text: str, name: str = "<har>") -> list[Record]:
    """Records from a HAR 1.2 document; ``RecordError`` names the entry."""
    try:
        entries = json.loads(text)["log"]["entries"]
    except RecursionError:
        raise RecordError(f"{name}: JSON nested too deeply") from None
    except (ValueError, TypeError, KeyError) as error:
        raise RecordError(f"{name}: not a HAR file (it needs log.entries): {_reason(error)}") from None
    if not isinstance(entries, list):
        raise RecordError(f"{name}: log.entries is not a list")
    try:
        origin = min((_har_time(e) for e in entries), default=0.0)
    except (ValueError, TypeError, KeyError) as error:
        raise RecordError(f"{name}: an entry without a valid startedDateTime: {_reason(error)}") from None
    records = []
    for number, entry in enumerate(entries, start=1):
        try:
            records.append(_record_from_har(number, entry, origin))
        except (ValueError, TypeError, KeyError, AttributeError, UnicodeDecodeError) as error:
            raise RecordError(f"{name}: entry {number}: {_reason(error)}") from None
    return records


# -- JSON lines ------------------------------------------------------------------------


def _event_json(event: SseEvent, arrived: float) -> dict[str, Any]:
    item: dict[str, Any] = {"at": round(arrived, 6), "id": event.id, "event": event.event, "data": event.data}
    if event.retry is not None:
        item["retry"] = event.retry
    return item


_KIND_NAMES = {int: "an integer", str: "a string", dict: "an object", list: "a list"}


def _reason(error: Exception) -> str:
    """What is wrong with a record, in words (not Python's)."""
    if isinstance(error, KeyError):
        return f"missing field {error.args[0]!r}"
    if isinstance(error, (TypeError, AttributeError)):
        return f"a field has the wrong type ({error})"
    if "integer string conversion" in str(error):  # Python's own limit on the digits of a number
        return "a number with more than 4,300 digits"
    return str(error)


def _status(response: dict[str, Any], where: str) -> int | None:
    """The HTTP status of ``response`` (``None`` when absent, or 0 as HAR writes for no
    response); ``ValueError`` for anything but a whole number from 100 to 599."""
    status = _field(response, "status", (int,), where, required=False)
    if status is None or status == 0:
        return None
    if not 100 <= status <= 599:
        raise ValueError(f"field {where}.status must be an HTTP status from 100 to 599, got {str(status)[:20]}")
    return status


def _field(container: Any, name: str, kinds: tuple[type, ...], where: str, required: bool = True) -> Any:
    """``container[name]`` when it is one of ``kinds`` (``None`` allowed when not ``required``);
    ``ValueError`` saying which field is missing or of the wrong type."""
    if not isinstance(container, dict):
        raise ValueError(f"{where} is not a JSON object")
    value = container.get(name)
    if value is None and not required:
        return None
    if value is None:
        raise ValueError(f"missing field {where}.{name}")
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        expected = " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)
        raise ValueError(f"field {where}.{name} must be {expected}, got {json.dumps(value)[:40]}")
    return value


def _record_from_json(item: dict[str, Any]) -> Record:
    _field(item, "number", (int,), "record")
    request = _field(item, "request", (dict,), "record")
    response = _field(item, "response", (dict,), "record", required=False) or {}
    exchange = Exchange(
        f"exchange {item['number']}",
        _field(request, "method", (str,), "request").upper(),
        _field(request, "url", (str,), "request"),
        request_headers=_lower(_field(request, "headers", (dict,), "request", required=False) or {}),
        request_body=request.get("body"),
        status=_status(response, "response"),
        response_headers=_lower(_field(response, "headers", (dict,), "response", required=False) or {}),
        body=response.get("body"),
        end=End(item["end"]) if item.get("end") else None,
        error=item.get("error"),
    )
    events = _field(response, "events", (list,), "response", required=False) or []
    exchange.events = [_event(e.get("id"), e.get("event") or "message", e.get("data") or "", e.get("retry")) for e in events]
    retry = _field(response, "retry", (int,), "response", required=False)
    exchange.retry = next((e.retry for e in reversed(exchange.events) if e.retry is not None), None) if retry is None else retry
    arrivals = [float(e["at"]) for e in events]
    started = float(item["started"])
    ended = None if item.get("ended") is None else float(item["ended"])
    if ended is not None:
        exchange.seconds = ended - started
    head = None if item.get("head") is None else float(item["head"])
    return Record(int(item["number"]), started, exchange, arrivals, ended, head=head)


# -- HAR ------------------------------------------------------------------------------


def _looks_like_har(text: str) -> bool:
    """``text``, a file's first ``HEAD_CHARS`` characters, begins a HAR document."""
    head = text.lstrip()[:200]
    return head.startswith("{") and '"log"' in text[:HEAD_CHARS] and "\n{" not in text.strip()[1:200]


def _har_time(entry: dict[str, Any]) -> float:
    return datetime.fromisoformat(entry["startedDateTime"].replace("Z", "+00:00")).timestamp()


def _record_from_har(number: int, entry: dict[str, Any], origin: float) -> Record:
    request, response = entry["request"], entry["response"]
    started = _har_time(entry) - origin
    duration = max(float(entry.get("time") or 0.0), 0.0) / 1000
    body_text = (request.get("postData") or {}).get("text")
    status = _status(response, "response")
    exchange = Exchange(
        f"entry {number}",
        _field(request, "method", (str,), "request").upper(),
        _field(request, "url", (str,), "request"),
        request_headers=_har_headers(request.get("headers")),
        request_body=json_or_text(body_text),
        status=status,
        response_headers=_har_headers(response.get("headers")),
        seconds=duration,
    )
    content = response.get("content") or {}
    text = content.get("text") or ""
    if content.get("encoding") == "base64":
        text = base64.b64decode(text).decode("utf-8")
    arrivals: list[float] = []
    if exchange.content_type == "text/event-stream":
        reader = SseStreamReader()
        exchange.events, exchange.retry = reader.feed(text), reader.retry
        count = len(exchange.events)
        arrivals = [started + duration * (i + 1) / (count + 1) for i in range(count)]
    elif text.strip():
        exchange.body = json_or_text(text)
    return Record(number, started, exchange, arrivals, started + duration, timed=False)


def _har_headers(headers) -> dict[str, str]:
    """HAR's list of ``{"name", "value"}`` objects as a dict; ``ValueError`` for another shape."""
    if headers is not None and not isinstance(headers, list):
        raise ValueError("headers must be a list of {name, value} objects")
    return {_field(h, "name", (str,), "header").lower(): _field(h, "value", (str,), "header") for h in headers or []}


def json_or_text(text: str | None) -> Any:
    """A body as JSON when it parses, else the text; ``None`` for an empty one."""
    if text is None or not text.strip():
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def _lower(headers: dict[str, Any]) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in headers.items()}


def _event(event_id, kind: str, data: str, retry) -> SseEvent:
    return event_from_fields(None if event_id is None else str(event_id), str(kind), str(data),
                             None if retry is None else int(retry))


def to_har(records: list[Record], began: datetime) -> dict[str, Any]:
    """A HAR 1.2 document of ``records`` (``began``: the wall-clock time of second 0,
    timezone-aware). SSE bodies are written back as event-stream text; what HAR
    cannot hold (arrival times, how an exchange ended) is lost."""
    return {"log": {"version": "1.2", "creator": {"name": "mcp-resume", "version": "1"},
                    "entries": [_har_entry(r, began) for r in records]}}


def _har_entry(record: Record, began: datetime) -> dict[str, Any]:
    x = record.exchange
    started = datetime.fromtimestamp(began.timestamp() + record.started, began.tzinfo)
    elapsed = (record.ended - record.started) * 1000 if record.ended is not None else 0.0
    request: dict[str, Any] = {"method": x.method, "url": x.url, "httpVersion": "HTTP/1.1", "cookies": [],
                               "headers": _har_header_list(x.request_headers), "queryString": [],
                               "headersSize": -1, "bodySize": -1}
    if x.request_body is not None:
        text = x.request_body if isinstance(x.request_body, str) else json.dumps(x.request_body)
        request["postData"] = {"mimeType": x.request_headers.get("content-type", "application/json"), "text": text}
    if x.events or x.retry is not None:
        text = _retry_block(x) + "".join(_as_block(e.id, e.event, e.data, e.retry) for e in x.events)
    elif x.body is not None:
        text = x.body if isinstance(x.body, str) else json.dumps(x.body)
    else:
        text = ""
    response = {"status": x.status or 0, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": _har_header_list(x.response_headers),
                "content": {"size": len(text), "mimeType": x.response_headers.get("content-type", ""), "text": text},
                "redirectURL": "", "headersSize": -1, "bodySize": -1}
    return {"startedDateTime": started.isoformat(), "time": round(elapsed, 3), "request": request,
            "response": response, "cache": {}, "timings": {"send": 0, "wait": round(elapsed, 3), "receive": 0}}


def _har_header_list(headers: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in headers.items()]


def _retry_block(x: Exchange) -> str:
    """A block with only the exchange's ``retry`` field, when no event carries it (so the
    HAR keeps what the stream said; the field applies wherever it stands)."""
    if x.retry is None or any(e.retry is not None for e in x.events):
        return ""
    return f"retry: {int(x.retry)}\n\n"


def _as_block(event_id, kind: str, data: str, retry) -> str:
    lines = [] if event_id is None else [f"id: {event_id}"]
    lines.append(f"event: {kind}")
    lines += [f"data: {line}" for line in (data.split("\n") if data else [""])]
    if retry is not None:
        lines.append(f"retry: {int(retry)}")
    return "\n".join(lines) + "\n\n"
