"""The Hypothesis machine over HTTP: random client action sequences against a live server.

``run_http_machine(url, tools)`` generates sequences of the spec's client actions
(``initialize``, calls of the fixture tools, session and stream resumptions, another
session's, an orphan, malformed and unknown ids, DELETE), plays each with
``Playback`` and, after every action, judges the whole recording with the same
mapping and checks as ``verify`` and ``validate`` (``model.oracle.judge``). The
first FAIL under the profile stops the example; Hypothesis shrinks it to a short
sequence of HTTP exchanges, and the counterexample's trace is the spec trace the
judgement made of that recording (what ``mcp-resume replay`` runs, in process or
over HTTP). The actions are drawn from the spec state the judgement leaves.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from mcp_resume.spec import actions as a
from mcp_resume.spec.headers import MALFORMED_EVENT, MALFORMED_SESSION, UNKNOWN_EVENT, UNKNOWN_SESSION
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.state import INITIAL_STATE
from mcp_resume.spec.verdicts import Verdict

from mcp_resume.model.harness.checker import Counterexample
from mcp_resume.model.harness.stateful import MachineResult, run_until_counterexample
from mcp_resume.model.http.client import Timeouts
from mcp_resume.model.traffic.trace_validation import Validation
from mcp_resume.model.verify.driver import HISTORY_TOOLS, SERVER_REQUEST_TOOLS
from mcp_resume.model.verify.playback import Playback

HTTP_EXAMPLES = 15
HTTP_STEPS = 12
MAX_SESSIONS = 2
MACHINE_BOUNDS = Timeouts(connect=2.0, first_byte=2.0, idle=2.0, exchange=10.0, settle=0.2)
"""Seconds: a server in this process writes what a reconnect delivers at once, so a short settle
suffices; it is also how long a dropped connection is given for the server to see the close
(0.05 s was too short on a loaded machine)."""


def run_http_machine(
    url: str,
    tools: list[str],
    profile: Profile = DEFAULT_PROFILE,
    bounds: Timeouts | None = None,
    max_examples: int = HTTP_EXAMPLES,
    steps: int = HTTP_STEPS,
) -> MachineResult:
    """Run the machine against the live server at ``url`` (which lists ``tools``).

    Each example uses fresh sessions and its own client; a failure is shrunk by
    Hypothesis and returned as the result's counterexample. ``action_counts`` counts
    the spec actions the judgements read from the traffic (server actions included).
    """
    result = MachineResult("http", profile)
    attributes = {"url": url, "tools": tools, "bounds": bounds or MACHINE_BOUNDS, "profile": profile,
                  "result": result}
    result.counterexample = run_until_counterexample(_HttpMachine, attributes, Counterexample, max_examples, steps)
    return result


def first_failure(judged: Validation) -> Counterexample | None:
    """The counterexample of ``judged``'s first rule that got FAIL: the spec trace up to the
    step that broke it, and that step's report with the rule's findings as failing."""
    failed = next((r for r in judged.results if r.verdict is Verdict.FAIL), None)
    trace = judged.trace(failed) if failed is not None else None
    if trace is None:
        return None
    report = judged.steps[trace.failure.step - 1].report
    return Counterexample(trace, replace(report, failing=tuple(f for f in report.findings if f.rule == failed.rule)))


class _HttpMachine(RuleBasedStateMachine):
    url: str
    tools: list[str]
    bounds: Timeouts
    profile: Profile
    result: MachineResult

    def __init__(self) -> None:
        super().__init__()
        self.playback = Playback(self.url, self.bounds, self.tools)
        self.judged: Validation | None = None

    @property
    def state(self):
        return self.judged.state if self.judged is not None and self.judged.state is not None else INITIAL_STATE

    def teardown(self) -> None:
        try:
            for session in self.state.live_sessions():
                self.playback.play(a.DeleteSession(session.id))
            if self.judged is not None:
                for placed in self.judged.steps:
                    self.result.count(placed.action.kind)
        finally:
            self.playback.close()

    def run(self, action: a.Action, tool: str | None = None) -> None:
        self.playback.play(action, tool)
        self.judged = self.playback.judgement(self.profile)
        found = first_failure(self.judged)
        if found is not None:
            self.result.mark_first()
            raise found

    def pick(self, data, items):
        return data.draw(st.sampled_from(list(items)))

    def live(self) -> list[str]:
        return [s.id for s in self.state.live_sessions()]

    def events_with_ids(self) -> list[str]:
        """Events the server sent with an SSE id: the ones a client can send back."""
        return [e.id for e in self.state.events if not self.playback.ids.server_id(e.id).startswith("(")]

    @precondition(lambda self: len(self.state.sessions) < MAX_SESSIONS)
    @rule()
    def initialize(self) -> None:
        self.run(a.Initialize())

    @precondition(lambda self: self.state.live_sessions() and any(t in self.tools for t in HISTORY_TOOLS))
    @rule(data=st.data())
    def call_history_tool(self, data) -> None:
        tool = next(t for t in HISTORY_TOOLS if t in self.tools)
        self.run(a.CallTool(self.pick(data, self.live())), tool)

    @precondition(lambda self: self.state.live_sessions() and any(t in self.tools for t in SERVER_REQUEST_TOOLS))
    @rule(data=st.data())
    def call_server_request_tool(self, data) -> None:
        tool = next(t for t in SERVER_REQUEST_TOOLS if t in self.tools)
        self.run(a.CallTool(self.pick(data, self.live())), tool)

    @precondition(lambda self: self.state.sessions)
    @rule(data=st.data())
    def resume_session(self, data) -> None:
        self.run(a.Reconnect(self.pick(data, [s.id for s in self.state.sessions]), None))

    @precondition(lambda self: any(entry.cursors for entry in self.state.client))
    @rule(data=st.data())
    def resume_stream(self, data) -> None:
        held = [(entry.session, event) for entry in self.state.client for _, event in entry.cursors]
        session, event = self.pick(data, held)
        self.run(a.Reconnect(session, event))

    @precondition(lambda self: self.state.events and self.state.live_sessions())
    @rule(data=st.data())
    def foreign_event_id(self, data) -> None:
        session = self.pick(data, self.live())
        foreign = [e for e in self.events_with_ids() if self.state.session_of_event(e) != session]
        self.run(a.Reconnect(session, self.pick(data, foreign) if foreign else UNKNOWN_EVENT))

    @precondition(lambda self: self.state.events)
    @rule(data=st.data())
    def orphan_event_id(self, data) -> None:
        events = self.events_with_ids()
        self.run(a.Reconnect(None, self.pick(data, events) if events else UNKNOWN_EVENT))

    @rule(data=st.data())
    def odd_headers(self, data) -> None:
        session = self.pick(data, [None, MALFORMED_SESSION, UNKNOWN_SESSION] + [s.id for s in self.state.sessions])
        event = self.pick(data, [None, MALFORMED_EVENT, UNKNOWN_EVENT])
        self.run(a.Reconnect(session, event))

    @precondition(lambda self: self.state.sessions)
    @rule(data=st.data())
    def delete_session(self, data) -> None:
        self.run(a.DeleteSession(self.pick(data, [s.id for s in self.state.sessions])))
