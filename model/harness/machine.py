"""The Hypothesis state machine: random action sequences, spec and server side by side.

``run_machine(factory, profile)`` generates sequences of the spec's actions
(any header combination a client could send, every server and network action the
spec enables), drives a fresh server from ``factory`` through each with a
``Checker``, and on the first failing finding lets Hypothesis shrink the sequence.
The result carries the minimal counterexample as a ``Trace``, and the coverage of
the run (each action kind and each branch of the spec's decision, counted from
the spec's outcome of every step judged).

CI runs derandomized (``settings``): the same sequences on every run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule, run_state_machine_as_test

from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.state import RequestStatus, StreamStatus
from mcp_resume.spec.transitions import enabled
from mcp_resume.spec.trace import Failure, Trace

from mcp_resume.model.servers.adapter import ServerUnderTest, Unsupported
from mcp_resume.model.harness.checker import Checker, Counterexample
from mcp_resume.model.harness.coverage import Coverage
from mcp_resume.spec.headers import MALFORMED_EVENT, MALFORMED_SESSION, UNKNOWN_EVENT, UNKNOWN_SESSION

MAX_SESSIONS = 3

DEFAULT_EXAMPLES = 1000
DEFAULT_STEPS = 40


def machine_settings(max_examples: int = DEFAULT_EXAMPLES, steps: int = DEFAULT_STEPS) -> settings:
    """Deterministic settings: derandomized, no example database, no deadline."""
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
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
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
) -> MachineResult:
    """Run the machine against servers made by ``factory``; never raises on a finding.

    Returns the minimal counterexample Hypothesis shrank to, if any, and the
    coverage of every step judged: a result that ``passed`` without covering
    every action and branch (``coverage.REQUIRED_*``) is ``vacuous`` and does
    not ``hold``.
    """
    probe = factory()
    result = MachineResult(getattr(probe, "name", type(probe).__name__), profile)
    probe.close()
    attributes = {"factory": staticmethod(factory), "profile": profile, "result": result}
    result.counterexample = run_until_counterexample(_ResumptionMachine, attributes, Counterexample, max_examples, steps,
                                                     name="ResumptionMachine")
    return result


def run_until_counterexample(base: type[RuleBasedStateMachine], attributes: dict, stops: type[Exception],
                             max_examples: int = DEFAULT_EXAMPLES, steps: int = DEFAULT_STEPS, name: str = "Machine"):
    """Run a fresh subclass of ``base`` called ``name``, with ``attributes`` as class
    attributes, under ``machine_settings``; return the ``stops`` exception of the
    shrunk failing run, or ``None`` when no example failed (any other exception
    propagates)."""
    machine = type(name, (base,), attributes)
    try:
        run_state_machine_as_test(machine, settings=machine_settings(max_examples, steps))
    except stops as found:
        return found
    return None


class _ResumptionMachine(RuleBasedStateMachine):
    """Every rule takes ``data`` so that Hypothesis orders rules by name only
    (it puts rules with fewer arguments first, and its draws lean to the front)."""

    factory: Callable[[], ServerUnderTest]
    profile: Profile
    result: MachineResult

    def __init__(self) -> None:
        super().__init__()
        self.checker = Checker(self.factory(), self.profile, source="hypothesis")
        self.evicts = getattr(self.checker.server, "evicts", True)  # a server may declare it keeps every event

    @property
    def state(self):
        return self.checker.state

    def teardown(self) -> None:
        self.checker.server.close()

    def run(self, action: a.Action) -> None:
        """Apply ``action`` unless an earlier non-failing finding made the server
        unpredictable; then the rest of this sequence is not judged."""
        if self.checker.diverged is not None:
            return
        self.result.actions_run += 1
        self.result.action_counts[action.kind] = self.result.action_counts.get(action.kind, 0) + 1
        try:
            report = self.checker.apply(action)
        except Unsupported:  # not driven: counted as skipped instead
            self.result.actions_run -= 1
            self.result.action_counts[action.kind] -= 1
            self.result.skipped[action.kind] = self.result.skipped.get(action.kind, 0) + 1
            return
        self.result.coverage.record(action.kind, report.branch)
        for finding in report.findings:
            self.result.warnings.setdefault(finding.rule, self.checker.trace(Failure(report.number, finding.rule, finding.message)))

    # -- strategies over the current state ---------------------------------------

    def session_header(self, data) -> str | None:
        sessions = [s.id for s in self.state.sessions]
        literals = [None, MALFORMED_SESSION, UNKNOWN_SESSION]
        if not sessions:
            return data.draw(st.sampled_from(literals))
        return data.draw(st.one_of(st.sampled_from(sessions), st.sampled_from(literals)))

    def event_header(self, data, session: str | None) -> str | None:
        entry = self.state.client_session(session) if session else None
        cursors = [event for _, event in entry.cursors] if entry else []
        others = [e.id for e in self.state.events]
        literals = [None, MALFORMED_EVENT, UNKNOWN_EVENT]
        choices = [st.sampled_from(literals)]
        if others:
            choices.insert(0, st.sampled_from(others))
        if cursors:
            choices.insert(0, st.sampled_from(cursors))
        return data.draw(st.one_of(*choices))

    def pick(self, data, items):
        return data.draw(st.sampled_from(list(items)))

    # -- client actions -------------------------------------------------------------

    @precondition(lambda self: len(self.state.sessions) < MAX_SESSIONS)
    @rule(data=st.data())
    def initialize(self, data) -> None:
        self.run(a.Initialize())

    @precondition(lambda self: self.state.live_sessions())
    @rule(data=st.data())
    def call_tool(self, data) -> None:
        self.run(a.CallTool(self.pick(data, [s.id for s in self.state.live_sessions()])))

    @precondition(lambda self: self.state.sessions)
    @rule(data=st.data())
    def resume_session(self, data) -> None:
        """A GET with the session id only (branch 2, or a guard if the session ended)."""
        self.run(a.Reconnect(self.pick(data, [s.id for s in self.state.sessions]), None))

    @precondition(lambda self: any(entry.cursors for entry in self.state.client))
    @rule(data=st.data())
    def resume_stream(self, data) -> None:
        """A GET with a session id and one of its own cursors (branch 1, or 3 if expired)."""
        held = [(entry.session, event) for entry in self.state.client for _, event in entry.cursors]
        session, event = self.pick(data, held)
        self.run(a.Reconnect(session, event))

    @precondition(lambda self: any(entry.seen for entry in self.state.client))
    @rule(data=st.data())
    def answer_request(self, data) -> None:
        held = [(entry.session, r) for entry in self.state.client for r in entry.seen]
        session, request = self.pick(data, held)
        self.run(a.AnswerRequest(session, request))

    @precondition(lambda self: self.state.events and self.state.live_sessions())
    @rule(data=st.data())
    def foreign_event_id(self, data) -> None:
        """A GET naming a live session and an event id of another session (branch 3)."""
        session = self.pick(data, [s.id for s in self.state.live_sessions()])
        foreign = [e.id for e in self.state.events if self.state.session_of_event(e.id) != session]
        foreign.sort(key=lambda event_id: not _has_successor(self.state, event_id))  # those that could leak first
        self.run(a.Reconnect(session, self.pick(data, foreign) if foreign else UNKNOWN_EVENT))

    @precondition(lambda self: self.state.events)
    @rule(data=st.data())
    def orphan_event_id(self, data) -> None:
        """A GET with an event id and no session id (branch 4)."""
        self.run(a.Reconnect(None, self.pick(data, [e.id for e in self.state.events])))

    @precondition(lambda self: any(entry.cursors or entry.seen for entry in self.state.client))
    @rule(data=st.data())
    def restart_client(self, data) -> None:
        """Only when the client has something to forget: otherwise a restart changes nothing."""
        self.run(a.RestartClient())

    @rule(data=st.data())
    def any_headers(self, data) -> None:
        """A client request with any combination of headers: a GET, a tool call or a DELETE."""
        session = self.session_header(data)
        kind = data.draw(st.sampled_from(["reconnect", "call_tool", "delete_session"]))
        if kind == "reconnect":
            self.run(a.Reconnect(session, self.event_header(data, session)))
        elif kind == "call_tool":
            self.run(a.CallTool(session))
        else:
            self.run(a.DeleteSession(session))

    # -- network and server actions --------------------------------------------------

    @precondition(lambda self: any(s.connected for s in self.state.streams))
    @rule(data=st.data())
    def drop_connection(self, data) -> None:
        """The network drops a connection, or the server closes it (SEP-1699)."""
        choices = [a.DropConnection(s.id) for s in self.state.streams if s.connected]
        choices += [a.CloseConnection(s.id) for s in self.state.open_streams() if s.connected]
        self.run(self.pick(data, choices))

    @precondition(lambda self: self.state.open_streams())
    @rule(data=st.data())
    def emit_event(self, data) -> None:
        self.run(a.EmitEvent(self.pick(data, [s.id for s in self.state.open_streams()])))

    @precondition(lambda self: self.state.open_streams())
    @rule(data=st.data())
    def issue_server_request(self, data) -> None:
        self.run(a.IssueServerRequest(self.pick(data, [s.id for s in self.state.open_streams()])))

    @precondition(lambda self: self.evicts and any(_evictable(self.state, s) for s in self.state.streams))
    @rule(data=st.data())
    def evict_event(self, data) -> None:
        """A ring buffer discards a stream's oldest event (as often as the other server actions)."""
        self.run(a.EvictEvent(self.pick(data, [s.id for s in self.state.streams if _evictable(self.state, s)])))

    @precondition(lambda self: self.state.live_sessions())
    @rule(data=st.data())
    def server_ends_something(self, data) -> None:
        """The server ends a stream, cancels a request, or expires a stream or a session."""
        choices = [a.EndStream(s.id) for s in self.state.open_streams()]
        choices += [a.CancelRequest(r) for r in _cancellable(self.state)]
        choices += [a.ExpireStream(s) for s in _expirable(self.state)]
        choices += [a.ExpireSession(s.id) for s in self.state.live_sessions()]
        choices += [a.EvictEvent(s.id) for s in self.state.streams if self.evicts and _evictable(self.state, s)]
        self.run(self.pick(data, choices))


def _has_successor(state, event_id: str) -> bool:
    """True when the event's stream holds a later event (a replay from it delivers something)."""
    events = state.events_of(state.event(event_id).stream)
    return events[-1].id != event_id


def _cancellable(state) -> list[str]:
    live = {s.id for s in state.live_sessions()}
    return [r.id for r in state.requests if r.status is RequestStatus.PENDING and r.session in live]


def _evictable(state, stream) -> bool:
    return enabled(state, a.EvictEvent(stream.id))


def _expirable(state) -> list[str]:
    live = {s.id for s in state.live_sessions()}
    return [s.id for s in state.streams if s.status is not StreamStatus.EXPIRED and s.session in live]
