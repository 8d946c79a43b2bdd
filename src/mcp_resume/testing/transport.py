"""A server under test made of a user's ``EventStore`` and a transport played by the kit.

``EventStoreTransport`` is the in-process reference server
(``model.servers.reference``) with its event bookkeeping handed to the store, the
way the SDK's ``StreamableHTTPServerTransport`` hands it over: every event is
stored with ``store_event`` under the SDK's stream key, priming events included,
and every stream resumption is answered with what ``replay_events_after`` sends.
Everything else (sessions, their 400/404 guards, pending server requests and
their re-emission, connections) is the reference's, so that any difference from
the spec the checker finds is the store's doing.

Stream keys are the SDK's: the JSON-RPC id of the POST request (``"1"``,
``"2"`` ...) and ``"_GET_stream"`` for a session's standalone stream. Two
departures, both to hold the store only to what it can do, and both reported by
``probes`` as limits of the SDK instead: request ids are counted per store
instance (with one store shared by all sessions they never repeat across
sessions), and a store instance's second and later standalone streams are keyed
``_GET_stream#2``, ``#3`` ... (the SDK reuses ``_GET_stream``).

Deployments: ``per-session`` calls the factory once for every session (a store
per session: the only way a plain store can keep sessions apart); ``shared`` calls it
once for all sessions (what ``StreamableHTTPSessionManager`` does). Under
``shared`` another session's cursor cannot be judged (the store is never told
who asks) and such a request is skipped as ``Unsupported``, unless the store hands
out a view per session (``for_session()``, as ``BoundedEventStore`` does with
``scope_sessions``): then every session stores and replays through its own view,
and another session's cursor is judged like any other.

Stream expiry is not part of the SDK's interface: the kit's transport refuses
(400) a cursor of a stream it expired, without asking the store.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from mcp_resume.model.servers.adapter import Unsupported, Violation
from mcp_resume.model.servers.reference import ReferenceServer, SessionRecord, StreamRecord
from mcp_resume.spec import actions as a
from mcp_resume.spec.transitions import Delivered, Observation

from .sdk import GET_STREAM_KEY, StoreRunner, emission_of, notification, server_request
from mcp_resume.event_store import session_store

PER_SESSION = "per-session"
SHARED = "shared"
DEPLOYMENTS = (PER_SESSION, SHARED)

_RUNS = itertools.count(1)


@dataclass(frozen=True)
class Stored:
    """One ``store_event`` call: what was given and what the store answered."""

    event_id: str
    store_key: str
    session: str
    stream: str  # the transport's stream key, ``<session>/<store key>``
    slot: str  # the store instance, by name
    message: Any  # None for a priming event
    emission: str | None
    request: str | None  # the server request carried (the transport's id)
    example: int

    @property
    def reported(self) -> str:
        """The id reported to the checker: unique even when stores' ids repeat."""
        return f"{self.slot}:{self.event_id}"


class Registry:
    """Every message the kit stored during one check, over all examples, by emission mark."""

    def __init__(self) -> None:
        self.run = next(_RUNS)
        self._emissions = itertools.count(1)
        self._examples = itertools.count(1)
        self.by_emission: dict[str, Stored] = {}

    def next_emission(self) -> str:
        return f"{self.run}.{next(self._emissions)}"

    def next_example(self) -> int:
        return next(self._examples)

    def is_of_this_run(self, emission: str) -> bool:
        return emission.split(".", 1)[0] == str(self.run)


@dataclass
class Slot:
    """One store instance and the transport's counters for it."""

    name: str
    store: Any
    request_ids: Any = field(default_factory=lambda: itertools.count(0))
    standalone: int = 0
    minted: dict[str, Stored] = field(default_factory=dict)

    def post_key(self) -> str:
        return str(next(self.request_ids))

    def standalone_key(self) -> str:
        self.standalone += 1
        return GET_STREAM_KEY if self.standalone == 1 else f"{GET_STREAM_KEY}#{self.standalone}"


class EventStoreTransport(ReferenceServer):
    """The reference server with its events kept by a user's ``EventStore``."""

    def __init__(self, factory: Callable[[], Any], deployment: str = PER_SESSION, registry: Registry | None = None,
                 name: str = "event-store") -> None:
        super().__init__()
        if deployment not in DEPLOYMENTS:
            raise ValueError(f"unknown deployment {deployment!r}; known: {', '.join(DEPLOYMENTS)}")
        self.name = name
        self.factory = factory
        self.deployment = deployment
        self.registry = registry or Registry()
        self.example = self.registry.next_example()
        self.runner = StoreRunner()
        self.slots: dict[str, Slot] = {}
        shared = factory() if deployment == SHARED else None
        self.scoped = shared is not None and callable(getattr(shared, "for_session", None))
        self.shared_store = shared
        self.shared = Slot(SHARED, shared) if shared is not None and not self.scoped else None
        self.stored: dict[str, Stored] = {}  # by reported id
        self.store_keys: dict[str, str] = {}  # transport stream key -> store key
        self.jsonrpc_ids: dict[str, int] = {}  # server request -> its JSON-RPC id
        self.server_request_ids: dict[str, Any] = {}  # session -> counter

    def close(self) -> None:
        self.runner.close()

    # -- sessions and streams ----------------------------------------------------

    evicts = False  # the machine never asks: an SDK EventStore's own discards are not the kit's to order

    def on_evict_event(self, action: a.EvictEvent) -> Observation:
        raise Unsupported("an SDK EventStore has no eviction the kit can order: a ring buffer's own discards are its business")

    def on_initialize(self, action: a.Initialize) -> Observation:
        session = f"sess-{len(self.sessions) + 1}"  # the n-th session, as the spec's handle Sn
        self.sessions[session] = SessionRecord()
        store = session_store(self.shared_store if self.scoped else self.factory())
        self.slots[session] = self.shared or Slot(session, store)
        self.slots[session].post_key()  # the client's initialize request takes JSON-RPC id 0
        self.server_request_ids[session] = itertools.count(0)
        return Observation(200, session=session)

    def open_stream(self, session: str, kind: str) -> StreamRecord:
        slot = self.slots[session]
        store_key = slot.post_key() if kind == "post" else slot.standalone_key()
        stream = StreamRecord(f"{session}/{store_key}", session)
        self.streams[stream.key] = stream
        self.store_keys[stream.key] = store_key
        if kind == "post":
            self._store(stream, None)  # priming event (MCP D8)
        return stream

    def send(self, stream: StreamRecord, request: str | None) -> Observation:
        emission = self.registry.next_emission()
        message = notification(emission) if request is None else server_request(self._jsonrpc_id(stream, request), emission)
        stored = self._store(stream, message, request, emission)
        stream.events.append((stored.reported, request))
        delivered = (Delivered(stored.reported, request, stream.key),) if stream.connected else ()
        return Observation(event=stored.reported, request=request, events=delivered)

    # -- stream resumption: the store's answer -------------------------------------

    def resume_stream(self, session: str, last_event_id: str) -> Observation:
        slot = self.slots[session]
        origin = self.stored.get(last_event_id)
        cursor = origin.event_id if origin else last_event_id
        if origin is not None and origin.session == session and not self.streams[origin.stream].retained:
            return Observation(400)
        if origin is not None and origin.session != session:
            self._refuse_unjudgeable(slot, origin)
        sent: list[Any] = []

        async def collect(event_message: Any) -> None:
            sent.append(event_message)

        key = self.runner.call("replay_events_after", slot.store.replay_events_after, cursor, collect)
        delivered = tuple(self._identify(item) for item in sent)
        self._check_resolution(origin, slot, key, cursor, delivered)
        if origin is not None and origin.session != session and key is not None:
            raise Violation("no-cross-session", f"the store of session {session} resolved event id {cursor!r} of "
                            f"session {origin.session} to stream {key!r} and replayed {len(delivered)} event(s)")
        if key is None:
            return Observation(400)
        stream = self.streams.get(f"{session}/{key}")
        if stream is not None:
            delivered = tuple(replace(item, stream=stream.key) for item in delivered)
        if stream is not None and stream.retained:
            self.reattach(stream)
            self._store(stream, None)  # the SDK primes a stream it registers anew after a replay
        return Observation(200, stream=stream.key if stream else None, events=delivered)

    def _refuse_unjudgeable(self, slot: Slot, origin: Stored) -> None:
        if self.deployment == SHARED and not self.scoped:
            raise Unsupported("a store shared by all sessions is never told which session presents a cursor")
        if origin.event_id in slot.minted:
            raise Unsupported(f"event id {origin.event_id!r} names an event in both sessions' stores")

    def _check_resolution(self, origin, slot: Slot, key, cursor: str, delivered) -> None:
        if key is not None and not isinstance(key, str):
            raise Violation("event-id-unique", f"replay_events_after({cursor!r}) returned {key!r}, not a stream key")
        if key is None and delivered:
            raise Violation("replay-suffix", f"replay_events_after({cursor!r}) sent {len(delivered)} event(s) but named "
                            "no stream: the SDK would not continue that stream")
        if origin is not None and origin.slot == slot.name and key is not None and key != origin.store_key:
            raise Violation("event-id-unique", f"event id {cursor!r} was stored on stream {origin.store_key!r}, but "
                            f"replay_events_after says it belongs to {key!r}")

    def _identify(self, item: Any) -> Delivered:
        """The stored event a replayed ``EventMessage`` is, by the mark on its message."""
        message, event_id = getattr(item, "message", None), getattr(item, "event_id", None)
        if message is None:
            raise Violation("replay-suffix", f"replay sent event {event_id!r} without a message (a priming event?): "
                            "priming events carry nothing to replay, and the SDK fails on them")
        emission = emission_of(message)
        stored = self.registry.by_emission.get(emission) if emission else None
        if stored is None:
            origin = "during another check" if emission and not self.registry.is_of_this_run(emission) else "by the kit"
            raise Violation("no-cross-session" if emission else "replay-suffix",
                            f"replay sent a message never stored {origin} in this session: {_summary(message)}")
        if stored.example != self.example:
            raise Violation("no-cross-session", f"replay sent event {stored.event_id!r}, stored by session "
                            f"{stored.session} of an earlier example: the stores share state beyond their instance")
        if event_id != stored.event_id:
            raise Violation("event-id-unique", f"replay sent the event stored as {stored.event_id!r} under the id "
                            f"{event_id!r}")
        if message != stored.message:
            raise Violation("replay-suffix", f"replay sent event {stored.event_id!r} with another message than the "
                            f"one stored: {_summary(message)}")
        return Delivered(stored.reported, stored.request)

    # -- storing ---------------------------------------------------------------------

    def _store(self, stream: StreamRecord, message: Any, request: str | None = None,
               emission: str | None = None) -> Stored:
        slot = self.slots[stream.session]
        store_key = self.store_keys[stream.key]
        event_id = self.runner.call("store_event", slot.store.store_event, store_key, message)
        _check_new_id(slot, event_id, store_key)
        stored = Stored(event_id, store_key, stream.session, stream.key, slot.name, message, emission, request,
                        self.example)
        slot.minted[event_id] = stored
        self.stored[stored.reported] = stored
        if emission is not None:
            self.registry.by_emission[emission] = stored
        return stored

    def _jsonrpc_id(self, stream: StreamRecord, request: str) -> int:
        if request not in self.jsonrpc_ids:
            self.jsonrpc_ids[request] = next(self.server_request_ids[stream.session])
        return self.jsonrpc_ids[request]


def _check_new_id(slot: Slot, event_id: Any, store_key: str) -> None:
    if not isinstance(event_id, str) or not event_id:
        raise Violation("event-id-unique", f"store_event returned {event_id!r}; an event id is a non-empty string")
    if any(ch in event_id for ch in "\r\n\0"):
        raise Violation("event-id-unique", f"store_event returned {event_id!r}, which cannot travel in an SSE id field")
    if event_id in slot.minted:
        earlier = slot.minted[event_id]
        raise Violation("event-id-unique", f"store_event returned {event_id!r} twice: for an event of stream "
                        f"{earlier.store_key!r} and again for one of stream {store_key!r}")


def _summary(message: Any) -> str:
    """``message`` as the JSON the SDK would send, cut at 300 characters."""
    dump = getattr(message, "model_dump_json", None)
    try:
        text = dump(by_alias=True, exclude_none=True) if callable(dump) else json.dumps(message, default=str)
    except (TypeError, ValueError):
        text = repr(message)
    return text if len(text) <= 300 else text[:297] + "..."
