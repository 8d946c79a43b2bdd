"""The faulty designs of docs/design.md §5, as in-process servers built from ``spec.designs``.

Each deviation of ``spec.designs.Deviation`` is a ``ReferenceServer`` with the one
decision a real server got wrong (``BEHAVIOUR``). ``server_for(design)`` makes the
server of a design: a class over its deviations' classes, carrying its name and
parameters. ``DESIGNS`` maps each design's number to that class. The numbers,
names, summaries and rules are ``spec.designs``'s, which alone defines the designs.
"""

from __future__ import annotations

from dataclasses import replace

from mcp_resume.spec.designs import DESIGNS as SPECS
from mcp_resume.spec.designs import Deviation, Design
from mcp_resume.spec.decision import RESUMPTION_ERROR_CODE
from mcp_resume.spec.headers import is_well_formed
from mcp_resume.spec.transitions import Observation

from mcp_resume.model.servers.reference import ReferenceServer, StreamRecord, event_id_of, sequence_of


class SessionLogReplay(ReferenceServer):
    """``Deviation.SESSION_LOG_REPLAY``: the replay of a stream resumption is the
    session log after the cursor: every retained stream's events in send order."""

    def __init__(self) -> None:
        super().__init__()
        self._sequence: dict[str, int] = {}  # event id -> position in its session's log

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        log = [event for s in self.streams.values() if s.session == session and s.retained for event in self.kept_events(s)]
        log.sort(key=lambda event: self._sequence[event[0]])
        ids = [event_id for event_id, _ in log]
        if last_event_id not in ids:
            return Observation(400, error=RESUMPTION_ERROR_CODE)
        stream = self.find_stream(last_event_id)
        self.reattach(stream)
        after = log[ids.index(last_event_id) + 1 :]
        return Observation(200, stream=stream.key, events=tuple(self.delivered(stream, e, r) for e, r in after))

    def send(self, stream: StreamRecord, request: str | None) -> Observation:
        observation = super().send(stream, request)
        self._sequence[observation.event] = len(self._sequence)
        return observation


class PerSessionCursor(SessionLogReplay):
    """``Deviation.PER_SESSION_CURSOR``: the replay cursor kept per session: a
    session resumption counts as caught up, and a stream resumption replays the
    session log (``SessionLogReplay``)."""

    def resume_session(self, session: str) -> Observation:
        stream = self.open_stream(session, "get")
        return Observation(200, stream=stream.key)


class GlobalEventLog(ReferenceServer):
    """``Deviation.GLOBAL_EVENT_LOG``: the event id is looked up across all
    sessions."""

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        stream = self.find_stream(last_event_id)
        if stream is None or not stream.retained:
            return Observation(400, error=RESUMPTION_ERROR_CODE)
        return super().resume_stream(stream.session, last_event_id)


class ReemitDrainsPending(ReferenceServer):
    """``Deviation.REEMIT_DRAINS_PENDING``: the re-emission empties the pending
    table."""

    def resume_session(self, session: str) -> Observation:
        reemitted = self.stranded(session)
        observation = super().resume_session(session)
        pending = self.sessions[session].pending
        pending[:] = [r for r in pending if r not in reemitted]
        return observation


class SessionIdAsCursor(ReferenceServer):
    """``Deviation.SESSION_ID_AS_CURSOR``: the session's history first, then the
    re-emissions."""

    def resume_session(self, session: str) -> Observation:
        history = [(e, r) for s in self.streams.values() if s.session == session and s.retained for e, r in self.kept_events(s)]
        observation = super().resume_session(session)
        stream = self.streams[observation.stream]
        replayed = tuple(self.delivered(stream, e, r) for e, r in history)
        return Observation(200, stream=observation.stream, events=replayed + observation.events)


class EventIdAsSession(ReferenceServer):
    """``Deviation.EVENT_ID_AS_SESSION``: an orphan event id of a live session
    resumes that session's stream."""

    def on_reconnect(self, action):
        stream = self.find_stream(action.last_event_id) if action.last_event_id else None
        if action.session is None and stream is not None and self.sessions[stream.session].live:
            return self.resume_stream(stream.session, action.last_event_id)
        return super().on_reconnect(action)


class StreamResumeReemits(ReferenceServer):
    """``Deviation.STREAM_RESUME_REEMITS``: after the replay, every pending
    request again, on the resumed stream if it is open."""

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        if observation.status != 200:
            return observation
        stream = self.streams[observation.stream]
        again = tuple(
            self.delivered(stream, self.send(stream, r).event, r) for r in self.sessions[session].pending if stream.open
        )
        return Observation(200, stream=stream.key, events=observation.events + again)


class OffByOneReplay(ReferenceServer):
    """``Deviation.OFF_BY_ONE_REPLAY``: the cursor's own event, then the replay."""

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        if observation.status != 200:
            return observation
        stream = self.streams[observation.stream]
        own = next(self.delivered(stream, e, r) for e, r in stream.events if e == last_event_id)
        return Observation(200, stream=observation.stream, events=(own,) + observation.events)


class ExpiryEndsSession(ReferenceServer):
    """``Deviation.EXPIRY_ENDS_SESSION``: an expired stream ends its session."""

    def on_expire_stream(self, action):
        self.end_session(self.streams[action.stream].session)
        return Observation()


class EndedSessionEventsReplay(ReferenceServer):
    """``Deviation.ENDED_SESSION_EVENTS_REPLAY``: ending a session keeps its
    streams retained; their event ids resume under any session."""

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


class ForeignEventIdStatus(ReferenceServer):
    """``Deviation.FOREIGN_EVENT_ID_STATUS``: the refusal of an event id is answered
    with the design's ``status`` (the class attribute ``foreign_status``)."""

    foreign_status = 400

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        return Observation(self.foreign_status) if observation.status == 400 else observation


class SharedGetStreamKey(ReferenceServer):
    """``Deviation.SHARED_GET_STREAM_KEY``: the GET streams send into one buffer
    behind the key ``get``; a GET stream replays that buffer."""

    SHARED = "get"

    def __init__(self) -> None:
        super().__init__()
        self.shared_events: list[tuple[str, str | None]] = []  # the buffer behind the shared key

    def send(self, stream: StreamRecord, request: str | None) -> Observation:
        if not stream.key.startswith("get-"):
            return super().send(stream, request)
        event_id = event_id_of(self.SHARED, len(self.shared_events) + 1)
        self.shared_events.append((event_id, request))
        stream.events.append((event_id, request))
        delivered = (self.delivered(stream, event_id, request),) if stream.connected else ()
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
        if stream is None or stream.session != session or last_event_id not in dict(self.kept_events(stream)):
            return Observation(400, error=RESUMPTION_ERROR_CODE)
        ids = [e for e, _ in self.shared_events]
        self.reattach(stream)
        after = self.shared_events[ids.index(last_event_id) + 1 :]
        return Observation(200, stream=stream.key, events=tuple(self.delivered(stream, e, r) for e, r in after))


class ReemitOnOpenConnection(ReferenceServer):
    """``Deviation.REEMIT_ON_OPEN_CONNECTION``: a session resumption re-emits every
    pending request, also one whose carrying stream is still connected."""

    def stranded(self, session: str) -> list[str]:
        return list(self.sessions[session].pending)


class ResumedStreamMisrouted(ReferenceServer):
    """``Deviation.RESUMED_STREAM_MISROUTED``: a stream resumption answers with the
    cursor's event id as the resumed stream's key, and the new connection is filed
    under it: what the stream sends later is stored, never delivered."""

    def __init__(self) -> None:
        super().__init__()
        self.misrouted: set[str] = set()  # streams whose connection sits under an event id's key

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        if observation.status != 200:
            return observation
        if self.streams[observation.stream].connected:
            self.misrouted.add(observation.stream)
        return replace(observation, stream=last_event_id)

    def send(self, stream: StreamRecord, request: str | None) -> Observation:
        observation = super().send(stream, request)
        return replace(observation, events=()) if stream.key in self.misrouted else observation

    def disconnect(self, stream: StreamRecord) -> None:
        super().disconnect(stream)
        self.misrouted.discard(stream.key)


class RingBufferGap(ReferenceServer):
    """``Deviation.RING_BUFFER_GAP``: a cursor the ring buffer evicted resumes its
    stream with every event the buffer still holds (an empty buffer cannot place
    the cursor, so that is still refused). Over HTTP the façade evicts beyond
    ``ring_capacity`` events per stream."""

    ring_capacity = 3

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        stream = self.find_stream(last_event_id)
        kept = self.kept_events(stream) if stream is not None else []
        if stream is None or stream.session != session or not kept or last_event_id in dict(kept):
            return super().resume_stream(session, last_event_id)
        self.reattach(stream)
        return Observation(200, stream=stream.key, events=tuple(self.delivered(stream, e, r) for e, r in kept))


class OrphanEventIdMintsSession(ReferenceServer):
    """``Deviation.ORPHAN_EVENT_ID_MINTS_SESSION``: an orphan ``Last-Event-ID`` gets a
    new session and a new GET stream of it."""

    def on_reconnect(self, action):
        if action.session is not None or action.last_event_id is None:
            return super().on_reconnect(action)
        session = self.on_initialize(None).session
        stream = self.open_stream(session, "get")
        return Observation(200, session=session, stream=stream.key)


class GetStreamStoresSession(ReferenceServer):
    """``Deviation.GET_STREAM_STORES_SESSION``: each GET stream's store records every
    event of its session sent while it is retained; resuming it replays that store."""

    def __init__(self) -> None:
        super().__init__()
        self.get_logs: dict[str, list[tuple[str, str | None]]] = {}  # GET stream key -> its store

    def send(self, stream: StreamRecord, request: str | None) -> Observation:
        observation = super().send(stream, request)
        for key, log in self.get_logs.items():
            if self.streams[key].session == stream.session and self.streams[key].retained:
                log.append((observation.event, request))
        return observation

    def open_stream(self, session: str, kind: str) -> StreamRecord:
        stream = super().open_stream(session, kind)
        if kind == "get":
            self.get_logs[stream.key] = []
        return stream

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        stream = self.find_stream(last_event_id)
        if stream is None or stream.key not in self.get_logs or stream.session != session:
            return super().resume_stream(session, last_event_id)
        if last_event_id not in dict(self.kept_events(stream)):
            return Observation(400, error=RESUMPTION_ERROR_CODE)
        log = self.get_logs[stream.key]
        ids = [event_id for event_id, _ in log]
        self.reattach(stream)
        after = log[ids.index(last_event_id) + 1 :]
        return Observation(200, stream=stream.key, events=tuple(self.delivered(stream, e, r) for e, r in after))


class UnknownSession400(ReferenceServer):
    """``Deviation.UNKNOWN_SESSION_400``: a well-formed id naming no live session gets 400."""

    def check_session(self, session: str | None) -> int | None:
        refusal = super().check_session(session)
        return 400 if refusal == 404 else refusal


class StaleConnectionCount(ReferenceServer):
    """``Deviation.STALE_CONNECTION_COUNT``: a session whose GET connection was ever open
    counts it open for good and refuses every later GET without a cursor with 409."""

    def resume_session(self, session: str) -> Observation:
        if any(s.session == session and s.key.startswith("get-") for s in self.streams.values()):
            return Observation(409)
        return super().resume_session(session)


class BroadcastNewMessages(ReferenceServer):
    """``Deviation.BROADCAST_NEW_MESSAGES``: a new message also goes to every other
    connected stream, of any session."""

    def send(self, stream: StreamRecord, request: str | None) -> Observation:
        observation = super().send(stream, request)
        others = tuple(self.delivered(other, observation.event, request) for other in self.streams.values()
                       if other is not stream and other.connected and self.sessions[other.session].live)
        return replace(observation, events=observation.events + others)


class UnstoredWhileDisconnected(ReferenceServer):
    """``Deviation.UNSTORED_WHILE_DISCONNECTED``: an event sent with no open connection
    gets its id, and is lost."""

    def __init__(self) -> None:
        super().__init__()
        self.lost = 0  # events sent with no connection open, each under an id of its own

    def send(self, stream: StreamRecord, request: str | None) -> Observation:
        if stream.connected:
            return super().send(stream, request)
        self.lost += 1
        return Observation(event=f"{stream.key}/lost-{self.lost}", request=request)


class DropEndsSession(ReferenceServer):
    """``Deviation.DROP_ENDS_SESSION``: a dropped connection ends its session (B33 allows it)."""

    def on_drop_connection(self, action):
        observation = super().on_drop_connection(action)
        self.end_session(self.streams[action.stream].session)
        return observation


class ConstantFirstEventId(ReferenceServer):
    """``Deviation.CONSTANT_FIRST_EVENT_ID``: every stream's first event (over HTTP, its
    priming event) has the id ``0``."""

    def send(self, stream: StreamRecord, request: str | None) -> Observation:
        if stream.events:
            return super().send(stream, request)
        stream.events.append(("0", request))
        delivered = (self.delivered(stream, "0", request),) if stream.connected else ()
        return Observation(event="0", request=request, events=delivered)

    def find_stream(self, event_id: str) -> StreamRecord | None:
        if event_id != "0":
            return super().find_stream(event_id)
        return next((s for s in self.streams.values() if s.events and s.events[0][0] == "0"), None)


class CallRequestOnGetStream(ReferenceServer):
    """``Deviation.CALL_REQUEST_ON_GET_STREAM``: a server request made on a POST stream
    goes on the session's GET stream instead while that stream has an open connection."""

    def on_issue_server_request(self, action):
        stream = self.streams[action.stream]
        get = next((s for s in self.streams.values() if s.session == stream.session and s.key.startswith("get-")
                    and s.connected and s.open), None)
        if get is None or not stream.key.startswith("post-"):
            return super().on_issue_server_request(action)
        return super().on_issue_server_request(replace(action, stream=get.key))


class SilentDropOnResume(ReferenceServer):
    """``Deviation.SILENT_DROP_ON_RESUME``: the requests a session resumption should
    re-emit are dropped from the pending table, and nothing is sent."""

    def resume_session(self, session: str) -> Observation:
        dropped = self.stranded(session)
        stream = self.open_stream(session, "get")
        pending = self.sessions[session].pending
        pending[:] = [r for r in pending if r not in dropped]
        return Observation(200, stream=stream.key)


class SingleSlotPending(ReferenceServer):
    """``Deviation.SINGLE_SLOT_PENDING``: a new server request overwrites the one pending."""

    def on_issue_server_request(self, action):
        observation = super().on_issue_server_request(action)
        pending = self.sessions[self.streams[action.stream].session].pending
        pending[:] = pending[-1:]
        return observation


class RetainedCursorEmpty(ReferenceServer):
    """``Deviation.RETAINED_CURSOR_EMPTY``: a stream resumption the reference answers with
    a replay is answered 200 with nothing replayed; the stream goes on live."""

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        return replace(observation, events=()) if observation.status == 200 else observation


class DuplicateAfterReplay(ReferenceServer):
    """``Deviation.DUPLICATE_AFTER_REPLAY``: the replay, then its last event once more."""

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        if observation.status != 200 or not observation.events:
            return observation
        return replace(observation, events=observation.events + observation.events[-1:])


class ReplayOutOfOrder(ReferenceServer):
    """``Deviation.REPLAY_OUT_OF_ORDER``: the replay newest first."""

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        if observation.status != 200 or len(observation.events) < 2:
            return observation
        return replace(observation, events=tuple(reversed(observation.events)))


class ResponseOnAnotherStream(ReferenceServer):
    """``Deviation.RESPONSE_ON_ANOTHER_STREAM``: the response on the session's newest other
    connected stream, when there is one."""

    def respond(self, stream: StreamRecord) -> Observation:
        observed = super().respond(stream)
        others = [s for s in self.streams.values() if s.session == stream.session and s.connected and s is not stream]
        if not others or observed.event is None:
            return observed
        elsewhere = others[-1]
        return replace(observed, events=(self.delivered(elsewhere, observed.event, None),))


class DisconnectCancels(ReferenceServer):
    """``Deviation.DISCONNECT_CANCELS``: a POST stream whose connection drops ends, and its call's
    response is never sent."""

    def on_drop_connection(self, action):
        stream = self.streams[action.stream]
        if stream.key.startswith("post-") and stream.open:
            stream.open = False
        return super().on_drop_connection(action)

    def respond(self, stream: StreamRecord) -> Observation:
        return Observation() if not stream.open else super().respond(stream)


class ResponseUnstored(ReferenceServer):
    """``Deviation.RESPONSE_UNSTORED``: a response while the stream has no open connection is
    neither sent nor stored."""

    def respond(self, stream: StreamRecord) -> Observation:
        return Observation() if not stream.connected else super().respond(stream)


class UnknownCursorPastEnd(ReferenceServer):
    """``Deviation.UNKNOWN_CURSOR_PAST_END``: a well-formed event id that names no event resumes the
    session's newest retained stream from one past its end; a later replay of it skips up to there."""

    def __init__(self) -> None:
        super().__init__()
        self.skip: dict[str, int] = {}  # stream -> the events a replay of it skips (the forged position)

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        newest = next((s for s in reversed(self.streams.values()) if s.session == session and s.retained), None)
        if self.find_stream(last_event_id) is None and is_well_formed(last_event_id) and newest is not None:
            self.skip[newest.key] = len(newest.events) + 1
            self.reattach(newest)
            return Observation(200, stream=newest.key)
        observation = super().resume_stream(session, last_event_id)
        skip = self.skip.get(observation.stream, 0) if observation.status == 200 else 0
        kept = tuple(d for d in observation.events if (sequence_of(d.event) or 0) > skip)
        return replace(observation, events=kept) if skip else observation


class EmptyReplayNeverAnswered(ReferenceServer):
    """``Deviation.EMPTY_REPLAY_NEVER_ANSWERED``: a stream resumption from the last event kept gets
    no answer (``Observation.status`` ``None``) and changes nothing."""

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        stream = self.find_stream(last_event_id)
        kept = [event_id for event_id, _ in self.kept_events(stream)] if stream is not None else []
        if stream is not None and stream.session == session and kept and kept[-1] == last_event_id:
            return Observation()
        return super().resume_stream(session, last_event_id)


class CursorRefusalNeverAnswered(ReferenceServer):
    """``Deviation.CURSOR_REFUSAL_NEVER_ANSWERED``: a stream resumption the reference refuses (the
    cursor names no retained event of the session) gets no answer (``Observation.status`` ``None``)."""

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        return Observation() if observation.status == 400 else observation


class EndedStreamEmpty200(ReferenceServer):
    """``Deviation.ENDED_STREAM_EMPTY_200``: resuming a stream that has ended gets 200 and nothing."""

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        observation = super().resume_stream(session, last_event_id)
        ended = observation.status == 200 and not self.streams[observation.stream].open
        return replace(observation, events=()) if ended else observation


class DeleteEndsAllSessions(ReferenceServer):
    """``Deviation.DELETE_ENDS_ALL_SESSIONS``: DELETE of one session ends every session."""

    def on_delete_session(self, action):
        observation = super().on_delete_session(action)
        if observation.status == 200:
            for session, record in self.sessions.items():
                if record.live:
                    self.end_session(session)
        return observation


BEHAVIOUR: dict[Deviation, type[ReferenceServer]] = {
    Deviation.PER_SESSION_CURSOR: PerSessionCursor,
    Deviation.GLOBAL_EVENT_LOG: GlobalEventLog,
    Deviation.REEMIT_DRAINS_PENDING: ReemitDrainsPending,
    Deviation.SESSION_ID_AS_CURSOR: SessionIdAsCursor,
    Deviation.EVENT_ID_AS_SESSION: EventIdAsSession,
    Deviation.STREAM_RESUME_REEMITS: StreamResumeReemits,
    Deviation.OFF_BY_ONE_REPLAY: OffByOneReplay,
    Deviation.EXPIRY_ENDS_SESSION: ExpiryEndsSession,
    Deviation.ENDED_SESSION_EVENTS_REPLAY: EndedSessionEventsReplay,
    Deviation.FOREIGN_EVENT_ID_STATUS: ForeignEventIdStatus,
    Deviation.SHARED_GET_STREAM_KEY: SharedGetStreamKey,
    Deviation.REEMIT_ON_OPEN_CONNECTION: ReemitOnOpenConnection,
    Deviation.SESSION_LOG_REPLAY: SessionLogReplay,
    Deviation.RING_BUFFER_GAP: RingBufferGap,
    Deviation.RESUMED_STREAM_MISROUTED: ResumedStreamMisrouted,
    Deviation.ORPHAN_EVENT_ID_MINTS_SESSION: OrphanEventIdMintsSession,
    Deviation.GET_STREAM_STORES_SESSION: GetStreamStoresSession,
    Deviation.UNKNOWN_SESSION_400: UnknownSession400,
    Deviation.STALE_CONNECTION_COUNT: StaleConnectionCount,
    Deviation.BROADCAST_NEW_MESSAGES: BroadcastNewMessages,
    Deviation.UNSTORED_WHILE_DISCONNECTED: UnstoredWhileDisconnected,
    Deviation.DROP_ENDS_SESSION: DropEndsSession,
    Deviation.CONSTANT_FIRST_EVENT_ID: ConstantFirstEventId,
    Deviation.CALL_REQUEST_ON_GET_STREAM: CallRequestOnGetStream,
    Deviation.SILENT_DROP_ON_RESUME: SilentDropOnResume,
    Deviation.SINGLE_SLOT_PENDING: SingleSlotPending,
    Deviation.RETAINED_CURSOR_EMPTY: RetainedCursorEmpty,
    Deviation.DUPLICATE_AFTER_REPLAY: DuplicateAfterReplay,
    Deviation.REPLAY_OUT_OF_ORDER: ReplayOutOfOrder,
    Deviation.DELETE_ENDS_ALL_SESSIONS: DeleteEndsAllSessions,
    Deviation.RESPONSE_ON_ANOTHER_STREAM: ResponseOnAnotherStream,
    Deviation.DISCONNECT_CANCELS: DisconnectCancels,
    Deviation.RESPONSE_UNSTORED: ResponseUnstored,
    Deviation.UNKNOWN_CURSOR_PAST_END: UnknownCursorPastEnd,
    Deviation.EMPTY_REPLAY_NEVER_ANSWERED: EmptyReplayNeverAnswered,
    Deviation.ENDED_STREAM_EMPTY_200: EndedStreamEmpty200,
    Deviation.CURSOR_REFUSAL_NEVER_ANSWERED: CursorRefusalNeverAnswered,
}
"""The server class of each deviation."""

_ATTRIBUTES: dict[str, str] = {"status": "foreign_status"}
"""The class attribute each design parameter sets on its server."""


def server_for(design: Design, behaviour: dict | None = None, module: str = __name__) -> type[ReferenceServer]:
    """The server class of ``design``: its deviations' classes (the first one's
    methods win) from ``behaviour`` (this module's ``BEHAVIOUR`` by default), with
    the design's name and parameters as class attributes.

    The class is registered in ``module`` under ``Design<number>`` (a correct
    variation: ``Variation<Slug>``) so that its instances pickle (the explorer
    snapshots servers by pickling them).
    """
    import sys

    behaviour = BEHAVIOUR if behaviour is None else behaviour
    qualname = class_name(design)
    namespace = {"name": design.name, "design": design, "__module__": module, "__qualname__": qualname,
                 "__doc__": f"{design.target}: {design.summary}."}
    namespace.update({_ATTRIBUTES[key]: value for key, value in design.parameters})
    bases = tuple(behaviour[d] for d in design.deviations) or (ReferenceServer,)
    cls = type(qualname, bases, namespace)
    setattr(sys.modules[module], qualname, cls)
    return cls


def class_name(design: Design) -> str:
    """``Design13``, or ``VariationRingBuffer`` for the correct variation ``ring-buffer``."""
    if design.correct:
        return "Variation" + "".join(part.title() for part in design.slug.split("-"))
    return f"Design{design.number}"


DESIGNS: dict[int, type[ReferenceServer]] = {design.number: server_for(design) for design in SPECS}
"""Each design's server class, by number (a zero-argument factory of the server)."""
