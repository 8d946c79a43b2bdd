"""Fixed scenarios run straight on a store, with the SDK's exact stream keys.

Two kinds:

- *contract* probes check what the Hypothesis machine cannot express (the spec
  has no priming events); a failed one fails the store;
- *limit* probes show what a store does where the SDK leaves it no way to be
  right: one store shared by all sessions, stream keys that repeat across
  sessions or across a session's standalone streams. They never fail the store;
  each says why no store can do better and what to do instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from .sdk import GET_STREAM_KEY, StoreRunner, emission_of, notification
from mcp_resume.event_store import session_store

ISOLATION_STATEMENT = (
    "The SDK's EventStore interface tells the store neither the session that stores an event nor the session "
    "that presents a Last-Event-ID, and StreamableHTTPSessionManager gives one store to every session. A store "
    "shared that way cannot guarantee that one session's cursor never yields another session's events "
    "(no-cross-session): another session's event id resolves like one's own, and two sessions' POST streams "
    "share a key whenever their clients use the same JSON-RPC request id. What to do: hand every session its "
    "own view of one store, whose event ids carry the session and which refuses another session's "
    "(mcp_resume.event_store.BoundedEventStore with scope_sessions; a store of your own can do the same with "
    "for_session()), or give every session's transport its own store instance with all its state inside it "
    "(in a shared database, every row scoped by instance; checked with deployment=\"per-session\")."
)


@dataclass(frozen=True)
class ProbeResult:
    """One probe: ``held`` means the store did right (contract) or was not exposed (limit)."""

    name: str
    rule: str
    title: str
    held: bool
    observed: str
    why: str = ""
    remedy: str = ""

    def to_json(self) -> dict:
        return dict(self.__dict__)


class _Scene:
    """Marked messages and replays for one probe."""

    def __init__(self, name: str) -> None:
        self.name = name

    def note(self, label: str) -> Any:
        return notification(f"probe-{self.name}-{label}")

    @staticmethod
    async def replay(store: Any, cursor: str) -> tuple[list[str], list[Any], Any]:
        """(labels of the marked messages sent, their event ids, the stream key returned)."""
        sent: list[Any] = []

        async def collect(item: Any) -> None:
            sent.append(item)

        key = await store.replay_events_after(cursor, collect)
        labels = [_label(getattr(item, "message", None)) for item in sent]
        return labels, [getattr(item, "event_id", None) for item in sent], key


def _label(message: Any) -> str:
    if message is None:
        return "<no message>"
    mark = emission_of(message)
    return mark.rsplit("-", 1)[-1] if mark else "<unknown message>"


def _run(runner: StoreRunner, name: str, scenario: Callable[[], Awaitable[Any]]) -> tuple[Any, str | None]:
    try:
        return runner.call(f"probe {name}", scenario), None
    except Exception as error:  # the store's own failure is what the probe reports
        return None, f"the store raised {type(error).__name__}: {error}"


# -- contract --------------------------------------------------------------------


def resume_from_priming(factory: Callable[[], Any], runner: StoreRunner) -> ProbeResult:
    """Resuming from a POST stream's priming event replays all of that stream's events."""
    scene = _Scene("priming")
    title = "a Last-Event-ID naming the priming event of a POST stream replays every later event of that stream"

    async def scenario():
        store = session_store(factory())
        priming = await store.store_event("1", None)
        first = await store.store_event("1", scene.note("a1"))
        await store.store_event("2", scene.note("b1"))
        second = await store.store_event("1", scene.note("a2"))
        return (first, second), await scene.replay(store, priming)

    outcome, error = _run(runner, "priming", scenario)
    if error:
        return ProbeResult("resume-from-priming", "replay-suffix", title, False, error)
    expected_ids, (labels, ids, key) = outcome
    held = labels == ["a1", "a2"] and tuple(ids) == expected_ids and key == "1"
    observed = f"replay after the priming event sent {labels or 'nothing'} and named stream {key!r}"
    if not held:
        observed += " (expected ['a1', 'a2'] on stream '1': a client resumes from the priming id when nothing else reached it)"
    return ProbeResult("resume-from-priming", "replay-suffix", title, held, observed)


CONTRACT_PROBES = (resume_from_priming,)

DOCS_PAGE = "the 'EventStore test kit' page of the mcp-resume docs (docs/testing.md in its repository)"


# -- limits of the SDK -------------------------------------------------------------

_PER_SESSION_REMEDY = "Give each session its own store instance, with all state inside it."


def foreign_cursor(factory: Callable[[], Any], runner: StoreRunner) -> ProbeResult:
    scene = _Scene("foreign")

    async def scenario():
        a, b = _two_sessions(factory)  # one store, two sessions: StreamableHTTPSessionManager's deployment
        await a.store_event("1", None)
        a1 = await a.store_event("1", scene.note("A1"))
        await a.store_event("1", scene.note("A2"))
        return await scene.replay(b, a1)  # session B presents session A's event id

    return _limit(runner, "foreign-cursor", scene, scenario, {"A2"},
                  "with one store for all sessions, session B presenting session A's event id",
                  "session B was sent {labels}",
                  "replay_events_after receives the cursor and nothing else, so a store shared by every session "
                  "cannot tell whether the session asking is the one the event was sent to.",
                  _PER_SESSION_REMEDY + " Or compare a session encoded in the event id with Mcp-Session-Id "
                  "before calling replay_events_after (the SDK's transport does not).")


def request_id_collision(factory: Callable[[], Any], runner: StoreRunner) -> ProbeResult:
    scene = _Scene("collision")

    async def scenario():
        a, b = _two_sessions(factory)
        await a.store_event("1", None)  # session A's tools/call, JSON-RPC id 1
        a1 = await a.store_event("1", scene.note("A1"))
        await b.store_event("1", None)  # session B's tools/call, also id 1
        await b.store_event("1", scene.note("B1"))
        await a.store_event("1", scene.note("A2"))
        return await scene.replay(a, a1)  # session A resumes its own stream

    return _limit(runner, "request-id-collision", scene, scenario, {"B1"},
                  "with one store for all sessions, two sessions whose tools/call both have JSON-RPC id 1",
                  "session A resuming its own stream was sent {labels}",
                  "The SDK keys a POST stream by the JSON-RPC id of its request, and every client numbers its "
                  "requests on its own (the Python SDK's client starts at 0 in every session): both sessions' "
                  "streams arrive under one key.", _PER_SESSION_REMEDY)


def shared_standalone_key(factory: Callable[[], Any], runner: StoreRunner) -> ProbeResult:
    scene = _Scene("standalone")

    async def scenario():
        a, b = _two_sessions(factory)
        g1 = await a.store_event(GET_STREAM_KEY, scene.note("A1"))
        await b.store_event(GET_STREAM_KEY, scene.note("B1"))
        await a.store_event(GET_STREAM_KEY, scene.note("A2"))
        return await scene.replay(a, g1)

    return _limit(runner, "shared-standalone-key", scene, scenario, {"B1"},
                  f"with one store for all sessions, the standalone GET streams of two sessions (key {GET_STREAM_KEY!r})",
                  "session A resuming its standalone stream was sent {labels}",
                  f"The SDK keys the standalone stream of every session {GET_STREAM_KEY!r} (rule no-cross-session, MCP B26; "
                  "the TypeScript SDK had the same leak).", _PER_SESSION_REMEDY)


def reused_standalone_key(factory: Callable[[], Any], runner: StoreRunner) -> ProbeResult:
    scene = _Scene("reused")

    async def scenario():
        store = session_store(factory())  # one session
        g1 = await store.store_event(GET_STREAM_KEY, scene.note("first"))
        # the connection drops; the client opens a new standalone stream (no Last-Event-ID)
        await store.store_event(GET_STREAM_KEY, scene.note("second"))
        return await scene.replay(store, g1)  # then resumes the first one

    return _limit(runner, "reused-standalone-key", scene, scenario, {"second"},
                  "in one session, resuming a standalone stream after a newer one was opened",
                  "resuming the first standalone stream sent {labels}",
                  f"The SDK keys every standalone stream of a session {GET_STREAM_KEY!r}, so a newer stream's "
                  "events are stored under the older stream's key; resuming the older one replays events the "
                  "client already received on the newer one.",
                  "Nothing a store can do: the transport must key each standalone stream apart. A client that "
                  "resumes only its newest standalone stream is not affected.")


def _two_sessions(factory: Callable[[], Any]) -> tuple[Any, Any]:
    """The stores two sessions use when one store serves both: the same store twice, or two of its
    views when it hands out one per session (``for_session``)."""
    shared = factory()
    return session_store(shared), session_store(shared)


def _limit(runner, name, scene, scenario, leaks: set[str], title, observed_form, why, remedy) -> ProbeResult:
    outcome, error = _run(runner, name, scenario)
    if error:
        return ProbeResult(name, "no-cross-session", title, True, error, why, remedy)
    labels, _, _ = outcome
    exposed = bool(leaks & set(labels))
    observed = observed_form.format(labels=labels or "nothing")
    return ProbeResult(name, "no-cross-session", title, not exposed, observed, why, remedy)


LIMIT_PROBES = (foreign_cursor, request_id_collision, shared_standalone_key, reused_standalone_key)
SHARING_PROBES = ("foreign-cursor", "request-id-collision", "shared-standalone-key")
"""The limit probes that play two sessions on one store: under ``deployment="shared"`` what they
observe is a leak of the deployment checked, and fails the store."""


def run_probes(probes, factory: Callable[[], Any]) -> tuple[ProbeResult, ...]:
    runner = StoreRunner()
    try:
        return tuple(probe(factory, runner) for probe in probes)
    finally:
        runner.close()
