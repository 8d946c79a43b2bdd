"""A correct in-process server, written the way a server author would write one.

It is a second, imperative statement of the spec: mutable tables keyed by the
server's own ids, event ids that encode their stream (MCP D28), pending server
requests stored on the session, a per-stream event buffer. The Hypothesis machine
checks that it agrees with the pure spec step by step; the faulty designs of
docs/design.md §5 (defined in ``spec.designs``, built in ``model/servers/faulty.py``)
are this server with one method changed.

Ids: sessions ``sess-<n>``, streams ``post-<n>`` / ``get-<n>``, events
``<stream>/<seq>``, server requests ``<1000+n>`` (a JSON-RPC id).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from mcp_resume.spec import actions as a
from mcp_resume.spec.decision import MISSING_SESSION_ERROR_CODE, RESUMPTION_ERROR_CODE
from mcp_resume.spec.headers import is_well_formed
from mcp_resume.spec.transitions import Delivered, Observation


@dataclass
class SessionRecord:
    live: bool = True
    pending: list[str] = field(default_factory=list)  # server request ids, in issue order


@dataclass
class StreamRecord:
    key: str
    session: str
    open: bool = True
    retained: bool = True
    connected: bool = True
    events: list[tuple[str, str | None]] = field(default_factory=list)  # (event id, request id)
    evicted: int = 0  # how many of the oldest events the ring buffer discarded
    cancels: dict[str, str] = field(default_factory=dict)  # event id -> the request it cancels


class ReferenceServer:
    """Applies spec actions to mutable tables; ``handle`` returns the observation."""

    name = "reference"
    attributes_are_state = True
    """Everything this server answers from is in its attributes, compared by ``==``
    (dicts, lists, dataclass records): the design explorer may then tell that a step
    changed nothing by comparing attributes instead of pickles. A subclass that keeps
    state ``==`` cannot see (a value with an ``__eq__`` of its own) sets it to False."""

    def __init__(self) -> None:
        self.sessions: dict[str, SessionRecord] = {}
        self.streams: dict[str, StreamRecord] = {}
        self.request_session: dict[str, str] = {}
        self.carrier: dict[str, str] = {}  # server request -> the stream carrying it
        self._counter = 0
        self._closed: list[str] = []  # connections the current step closed

    # -- the adapter surface --------------------------------------------------

    def apply(self, action: a.Action) -> Observation:
        self._closed: list[str] = []
        observation = getattr(self, "on_" + action.kind)(action)
        closed, self._closed = tuple(self._closed), []  # nothing of one step's bookkeeping outlives it
        if closed == observation.closed:
            return observation
        return replace(observation, closed=closed)

    def close(self) -> None:
        pass

    # -- client requests --------------------------------------------------------

    def on_initialize(self, action: a.Initialize) -> Observation:
        session = f"sess-{self._next()}"
        self.sessions[session] = SessionRecord()
        return Observation(200, session=session)

    def on_call_tool(self, action: a.CallTool) -> Observation:
        refusal = self.check_session(action.session)
        if refusal:
            return self.refuse(refusal, action.session)
        stream = self.open_stream(action.session, "post")
        return Observation(200, stream=stream.key)

    def on_reconnect(self, action: a.Reconnect) -> Observation:
        if action.session is None and action.last_event_id is None:
            return Observation(400, error=MISSING_SESSION_ERROR_CODE)  # no session at all (B32)
        if action.session is None:
            return Observation(400)  # an orphan event id means nothing
        refusal = self.check_session(action.session)
        if refusal:
            return self.refuse(refusal, action.session)
        if action.last_event_id is None:
            return self.resume_session(action.session)
        return self.resume_stream(action.session, action.last_event_id)

    def on_answer_request(self, action: a.AnswerRequest) -> Observation:
        refusal = self.check_session(action.session)
        if refusal:
            return self.refuse(refusal, action.session)
        pending = self.sessions[action.session].pending
        if action.request in pending:
            pending.remove(action.request)
        return Observation(202)

    def on_delete_session(self, action: a.DeleteSession) -> Observation:
        refusal = self.check_session(action.session)
        if refusal:
            return self.refuse(refusal, action.session)
        self.end_session(action.session)
        return Observation(200)

    def on_restart_client(self, action: a.RestartClient) -> Observation:
        return Observation()

    # -- network and server actions -----------------------------------------------

    def on_drop_connection(self, action: a.DropConnection) -> Observation:
        self.disconnect(self.streams[action.stream])
        return Observation()

    def on_close_connection(self, action: a.CloseConnection) -> Observation:
        self.disconnect(self.streams[action.stream])
        return Observation()

    def on_evict_event(self, action: a.EvictEvent) -> Observation:
        self.streams[action.stream].evicted += 1
        return Observation()

    def on_emit_event(self, action: a.EmitEvent) -> Observation:
        return self.send(self.streams[action.stream], None)

    def on_issue_server_request(self, action: a.IssueServerRequest) -> Observation:
        stream = self.streams[action.stream]
        request = str(1000 + self._next())
        self.request_session[request] = stream.session
        self.sessions[stream.session].pending.append(request)
        self.carrier[request] = stream.key
        return self.send(stream, request)

    def on_cancel_request(self, action: a.CancelRequest) -> Observation:
        pending = self.sessions[self.request_session[action.request]].pending
        if action.request in pending:
            pending.remove(action.request)
        return self.cancel(self.streams[self.carrier[action.request]], action.request)

    def on_respond(self, action: a.Respond) -> Observation:
        stream = self.streams[action.stream]
        observed = self.respond(stream)
        stream.open = False
        self.disconnect(stream)
        return observed

    def on_end_stream(self, action: a.EndStream) -> Observation:
        stream = self.streams[action.stream]
        stream.open = False
        self.disconnect(stream)
        return Observation()

    def on_expire_stream(self, action: a.ExpireStream) -> Observation:
        self.expire(self.streams[action.stream])
        return Observation()

    def on_expire_session(self, action: a.ExpireSession) -> Observation:
        self.end_session(action.session)
        return Observation()

    # -- the parts the faulty designs change ----------------------------------------

    def check_session(self, session: str | None) -> int | None:
        """The refusal status for a session header, or ``None`` for a live session (B30-B33)."""
        if session is None or not is_well_formed(session):
            return 400
        record = self.sessions.get(session)
        if record is None or not record.live:
            return 404
        return None

    def refuse(self, status: int, session: str | None) -> Observation:
        """The refusal of a session header: 400 with the missing-session error for
        none at all (B32), else the bare status."""
        return Observation(status, error=MISSING_SESSION_ERROR_CODE if session is None else None)

    def resume_session(self, session: str) -> Observation:
        """Branch 2: a fresh GET stream carrying again every pending server request
        whose stream has no open connection (B21: never two connected streams)."""
        stream = self.open_stream(session, "get")
        delivered = [self.reemit(stream, request) for request in self.stranded(session)]
        return Observation(200, stream=stream.key, events=tuple(delivered))

    def stranded(self, session: str) -> list[str]:
        """The session's pending requests whose carrying stream has no open connection."""
        return [r for r in self.sessions[session].pending if not self.streams[self.carrier[r]].connected]

    def reemit(self, stream: StreamRecord, request: str) -> Delivered:
        """Send ``request`` again on ``stream``, which carries it from now on."""
        self.carrier[request] = stream.key
        return self.send(stream, request).events[0]

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        """Branch 1, or branch 3 when the event id is not one of a retained stream of
        ``session`` or its ring buffer discarded it."""
        stream = self.find_stream(last_event_id)
        if stream is None or stream.session != session or not stream.retained:
            return Observation(400, error=RESUMPTION_ERROR_CODE)
        kept = self.kept_events(stream)
        ids = [event_id for event_id, _ in kept]
        if last_event_id not in ids:
            return Observation(400, error=RESUMPTION_ERROR_CODE)
        delivered = tuple(self.delivered(stream, e, r) for e, r in kept[ids.index(last_event_id) + 1 :])
        self.reattach(stream)
        return Observation(200, stream=stream.key, events=delivered)

    def kept_events(self, stream: StreamRecord) -> list[tuple[str, str | None]]:
        """The events the ring buffer of ``stream`` still holds (none once it expired)."""
        return stream.events[stream.evicted :] if stream.retained else []

    def delivered(self, stream: StreamRecord, event_id: str, request: str | None) -> Delivered:
        return Delivered(event_id, request, stream.key, stream.cancels.get(event_id))

    def find_stream(self, event_id: str) -> StreamRecord | None:
        """The stream an event id names: ids encode their stream (D28)."""
        stream = self.streams.get(stream_key_of(event_id))
        if stream is None or event_id not in (e for e, _ in stream.events):
            return None
        return stream

    def end_session(self, session: str) -> None:
        self.sessions[session].live = False
        for stream in self.streams.values():
            if stream.session == session:
                self.expire(stream)

    def expire(self, stream: StreamRecord) -> None:
        stream.open = stream.retained = False
        self.disconnect(stream)
        stream.events = [(event_id, None) for event_id, _ in stream.events]  # payloads discarded

    # -- helpers ------------------------------------------------------------------

    def disconnect(self, stream: StreamRecord) -> None:
        if stream.connected:
            self._closed.append(stream.key)
        stream.connected = False

    def reattach(self, stream: StreamRecord) -> None:
        """A resumed stream: an open one continues on the new connection (a
        connection still open to it closes first); an ended one closes after its
        replay."""
        self.disconnect(stream)
        stream.connected = stream.open

    def open_stream(self, session: str, kind: str) -> StreamRecord:
        stream = StreamRecord(f"{kind}-{self._next()}", session)
        self.streams[stream.key] = stream
        return stream

    def respond(self, stream: StreamRecord) -> Observation:
        """The call's response, sent on its own stream (stored for replay either way)."""
        observed = self.send(stream, None)
        return replace(observed, about=stream.key, response=True)

    def cancel(self, stream: StreamRecord, request: str) -> Observation:
        """``notifications/cancelled`` for ``request`` on ``stream``, the one that carries it."""
        observed = self.send(stream, None)
        stream.cancels[observed.event] = request
        return replace(observed, events=tuple(replace(d, cancels=request) for d in observed.events))

    def send(self, stream: StreamRecord, request: str | None) -> Observation:
        event_id = event_id_of(stream.key, len(stream.events) + 1)
        stream.events.append((event_id, request))
        delivered = (self.delivered(stream, event_id, request),) if stream.connected else ()
        return Observation(event=event_id, request=request, events=delivered)

    def _next(self) -> int:
        self._counter += 1
        return self._counter


def event_id_of(stream_key: str, sequence: int) -> str:
    """The id of the ``sequence``-th event (from 1) of stream ``stream_key``: ``<key>/<n>`` (ids encode
    their stream, D28)."""
    return f"{stream_key}/{sequence}"


def stream_key_of(event_id: str) -> str:
    """The stream key an event id of ``event_id_of`` names (``""`` for an id of no such form)."""
    return event_id.rpartition("/")[0]


def sequence_of(event_id: str) -> int | None:
    """The sequence number an event id of ``event_id_of`` carries, or ``None`` for an id of no such form."""
    tail = event_id.rpartition("/")[2]
    return int(tail) if tail.isdigit() else None
