"""The correct variations of docs/design.md §5, as in-process servers built from ``spec.designs``.

A correct variation departs from the reference server in a way no checker may
blame. Five change what the spec models:

- ``CancelPending``: a session resumption cancels the pending server requests it
  would re-emit (``notifications/cancelled`` on the new stream; each request
  becomes cancelled), the alternative docs/design.md §2 branch 2 allows;
- ``RingBuffer``: each stream keeps its events in a ring buffer; a cursor naming
  an evicted event is rejected with 400 and the resumption error code (branch 3).

Three more from the third round: ``SecondGet400`` refuses a second GET stream with
400 while nothing would be stranded; ``PingOnResume`` goes on after a stream
resumption's replay with a new ``ping`` request and a new notification;
``EvictedCursorExact`` replays the exact suffix after a cursor whose own event its
ring buffer evicted, when it holds every later one.

Two change only the bytes on the wire, so in process they are the reference
server and the HTTP façade (``model.serving.facade``) reads their flags:

- ``ReserialisedReplay`` (``reserialise_replays``): replayed messages are written
  with another key order and other whitespace;
- ``JsonResponses`` (``json_responses``): a POST request is answered with one
  ``application/json`` body (MCP B13 allows both); what the server sends while
  it works waits for a GET stream.

``VARIATIONS`` maps each variation's target (``variation-<slug>``) to its class.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

from mcp_resume.spec.decision import RESUMPTION_ERROR_CODE
from mcp_resume.spec.designs import VARIATIONS as SPECS
from mcp_resume.spec.designs import Deviation
from mcp_resume.spec.actions import IssueServerRequest
from mcp_resume.spec.transitions import Delivered, Observation

from mcp_resume.model.servers.faulty import server_for
from mcp_resume.model.servers.reference import ReferenceServer, StreamRecord, event_id_of


class CancelPending(ReferenceServer):
    """``Deviation.CANCEL_ON_SESSION_RESUME``: each stranded request is cancelled on
    the new stream (a ``notifications/cancelled`` event) and leaves the pending table."""

    def resume_session(self, session: str) -> Observation:
        stream = self.open_stream(session, "get")
        cancelled = [self.cancel_on(stream, request) for request in self.stranded(session)]
        return Observation(200, stream=stream.key, events=tuple(cancelled))

    def cancel_on(self, stream: StreamRecord, request: str) -> Delivered:
        event_id = event_id_of(stream.key, len(stream.events) + 1)
        stream.events.append((event_id, None))
        stream.cancels[event_id] = request
        self.sessions[stream.session].pending.remove(request)
        return self.delivered(stream, event_id, None)


class RingBuffer(ReferenceServer):
    """``Deviation.RING_BUFFER_REJECTS``: each stream's replayable events sit in a
    ring buffer of their own (``rings``); eviction drops the oldest, and a cursor
    the ring no longer holds is refused with 400 and the resumption error code.
    Over HTTP the façade evicts beyond ``ring_capacity`` events per stream."""

    ring_capacity = 3

    def __init__(self) -> None:
        super().__init__()
        self.rings: dict[str, deque[tuple[str, str | None]]] = {}

    def send(self, stream: StreamRecord, request: str | None) -> Observation:
        observation = super().send(stream, request)
        self.rings.setdefault(stream.key, deque()).append((observation.event, request))
        return observation

    def on_evict_event(self, action) -> Observation:
        ring = self.rings.get(action.stream)
        if ring:
            ring.popleft()
        return super().on_evict_event(action)

    def kept_events(self, stream: StreamRecord) -> list[tuple[str, str | None]]:
        return list(self.rings.get(stream.key, ())) if stream.retained else []

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        stream = self.find_stream(last_event_id)
        ring = [e for e, _ in self.kept_events(stream)] if stream is not None and stream.session == session else []
        if last_event_id not in ring:
            return Observation(400, error=RESUMPTION_ERROR_CODE)
        return super().resume_stream(session, last_event_id)


class SecondGet400(ReferenceServer):
    """``Deviation.SECOND_GET_400``: a session with a connected GET stream refuses another
    GET without a cursor with 400, unless a pending request of it has lost its connection
    (then it opens the stream and re-emits, as the reference does)."""

    def resume_session(self, session: str) -> Observation:
        connected = any(s.session == session and s.key.startswith("get-") and s.connected for s in self.streams.values())
        if connected and not self.stranded(session):
            return Observation(400)
        return super().resume_session(session)


class PingOnResume(ReferenceServer):
    """``Deviation.PING_ON_RESUME``: after its replay a resumed open stream goes on with a
    new server request (a ``ping``, pending like any other) and a new notification."""

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        stream = self.streams.get(observation.stream) if observation.status == 200 else None
        if stream is None or not stream.connected:
            return observation
        ping = self.on_issue_server_request(IssueServerRequest(stream.key))
        note = self.send(stream, None)
        return replace(observation, events=observation.events + ping.events + note.events)


class EvictedCursorExact(ReferenceServer):
    """``Deviation.EVICTED_CURSOR_EXACT``: a cursor whose own event the ring buffer evicted
    while it holds every later one (the cursor is the last evicted) is answered with
    exactly those; an older evicted cursor gets 400 and the resumption error code."""

    ring_capacity = 3

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        stream = self.find_stream(last_event_id)
        if stream is None or stream.session != session or not stream.retained or stream.evicted == 0:
            return super().resume_stream(session, last_event_id)
        position = [e for e, _ in stream.events].index(last_event_id)
        if position != stream.evicted - 1:
            return super().resume_stream(session, last_event_id)
        delivered = tuple(self.delivered(stream, e, r) for e, r in self.kept_events(stream))
        self.reattach(stream)
        return Observation(200, stream=stream.key, events=delivered)


class ReserialisedReplay(ReferenceServer):
    """``Deviation.RESERIALISED_REPLAY``: the reference; the façade re-serialises replays."""

    reserialise_replays = True


class JsonResponses(ReferenceServer):
    """``Deviation.JSON_POST_RESPONSES``: the reference; the façade answers POST with JSON."""

    json_responses = True


BEHAVIOUR: dict[Deviation, type[ReferenceServer]] = {
    Deviation.CANCEL_ON_SESSION_RESUME: CancelPending,
    Deviation.RING_BUFFER_REJECTS: RingBuffer,
    Deviation.RESERIALISED_REPLAY: ReserialisedReplay,
    Deviation.JSON_POST_RESPONSES: JsonResponses,
    Deviation.SECOND_GET_400: SecondGet400,
    Deviation.PING_ON_RESUME: PingOnResume,
    Deviation.EVICTED_CURSOR_EXACT: EvictedCursorExact,
}
"""The server class of each correct variation's deviation."""

VARIATIONS: dict[str, type[ReferenceServer]] = {
    variation.target: server_for(variation, BEHAVIOUR, __name__) for variation in SPECS
}
"""Each correct variation's server class, by target (``variation-<slug>``)."""
