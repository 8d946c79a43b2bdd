"""Evidence of HTTP exchanges with a Streamable HTTP server: what was sent, what came back.

Every request the HTTP client makes becomes one ``Exchange``; every SSE event it
read becomes one ``SseEvent``. Both serialise to plain JSON (``to_json``) for the
reports of ``mcp-resume verify``. Nothing here does I/O.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from mcp_resume.spec.headers import is_well_formed

SUMMARY_CHARS = 80
"""Longest text kept of a body or of an event's data in a summary."""

REQUEST_HEADERS_KEPT = (
    "accept", "content-type", "mcp-session-id", "last-event-id", "mcp-protocol-version", "mcp-method", "mcp-name"
)
RESPONSE_HEADERS_KEPT = ("content-type", "mcp-session-id", "allow", "location")


class End(str, Enum):
    """How an exchange ended."""

    CLOSED = "closed"  # the server ended the response body
    RESPONSE = "response"  # the JSON-RPC response awaited arrived; the client stopped reading
    DROPPED = "dropped"  # the client closed the connection on purpose
    IDLE = "idle"  # no event within the idle bound; the client closed the connection
    DEADLINE = "deadline"  # the whole-exchange bound passed; the client closed the connection
    ERROR = "error"  # the exchange failed: see ``Exchange.error``


class ErrorKind(str, Enum):
    """Why an exchange failed (``Exchange.error_kind``)."""

    CONNECT = "connect"  # refused, unreachable, or no connection within the connect bound
    FIRST_BYTE = "first-byte"  # no response head within the first-byte bound
    NETWORK = "network"  # the connection broke while reading
    CONTENT_TYPE = "content-type"  # a body of a type the exchange cannot carry
    NOT_JSON = "not-json"  # a JSON body or an event's data that does not parse as JSON
    BROKEN_SSE = "broken-sse"  # an SSE body that is not a valid MCP event stream
    PROTOCOL = "protocol"  # anything else that is not Streamable HTTP


@dataclass(slots=True)
class SseEvent:
    """One SSE event as read: its ``id`` (``None`` when absent), type, raw data and,
    when the data is JSON, the parsed JSON-RPC ``message``. In a compact record
    (``model.traffic.compact``) ``data`` is an excerpt and ``message`` what the judge reads
    of it."""

    id: str | None
    event: str
    data: str
    retry: int | None = None
    message: dict[str, Any] | None = None

    @property
    def is_priming(self) -> bool:
        """An event with no data: a priming event (MCP D8) or a bare cursor."""
        return self.data == ""

    @property
    def request_id(self) -> Any:
        """The JSON-RPC id of a request or response carried, else ``None``."""
        return self.message.get("id") if isinstance(self.message, dict) else None

    @property
    def method(self) -> str | None:
        return self.message.get("method") if isinstance(self.message, dict) else None

    @property
    def is_server_request(self) -> bool:
        """A JSON-RPC request from the server (it has both ``method`` and ``id``)."""
        return self.method is not None and self.request_id is not None

    @property
    def is_input_request(self) -> bool:
        """A server request that waits on the client (sampling, elicitation, roots): any but
        ``ping``, a liveness probe that nobody re-emits and no resumption owes (MCP B21)."""
        return self.is_server_request and self.method != "ping"

    @property
    def cancels(self) -> str | None:
        """The server request a ``notifications/cancelled`` event cancels (its ``requestId``, as text)."""
        if self.method != "notifications/cancelled" or not isinstance(self.message, dict):
            return None
        request_id = (self.message.get("params") or {}).get("requestId")
        return None if request_id is None else str(request_id)

    def is_response_to(self, request_id: Any) -> bool:
        """A JSON-RPC result or error answering ``request_id``."""
        if not isinstance(self.message, dict) or self.method is not None:
            return False
        return self.message.get("id") == request_id and ("result" in self.message or "error" in self.message)

    def summary(self) -> str:
        """A short description of the data: the JSON-RPC kind, method and id."""
        if self.is_priming:
            return "(empty data)"
        if self.message is None:
            return f"non-JSON: {_cut(self.data)}"
        return summarize_message(self.message)

    def to_json(self) -> dict[str, Any]:
        item: dict[str, Any] = {"id": self.id, "data": self.summary()}
        if self.retry is not None:
            item["retry"] = self.retry
        return item


@dataclass
class Exchange:
    """One HTTP request and what came back.

    - ``label``: what the scenario meant by it (e.g. "resume from a middle event id");
    - ``request_headers`` / ``response_headers``: only those that matter here;
    - ``sent``: a summary of the JSON-RPC body sent, if any; ``request_body``: that body;
    - ``status``: the HTTP status, ``None`` when no response head arrived;
    - ``events``: SSE events read, in order; ``body``: a JSON body, parsed;
    - ``end``: how it ended; ``error_kind`` / ``error``: why it failed, one line;
    - ``seconds``: wall time from sending to the end;
    - ``started`` / ``head`` / ``ended``: when it was sent, when its response head
      came and when it ended, and ``arrivals[i]`` when ``events[i]`` came, in
      seconds of ``time.monotonic()`` (``None`` / empty when not timed), so that
      the exchanges of one run can be laid on one time line (``model.traffic.records``);
    - ``expires``: when (``time.monotonic()``) what this exchange opened runs out of the
      time to live the server states (``verify --stream-ttl`` / ``--session-ttl``): its
      stream, or the session an ``initialize`` opened;
    - ``promised``: when (``time.monotonic()``) the server has sent every event of this
      exchange's stream, by the definition of the fixture tool it called;
    - ``retry``: the last SSE ``retry`` field of the response, in milliseconds, whether its
      block made an event or held that field alone (a field of its own sets the client's
      reconnection time all the same: MCP D10, D23); ``None`` when none came.
    """

    label: str
    method: str
    url: str
    request_headers: dict[str, str] = field(default_factory=dict)
    sent: str | None = None
    request_body: Any = None
    status: int | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    events: list[SseEvent] = field(default_factory=list)
    body: Any = None
    end: End | None = None
    error_kind: ErrorKind | None = None
    error: str | None = None
    seconds: float = 0.0
    started: float | None = None
    head: float | None = None
    ended: float | None = None
    arrivals: list[float] = field(default_factory=list)
    expires: float | None = None
    promised: float | None = None
    retry: int | None = None

    @property
    def ok(self) -> bool:
        """True when the exchange did not fail (whatever its status)."""
        return self.error is None

    @property
    def session_header(self) -> str | None:
        return self.response_headers.get("mcp-session-id")

    @property
    def names_malformed_session(self) -> bool:
        """The answer carries an ``Mcp-Session-Id`` outside 0x21-0x7E, or an empty one (MCP B30):
        a malformed id sent back, or one the server minted so."""
        header = self.session_header
        return header is not None and not is_well_formed(header)

    def responds_to(self, request_id: Any) -> bool:
        """A JSON-RPC result or error for ``request_id`` came back, on SSE or as a JSON body."""
        return any(
            isinstance(m, dict) and m.get("id") == request_id and "method" not in m and ("result" in m or "error" in m)
            for m in self.messages
        )

    @property
    def content_type(self) -> str:
        return self.response_headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def messages(self) -> list[dict[str, Any]]:
        """JSON-RPC messages received, from the events or the JSON body, in order."""
        if self.events:
            return [e.message for e in self.events if isinstance(e.message, dict)]
        if isinstance(self.body, dict):
            return [self.body]
        return []

    @property
    def data_events(self) -> list[SseEvent]:
        """Events that carry data (priming events left out)."""
        return [e for e in self.events if not e.is_priming]

    def fail(self, kind: ErrorKind, message: str) -> "Exchange":
        self.end = End.ERROR
        self.error_kind = kind
        self.error = message
        return self

    def one_line(self) -> str:
        """``GET [sid=…, leid=…] -> 200 text/event-stream, 3 events (idle)``."""
        headers = []
        if "mcp-session-id" in self.request_headers:
            headers.append(f"sid={_cut(self.request_headers['mcp-session-id'], 16)}")
        if "last-event-id" in self.request_headers:
            headers.append(f"leid={_cut(self.request_headers['last-event-id'], 16)}")
        request = f"{self.method}{' ' + self.sent if self.sent else ''} [{', '.join(headers) or 'no session'}]"
        if self.error:
            return f"{request} -> error: {self.error}"
        events = f", {len(self.events)} events" if self.events else ""
        end = f" ({self.end.value})" if self.end else ""
        return f"{request} -> {self.status} {self.content_type}{events}{end}"

    def to_json(self) -> dict[str, Any]:
        item: dict[str, Any] = {
            "label": self.label,
            "request": {"method": self.method, "url": self.url, "headers": self.request_headers},
            "status": self.status,
            "response_headers": self.response_headers,
            "end": self.end.value if self.end else None,
            "seconds": round(self.seconds, 3),
        }
        if self.sent:
            item["request"]["body"] = self.sent
        if self.events:
            item["events"] = [e.to_json() for e in self.events]
        if self.retry is not None:
            item["retry"] = self.retry
        if self.body is not None:
            item["body"] = summarize_message(self.body) if isinstance(self.body, dict) else _cut(str(self.body))
        if self.error:
            item["error"] = {"kind": self.error_kind.value if self.error_kind else None, "message": self.error}
        return item


def error_code(body: Any) -> int | None:
    """The JSON-RPC error code of a refusal's JSON body, if it has one."""
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, int) else None


def summarize_message(message: Any) -> str:
    """``request tools/call id=3``, ``notification notifications/message``, ``response id=3`` ..."""
    if not isinstance(message, dict):
        return _cut(json.dumps(message))
    method, has_id = message.get("method"), "id" in message
    if method is not None and has_id:
        return f"request {method} id={message['id']!r}"
    if method is not None:
        return f"notification {method}{_notification_detail(message)}"
    if "error" in message:
        error = message.get("error") or {}
        code = error.get("code") if isinstance(error, dict) else None
        text = error.get("message") if isinstance(error, dict) else error
        return f"error id={message.get('id')!r} code={code}: {_cut(str(text), 48)}"
    if "result" in message:
        return f"response id={message.get('id')!r}"
    return _cut(json.dumps(message))


def _notification_detail(message: dict[str, Any]) -> str:
    params = message.get("params")
    if not isinstance(params, dict):
        return ""
    if "data" in params:
        return f" {_cut(str(params['data']), 40)!r}"
    if "requestId" in params:
        return f" requestId={params['requestId']!r}"
    if "progress" in params:
        return f" progress={params['progress']}"
    return ""


def _cut(text: str, limit: int = SUMMARY_CHARS) -> str:
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    return text if len(text) <= limit else text[: limit - 1] + "…"
