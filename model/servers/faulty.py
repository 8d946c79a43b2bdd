"""The known faulty designs of DESIGN.md §5, as in-process servers.

Each is ``ReferenceServer`` with the one decision a real server got wrong. The
checkers must catch every one; ``DESIGNS`` maps the design's number in DESIGN.md
§5 to its class, and ``EXPECTED_RULES`` to the rules whose violation shows it.
"""

from __future__ import annotations

from mcp_resume.spec.transitions import Delivered, Observation

from mcp_resume.model.servers.reference import ReferenceServer, StreamRecord


class PerSessionCursor(ReferenceServer):
    """1. The replay cursor is kept per session, not per stream: a reconnect
    without ``Last-Event-ID`` counts as caught up and re-emits nothing, and a
    resumed stream replays the session's whole log after the cursor."""

    name = "design-1-per-session-cursor"

    def __init__(self) -> None:
        super().__init__()
        self._sequence: dict[str, int] = {}  # event id -> position in its session's log

    def resume_session(self, session: str) -> Observation:
        stream = self.open_stream(session, "get")
        return Observation(200, stream=stream.key)

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        log = [event for s in self.streams.values() if s.session == session and s.retained for event in s.events]
        log.sort(key=lambda event: self._sequence[event[0]])
        ids = [event_id for event_id, _ in log]
        if last_event_id not in ids:
            return Observation(400)
        stream = self.find_stream(last_event_id)
        self.reattach(stream)
        after = log[ids.index(last_event_id) + 1 :]
        return Observation(200, stream=stream.key, events=tuple(Delivered(e, r) for e, r in after))

    def send(self, stream: StreamRecord, request: str | None) -> Observation:
        observation = super().send(stream, request)
        self._sequence[observation.event] = len(self._sequence)
        return observation


class GlobalEventLog(ReferenceServer):
    """2. ``Last-Event-ID`` is looked up in one log shared by all sessions: it
    replays another session's events."""

    name = "design-2-global-event-log"

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        stream = self.find_stream(last_event_id)
        if stream is None or not stream.retained:
            return Observation(400)
        return super().resume_stream(stream.session, last_event_id)


class ReemitDrainsPending(ReferenceServer):
    """3. Re-emission removes server requests from the pending table, so they are
    lost after a second drop."""

    name = "design-3-reemit-drains-pending"

    def resume_session(self, session: str) -> Observation:
        observation = super().resume_session(session)
        self.sessions[session].pending.clear()
        return observation


class SessionIdAsCursor(ReferenceServer):
    """4. ``Mcp-Session-Id`` is used as a replay cursor: session resumption
    replays the session's history."""

    name = "design-4-session-id-as-cursor"

    def resume_session(self, session: str) -> Observation:
        history = [Delivered(e, r) for s in self.streams.values() if s.session == session and s.retained for e, r in s.events]
        observation = super().resume_session(session)
        return Observation(200, stream=observation.stream, events=tuple(history) + observation.events)


class EventIdAsSession(ReferenceServer):
    """5. ``Last-Event-ID`` is used as a session identifier: an orphan event id
    resumes the session it came from."""

    name = "design-5-event-id-as-session"

    def on_reconnect(self, action):
        stream = self.find_stream(action.last_event_id) if action.last_event_id else None
        if action.session is None and stream is not None and self.sessions[stream.session].live:
            return self.resume_stream(stream.session, action.last_event_id)
        return super().on_reconnect(action)


class StreamResumeReemits(ReferenceServer):
    """6. Stream resumption also re-emits every pending server request
    (the client gets duplicates)."""

    name = "design-6-stream-resume-reemits"

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        if observation.status != 200:
            return observation
        stream = self.streams[observation.stream]
        again = tuple(
            Delivered(self.send(stream, r).event, r) for r in self.sessions[session].pending if stream.open
        )
        return Observation(200, stream=stream.key, events=observation.events + again)


class OffByOneReplay(ReferenceServer):
    """7. Off-by-one replay: the replay starts with the cursor's own event."""

    name = "design-7-off-by-one-replay"

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        if observation.status != 200:
            return observation
        own = next(Delivered(e, r) for e, r in self.streams[observation.stream].events if e == last_event_id)
        return Observation(200, stream=observation.stream, events=(own,) + observation.events)


class ExpiryEndsSession(ReferenceServer):
    """8. Stream expiry ends the session."""

    name = "design-8-expiry-ends-session"

    def on_expire_stream(self, action):
        self.end_session(self.streams[action.stream].session)
        return Observation()


class EndedSessionEventsReplay(ReferenceServer):
    """9. Event ids of an ended session still replay, in any other session."""

    name = "design-9-ended-session-events-replay"

    def end_session(self, session: str) -> None:
        self.sessions[session].live = False
        for stream in self.streams.values():
            if stream.session == session:
                stream.open = False  # retained: its events stay replayable
                self.disconnect(stream)

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        stream = self.find_stream(last_event_id)
        if stream is not None and not self.sessions[stream.session].live:
            return super().resume_stream(stream.session, last_event_id)
        return super().resume_stream(session, last_event_id)


class ForeignEventId404(ReferenceServer):
    """10. A foreign event id on a live session is answered with 404, which
    tells a compliant client its live session is gone."""

    name = "design-10-foreign-event-id-404"

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        return Observation(404) if observation.status == 400 else observation


class ForeignEventIdEmpty200(ReferenceServer):
    """11. A foreign event id is answered with an empty 200 stream (fails
    ``boundary``, passes the MCP revisions, which are silent here)."""

    name = "design-11-foreign-event-id-empty-200"

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        return Observation(200) if observation.status == 400 else observation


class SharedGetStreamKey(ReferenceServer):
    """12. One stream key is shared by the standalone GET streams of all
    sessions: their events share one buffer, and a resumed GET stream replays
    what other sessions' GET streams carried."""

    name = "design-12-shared-get-stream-key"
    SHARED = "get"

    def __init__(self) -> None:
        super().__init__()
        self.shared_events: list[tuple[str, str | None]] = []  # the buffer behind the shared key

    def send(self, stream: StreamRecord, request: str | None) -> Observation:
        if not stream.key.startswith("get-"):
            return super().send(stream, request)
        event_id = f"{self.SHARED}/{len(self.shared_events) + 1}"
        self.shared_events.append((event_id, request))
        stream.events.append((event_id, request))
        delivered = (Delivered(event_id, request),) if stream.connected else ()
        return Observation(event=event_id, request=request, events=delivered)

    def find_stream(self, event_id: str) -> StreamRecord | None:
        if not event_id.startswith(self.SHARED + "/"):
            return super().find_stream(event_id)
        owners = [s for s in self.streams.values() if event_id in (e for e, _ in s.events)]
        return owners[0] if owners else None

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        if not last_event_id.startswith(self.SHARED + "/"):
            return super().resume_stream(session, last_event_id)
        stream = self.find_stream(last_event_id)
        if stream is None or stream.session != session or not stream.retained:
            return Observation(400)
        ids = [e for e, _ in self.shared_events]
        self.reattach(stream)
        after = self.shared_events[ids.index(last_event_id) + 1 :]
        return Observation(200, stream=stream.key, events=tuple(Delivered(e, r) for e, r in after))


DESIGNS: dict[int, type[ReferenceServer]] = {
    1: PerSessionCursor,
    2: GlobalEventLog,
    3: ReemitDrainsPending,
    4: SessionIdAsCursor,
    5: EventIdAsSession,
    6: StreamResumeReemits,
    7: OffByOneReplay,
    8: ExpiryEndsSession,
    9: EndedSessionEventsReplay,
    10: ForeignEventId404,
    11: ForeignEventIdEmpty200,
    12: SharedGetStreamKey,
}

EXPECTED_RULES: dict[int, frozenset[str]] = {
    1: frozenset({"reemit-pending", "no-cross-session", "replay-suffix", "event-id-unique"}),
    2: frozenset({"no-cross-session", "reject-foreign-event-id", "server-request-ownership"}),
    3: frozenset({"reemit-keeps-pending"}),
    4: frozenset({"no-replay-on-session-resume"}),
    5: frozenset({"reject-orphan-event-id"}),
    6: frozenset({"no-reemit-on-stream-resume"}),
    7: frozenset({"replay-suffix"}),
    8: frozenset({"expiry-independent"}),
    9: frozenset({"no-cross-session", "reject-foreign-event-id", "server-request-ownership"}),
    10: frozenset({"reject-foreign-event-id"}),
    11: frozenset({"reject-foreign-event-id"}),
    12: frozenset({"no-cross-session", "server-request-ownership"}),
}
"""The rules one of which must be the first broken when the design is caught."""
