"""The zoo: an MCP Streamable HTTP server written from the transport text alone, with switchable variants.

It shares no code and no reading with the project's checker or its other test servers. Rule ids (B15, D8, ...) are
those of the MCP transport rules, listed with their gist in docs/sources.md.

Run it::

    python tests/helpers/servers/zoo.py --port P [--variant NAME[,NAME...]] [--session-ttl S]

It binds 127.0.0.1 only, serves the endpoint ``/mcp`` and prints one stdout line, ``zoo listening on
http://127.0.0.1:P/mcp``, once it accepts connections. ``app(variants, session_ttl)`` gives the plain ASGI app and
``VARIANTS`` describes every switch.

The model, in short:

- A *session* (B28) owns *streams*. Each POSTed request gets a POST stream and each GET without ``Last-Event-ID``
  gets a new standalone stream. A stream keeps every event it was given (or the last 3 under ``ring-buffer``) until
  the session ends.
- An *event* is ``(id, seq, message | None, retry)``: ``message is None`` is the priming event (D8). Event ids are
  unique within the session (B23/D27), and ``Session.ids`` maps each one back to ``(stream, seq)`` (D28).
- A *connection* is one HTTP response body that writes a stream's events from a cursor onward. A stream has at most
  one connection at a time, and a newer one takes the stream over (B21: no message goes out twice live). When the
  connection closes the stream goes on, and a later GET with ``Last-Event-ID`` resumes it (B24/B25). Dropping a
  connection never cancels the work behind it (B12/D15).
- A *pending request* is a server-to-client request (sampling, elicitation) still waiting for its answer. Its
  *carrier* is the stream it was last written to.

Everything runs on one asyncio loop, and state changes happen between awaits, so every check-then-act block
below is atomic unless it awaits. ``Session.lock`` guards the GET admission, the one place that combines checks,
and ``Zoo`` holds the only mutable state: the session table and its counters.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable
from urllib.parse import urlsplit

LATEST_VERSION = "2025-11-25"
SUPPORTED_VERSIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
RETRY_MS = 1000
SERVER_REQUEST_TIMEOUT = 30.0
SILENT_DROP_TIMEOUT = 20.0
RING_SIZE = 3
DEFAULT_SESSION_TTL = 8.0
MAX_BODY = 4 * 1024 * 1024
STEP_SECONDS = 0.05
RECONNECTION_WORK_SECONDS = 0.3
INVALID_CURSOR_CODE = -32002
"""The JSON-RPC error code of a refused Last-Event-ID: MCP names none; any stable code other than the
missing-session refusal's lets a client tell "bad cursor" (keep the session) from "no session"."""
GIVEN_UP = "zoo/given-up"  # key of the internal answer that fails a pending request (never sent on the wire)

Message = dict[str, Any]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]


# --------------------------------------------------------------------------------------------------------------------
# Variants
# --------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """One switch of the zoo: ``name``, whether a conforming checker must accept it (``correct``), what it does, and
    the MCP rule ids it concerns."""

    name: str
    correct: bool
    description: str
    rules: tuple[str, ...]


def _variants(*rows: tuple[str, bool, str, tuple[str, ...]]) -> dict[str, Variant]:
    return {name: Variant(name, correct, text, rules) for name, correct, text, rules in rows}


VARIANTS: dict[str, Variant] = _variants(
    ("counter-ids", True, "event ids count 1,2,3... per session (across its streams); server request ids count "
     "from 0 per session", ("B23", "D27", "D28", "B41")),
    ("opaque-ids", True, "event ids are random tokens that map to (stream, position) in a server-side table "
     "(the default)", ("B23", "D27", "D28")),
    ("global-counter", True, "one event-id counter for the whole server, shared by all sessions", ("B23", "D27")),
    ("get-405", True, "a GET without Last-Event-ID is answered 405; server requests travel only on the call's "
     "POST stream (resumable by Last-Event-ID)", ("B15", "D18")),
    ("one-standalone", True, "one standalone stream per session: a new GET ends the older standalone stream and "
     "closes its connection", ("B20", "B21", "D24")),
    ("second-get-409", True, "a GET without Last-Event-ID while a standalone stream is connected is refused 409",
     ("B20", "D24")),
    ("second-get-400", True, "a GET without Last-Event-ID while a standalone stream is connected is refused 400",
     ("B20", "D24")),
    ("polling", True, "every POST stream's connection is closed after the priming event and its first message "
     "(with retry); the rest waits for a GET with Last-Event-ID", ("D9", "D10", "D29", "D31")),
    ("batch-close", True, "a GET with Last-Event-ID writes what is due (or the next event if nothing is), then "
     "closes the connection without ending the stream", ("D9", "D10", "D23", "D25")),
    ("ring-buffer", True, "each stream keeps only its last 3 events; resuming from an evicted event is 400",
     ("B25", "D30")),
    ("cancel-on-resume", True, "a GET without Last-Event-ID cancels (notifications/cancelled) every pending request "
     "whose carrying connection dropped instead of sending it again", ("B39", "B12")),
    ("json-answers", True, "POSTed requests are answered application/json; the call's notifications and requests "
     "go on the session's connected GET stream, or wait for the next GET", ("B7", "D7", "B16")),
    ("session-ttl", True, "a session idle (no request, no open connection) for --session-ttl seconds (default 8) "
     "ends: 404 afterwards", ("B33", "D39")),
    ("same-text", True, "every notification of a tool carries the same text on every call (no call id in it)",
     ("B9",)),
    ("response-on-get", False, "with a connected standalone GET stream, a tool's response is written there and its "
     "POST stream ends without it", ("B18", "D21")),
    ("cross-call-notices", False, "while two calls of a session run, one call's progress notifications go on the "
     "other call's POST stream", ("B9", "D12")),
    ("post-resume-replay", False, "a POST carrying Last-Event-ID first replays the events after that id, then its "
     "own answer", ("D31", "B26")),
    ("notification-200", False, "POSTed notifications and responses get 200 with a JSON-RPC error body instead of "
     "202", ("B6", "C6")),
    ("silent-drop", False, "test_sampling/test_elicitation never send their request and test_tool_with_logging "
     "never logs; each call hangs until a 20 s timeout", ("B9", "D11")),
    ("predictable-ids", False, "session ids are session-1, session-2, ...", ("D50", "B29")),
    ("past-end-200", False, "event ids read <stream>_<seq>; a Last-Event-ID past the end of a real stream gets 200 "
     "with an empty stream that never delivers that stream's later events", ("B25", "D30")),
    ("per-session-global-lookup", False, "counter event ids per session, but Last-Event-ID is looked up across all "
     "sessions, first match wins (cross-session replay)", ("B26", "D30", "B23")),
    ("unknown-session-400", False, "an unknown or ended session id gets 400 instead of 404", ("B33", "D39")),
    ("no-reemit", False, "a GET without Last-Event-ID never sends pending requests again (they stay stranded)",
     ("B21", "B39")),
    ("headless-get", False, "a GET without Last-Event-ID is taken and never answered: no status line, no headers, "
     "until the client goes away", ("B15",)),
)

INCOMPATIBLE: tuple[frozenset[str], ...] = tuple(frozenset(pair) for pair in (
    ("counter-ids", "opaque-ids"), ("counter-ids", "global-counter"), ("opaque-ids", "global-counter"),
    ("past-end-200", "counter-ids"), ("past-end-200", "global-counter"), ("past-end-200", "opaque-ids"),
    ("per-session-global-lookup", "opaque-ids"), ("per-session-global-lookup", "global-counter"),
    ("per-session-global-lookup", "past-end-200"),
    ("second-get-409", "second-get-400"), ("one-standalone", "second-get-409"), ("one-standalone", "second-get-400"),
    ("get-405", "one-standalone"), ("get-405", "second-get-409"), ("get-405", "second-get-400"),
    ("get-405", "json-answers"), ("get-405", "response-on-get"),
    ("cancel-on-resume", "no-reemit"),
    ("json-answers", "polling"), ("json-answers", "response-on-get"), ("json-answers", "cross-call-notices"),
    ("json-answers", "post-resume-replay"),
))


def check_variants(names: frozenset[str]) -> None:
    """Raise ``ValueError`` for an unknown name or for two switches that contradict each other."""
    unknown = sorted(names - VARIANTS.keys())
    if unknown:
        raise ValueError(f"unknown variant(s): {', '.join(unknown)}")
    for pair in INCOMPATIBLE:
        if pair <= names:
            raise ValueError(f"variants cannot be combined: {' + '.join(sorted(pair))}")


# --------------------------------------------------------------------------------------------------------------------
# Streams, events, connections
# --------------------------------------------------------------------------------------------------------------------


@dataclass
class Event:
    """One SSE event of a stream: ``id``, its position ``seq`` in the stream, the JSON-RPC ``message`` (``None`` for the
    priming event, D8) and an optional ``retry`` in ms (D10)."""

    id: str
    seq: int
    message: Message | None
    retry: int | None = None

    def encode(self) -> bytes:
        """The wire form: ``id:`` [``retry:``] (``data:`` empty | ``event: message`` + one ``data:`` JSON line)."""
        lines = [f"id: {self.id}"]
        if self.retry is not None:
            lines.append(f"retry: {self.retry}")
        if self.message is None:
            lines.append("data: ")
        else:
            lines.append("event: message")
            lines.append("data: " + json.dumps(self.message, separators=(",", ":")))
        return ("\n".join(lines) + "\n\n").encode()


class Connection:
    """One HTTP response that writes a stream's events from ``cursor`` (a seq) onward.

    ``stop_after``: close the connection, not the stream, after writing the event with that seq (D9).
    ``inject``: foreign events written right after the first own event (only the faulty ``post-resume-replay``).
    ``kicked``: closed by the server (takeover, session end).
    """

    def __init__(self, stream: Stream, cursor: int) -> None:
        self.stream = stream
        self.cursor = cursor
        self.stop_after: int | None = None
        self.inject: list[Event] = []
        self.kicked = False
        self.wake = asyncio.Event()

    def kick(self) -> None:
        """Ask the writer to end this response now."""
        self.kicked = True
        self.wake.set()


class Stream:
    """An SSE stream of a session: ``key``, ``standalone`` (GET) or POST, its retained ``events`` (seq ``base`` ...
    ``next_seq - 1``), ``done`` once terminated (D14), and ``conn``, the connection that currently writes it."""

    def __init__(self, key: str, standalone: bool, ring: int | None) -> None:
        self.key = key
        self.standalone = standalone
        self.ring = ring
        self.events: list[Event] = []
        self.base = 0
        self.next_seq = 0
        self.done = False
        self.conn: Connection | None = None
        self.close_after_first = False

    def append(self, event: Event) -> None:
        """Store ``event`` (evicting the oldest beyond ``ring``) and wake the connection."""
        self.events.append(event)
        self.next_seq += 1
        if self.ring is not None and len(self.events) > self.ring:
            del self.events[0]
            self.base += 1
        if self.conn is not None:
            self.conn.wake.set()

    def event_at(self, seq: int) -> Event | None:
        """The retained event at ``seq``, or ``None`` if it was evicted."""
        return self.events[seq - self.base] if self.base <= seq < self.next_seq else None

    def retained(self, seq: int) -> bool:
        return self.base <= seq < self.next_seq

    def finish(self) -> None:
        """Terminate the stream: its connection ends the response once everything due is written (D14)."""
        self.done = True
        if self.conn is not None:
            self.conn.wake.set()


async def pump(conn: Connection, write: Callable[[bytes], Awaitable[None]]) -> None:
    """Write ``conn.stream``'s events from ``conn.cursor`` on, live, until the stream is done, the connection is
    kicked, or ``stop_after`` is reached. Evicted events are skipped."""
    stream = conn.stream
    while True:
        while conn.cursor < stream.next_seq and not conn.kicked:
            event = stream.event_at(conn.cursor)
            conn.cursor += 1
            if event is not None:
                await write(event.encode())
                for foreign in conn.inject:
                    await write(foreign.encode())
                conn.inject = []
            if conn.stop_after is not None and conn.cursor > conn.stop_after:
                return
        if conn.kicked or stream.done:
            return
        conn.wake.clear()
        await conn.wake.wait()


# --------------------------------------------------------------------------------------------------------------------
# Sessions, calls, pending server requests
# --------------------------------------------------------------------------------------------------------------------


class ToolFailure(Exception):
    """A tool ends with ``isError: true`` and this text."""


@dataclass
class Call:
    """A client request being answered: its JSON-RPC ``request_id``, ``method``, ``params``, the POST ``stream``
    (``None`` under ``json-answers``), a per-session ``number`` for log texts, the running ``task``, and under
    ``json-answers`` the future the JSON answer waits on."""

    request_id: Any
    method: str
    params: dict[str, Any]
    stream: Stream | None
    number: int
    task: asyncio.Task[None] | None = None
    answer: asyncio.Future[Message] | None = None


@dataclass
class Pending:
    """A server-to-client request waiting for its answer: ``message`` (sent again verbatim), the ``call`` it serves,
    ``carrier`` (the stream it was last written to, ``None`` if never written) and the ``future`` for the answer."""

    message: Message
    call: Call
    future: asyncio.Future[Message]
    carrier: Stream | None = None


class Session:
    """One MCP session (B28): its streams, the event-id table (D28), running calls and pending server requests.

    ``ids``: event id -> (stream, seq); ``calls``: client request id -> Call; ``pending``: server request id ->
    Pending; ``outbox``: notifications waiting for a GET stream (``json-answers`` only).
    """

    def __init__(self, zoo: Zoo, sid: str, version: str, client_caps: dict[str, Any]) -> None:
        self.zoo = zoo
        self.id = sid
        self.version = version
        self.client_caps = client_caps
        self.streams: dict[str, Stream] = {}
        self.ids: dict[str, tuple[Stream, int]] = {}
        self.calls: dict[Any, Call] = {}
        self.pending: dict[Any, Pending] = {}
        self.outbox: list[Message] = []
        self.event_counter = 0
        self.request_counter = 0
        self.call_counter = 0
        self.open_connections = 0
        self.last_seen = time.monotonic()
        self.ended = False
        self.lock = asyncio.Lock()

    # -- streams and events -----------------------------------------------------------------------------------------

    def new_stream(self, standalone: bool) -> Stream:
        """Create a stream and write its priming event (id, empty data, ``retry``; D8/D10)."""
        key = secrets.token_hex(6)
        while key in self.streams:
            key = secrets.token_hex(6)
        stream = Stream(key, standalone, RING_SIZE if "ring-buffer" in self.zoo.variants else None)
        self.streams[key] = stream
        self.emit(stream, None, retry=RETRY_MS)
        return stream

    def emit(self, stream: Stream, message: Message | None, *, retry: int | None = None,
             close_connection: bool = False) -> Event:
        """Append ``message`` to ``stream`` under a fresh event id; with ``close_connection`` the live connection
        closes after writing it (D9). Under ``polling`` the first message of a POST stream does that too (D10)."""
        if message is not None and stream.close_after_first:
            stream.close_after_first = False
            retry, close_connection = RETRY_MS, True
        seq = stream.next_seq
        event = Event(self.zoo.mint_event_id(self, stream, seq), seq, message, retry)
        self.ids[event.id] = (stream, seq)
        stream.append(event)
        if close_connection and stream.conn is not None:
            stream.conn.stop_after = seq
        return event

    def live_standalone(self) -> Stream | None:
        """The most recent standalone stream that has an open connection."""
        live = [s for s in self.streams.values() if s.standalone and s.conn is not None and not s.done]
        return live[-1] if live else None

    def attach(self, stream: Stream, conn: Connection) -> None:
        """Make ``conn`` the stream's only connection; an older one is closed (B21)."""
        if stream.conn is not None and stream.conn is not conn:
            self.detach(stream.conn)
        stream.conn = conn

    @staticmethod
    def detach(conn: Connection) -> None:
        """Close ``conn`` and unhook it from its stream (the stream itself goes on)."""
        conn.kick()
        if conn.stream.conn is conn:
            conn.stream.conn = None

    # -- routing of a call's messages -------------------------------------------------------------------------------

    def notify(self, call: Call, message: Message) -> None:
        """Send a notification of ``call``: on its POST stream (B9/D12); under ``json-answers`` on a live GET stream
        or into the outbox; under the faulty ``cross-call-notices`` progress goes to another running call."""
        if self.ended:
            return
        if "json-answers" in self.zoo.variants:
            target = self.live_standalone()
            if target is None:
                self.outbox.append(message)
                return
        elif message.get("method") == "notifications/progress" and "cross-call-notices" in self.zoo.variants:
            target = self.other_call_stream(call) or call.stream
        else:
            target = call.stream
        if target is not None:
            self.emit(target, message)

    def other_call_stream(self, call: Call) -> Stream | None:
        """The POST stream of the latest other running call of this session, if any."""
        others = [c.stream for c in self.calls.values()
                  if c is not call and c.stream is not None and not c.stream.done]
        return others[-1] if others else None

    def respond(self, call: Call, message: Message | None) -> None:
        """Deliver ``call``'s response (``None``: cancelled, no response) and terminate its POST stream (D14).
        Under the faulty ``response-on-get`` the response goes to a live GET stream instead (breaks B18/D21)."""
        self.calls.pop(call.request_id, None)
        if self.ended:
            return
        if call.answer is not None:
            if call.answer.done():
                return
            if message is None:
                call.answer.cancel()
            else:
                call.answer.set_result(message)
            return
        assert call.stream is not None
        target = call.stream
        if message is not None and call.method == "tools/call" and "response-on-get" in self.zoo.variants:
            target = self.live_standalone() or call.stream
        if message is not None:
            self.emit(target, message)
        call.stream.finish()

    # -- server-to-client requests ----------------------------------------------------------------------------------

    def next_request_id(self) -> Any:
        """Per-session integers from 0 under ``counter-ids``, else random strings; never reused (B41)."""
        if "counter-ids" in self.zoo.variants:
            self.request_counter += 1
            return self.request_counter - 1
        rid = f"zoo-{secrets.token_hex(6)}"
        while rid in self.pending:
            rid = f"zoo-{secrets.token_hex(6)}"
        return rid

    async def ask(self, call: Call, method: str, params: dict[str, Any],
                  timeout: float = SERVER_REQUEST_TIMEOUT) -> dict[str, Any]:
        """Send a request to the client on the call's stream (B9) and wait up to ``timeout`` for its answer.

        Returns the answer's ``result``. Raises ``ToolFailure`` on an error answer, when the server gives up on the
        request (``cancel_pending``), or on timeout (after sending ``notifications/cancelled``, B39)."""
        rid = self.next_request_id()
        message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        pending = Pending(message, call, asyncio.get_running_loop().create_future())
        self.pending[rid] = pending
        target = self.live_standalone() if "json-answers" in self.zoo.variants else call.stream
        if target is not None:
            self.emit(target, message)
            pending.carrier = target
        try:
            answer = await asyncio.wait_for(pending.future, timeout)
        except asyncio.TimeoutError:
            self.cancel_pending(pending, f"no answer within {timeout:g} s", pending.carrier)
            raise ToolFailure(f"{method} got no answer within {timeout:g} s") from None
        except asyncio.CancelledError:
            self.cancel_pending(pending, "the call was cancelled", pending.carrier)
            raise
        finally:
            self.pending.pop(rid, None)
        if GIVEN_UP in answer:
            raise ToolFailure(f"{method} cancelled: {answer[GIVEN_UP]}")
        if "error" in answer:
            raise ToolFailure(f"{method} was refused: {answer['error'].get('message', answer['error'])}")
        return answer.get("result") or {}

    def cancel_pending(self, pending: Pending, reason: str, where: Stream | None) -> None:
        """Give up on ``pending``: tell the client on ``where`` (if it is still open) and fail the waiting tool."""
        self.pending.pop(pending.message["id"], None)
        if where is not None and not where.done and not self.ended:
            self.emit(where, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                              "params": {"requestId": pending.message["id"], "reason": reason}})
        if not pending.future.done():
            pending.future.set_result({GIVEN_UP: reason})

    def on_session_resumed(self, stream: Stream) -> None:
        """A GET without Last-Event-ID opened ``stream``: each pending request whose carrier has no open connection
        (or that was never written) is written again here with the same id, or cancelled under ``cancel-on-resume``,
        or left alone under the faulty ``no-reemit``. A request whose carrier is still connected is not touched
        (B21). Then queued notifications (``json-answers``) follow."""
        for pending in list(self.pending.values()):
            if pending.carrier is not None and pending.carrier.conn is not None:
                continue
            if "no-reemit" in self.zoo.variants and pending.carrier is not None:
                continue
            if "cancel-on-resume" in self.zoo.variants and pending.carrier is not None:
                self.cancel_pending(pending, "its stream dropped; cancelled on session resumption", stream)
                continue
            self.emit(stream, pending.message)
            pending.carrier = stream
        for message in self.outbox:
            self.emit(stream, message)
        self.outbox.clear()

    # -- client messages ---------------------------------------------------------------------------------------------

    def accept(self, message: Message) -> None:
        """Take a client notification or response: an answer resolves its pending request; ``notifications/cancelled``
        cancels the named call. Unknown answers and notifications are ignored."""
        if "method" not in message:
            pending = self.pending.get(message.get("id"))
            if pending is not None and not pending.future.done():
                pending.future.set_result(message)
            return
        if message["method"] == "notifications/cancelled":
            params = message.get("params") or {}
            target = params.get("requestId")
            call = self.calls.get(target) if valid_id(target) else None
            if call is not None and call.task is not None:
                call.task.cancel()

    def end(self) -> None:
        """End the session (DELETE, expiry): stop its calls, fail pending requests, terminate and close streams."""
        self.ended = True
        for call in list(self.calls.values()):
            if call.task is not None:
                call.task.cancel()
        for pending in list(self.pending.values()):
            if not pending.future.done():
                pending.future.set_result({GIVEN_UP: "the session ended"})
        for stream in self.streams.values():
            stream.finish()
            if stream.conn is not None:
                self.detach(stream.conn)

    def touch(self) -> None:
        self.last_seen = time.monotonic()


# --------------------------------------------------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------------------------------------------------


def _text(text: str, error: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if error:
        result["isError"] = True
    return result


def _schema(**props: str) -> dict[str, Any]:
    return {"type": "object", "properties": {name: {"type": "string", "description": d} for name, d in props.items()}}


TOOLS: list[dict[str, Any]] = [
    {"name": "test_simple_text", "description": "Answers with one text block.", "inputSchema": _schema()},
    {"name": "test_tool_with_logging", "description": "Logs three times, 50 ms apart, then answers.",
     "inputSchema": _schema()},
    {"name": "test_tool_with_progress", "description": "Reports progress three times (needs a progressToken).",
     "inputSchema": _schema()},
    {"name": "test_sampling", "description": "Asks the client for a sampling/createMessage and returns its text.",
     "inputSchema": _schema(prompt="what to ask the model")},
    {"name": "test_elicitation", "description": "Asks the user through elicitation/create and returns the answer.",
     "inputSchema": _schema(message="what to ask the user")},
    {"name": "test_reconnection", "description": "Logs, closes the connection without ending the stream, works "
     "300 ms, logs again and answers; resume with GET + Last-Event-ID.", "inputSchema": _schema()},
]


class ToolBox:
    """The tools of one call. Each ``tool_*`` coroutine returns a CallToolResult dict or raises ``ToolFailure``."""

    def __init__(self, session: Session, call: Call) -> None:
        self.session = session
        self.call = call
        self.variants = session.zoo.variants
        self.args: dict[str, Any] = call.params.get("arguments") or {}

    def label(self, tool: str, what: str) -> str:
        """The text of a notification: names the call unless ``same-text``."""
        if "same-text" in self.variants:
            return f"{tool}: working"
        return f"{tool} call #{self.call.number} (request id {self.call.request_id!r}): {what}"

    def log(self, text: str, **emit: Any) -> None:
        """A ``notifications/message`` on the call's stream (B9)."""
        message = {"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "logger": "zoo", "data": text}}
        if emit:
            assert self.call.stream is not None
            self.session.emit(self.call.stream, message, **emit)
        else:
            self.session.notify(self.call, message)

    async def hang_if_silent(self, what: str) -> None:
        """Under the faulty ``silent-drop``: send nothing, hang, then fail with a timeout
        (``what``: the prefix of its message, e.g. ``"sampling "``)."""
        if "silent-drop" in self.variants:
            await asyncio.sleep(SILENT_DROP_TIMEOUT)
            raise ToolFailure(f"{what}timed out after {SILENT_DROP_TIMEOUT:g} s")

    async def tool_test_simple_text(self) -> dict[str, Any]:
        return _text("Hello from the zoo.")

    async def tool_test_tool_with_logging(self) -> dict[str, Any]:
        await self.hang_if_silent("")
        for i in range(1, 4):
            self.log(self.label("test_tool_with_logging", f"log {i} of 3"))
            await asyncio.sleep(STEP_SECONDS)
        return _text("Logged three times.")

    async def tool_test_tool_with_progress(self) -> dict[str, Any]:
        token = ((self.call.params.get("_meta") or {}).get("progressToken"))
        for i in range(1, 4):
            await asyncio.sleep(STEP_SECONDS)
            if token is not None:
                self.session.notify(self.call, {
                    "jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": i, "total": 3,
                               "message": self.label("test_tool_with_progress", f"step {i} of 3")}})
        return _text("Progress reported." if token is not None else "Done (no progressToken was given).")

    async def tool_test_sampling(self) -> dict[str, Any]:
        await self.hang_if_silent("sampling ")
        prompt = str(self.args.get("prompt") or "Say hello to the zoo.")
        result = await self.session.ask(self.call, "sampling/createMessage", {
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}], "maxTokens": 64})
        content = result.get("content")
        text = content.get("text") if isinstance(content, dict) else None
        return _text(f"Sampling answered: {text if text is not None else json.dumps(content)}")

    async def tool_test_elicitation(self) -> dict[str, Any]:
        await self.hang_if_silent("elicitation ")
        question = str(self.args.get("message") or "What is your favourite animal?")
        result = await self.session.ask(self.call, "elicitation/create", {
            "message": question,
            "requestedSchema": {"type": "object", "properties": {"answer": {"type": "string"}}}})
        return _text(f"Elicitation answered: action={result.get('action')} content="
                     f"{json.dumps(result.get('content'), sort_keys=True)}")

    async def tool_test_reconnection(self) -> dict[str, Any]:
        """SEP-1699 polling (D9/D10): one log that carries ``retry`` and closes the connection, 300 ms of work, then
        a second log and the result, stored for a GET with Last-Event-ID."""
        before = self.label("test_reconnection", "before the break")
        if self.call.stream is not None:
            self.log(before, retry=RETRY_MS, close_connection=True)
        else:
            self.log(before)
        await asyncio.sleep(RECONNECTION_WORK_SECONDS)
        self.log(self.label("test_reconnection", "after the break"))
        return _text("Reconnection test finished.")


async def run_call(session: Session, call: Call) -> None:
    """Answer ``call`` (ping, tools/list, tools/call, logging/setLevel; else -32601) and deliver the response.
    A cancelled call ends its stream without a response."""
    try:
        message = await answer(session, call)
    except asyncio.CancelledError:
        session.respond(call, None)
        raise
    session.respond(call, message)


async def answer(session: Session, call: Call) -> Message:
    """The JSON-RPC response ``{"jsonrpc", "id", "result" | "error"}`` for ``call``."""
    def ok(result: dict[str, Any]) -> Message:
        return {"jsonrpc": "2.0", "id": call.request_id, "result": result}

    def err(code: int, text: str) -> Message:
        return {"jsonrpc": "2.0", "id": call.request_id, "error": {"code": code, "message": text}}

    if call.method in ("ping", "logging/setLevel"):
        return ok({})
    if call.method == "tools/list":
        return ok({"tools": TOOLS})
    if call.method != "tools/call":
        return err(-32601, f"Method not found: {call.method}")
    name = call.params.get("name")
    tool = getattr(ToolBox(session, call), f"tool_{name}", None) if isinstance(name, str) else None
    if tool is None:
        return err(-32602, f"Unknown tool: {name!r}")
    try:
        return ok(await tool())
    except ToolFailure as failure:
        return ok(_text(str(failure), error=True))


# --------------------------------------------------------------------------------------------------------------------
# HTTP helpers
# --------------------------------------------------------------------------------------------------------------------


class Reject(Exception):
    """An HTTP error answer: ``status`` with a JSON-RPC error body without id (B6), plus extra ``headers``."""

    def __init__(self, status: int, text: str, code: int = -32000,
                 headers: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(text)
        self.status = status
        self.body = {"jsonrpc": "2.0", "error": {"code": code, "message": text}}
        self.headers = headers


def visible_ascii(value: str) -> bool:
    """True when ``value`` is non-empty and only 0x21-0x7E (B30)."""
    return bool(value) and all(0x21 <= ord(ch) <= 0x7E for ch in value)


def local_origin(origin: str) -> bool:
    """An ``Origin`` header naming this machine (D2)."""
    try:
        return urlsplit(origin).hostname in ("127.0.0.1", "localhost", "::1")
    except ValueError:
        return False


def header_map(scope: dict[str, Any]) -> dict[str, str]:
    """Request headers, lower-case names, first value wins, decoded as latin-1."""
    found: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        found.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return found


async def read_body(receive: Receive) -> bytes:
    """The whole request body; 413 beyond ``MAX_BODY``; 400 if the client leaves before sending it."""
    chunks: list[bytes] = []
    size = 0
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            raise Reject(400, "client left before the body arrived")
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise Reject(413, "request body too large")
        chunks.append(chunk)
        if not event.get("more_body"):
            return b"".join(chunks)


async def send_json(send: Send, status: int, body: Any | None,
                    headers: tuple[tuple[str, str], ...] = ()) -> None:
    """A complete response: ``status``, JSON ``body`` (or none), extra ``headers``."""
    raw = b"" if body is None else json.dumps(body).encode()
    head = [(k.encode(), v.encode()) for k, v in headers]
    if body is not None:
        head.append((b"content-type", b"application/json"))
    head.append((b"content-length", str(len(raw)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": raw, "more_body": False})


async def wait_disconnect(receive: Receive) -> None:
    """Return when the client closes the connection."""
    while (await receive())["type"] != "http.disconnect":
        pass


def valid_id(value: Any) -> bool:
    """MCP request ids are strings or integers (never null, never bool)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def classify(message: Any) -> str:
    """``request`` | ``notification`` | ``response`` for a JSON-RPC 2.0 object; ``Reject(400)`` otherwise."""
    if isinstance(message, list):
        raise Reject(400, "JSON-RPC batches are not accepted", -32600)
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise Reject(400, "not a JSON-RPC 2.0 message", -32600)
    if "id" in message and not valid_id(message["id"]):
        raise Reject(400, "a JSON-RPC id must be a string or an integer", -32600)
    if isinstance(message.get("method"), str):
        return "notification" if "id" not in message else "request"
    if "id" in message and ("result" in message or "error" in message):
        return "response"
    raise Reject(400, "not a request, notification or response", -32600)


# --------------------------------------------------------------------------------------------------------------------
# The application
# --------------------------------------------------------------------------------------------------------------------


class Zoo:
    """The ASGI application: the session table, the id counters and the HTTP handlers of ``/mcp``."""

    def __init__(self, variants: frozenset[str], session_ttl: float | None) -> None:
        check_variants(variants)
        self.variants = variants
        self.ttl = session_ttl if session_ttl is not None else (
            DEFAULT_SESSION_TTL if "session-ttl" in variants else None)
        self.sessions: dict[str, Session] = {}
        self.session_counter = 0
        self.global_event_counter = 0

    # -- ids --------------------------------------------------------------------------------------------------------

    def mint_session_id(self) -> str:
        """Random URL-safe token (B29/D50), or ``session-N`` under the faulty ``predictable-ids``."""
        self.session_counter += 1
        if "predictable-ids" in self.variants:
            return f"session-{self.session_counter}"
        return secrets.token_urlsafe(24)

    def mint_event_id(self, session: Session, stream: Stream, seq: int) -> str:
        """An event id unique within the session (B23/D27): counter per session, counter per server,
        ``<stream>_<seq>`` (``past-end-200``) or a random token (default)."""
        if "counter-ids" in self.variants or "per-session-global-lookup" in self.variants:
            session.event_counter += 1
            return str(session.event_counter)
        if "global-counter" in self.variants:
            self.global_event_counter += 1
            return str(self.global_event_counter)
        if "past-end-200" in self.variants:
            return f"{stream.key}_{seq}"
        token = secrets.token_urlsafe(12)
        while token in session.ids:
            token = secrets.token_urlsafe(12)
        return token

    # -- session guards ----------------------------------------------------------------------------------------------

    def expired(self, session: Session) -> bool:
        return (self.ttl is not None and session.open_connections == 0
                and time.monotonic() - session.last_seen > self.ttl)

    def session_of(self, headers: dict[str, str]) -> Session | None:
        """The live session named by ``Mcp-Session-Id``, ``None`` without the header.

        Malformed (outside 0x21-0x7E, B30) -> 400; unknown or ended -> 404 (B33), or 400 under the faulty
        ``unknown-session-400``."""
        raw = headers.get("mcp-session-id")
        if raw is None:
            return None
        if not visible_ascii(raw):
            raise Reject(400, "Malformed Mcp-Session-Id")
        session = self.sessions.get(raw)
        if session is not None and self.expired(session):
            self.end_session(session)
            session = None
        if session is None:
            raise Reject(400 if "unknown-session-400" in self.variants else 404, "Session not found")
        session.touch()
        return session

    def require_session(self, headers: dict[str, str]) -> Session:
        """``session_of`` plus: no header -> 400 (B32), unsupported ``MCP-Protocol-Version`` -> 400 (C40)."""
        session = self.session_of(headers)
        if session is None:
            raise Reject(400, "Missing Mcp-Session-Id")
        check_version(headers)
        return session

    def end_session(self, session: Session) -> None:
        self.sessions.pop(session.id, None)
        session.end()

    # -- ASGI entry --------------------------------------------------------------------------------------------------

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = header_map(scope)
        try:
            if scope["path"] != "/mcp":
                raise Reject(404, "Not found")
            origin = headers.get("origin")
            if origin is not None and not local_origin(origin):
                raise Reject(403, "Origin not allowed")
            handler = {"POST": self.on_post, "GET": self.on_get, "DELETE": self.on_delete}.get(scope["method"])
            if handler is None:
                raise Reject(405, "Method not allowed", headers=(("allow", "GET, POST, DELETE"),))
            await handler(headers, receive, send)
        except Reject as reject:
            await send_json(send, reject.status, reject.body, reject.headers)

    async def lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                for session in list(self.sessions.values()):
                    self.end_session(session)
                await send({"type": "lifespan.shutdown.complete"})
                return

    # -- POST ---------------------------------------------------------------------------------------------------------

    async def on_post(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        """One JSON-RPC message per POST (C5). ``initialize`` opens a session; notifications and responses get 202
        (B6); requests get an SSE stream (B7, D8) or JSON under ``json-answers``."""
        try:
            message = json.loads(await read_body(receive))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise Reject(400, "Parse error", -32700) from None
        kind = classify(message)
        if kind == "request" and message["method"] == "initialize":
            await self.initialize(headers, message, receive, send)
            return
        session = self.require_session(headers)
        if kind != "request":
            session.accept(message)
            if "notification-200" in self.variants:
                await send_json(send, 200, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "unexpected"}})
            else:
                await send_json(send, 202, None)
            return
        call = self.start_call(session, message)
        leid = headers.get("last-event-id")
        await self.deliver_call(session, call, receive, send, leid=leid)

    async def initialize(self, headers: dict[str, str], message: Message, receive: Receive, send: Send) -> None:
        """Mint a session (B28) and answer ``initialize`` on its first POST stream with ``Mcp-Session-Id``."""
        if self.session_of(headers) is not None:
            raise Reject(400, "Session already initialized; send initialize without Mcp-Session-Id", -32600)
        params = message.get("params") or {}
        asked = params.get("protocolVersion")
        version = asked if asked in SUPPORTED_VERSIONS else LATEST_VERSION
        session = Session(self, self.mint_session_id(), version, params.get("capabilities") or {})
        self.sessions[session.id] = session
        call = self.new_call(session, message)
        session.respond(call, {"jsonrpc": "2.0", "id": message["id"], "result": {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}, "logging": {}},
            "serverInfo": {"name": "zoo", "version": "1.0.0"},
            "instructions": "An independent MCP Streamable HTTP test server."}})
        await self.deliver_call(session, call, receive, send, extra=(("mcp-session-id", session.id),))

    def new_call(self, session: Session, message: Message) -> Call:
        """A Call with its POST stream (priming written), or its answer future under ``json-answers``."""
        session.call_counter += 1
        json_mode = "json-answers" in self.variants
        stream = None if json_mode else session.new_stream(standalone=False)
        if stream is not None and "polling" in self.variants:
            stream.close_after_first = True
        call = Call(message["id"], message["method"], message.get("params") or {}, stream, session.call_counter)
        if json_mode:
            call.answer = asyncio.get_running_loop().create_future()
        session.calls[call.request_id] = call
        return call

    def start_call(self, session: Session, message: Message) -> Call:
        """Create the call and run it as its own task, so a dropped connection never stops it (B12/D15)."""
        call = self.new_call(session, message)
        call.task = asyncio.create_task(run_call(session, call))
        return call

    async def deliver_call(self, session: Session, call: Call, receive: Receive, send: Send, *,
                           leid: str | None = None, extra: tuple[tuple[str, str], ...] = ()) -> None:
        """Write the call's POST stream as the POST's response, or its JSON answer under ``json-answers``."""
        if call.answer is not None:
            await self.answer_json(session, call, receive, send, extra)
            return
        assert call.stream is not None
        conn = Connection(call.stream, 0)
        if leid is not None and "post-resume-replay" in self.variants:
            conn.inject = self.replay_for_post(session, leid)
        session.attach(call.stream, conn)
        await self.serve(session, conn, send, receive, extra)

    def replay_for_post(self, session: Session, leid: str) -> list[Event]:
        """Faulty ``post-resume-replay``: the retained events after ``leid`` (D31 says resumption is GET only)."""
        hit = session.ids.get(leid)
        if hit is None:
            return []
        stream, seq = hit
        return [e for e in (stream.event_at(s) for s in range(seq + 1, stream.next_seq)) if e is not None]

    async def answer_json(self, session: Session, call: Call, receive: Receive, send: Send,
                          extra: tuple[tuple[str, str], ...]) -> None:
        """``json-answers``: wait for the response (or the client leaving) and send it as ``application/json``."""
        assert call.answer is not None
        session.open_connections += 1
        gone = asyncio.ensure_future(wait_disconnect(receive))
        try:
            await asyncio.wait({call.answer, gone}, return_when=asyncio.FIRST_COMPLETED)
            left = gone.done()
        finally:
            gone.cancel()
            session.open_connections -= 1
            session.touch()
        if left:
            return
        if call.answer.cancelled():
            await send_json(send, 202, None, extra)
        else:
            await send_json(send, 200, call.answer.result(), extra)

    # -- GET ----------------------------------------------------------------------------------------------------------

    async def on_get(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        """With ``Last-Event-ID``: stream resumption (B24/B25). Without: a new standalone stream, i.e. a session
        resumption (B13/B15)."""
        session = self.require_session(headers)
        leid = headers.get("last-event-id")
        if leid is not None:
            await self.resume_stream(session, leid, receive, send)
        else:
            await self.open_standalone(session, receive, send)

    def find_event(self, session: Session, leid: str) -> tuple[Stream, int] | None:
        """``(stream, seq)`` of event ``leid`` in this session; the faulty ``per-session-global-lookup`` searches every
        session's table in creation order instead (breaks B26)."""
        if "per-session-global-lookup" in self.variants:
            for other in self.sessions.values():
                if leid in other.ids:
                    return other.ids[leid]
            return None
        return session.ids.get(leid)

    def past_end(self, session: Session, leid: str) -> tuple[Stream, int] | None:
        """Faulty ``past-end-200``: ``<stream>_<n>`` naming a real stream of the session with ``n`` past its end
        gives ``(stream, n + 1)``: a cursor that skips every event up to ``n``."""
        key, _, tail = leid.rpartition("_")
        stream = session.streams.get(key)
        if stream is None or not tail.isdigit() or int(tail) < stream.next_seq:
            return None
        return stream, int(tail) + 1

    async def resume_stream(self, session: Session, leid: str, receive: Receive, send: Send) -> None:
        """Replay the events after ``leid`` of its own stream (same ids, B25), then continue it live; no priming.
        Unknown, foreign, evicted or malformed ids -> 400 "Invalid Last-Event-ID" (never 404: the session lives)."""
        async with session.lock:
            hit = self.find_event(session, leid)
            cursor = None
            if hit is not None and hit[0].retained(hit[1]):
                stream, cursor = hit[0], hit[1] + 1
            elif hit is None and "past-end-200" in self.variants and (end := self.past_end(session, leid)):
                stream, cursor = end
            if cursor is None:  # a code of its own, so a client tells it from a missing session (also 400)
                raise Reject(400, "Invalid Last-Event-ID", code=INVALID_CURSOR_CODE)
            conn = Connection(stream, cursor)
            if "batch-close" in self.variants:
                conn.stop_after = max(stream.next_seq - 1, cursor)
            session.attach(stream, conn)
        await self.serve(session, conn, send, receive)

    async def open_standalone(self, session: Session, receive: Receive, send: Send) -> None:
        """A new standalone stream: priming, then pending requests stranded on dropped connections (same ids), then
        live messages. 405 under ``get-405`` (B15); 409/400 under ``second-get-*`` while one is connected; under
        ``one-standalone`` the older standalone streams end first."""
        if "get-405" in self.variants:
            raise Reject(405, "No standalone SSE stream offered", headers=(("allow", "POST, DELETE"),))
        if "headless-get" in self.variants:
            while (await receive())["type"] != "http.disconnect":
                pass
            return
        async with session.lock:
            if session.live_standalone() is not None:
                if "second-get-409" in self.variants:
                    raise Reject(409, "A standalone stream is already connected")
                if "second-get-400" in self.variants:
                    raise Reject(400, "A standalone stream is already connected")
            if "one-standalone" in self.variants:
                for old in session.streams.values():
                    if old.standalone and not old.done:
                        old.finish()
                        if old.conn is not None:
                            session.detach(old.conn)
            stream = session.new_stream(standalone=True)
            conn = Connection(stream, 0)
            session.attach(stream, conn)
            session.on_session_resumed(stream)
        await self.serve(session, conn, send, receive)

    # -- DELETE -------------------------------------------------------------------------------------------------------

    async def on_delete(self, headers: dict[str, str], receive: Receive, send: Send) -> None:
        """End the session (B35): 200, its streams close, later requests with its id get 404 (B33)."""
        session = self.require_session(headers)
        async with session.lock:
            self.end_session(session)
        await send_json(send, 200, None)

    # -- writing a stream ---------------------------------------------------------------------------------------------

    async def serve(self, session: Session, conn: Connection, send: Send, receive: Receive,
                    extra: tuple[tuple[str, str], ...] = ()) -> None:
        """Answer 200 ``text/event-stream`` and pump ``conn`` until it is done or the client leaves. Leaving only
        unhooks the connection; the stream and the work behind it go on (B12/D15)."""
        head = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"),
                (b"x-accel-buffering", b"no")] + [(k.encode(), v.encode()) for k, v in extra]
        session.open_connections += 1
        left = True
        try:
            await send({"type": "http.response.start", "status": 200, "headers": head})
            left = await self.race(conn, send, receive)
        finally:
            if conn.stream.conn is conn:
                conn.stream.conn = None
            session.open_connections -= 1
            session.touch()
        if not left:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    @staticmethod
    async def race(conn: Connection, send: Send, receive: Receive) -> bool:
        """Pump ``conn`` against the client leaving; True when the client left (or writing failed)."""
        async def write(chunk: bytes) -> None:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})

        writer = asyncio.ensure_future(pump(conn, write))
        gone = asyncio.ensure_future(wait_disconnect(receive))
        try:
            await asyncio.wait({writer, gone}, return_when=asyncio.FIRST_COMPLETED)
            return gone.done() or not writer.done() or writer.exception() is not None
        finally:
            for task in (writer, gone):
                task.cancel()


def app(variants: frozenset[str] = frozenset(), session_ttl: float | None = None) -> Zoo:
    """The plain ASGI app with these ``variants`` (names of ``VARIANTS``) and session idle time-out in seconds."""
    return Zoo(frozenset(variants), session_ttl)


def check_version(headers: dict[str, str]) -> None:
    """An ``MCP-Protocol-Version`` we do not speak -> 400 (C40/D45); a missing one is taken as 2025-03-26 (C39)."""
    version = headers.get("mcp-protocol-version")
    if version is not None and version not in SUPPORTED_VERSIONS:
        raise Reject(400, f"Unsupported MCP-Protocol-Version: {version}")


# --------------------------------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="The zoo: an independent MCP Streamable HTTP test server.")
    parser.add_argument("--port", type=int, help="TCP port on 127.0.0.1 (0: any free port); required to serve")
    parser.add_argument("--variant", action="append", default=[], help="NAME[,NAME...] (repeatable)")
    parser.add_argument("--session-ttl", type=float, default=None, help="idle seconds before a session ends")
    parser.add_argument("--list", action="store_true", help="print the variants and exit")
    return parser.parse_args(argv)


async def serve_forever(application: Zoo, port: int) -> None:
    """Run uvicorn on 127.0.0.1:``port`` and print the one ready line once it listens."""
    import uvicorn

    config = uvicorn.Config(application, host="127.0.0.1", port=port, log_config=None, log_level="warning",
                            access_log=False, lifespan="on", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            await task
            return
        await asyncio.sleep(0.02)
    bound = server.servers[0].sockets[0].getsockname()[1]
    print(f"zoo listening on http://127.0.0.1:{bound}/mcp", flush=True)
    await task


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        for v in VARIANTS.values():
            print(f"{v.name:26} {'correct' if v.correct else 'faulty ':7} {','.join(v.rules):18} {v.description}")
        return 0
    if args.port is None:
        print("zoo: --port is required", file=sys.stderr)
        return 2
    names = frozenset(n.strip() for chunk in args.variant for n in chunk.split(",") if n.strip())
    try:
        application = app(names, args.session_ttl)
    except ValueError as problem:
        print(f"zoo: {problem}", file=sys.stderr)
        return 2
    try:
        asyncio.run(serve_forever(application, args.port))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
