"""A live server over Streamable HTTP as a ``ServerUnderTest``, and the Hypothesis machine over it.

``HttpServerUnderTest(url)`` turns each of the spec's actions into real HTTP
exchanges, so the checker (``model.harness.checker``) judges a live server step by step
and Hypothesis shrinks a failure to a minimal sequence of HTTP exchanges.

What can be driven over HTTP, honestly scoped:

- client actions: ``initialize``, ``call_tool``, ``reconnect`` (any header
  combination), ``delete_session``, ``restart_client``;
- ``drop_connection``: the client closes the connection it reads;
- server actions only where a fixture tool plays them (docs/design.md §7): a call
  of ``test_tool_with_logging`` is ``call_tool`` then one ``emit_event`` per
  event the server sent then ``end_stream``; a call of ``test_elicitation`` or
  ``test_sampling`` is ``call_tool``, ``emit_event`` for the priming event,
  ``issue_server_request``, then ``drop_connection``. The adapter sends the HTTP
  request at ``call_tool`` and hands out what it read, one action at a time.

``answer_request``, ``cancel_request``, ``expire_stream``, ``expire_session``
and server actions no fixture plays raise ``Unsupported``: the server's work
after an answer (its response on a stream nobody reads) is not observable
without resuming that stream, and expiry cannot be commanded over HTTP. Every
connection is closed before the next action, so no two exchanges overlap.

``run_http_machine(url)`` runs the machine restricted to those actions.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.transitions import Delivered, Observation

from mcp_resume.model.servers.adapter import Unsupported
from mcp_resume.model.harness.checker import Checker, Counterexample
from mcp_resume.model.http.client import Timeouts, StreamableHttpClient
from mcp_resume.model.http.evidence import Exchange, SseEvent, error_code
from mcp_resume.model.harness.machine import MachineResult, run_until_counterexample
from mcp_resume.spec.headers import MALFORMED_EVENT, MALFORMED_SESSION, UNKNOWN_EVENT, UNKNOWN_SESSION
from mcp_resume.model.verify.driver import HISTORY_TOOLS, SERVER_REQUEST_TOOLS

HTTP_EXAMPLES = 15
HTTP_STEPS = 12
MAX_SESSIONS = 2


@dataclass
class _Stream:
    key: str
    events: list[SseEvent] = field(default_factory=list)  # read, not yet handed out


class HttpServerUnderTest:
    """One live server over HTTP; ``plan_call(tool)`` picks the fixture tool the
    next ``call_tool`` uses (default: the first history tool listed)."""

    def __init__(self, url: str, bounds: Timeouts, tools: list[str], name: str = "http") -> None:
        self.name = name
        self.url = url
        self.bounds = bounds
        self.tools = tools
        self._loop = asyncio.new_event_loop()
        self.client = StreamableHttpClient(url, bounds)
        self._streams: dict[str, _Stream] = {}
        self._event_stream: dict[str, str] = {}
        self._request_ids: dict[str, object] = {}
        self._plan: str | None = None
        self._count = 0

    @property
    def exchanges(self) -> list[Exchange]:
        return self.client.exchanges

    def plan_call(self, tool: str) -> None:
        self._plan = tool

    def buffered(self, key: str) -> list[SseEvent]:
        """Events of stream ``key`` read but not yet handed out by a server action."""
        stream = self._streams.get(key)
        return list(stream.events) if stream else []

    def close(self) -> None:
        self._loop.run_until_complete(self.client.aclose())
        self._loop.close()

    # -- ServerUnderTest ------------------------------------------------------------------

    def apply(self, action: a.Action) -> Observation:
        handler = getattr(self, "_" + action.kind, None)
        if handler is None:
            raise Unsupported(f"{action.kind} cannot be driven over HTTP")
        return handler(action)

    def _run(self, coroutine):
        return self._loop.run_until_complete(coroutine)

    def _initialize(self, action) -> Observation:
        init = self._run(self.client.initialize("initialize"))
        session = init.session_header
        if init.status == 200 and session is not None:
            self._run(self.client.notify(session, "notifications/initialized", label="initialized"))
        return Observation(init.status, session=session)

    def _call_tool(self, action) -> Observation:
        tool = self._plan or next((t for t in HISTORY_TOOLS if t in self.tools), None)
        self._plan = None
        if tool is None:
            raise Unsupported("the server lists no fixture tool with notifications")
        stop = (lambda e: e.is_server_request) if tool in SERVER_REQUEST_TOOLS else None
        call = self._run(self.client.call_tool(action.session, tool, label=f"call {tool}", stop=stop))
        if call.status != 200 or not call.events:
            return Observation(call.status)
        key = self._key("post")
        self._streams[key] = _Stream(key, list(call.events))
        for event in call.events:
            if event.id is not None:
                self._event_stream.setdefault(event.id, key)
        return Observation(200, stream=key)

    def _emit_event(self, action) -> Observation:
        event = self._next_event(action.stream, server_request=False)
        return Observation(event=event.id, events=(Delivered(event.id, None, action.stream),))

    def _issue_server_request(self, action) -> Observation:
        event = self._next_event(action.stream, server_request=True)
        request = str(event.request_id)
        self._request_ids[request] = event.request_id
        return Observation(event=event.id, request=request, events=(Delivered(event.id, request, action.stream),))

    def _end_stream(self, action) -> Observation:
        stream = self._streams.get(action.stream)
        if stream is None or stream.events:
            raise Unsupported(f"stream {action.stream} has events the fixture did not hand out yet")
        return Observation(closed=(action.stream,))

    def _drop_connection(self, action) -> Observation:
        """The client closed the connection when it stopped reading; the server learns of it
        only once its side sees the close. A reconnect sent at once would race that (a
        server still counting the stream as connected rightly re-emits nothing on a new
        stream, and the spec would expect the re-emission): so the drop waits
        ``bounds.settle`` seconds before the next action."""
        time.sleep(self.bounds.settle)
        return Observation(closed=(action.stream,))

    def _reconnect(self, action) -> Observation:
        got = self._run(
            self.client.get(label="reconnect", session=action.session, last_event_id=action.last_event_id)
        )
        if got.status != 200:
            return Observation(got.status, error=error_code(got.body))
        if action.last_event_id is None:
            key = self._key("get")
            self._streams[key] = _Stream(key)
        else:
            key = self._event_stream.get(action.last_event_id, action.last_event_id)
        delivered = []
        for event in got.data_events:
            if event.id is not None:
                self._event_stream.setdefault(event.id, key)
            request = str(event.request_id) if event.is_server_request else None
            delivered.append(Delivered(event.id or "?", request, key, event.cancels))
        return Observation(200, stream=key, events=tuple(delivered))

    def _delete_session(self, action) -> Observation:
        return Observation(self._run(self.client.delete(action.session)).status)

    def _restart_client(self, action) -> Observation:
        return Observation()

    def _next_event(self, key: str, *, server_request: bool) -> SseEvent:
        stream = self._streams.get(key)
        if stream is None or not stream.events:
            raise Unsupported(f"no event of stream {key} left to hand out")
        event = stream.events[0]
        if event.is_server_request != server_request or event.id is None:
            raise Unsupported(f"the next event of stream {key} is {event.summary()}")
        stream.events.pop(0)
        return event

    def _key(self, kind: str) -> str:
        self._count += 1
        return f"{kind}-{self._count}"



# -- the machine over HTTP ---------------------------------------------------------------------


def run_http_machine(
    url: str,
    tools: list[str],
    profile: Profile = DEFAULT_PROFILE,
    bounds: Timeouts | None = None,
    max_examples: int = HTTP_EXAMPLES,
    steps: int = HTTP_STEPS,
) -> MachineResult:
    """Run the machine against the live server at ``url`` (which lists ``tools``).

    Each example uses fresh sessions and its own client; a failure is shrunk to
    a minimal sequence of HTTP exchanges and returned as the counterexample.
    """
    bounds = bounds or Timeouts(connect=2.0, first_byte=2.0, idle=2.0, exchange=10.0, settle=0.2)
    result = MachineResult("http", profile)

    attributes = {"url": url, "tools": tools, "bounds": bounds, "profile": profile, "result": result}
    result.counterexample = run_until_counterexample(_HttpMachine, attributes, Counterexample, max_examples, steps)
    return result


class _HttpMachine(RuleBasedStateMachine):
    url: str
    tools: list[str]
    bounds: Timeouts
    profile: Profile
    result: MachineResult

    def __init__(self) -> None:
        super().__init__()
        self.server = HttpServerUnderTest(self.url, self.bounds, self.tools)
        self.checker = Checker(self.server, self.profile, source="hypothesis-http")

    @property
    def state(self):
        return self.checker.state

    def teardown(self) -> None:
        for session in self.state.live_sessions():
            self.server.apply(a.DeleteSession(self.checker.ids.server_id(session.id)))
        self.server.close()

    def run(self, action: a.Action) -> None:
        if self.checker.diverged is not None:
            return
        self.result.actions_run += 1
        self.result.action_counts[action.kind] = self.result.action_counts.get(action.kind, 0) + 1
        self.checker.apply(action)

    def close_connections(self) -> None:
        """The client closes every connection still open: nothing overlaps the next exchange."""
        for stream in [s.id for s in self.state.streams if s.connected]:
            self.run(a.DropConnection(stream))

    def call(self, session: str | None, tool: str) -> None:
        before = len(self.state.streams)
        self.server.plan_call(tool)
        self.run(a.CallTool(session))
        if len(self.state.streams) == before or self.checker.diverged is not None:
            return
        stream = self.state.streams[-1].id
        for event in self.server.buffered(self.checker.ids.server_id(stream)):
            self.run(a.IssueServerRequest(stream) if event.is_server_request else a.EmitEvent(stream))
        if tool in SERVER_REQUEST_TOOLS:
            self.close_connections()
        elif self.state.stream(stream).connected:
            self.run(a.EndStream(stream))

    def pick(self, data, items):
        return data.draw(st.sampled_from(list(items)))

    @precondition(lambda self: len(self.state.sessions) < MAX_SESSIONS)
    @rule(data=st.data())
    def initialize(self, data) -> None:
        self.run(a.Initialize())

    @precondition(lambda self: self.state.live_sessions())
    @rule(data=st.data())
    def call_history_tool(self, data) -> None:
        tool = next(t for t in HISTORY_TOOLS if t in self.tools)
        self.call(self.pick(data, [s.id for s in self.state.live_sessions()]), tool)

    @precondition(lambda self: self.state.live_sessions() and any(t in self.tools for t in SERVER_REQUEST_TOOLS))
    @rule(data=st.data())
    def call_server_request_tool(self, data) -> None:
        tool = next(t for t in SERVER_REQUEST_TOOLS if t in self.tools)
        self.call(self.pick(data, [s.id for s in self.state.live_sessions()]), tool)

    @precondition(lambda self: self.state.sessions)
    @rule(data=st.data())
    def resume_session(self, data) -> None:
        self.run(a.Reconnect(self.pick(data, [s.id for s in self.state.sessions]), None))
        self.close_connections()

    @precondition(lambda self: any(entry.cursors for entry in self.state.client))
    @rule(data=st.data())
    def resume_stream(self, data) -> None:
        held = [(entry.session, event) for entry in self.state.client for _, event in entry.cursors]
        session, event = self.pick(data, held)
        self.run(a.Reconnect(session, event))
        self.close_connections()

    @precondition(lambda self: self.state.events and self.state.live_sessions())
    @rule(data=st.data())
    def foreign_event_id(self, data) -> None:
        session = self.pick(data, [s.id for s in self.state.live_sessions()])
        foreign = [e.id for e in self.state.events if self.state.session_of_event(e.id) != session]
        self.run(a.Reconnect(session, self.pick(data, foreign) if foreign else UNKNOWN_EVENT))
        self.close_connections()

    @precondition(lambda self: self.state.events)
    @rule(data=st.data())
    def orphan_event_id(self, data) -> None:
        self.run(a.Reconnect(None, self.pick(data, [e.id for e in self.state.events])))
        self.close_connections()

    @rule(data=st.data())
    def odd_headers(self, data) -> None:
        session = self.pick(data, [None, MALFORMED_SESSION, UNKNOWN_SESSION] + [s.id for s in self.state.sessions])
        event = self.pick(data, [None, MALFORMED_EVENT, UNKNOWN_EVENT])
        self.run(a.Reconnect(session, event))
        self.close_connections()

    @precondition(lambda self: self.state.sessions)
    @rule(data=st.data())
    def delete_session(self, data) -> None:
        self.run(a.DeleteSession(self.pick(data, [s.id for s in self.state.sessions])))


def plans_for(trace) -> list[str]:
    """The fixture tool each successful ``call_tool`` of ``trace`` used: a request
    tool when the spec trace issues a server request on that call's stream."""
    from mcp_resume.spec.state import INITIAL_STATE
    from mcp_resume.spec.transitions import step

    state, streams = INITIAL_STATE, []
    for action in trace.actions:
        before = len(state.streams)
        state = step(state, action, trace.profile).after
        if isinstance(action, a.CallTool):
            streams.append(state.streams[-1].id if len(state.streams) > before else None)
    requested = {x.stream for x in trace.actions if isinstance(x, a.IssueServerRequest)}
    return ["test_elicitation" if s in requested else "test_tool_with_logging" for s in streams]


class _PlannedHttpServer(HttpServerUnderTest):
    """Replays a trace: each ``call_tool`` uses the tool ``plans_for`` chose."""

    def __init__(self, *args, plans: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._plans = list(plans)

    def _call_tool(self, action) -> Observation:
        if self._plans:
            self.plan_call(self._plans.pop(0))
        return super()._call_tool(action)


@contextmanager
def _started(target: str) -> Iterator[str]:
    from mcp_resume.model.targets.embedded import is_embedded, running_target

    if is_embedded(target):
        with running_target(target) as url:
            yield url
    else:
        yield target


def open_http_server(target: str, bounds: Timeouts, trace=None):
    """A ``HttpServerUnderTest`` for ``target`` (a URL or an embedded target) and a
    function that stops what was started; the server's tools come from a probe."""
    from mcp_resume.model.verify.probe import probe

    context = _started(target)
    url = context.__enter__()
    try:

        async def tools():
            async with StreamableHttpClient(url, bounds) as client:
                return (await probe(client)).tools

        listed = asyncio.run(tools())
        plans = plans_for(trace) if trace is not None else []
        server = _PlannedHttpServer(url, bounds, listed, name=target, plans=plans)
    except BaseException:
        context.__exit__(None, None, None)
        raise
    return server, lambda: context.__exit__(None, None, None)
