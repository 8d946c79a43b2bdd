"""The Hypothesis state machine for a server of both eras, against both machines of the spec.

One server, two clients: a 2025-11-25 client whose steps are judged by the
session-era ``Checker`` (under ``boundary``, so that a session resumption answered
405 fails) and a 2026-07-28 client whose steps are judged by the
``SessionlessChecker`` (strict: F17's SHOULDs fail too). The 2026 client carries
the 2025 client's real session ids and event ids as stale headers, so a server
that lets them reach the session tables is caught. ``run_dual_era_machine``
shrinks the first failure to a minimal interleaving of both clients' steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from mcp_resume.spec import actions as a
from mcp_resume.spec.sessionless import machine as s
from mcp_resume.spec.actions import describe as describe_legacy
from mcp_resume.spec.headers import UNKNOWN_EVENT, UNKNOWN_SESSION
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.sessionless.machine import CallStatus

from mcp_resume.model.harness.checker import Checker, Counterexample
from mcp_resume.model.harness.stateful import run_until_counterexample
from mcp_resume.model.sessionless.sessionless_checker import STRICT, SessionlessChecker, SessionlessCounterexample

LEGACY_PROFILE = Profile.BOUNDARY
MAX_SESSIONS = 2


class DualEraCounterexample(AssertionError):
    """Both clients' steps, in order, up to the first failing one; ``rules`` it broke."""

    def __init__(self, steps: tuple[str, ...], rules: frozenset[str], detail: str) -> None:
        self.steps = steps
        self.rules = rules
        super().__init__("\n".join([f"counterexample ({len(steps)} steps):"] + [f"  {n}. {line}" for n, line in enumerate(steps, 1)] + [detail]))


@dataclass
class DualEraResult:
    server: str
    counterexample: DualEraCounterexample | None = None
    action_counts: dict[str, int] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.counterexample is None


def run_dual_era_machine(factory: Callable, max_examples: int = 100, steps: int = 30) -> DualEraResult:
    """Run the machine against servers made by ``factory``; never raises on a finding."""
    result = DualEraResult(getattr(factory, "name", factory.__name__))

    attributes = {"factory": staticmethod(factory), "result": result}
    result.counterexample = run_until_counterexample(_DualEraMachine, attributes, DualEraCounterexample,
                                                     max_examples, steps)
    return result


class _DualEraMachine(RuleBasedStateMachine):
    factory: Callable
    result: DualEraResult

    def __init__(self) -> None:
        super().__init__()
        self.server = self.factory()
        self.legacy = Checker(self.server, LEGACY_PROFILE, source="dual-era")
        self.modern = SessionlessChecker(self.server, STRICT)
        self.steps: list[str] = []

    def run(self, action) -> None:
        if self.legacy.diverged is not None or self.modern.diverged is not None:
            return
        modern = type(action) in s.ACTION_TYPES.values()
        self.steps.append(("2026: " + s.describe(action)) if modern else ("2025: " + describe_legacy(self.legacy.ids.to_server(action))))
        self.result.action_counts[action.kind] = self.result.action_counts.get(action.kind, 0) + 1
        try:
            (self.modern if modern else self.legacy).apply(action)
        except Counterexample as found:
            raise DualEraCounterexample(tuple(self.steps), frozenset(f.rule for f in found.report.failing), found.explain()) from None
        except SessionlessCounterexample as found:
            raise DualEraCounterexample(tuple(self.steps), frozenset(found.rules), str(found)) from None

    # -- what the 2026 client carries: the 2025 client's real ids, or made-up ones ---------

    def stale_session(self, data) -> str | None:
        known = [self.legacy.ids.server_id(x.id) for x in self.legacy.state.sessions]
        return data.draw(st.sampled_from(known + [None, UNKNOWN_SESSION]))

    def stale_event(self, data) -> str | None:
        known = [self.legacy.ids.server_id(e.id) for e in self.legacy.state.events]
        return data.draw(st.sampled_from(known + [None, UNKNOWN_EVENT]))

    def pick(self, data, items):
        return data.draw(st.sampled_from(list(items)))

    # -- the 2025-11-25 client and its server's actions ----------------------------------------

    @precondition(lambda self: len(self.legacy.state.sessions) < MAX_SESSIONS)
    @rule(data=st.data())
    def initialize(self, data) -> None:
        self.run(a.Initialize())

    @precondition(lambda self: self.legacy.state.live_sessions())
    @rule(data=st.data())
    def call_tool(self, data) -> None:
        self.run(a.CallTool(self.pick(data, [x.id for x in self.legacy.state.live_sessions()])))

    @precondition(lambda self: self.legacy.state.open_streams())
    @rule(data=st.data())
    def issue_server_request(self, data) -> None:
        self.run(a.IssueServerRequest(self.pick(data, [x.id for x in self.legacy.state.open_streams()])))

    @precondition(lambda self: self.legacy.state.open_streams())
    @rule(data=st.data())
    def emit_event(self, data) -> None:
        self.run(a.EmitEvent(self.pick(data, [x.id for x in self.legacy.state.open_streams()])))

    @precondition(lambda self: any(x.connected for x in self.legacy.state.streams))
    @rule(data=st.data())
    def drop_connection(self, data) -> None:
        self.run(a.DropConnection(self.pick(data, [x.id for x in self.legacy.state.streams if x.connected])))

    @precondition(lambda self: self.legacy.state.sessions)
    @rule(data=st.data())
    def resume_session(self, data) -> None:
        self.run(a.Reconnect(self.pick(data, [x.id for x in self.legacy.state.sessions]), None))

    @precondition(lambda self: any(entry.cursors for entry in self.legacy.state.client))
    @rule(data=st.data())
    def resume_stream(self, data) -> None:
        held = [(entry.session, event) for entry in self.legacy.state.client for _, event in entry.cursors]
        self.run(a.Reconnect(*self.pick(data, held)))

    @precondition(lambda self: any(entry.seen for entry in self.legacy.state.client))
    @rule(data=st.data())
    def answer_request(self, data) -> None:
        held = [(entry.session, r) for entry in self.legacy.state.client for r in entry.seen]
        self.run(a.AnswerRequest(*self.pick(data, held)))

    # -- the 2026-07-28 client and its server's actions -----------------------------------------

    @rule(data=st.data())
    def send_request(self, data) -> None:
        self.run(s.SendRequest(self.modern.state.next_call_id(), self.stale_session(data), self.stale_event(data)))

    @rule(data=st.data())
    def legacy_method(self, data) -> None:
        """A GET or DELETE from the 2026 client, with stale headers (405 either way, F17)."""
        if data.draw(st.booleans()):
            self.run(s.LegacyGet(self.stale_session(data), self.stale_event(data)))
        else:
            self.run(s.LegacyDelete(self.stale_session(data)))

    @precondition(lambda self: _waiting(self.modern.state))
    @rule(data=st.data())
    def retry_with_input(self, data) -> None:
        self.run(s.RetryWithInput(self.pick(data, _waiting(self.modern.state)), self.modern.state.next_call_id()))

    @precondition(lambda self: self.modern.state.open_calls())
    @rule(data=st.data())
    def act_on_request(self, data) -> None:
        """The 2026 client closes an open request's stream, or the server sends progress,
        asks for input or answers."""
        call = self.pick(data, [c.id for c in self.modern.state.open_calls()])
        kind = self.pick(data, (s.CloseStream, s.SendProgress, s.RequireInput, s.SendResult))
        self.run(kind(call))


def _waiting(state: s.SessionlessState) -> list[str]:
    return [c.id for c in state.calls if c.status is CallStatus.INPUT_REQUIRED and not state.retried(c.id)]
