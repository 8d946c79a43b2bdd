"""The Hypothesis state machine: random action sequences, spec and server side by side.

``run_machine(factory, profile)`` generates sequences of the spec's actions
(any header combination a client could send, every server and network action the
spec enables), drives a fresh server from ``factory`` through each with a
``Checker``, and stops at the first failing example; ``checker.shorten`` then
deletes the actions the failure does not need (Hypothesis's own shrink phase
cost five to ten times the actions of the search). The result carries the short
counterexample as a ``Trace``, the actions and seconds it took to find, and the
coverage of the run (each action kind and each branch of the spec's decision,
counted from the spec's outcome of every step judged).

To find faults fast the machine uses swarm testing (Hypothesis disables a random
subset of rules per test case; ``choose_swarm`` does the same for the kinds of
action inside the rules that pick among several), opens a session at the first
step, and its rules lean half the time to the rare branches: a stream resumption
from a real event id of a retained stream, a session resumption with a pending
request (its connection dropped first, or not), an ended session's event ids, an
evicted cursor, a server-initiated close.

CI runs derandomized (``settings``): the same sequences on every run; ``seed``
picks another fixed sequence.
"""

from __future__ import annotations

import random
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule, run_state_machine_as_test
from hypothesis.stateful import initialize as first_step

from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.state import RequestStatus, StreamKind, StreamStatus
from mcp_resume.spec.transitions import enabled
from mcp_resume.spec.trace import Failure, Trace

from mcp_resume.model.servers.adapter import ServerUnderTest, Unsupported
from mcp_resume.model.harness.checker import Checker, Counterexample, shorten
from mcp_resume.model.harness.coverage import Coverage
from mcp_resume.spec.headers import MALFORMED_EVENT, MALFORMED_SESSION, UNKNOWN_EVENT, UNKNOWN_SESSION
from mcp_resume.model.harness import memos

memos.install()  # the spec's pure functions memoized in this process: same results, less time

MAX_SESSIONS = 3
"""Live sessions at most."""
MAX_OPENED = 6
"""Sessions opened at most in one test case (ended ones included)."""

DEFAULT_EXAMPLES = 500
"""Examples per run: the machine finds every faulty design within a fifth of them (benchmarks/bench_machine.py)."""
DEFAULT_STEPS = 40


def machine_settings(max_examples: int = DEFAULT_EXAMPLES, steps: int = DEFAULT_STEPS, shrink: bool = True) -> settings:
    """Deterministic settings: derandomized, no example database, no deadline;
    without Hypothesis's shrink phase when ``shrink`` is false."""
    return settings(
        max_examples=max_examples,
        stateful_step_count=steps,
        derandomize=True,
        database=None,
        deadline=None,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        print_blob=False,
        phases=(Phase.explicit, Phase.generate, Phase.shrink) if shrink else (Phase.explicit, Phase.generate),
    )


@dataclass
class MachineResult:
    server: str
    profile: Profile
    counterexample: Counterexample | None = None
    actions_run: int = 0
    action_counts: dict[str, int] = field(default_factory=dict)
    warnings: dict[str, Trace] = field(default_factory=dict)
    """Rules seen broken without failing the run (SHOULD, MAY), each with its first trace."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Actions the server could not be driven through (``Unsupported``), by kind."""
    coverage: Coverage = field(default_factory=Coverage)
    """Steps judged per action kind and per branch of the spec's decision."""
    actions_to_first: int | None = None
    """Actions run up to and including the first failing one (before shrinking)."""
    seconds_to_first: float | None = None
    """Seconds from the start of the run to the first failing action (before shrinking)."""
    shorten_seconds: float = 0.0
    """Seconds spent shortening the counterexample's trace (``checker.shorten``)."""
    started: float = field(default_factory=time.perf_counter)

    def count(self, kind: str) -> None:
        """One more action of ``kind`` run against the server."""
        self.actions_run += 1
        self.action_counts[kind] = self.action_counts.get(kind, 0) + 1

    def mark_first(self) -> None:
        """Note the first failing action: how many actions and seconds it took to find."""
        if self.actions_to_first is None:
            self.actions_to_first = self.actions_run
            self.seconds_to_first = time.perf_counter() - self.started

    @property
    def passed(self) -> bool:
        return self.counterexample is None

    @property
    def vacuous(self) -> bool:
        """Nothing was found, but some action never fired or some branch was never taken."""
        return self.passed and not self.coverage.complete

    @property
    def holds(self) -> bool:
        """Nothing was found, and the run exercised every action and branch."""
        return self.passed and self.coverage.complete

    @property
    def trace(self) -> Trace | None:
        return self.counterexample.trace if self.counterexample else None


def run_machine(
    factory: Callable[[], ServerUnderTest],
    profile: Profile = DEFAULT_PROFILE,
    max_examples: int = DEFAULT_EXAMPLES,
    steps: int = DEFAULT_STEPS,
    seed: int = 0,
) -> MachineResult:
    """Run the machine against servers made by ``factory``; never raises on a finding.

    ``seed`` picks the fixed sequence of examples (0: the default one; each
    other number another, as deterministic).

    Returns the first counterexample Hypothesis generated, shortened by
    ``checker.shorten`` (deleting actions and replaying on fresh servers, which
    costs a fraction of Hypothesis's own shrink phase), and the coverage of every
    step judged: a result that ``passed`` without covering every action and
    branch (``coverage.REQUIRED_*``) is ``vacuous`` and does not ``hold``.
    """
    probe = factory()
    result = MachineResult(getattr(probe, "name", type(probe).__name__), profile)
    probe.close()
    attributes = {"factory": staticmethod(factory), "profile": profile, "result": result}
    found = run_until_counterexample(_ResumptionMachine, attributes, Counterexample, max_examples, steps,
                                     name="ResumptionMachine" + (f"{seed}" if seed else ""), shrink=False)
    if found is not None:
        started = time.perf_counter()
        result.counterexample = shorten(found, factory)
        result.shorten_seconds = time.perf_counter() - started
    return result


def run_until_counterexample(base: type[RuleBasedStateMachine], attributes: dict, stops: type[Exception],
                             max_examples: int = DEFAULT_EXAMPLES, steps: int = DEFAULT_STEPS, name: str = "Machine",
                             shrink: bool = True):
    """Run a fresh subclass of ``base`` called ``name``, with ``attributes`` as class
    attributes, under ``machine_settings``; return the ``stops`` exception of the
    failing run (shrunk by Hypothesis unless ``shrink`` is false) without its traceback,
    whose frames would keep Hypothesis's whole search alive (thousands of its objects per
    run), or ``None`` when no example failed (any other exception propagates)."""
    machine = type(name, (base,), attributes)
    try:
        with generation_independent_of_loaded_modules():
            run_state_machine_as_test(machine, settings=machine_settings(max_examples, steps, shrink))
    except stops as found:
        return found.with_traceback(None)
    return None


@contextmanager
def generation_independent_of_loaded_modules():
    """Hypothesis without the constants it collects from the source of loaded local modules.

    Hypothesis (6.13x on) draws an integer, about one time in twenty, from the
    literals of every module imported from outside site-packages, so a
    derandomized run made different sequences in an editable install than in a
    plain one, and in a process that had imported more of this package (design 12
    was found after 553 actions alone, 5,346 once the spec explorer had been
    imported). Inside this context that pool is empty, as in a plain install;
    a Hypothesis without that internal is left as it is.
    """
    from hypothesis.internal.conjecture import providers

    collect = getattr(providers, "_get_local_constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    constants = getattr(providers, "Constants", None)
    if collect is None or cache is None or constants is None:
        yield
        return
    empty = constants()
    providers._get_local_constants = lambda: empty
    cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = collect
        cache.clear()


class Choices:
    """The picks of one rule, from the seed Hypothesis drew for it (deterministic: the
    same seed makes the same picks)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def index(self, n: int) -> int:
        """An index in ``range(n)``, ``n`` >= 1, leaning to the front (index 0 about
        half the time for n = 4): the machine's lists put what could leak first."""
        r = self._random.random()
        return int(n * r * r)

    def uniform(self, n: int) -> int:
        """An index in ``range(n)``, ``n`` >= 1, uniformly."""
        return self._random.randrange(n)

    def flip(self) -> bool:
        return self._random.random() < 0.5

    def mostly(self) -> bool:
        """True three times in four."""
        return self._random.random() < 0.75


_CHOICES = st.integers(0, 2**63 - 1).map(Choices)


class _ResumptionMachine(RuleBasedStateMachine):
    """Every rule takes one argument, ``choices``, so that Hypothesis orders rules by
    name only (it puts rules with fewer arguments first, and its draws lean to the front).

    Hypothesis chooses the rule of each step and a seed for it; the rule's own picks
    (which session, which stream, drop first or not) come from that seed (``Choices``):
    a draw from Hypothesis inside a rule cost more than the step it chose (about
    40 us each, several per step), and the machine does not use Hypothesis's
    shrinking (``checker.shorten`` does it). Hypothesis enables a random subset of
    the rules per test case (its swarm testing); ``choose_swarm`` does the same for
    the kinds of action inside the rules that pick among several. What the state
    offers is computed once per state (``Offer``).
    """

    factory: Callable[[], ServerUnderTest]
    profile: Profile
    result: MachineResult

    def __init__(self) -> None:
        super().__init__()
        self.checker = Checker(self.factory(), self.profile, source="hypothesis")
        self.evicts = getattr(self.checker.server, "evicts", True)  # a server may declare it keeps every event
        self.disabled: frozenset[str] = frozenset()
        self._offer = Offer(self.checker.state, self.evicts)

    @property
    def state(self):
        return self.checker.state

    @property
    def offer(self) -> "Offer":
        if self._offer.state is not self.checker.state:
            self._offer = Offer(self.checker.state, self.evicts)
        return self._offer

    def teardown(self) -> None:
        self.checker.server.close()

    def run(self, action: a.Action) -> None:
        """Apply ``action`` unless an earlier non-failing finding made the server
        unpredictable; then the rest of this sequence is not judged."""
        if self.checker.diverged is not None:
            return
        result = self.result
        try:
            report = self.checker.apply(action)
        except Unsupported:  # not driven: counted as skipped instead
            result.skipped[action.kind] = result.skipped.get(action.kind, 0) + 1
            return
        except Counterexample:
            result.count(action.kind)
            result.mark_first()
            raise
        result.count(action.kind)
        result.coverage.record(action.kind, report.branch)
        for finding in report.findings:
            result.warnings.setdefault(finding.rule, self.checker.trace(Failure(report.number, finding.rule, finding.message)))

    def pick(self, choices: "Choices", items):
        """One of ``items`` (a non-empty sequence)."""
        return items[choices.index(len(items))] if len(items) > 1 else items[0]

    def mostly_live(self, choices: "Choices", items: list):
        """``items`` (session ids, or tuples that start with one) of live sessions, but
        one time in four all of them (an ended session's requests are refused)."""
        live = [item for item in items if (item[0] if isinstance(item, tuple) else item) in self.offer.live]
        return live if live and choices.mostly() else items

    def allowed(self, choices: list[a.Action]) -> list[a.Action]:
        """``choices`` without the kinds this test case's swarm disabled (all of them if none is left)."""
        kept = [c for c in choices if c.kind not in self.disabled]
        return kept or choices

    # -- swarm ----------------------------------------------------------------------

    @first_step(choices=_CHOICES)
    def choose_swarm(self, choices) -> None:
        """Disable some kinds of action for this whole test case (shrinks to none
        disabled), and open one or two sessions (two half the time) with a tool call
        each, so that the other rules start from a state they can work on (a test
        case whose swarm disables ``initialize`` would otherwise send only odd
        requests). ``shorten`` deletes them from a trace that does not need them."""
        self.disabled = frozenset(kind for kind in SWARM_KINDS if choices.flip())
        for _ in range(2 if choices.flip() else 1):  # two half the time: another session to cross into
            self.run(a.Initialize())
            self.run(a.CallTool(self.state.sessions[-1].id))

    # -- client actions -------------------------------------------------------------

    @precondition(lambda self: len(self.offer.live) < MAX_SESSIONS and len(self.state.sessions) < MAX_OPENED)
    @rule(choices=_CHOICES)
    def initialize(self, choices) -> None:
        self.run(a.Initialize())

    @precondition(lambda self: self.offer.live)
    @rule(choices=_CHOICES)
    def call_tool(self, choices) -> None:
        """A tool call on a live session; half of them ask the client something (a
        server request on the call's stream, as an elicitation would)."""
        self.run(a.CallTool(self.pick(choices, self.offer.live)))
        stream = self.state.streams[-1] if self.state.streams else None
        if stream is not None and stream.id in self.offer.open and choices.flip():
            self.run(a.IssueServerRequest(stream.id))

    @precondition(lambda self: self.state.sessions)
    @rule(choices=_CHOICES)
    def resume_session(self, choices) -> None:
        """A GET with the session id only (branch 2, or a guard if the session ended).

        A session with a pending request on a connected stream may first lose
        that connection, so that the resumption has a request to re-emit."""
        pending = self.offer.live_pending
        session = self.pick(choices, pending if pending and choices.flip() else self.mostly_live(choices, self.offer.sessions))
        carriers = self.offer.connected_carriers(session)
        if carriers and choices.flip():
            for stream in carriers:
                self.run(a.DropConnection(stream))
        self.run(a.Reconnect(session, None))

    @precondition(lambda self: self.offer.resumable)
    @rule(choices=_CHOICES)
    def resume_stream(self, choices) -> None:
        """A GET with a session id and a real event id of one of its streams the
        client holds a cursor on: the cursor, or an earlier (maybe evicted) event
        (branch 1, or 3 when not retained); half the time, when there is one, an
        evicted event with a later one kept (``Offer.evicted_resumable``). A
        connected stream may drop first."""
        evicted = self.offer.evicted_resumable
        options = evicted if evicted and choices.flip() else self.mostly_live(choices, self.offer.resumable)
        session, stream, event = self.pick(choices, options)
        if self.state.stream(stream).connected and choices.flip():
            self.run(a.DropConnection(stream))
        self.run(a.Reconnect(session, event))

    @precondition(lambda self: self.offer.seen)
    @rule(choices=_CHOICES)
    def answer_request(self, choices) -> None:
        session, request = self.pick(choices, self.offer.seen)
        self.run(a.AnswerRequest(session, request))

    @precondition(lambda self: self.offer.client_holds)
    @rule(choices=_CHOICES)
    def restart_client(self, choices) -> None:
        """Only when the client has something to forget: otherwise a restart changes nothing."""
        self.run(a.RestartClient())

    @rule(choices=_CHOICES)
    def odd_request(self, choices) -> None:
        """A request the decision must refuse or route with care, one rule for all of
        them so that they do not crowd out the rules that build state: a GET with a
        foreign event id (branch 3; half the time when another session has events),
        with an event id and no session id (branch 4), or any combination of headers
        on a GET, a tool call or a DELETE."""
        if self.offer.crossable and choices.flip():
            return self._foreign_event_id(choices)
        kinds = _ODD_KINDS if self.state.events and self.offer.live else _ODD_KINDS[2:]
        getattr(self, "_" + self.pick(choices, kinds))(choices)

    def _foreign_event_id(self, choices) -> None:
        """A live session and an event id of another session: first the ids of ended
        sessions and those with a later event (those that could leak)."""
        session = self.pick(choices, self.offer.crossable or self.offer.live)
        foreign = self.offer.foreign(session)
        ended = [event for event in foreign if event in self.offer.ended_event_ids]
        if ended and choices.flip():
            foreign = ended
        self.run(a.Reconnect(session, self.pick(choices, foreign) if foreign else UNKNOWN_EVENT))

    def _orphan_event_id(self, choices) -> None:
        self.run(a.Reconnect(None, self.pick(choices, self.offer.event_ids)))

    def _any_headers(self, choices) -> None:
        session = self.pick(choices, self.offer.session_headers)
        kind = self.pick(choices, _HEADER_KINDS)
        if kind == "reconnect":
            self.run(a.Reconnect(session, self.pick(choices, self.offer.event_headers(session))))
        elif kind == "call_tool":
            self.run(a.CallTool(session))
        else:
            self.run(a.DeleteSession(session))

    # -- network and server actions --------------------------------------------------

    @precondition(lambda self: self.offer.connected)
    @rule(choices=_CHOICES)
    def drop_connection(self, choices) -> None:
        """The network drops a connection, or the server closes it (SEP-1699)."""
        possible = [action for action in self.offer.disconnections if self.checker.enabled(action)]  # per profile
        self.run(self.pick(choices, self.allowed(possible)))

    @precondition(lambda self: self.offer.open)
    @rule(choices=_CHOICES)
    def emit_event(self, choices) -> None:
        """One to three events on an open stream, as a tool's progress notifications come:
        a replay then has a suffix to get right, a ring buffer something to discard."""
        stream = self.pick(choices, self.offer.open)
        for _ in range(1 + choices.uniform(3)):
            if stream not in self.offer.open:
                break
            self.run(a.EmitEvent(stream))

    @precondition(lambda self: self.offer.open_get)
    @rule(choices=_CHOICES)
    def emit_on_get_stream(self, choices) -> None:
        """An event on a session's standalone GET stream (opened by a session resumption)."""
        self.run(a.EmitEvent(self.pick(choices, self.offer.open_get)))

    @precondition(lambda self: self.offer.open)
    @rule(choices=_CHOICES)
    def issue_server_request(self, choices) -> None:
        self.run(a.IssueServerRequest(self.pick(choices, self.offer.open)))

    @precondition(lambda self: self.offer.evictable)
    @rule(choices=_CHOICES)
    def evict_event(self, choices) -> None:
        """A ring buffer discards a stream's oldest event, half the time the next one too (a gap
        needs two evicted events); half the time first one the client holds as its cursor, so
        that resuming from it needs what was discarded."""
        held = self.offer.evictable_cursors
        stream = self.pick(choices, held if held and choices.flip() else self.offer.evictable)
        self.run(a.EvictEvent(stream))
        if stream in self.offer.evictable and choices.flip():
            self.run(a.EvictEvent(stream))

    @precondition(lambda self: len(self.offer.live) > 1)
    @rule(choices=_CHOICES)
    def end_session(self, choices) -> None:
        """The client deletes a live session, or the server expires it, while another
        stays live: the ended session's event ids and requests must not reach it."""
        session = self.pick(choices, self.offer.live)
        self.run(self.pick(choices, self.allowed([a.DeleteSession(session), a.ExpireSession(session)])))

    @precondition(lambda self: self.offer.live)
    @rule(choices=_CHOICES)
    def server_ends_something(self, choices) -> None:
        """The server ends a stream, cancels a request, or expires a stream or a session."""
        self.run(self.pick(choices, self.allowed(self.offer.endings)))


SWARM_KINDS: tuple[str, ...] = ("close_connection", "drop_connection", "end_stream", "cancel_request",
                                "expire_stream", "expire_session", "evict_event", "delete_session")
"""The kinds of action a test case's swarm may disable inside the rules that pick among several."""

_HEADER_KINDS = ("reconnect", "call_tool", "delete_session")
_ODD_KINDS = ("foreign_event_id", "orphan_event_id", "any_headers")


class Offer:
    """What one spec state offers the machine's rules, each list computed at most once."""

    def __init__(self, state, evicts: bool) -> None:
        self.state = state
        self.evicts = evicts

    @cached_property
    def live(self) -> list[str]:
        return [s.id for s in self.state.live_sessions()]

    @cached_property
    def open(self) -> list[str]:
        return [s.id for s in self.state.open_streams()]

    @cached_property
    def open_get(self) -> list[str]:
        return [s.id for s in self.state.open_streams() if s.kind is StreamKind.GET]

    @cached_property
    def connected(self) -> list[str]:
        return [s.id for s in self.state.streams if s.connected]

    @cached_property
    def event_ids(self) -> list[str]:
        return [e.id for e in self.state.events]

    @cached_property
    def ended_event_ids(self) -> frozenset[str]:
        """The event ids of sessions that ended."""
        live = set(self.live)
        return frozenset(e.id for e in self.state.events if self.state.session_of_event(e.id) not in live)

    @cached_property
    def seen(self) -> list[tuple[str, str]]:
        return [(entry.session, r) for entry in self.state.client for r in entry.seen]

    @cached_property
    def client_holds(self) -> bool:
        return any(entry.cursors or entry.seen for entry in self.state.client)

    @cached_property
    def sessions(self) -> list[str]:
        return [s.id for s in self.state.sessions]

    @cached_property
    def live_pending(self) -> list[str]:
        """The live sessions with a pending server request (a session resumption may re-emit it)."""
        pending = {r.session for r in self.state.requests if r.status is RequestStatus.PENDING}
        return [session for session in self.live if session in pending]

    def connected_carriers(self, session: str) -> list[str]:
        """The connected streams carrying a pending request of ``session``."""
        state = self.state
        carriers = {r.stream for r in state.pending_requests(session)}
        return [s.id for s in state.streams if s.id in carriers and s.connected]

    @cached_property
    def resumable(self) -> list[tuple[str, str, str]]:
        """(session, stream, event id): each cursor the client holds, then the earlier events of its stream."""
        cursors, earlier = [], []
        for entry in self.state.client:
            for stream, cursor in entry.cursors:
                cursors.append((entry.session, stream, cursor))
                earlier += [(entry.session, stream, e.id) for e in self.state.events_of(stream) if e.id != cursor]
        return cursors + earlier

    @cached_property
    def evicted_resumable(self) -> list[tuple[str, str, str]]:
        """The ``resumable`` entries whose event a ring buffer discarded, on a stream that
        still keeps a later one, and discarded the one after it too (a replay from there
        would have a gap; from the last discarded event it is exact)."""
        state = self.state
        kept = []
        for session, stream_id, event in self.resumable:
            stream = state.stream(stream_id)
            events = [e.id for e in state.events_of(stream_id)]
            if stream.retained and events.index(event) + 1 < stream.evicted < len(events):
                kept.append((session, stream_id, event))
        return kept

    @cached_property
    def crossable(self) -> list[str]:
        """The live sessions some other session's event id could be sent under."""
        owners = {self.state.session_of_event(e.id) for e in self.state.events}
        return [session for session in self.live if owners - {session}]

    def foreign(self, session: str) -> list[str]:
        """Event ids of other sessions: an ended session's first, then those with a later event."""
        state = self.state
        live = set(self.live)
        foreign = [e.id for e in state.events if state.session_of_event(e.id) != session]
        foreign.sort(key=lambda event_id: (state.session_of_event(event_id) in live, not _has_successor(state, event_id)))
        return foreign

    @cached_property
    def session_headers(self) -> list[str | None]:
        return [s.id for s in self.state.sessions] + [None, MALFORMED_SESSION, UNKNOWN_SESSION]

    def event_headers(self, session: str | None) -> list[str | None]:
        """The session's cursors, every event id, then the literal headers."""
        entry = self.state.client_session(session) if session else None
        cursors = [event for _, event in entry.cursors] if entry else []
        return cursors + self.event_ids + [None, MALFORMED_EVENT, UNKNOWN_EVENT]

    @cached_property
    def disconnections(self) -> list[a.Action]:
        live = set(self.live)
        drops = [a.DropConnection(s) for s in self.connected]
        closes = [a.CloseConnection(s.id) for s in self.state.streams if s.connected and s.session in live]
        return drops + closes

    @cached_property
    def evictable(self) -> list[str]:
        if not self.evicts:
            return []
        return [s.id for s in self.state.streams if enabled(self.state, a.EvictEvent(s.id))]

    @cached_property
    def evictable_cursors(self) -> list[str]:
        """Evictable streams whose oldest retained event is a cursor the client holds."""
        cursors = {event for entry in self.state.client for _, event in entry.cursors}
        return [s for s in self.evictable if self.state.retained_events(s)[0].id in cursors]

    @cached_property
    def endings(self) -> list[a.Action]:
        state = self.state
        ends = (a.Respond(s) if state.stream(s).kind is StreamKind.POST else a.EndStream(s) for s in self.open)
        choices: list[a.Action] = list(ends)
        choices += [a.CancelRequest(r) for r in _cancellable(state)]
        choices += [a.ExpireStream(s) for s in _expirable(state)]
        choices += [a.ExpireSession(s) for s in self.live]
        choices += [a.EvictEvent(s) for s in self.evictable]
        return choices


def _has_successor(state, event_id: str) -> bool:
    """True when the event's stream holds a later event (a replay from it delivers something)."""
    events = state.events_of(state.event(event_id).stream)
    return events[-1].id != event_id


def _cancellable(state) -> list[str]:
    """Pending requests a server may cancel: their carrying stream is open (where the cancellation goes)."""
    return [r.id for r in state.requests if enabled(state, a.CancelRequest(r.id))]


def _expirable(state) -> list[str]:
    live = {s.id for s in state.live_sessions()}
    return [s.id for s in state.streams if s.status is not StreamStatus.EXPIRED and s.session in live]
