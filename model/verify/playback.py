"""The spec's client actions played against a live server over HTTP, judged by the spec.

``Playback(url, bounds, tools)`` sends the HTTP exchange of each client action of
the spec, naming sessions and events by the spec's handles (``S1``, ``E3``), and
records every exchange:

- ``initialize`` -> POST ``initialize`` (then ``notifications/initialized``);
- ``call_tool`` -> POST ``tools/call`` of a fixture tool (docs/fixtures.md): a tool
  with notifications, read to its end, or one that sends a server request, whose
  connection the client drops at that request (then waits ``bounds.settle``
  seconds, so that the server has seen the close before the next request);
- ``reconnect`` -> GET with the two headers as given, read until ``bounds.settle``
  seconds pass without an event, then closed;
- ``delete_session`` -> DELETE; ``restart_client`` -> nothing (the client forgets).

What the server does is not commanded: its events, server requests and stream
ends come from the fixture tools, and a dropped connection from the client's
reading; a trace's ``emit_event``, ``issue_server_request``, ``respond``, ``end_stream`` and
``drop_connection`` are therefore played by the call before them. The other
actions (``answer_request``, ``cancel_request``, ``evict_event``,
``close_connection``, ``expire_stream``, ``expire_session``) cannot be played over
HTTP and raise ``Unsupported``.

``judgement(profile)`` judges the recording with ``model.oracle.judge``, the
mapping and checks ``verify``, ``validate`` and the proxy use: the spec state it
leaves names each handle's server id for the next action. ``replay_over_http``
plays a whole trace.
"""

from __future__ import annotations

import asyncio
import time

from mcp_resume.spec import actions as a
from mcp_resume.spec.actions import describe
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import INITIAL_STATE, State
from mcp_resume.spec.trace import Trace
from mcp_resume.spec.transitions import step

from mcp_resume.model.http.client import StreamableHttpClient, Timeouts
from mcp_resume.model.http.evidence import Exchange
from mcp_resume.model.servers.adapter import Unsupported
from mcp_resume.model.servers.idmap import IdMap
from mcp_resume.model.oracle.judge import judge
from mcp_resume.model.traffic.records import records_of
from mcp_resume.model.traffic.trace_validation import Validation
from mcp_resume.model.verify.driver import HISTORY_TOOLS, SERVER_REQUEST_TOOLS

PLAYED_BY_THE_SERVER = (a.EmitEvent, a.IssueServerRequest, a.Respond, a.EndStream, a.DropConnection)
"""Trace actions a fixture tool's call (or the client's reading) plays: nothing to send."""
PLAYABLE = (a.Initialize, a.CallTool, a.Reconnect, a.DeleteSession, a.RestartClient) + PLAYED_BY_THE_SERVER
"""Every action ``Playback`` can play; the others raise ``Unsupported``."""


class Playback:
    """A client of one live server that plays the spec's client actions and records them.

    ``tools``: the tools the server lists (a ``call_tool`` needs a fixture tool among
    them). Use ``close()`` when done. Every network wait is bounded by ``bounds``.
    """

    def __init__(self, url: str, bounds: Timeouts, tools: list[str],
                 headers: tuple[tuple[str, str], ...] = ()) -> None:
        self.url = url
        self.bounds = bounds
        self.tools = tools
        self._loop = asyncio.new_event_loop()
        self.client = StreamableHttpClient(url, bounds, headers=headers)
        self.ids = IdMap()  # from the latest judgement: spec handle -> server id

    @property
    def exchanges(self) -> list[Exchange]:
        return self.client.exchanges

    def judgement(self, profile: Profile) -> Validation:
        """The spec's judgement of every exchange so far under ``profile``; remembers its
        map of handles for the next ``play``."""
        judged = judge(records_of(self.exchanges), profile, complete=True, bounded_waits=True)
        if judged.ids is not None:
            self.ids = judged.ids
        return judged

    def play(self, action: a.Action, tool: str | None = None) -> None:
        """Send ``action`` (spec handles) over HTTP; ``tool``: the fixture tool of a
        ``call_tool`` (default: the first tool with notifications the server lists).

        Raises ``Unsupported`` for an action HTTP cannot play, or a ``call_tool``
        without a fixture tool to call."""
        if not isinstance(action, PLAYABLE):
            raise Unsupported(f"{action.kind} cannot be played over HTTP")
        if isinstance(action, PLAYED_BY_THE_SERVER + (a.RestartClient,)):
            return
        session = self.ids.server_id(getattr(action, "session", None))
        if isinstance(action, a.Initialize):
            self._run(self._initialize())
        elif isinstance(action, a.CallTool):
            self._call(session, tool or self._default_tool())
        elif isinstance(action, a.Reconnect):
            cursor = self.ids.server_id(action.last_event_id)
            self._run(self.client.get(label="reconnect", session=session, last_event_id=cursor))
        else:
            self._run(self.client.delete(session))

    def close(self) -> None:
        self._loop.run_until_complete(self.client.aclose())
        self._loop.close()

    def _run(self, coroutine):
        return self._loop.run_until_complete(coroutine)

    async def _initialize(self) -> None:
        init = await self.client.initialize("initialize")
        if init.status == 200 and init.session_header is not None:
            await self.client.notify(init.session_header, "notifications/initialized", label="initialized")

    def _call(self, session: str | None, tool: str) -> None:
        if tool not in self.tools:
            raise Unsupported(f"the server lists no fixture tool {tool}")
        requests = tool in SERVER_REQUEST_TOOLS
        stop = (lambda e: e.is_input_request) if requests else None
        self._run(self.client.call_tool(session, tool, label=f"call {tool}", stop=stop))
        if requests:
            time.sleep(self.bounds.settle)  # the server learns of the dropped connection only once it sees the close

    def _default_tool(self) -> str:
        tool = next((t for t in HISTORY_TOOLS if t in self.tools), None)
        if tool is None:
            raise Unsupported("the server lists no fixture tool with notifications (test_tool_with_logging)")
        return tool


def tools_for(trace: Trace) -> list[str]:
    """The fixture tool for each ``call_tool`` of ``trace`` whose stream the spec opens: a
    tool that sends a server request where the trace issues one on that stream, else
    one with notifications."""
    state: State = INITIAL_STATE
    streams: list[str | None] = []
    for action in trace.actions:
        before = len(state.streams)
        state = step(state, action, trace.profile).after
        if isinstance(action, a.CallTool):
            streams.append(state.streams[-1].id if len(state.streams) > before else None)
    requested = {x.stream for x in trace.actions if isinstance(x, a.IssueServerRequest)}
    return ["test_elicitation" if s in requested else "test_tool_with_logging" for s in streams]


def replay_over_http(trace: Trace, url: str, bounds: Timeouts, tools: list[str],
                     profile: Profile | None = None, headers: tuple[tuple[str, str], ...] = ()) -> Validation:
    """Play the client actions of ``trace`` against ``url`` and judge the recording under
    ``profile`` (default: the trace's), ``headers`` (name, value) added to every request. Raises ``Unsupported`` (before sending anything)
    when the trace has an action HTTP cannot play or calls a tool the server lacks."""
    profile = profile or trace.profile
    calls = iter(tools_for(trace))
    plan = [(action, next(calls) if isinstance(action, a.CallTool) else None) for action in trace.actions]
    _playable(plan, tools)
    playback = Playback(url, bounds, tools, headers)
    try:
        for action, tool in plan:
            playback.judgement(profile)
            playback.play(action, tool)
        return playback.judgement(profile)
    finally:
        playback.close()


def _playable(plan: list[tuple[a.Action, str | None]], tools: list[str]) -> None:
    for number, (action, tool) in enumerate(plan, 1):
        if not isinstance(action, PLAYABLE):
            raise Unsupported(f"step {number} ({describe(action)}) cannot be played over HTTP")
        if tool is not None and tool not in tools:
            raise Unsupported(f"step {number} calls the fixture tool {tool}, which the server does not list")
