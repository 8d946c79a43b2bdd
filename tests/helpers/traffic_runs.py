"""A client session recorded through the proxy: one reference scenario run against any
in-process server served over HTTP on 127.0.0.1 (shared by the traffic tests)."""

from __future__ import annotations

import asyncio
import copy
import functools
import time
from pathlib import Path
from typing import Awaitable, Callable

from mcp_resume.model.http.client import StreamableHttpClient, Timeouts
from mcp_resume.model.serving.facade import serving, serving_design
from mcp_resume.model.traffic.recording_proxy import RecordingProxy
from mcp_resume.model.traffic.records import Record
from mcp_resume.model.oracle.live import LiveChecker
from mcp_resume.model.traffic.recording import Fanout, MemoryRecorder
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

BOUNDS = Timeouts(connect=5.0, first_byte=5.0, idle=5.0, exchange=30.0, settle=0.3)
ANSWER = {"action": "accept", "content": {"answer": "mcp-resume"}}


async def scenario(url: str) -> tuple[list, object, object]:
    """Two sessions: a history call resumed from a middle event id, an elicitation
    dropped at its request, a session resumption, the answer, and a second session
    presenting the first one's event id. Returns the client's exchanges, the history
    call's and its stream resumption's (``model.http.evidence.Exchange``)."""
    async with StreamableHttpClient(url, BOUNDS) as client:
        first = (await client.initialize()).session_header
        await client.notify(first, "notifications/initialized", label="initialized")
        call = await client.call_tool(first, "test_tool_with_logging", label="history")
        cursor = next((e for e in call.events if e.id is not None and not e.is_priming), None)
        assert cursor is not None, f"the history call carried no event with an id: {call.one_line()}"
        resumed = await client.get(label="stream resumption", session=first, last_event_id=cursor.id)
        elicit = await client.call_tool(first, "test_elicitation", label="drop at the request", stop=lambda e: e.is_server_request)
        await asyncio.sleep(0.3)
        await client.get(label="session resumption", session=first, stop=lambda e: e.is_server_request, idle=1.0)
        await client.respond(first, elicit.events[-1].request_id, ANSWER, label="answer")
        second = (await client.initialize()).session_header
        await client.notify(second, "notifications/initialized", label="initialized")
        await client.get(label="foreign event id", session=second, last_event_id=cursor.id, idle=0.5)
        return client.exchanges, call, resumed


async def sdk_clients(url: str) -> None:
    """The official Python SDK's Streamable HTTP client (``mcp.client.streamable_http``), two
    clients at once. The first: a call whose stream the server closes (the SDK resumes it itself
    with ``Last-Event-ID``), an elicitation it answers, a call it abandons at its first progress
    notification (the session-era SDK sends ``notifications/cancelled`` and keeps reading the
    POST, which the server may end itself), a history call whose event ids it keeps (the SDK's
    resumption tokens; last, so that a server keeping a few ended streams still has it). Then,
    while the first session lives, a second client presents the first one's event id as its
    resumption token, and a third leaves in the middle of a call, at its first progress
    notification (its transport drops that POST's connection). The first ends its session with
    DELETE. Every step is bounded (``STEP_SECONDS``): a server that strands a call costs the
    step, not the run."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.message import ClientMessageMetadata

    tokens: list[str] = []

    async def keep(token: str) -> None:
        tokens.append(token)

    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write, elicitation_callback=_answer, read_timeout_seconds=STEP_SECONDS) as first:
            await first.initialize()
            for tool in ("test_reconnection", "test_elicitation"):
                with anyio.move_on_after(STEP_SECONDS):
                    await first.call_tool(tool)
            with anyio.move_on_after(STEP_SECONDS) as abandon:
                async def at_first_progress(progress, total, message) -> None:
                    abandon.cancel()
                await first.call_tool("test_tool_with_progress", progress_callback=at_first_progress)
            await _call(first, "test_tool_with_logging", ClientMessageMetadata(on_resumption_token_update=keep))
            assert len(tokens) >= 2, f"the history call gave the SDK {len(tokens)} resumption tokens"
            await _foreign_resumption(url, tokens[1])
            await _leaving_mid_call(url)


async def _leaving_mid_call(url: str) -> None:
    """A third SDK client that leaves while its call runs, at the call's first progress
    notification: its transport drops the call's connection (the session is left to expire)."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    with anyio.CancelScope() as leave:
        async def at_first_progress(progress, total, message) -> None:
            leave.cancel()

        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=STEP_SECONDS) as third:
                await third.initialize()
                with anyio.move_on_after(STEP_SECONDS):
                    await third.call_tool("test_tool_with_progress", progress_callback=at_first_progress)


async def _foreign_resumption(url: str, token: str) -> None:
    """A second SDK client whose resumption token is another session's event id."""
    import anyio
    import httpx2  # the SDK client's own HTTP library
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.message import ClientMessageMetadata

    try:
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=STEP_SECONDS) as second:
                await second.initialize()
                with anyio.move_on_after(STEP_SECONDS):
                    await _call(second, "test_tool_with_logging", ClientMessageMetadata(resumption_token=token))
    except* httpx2.HTTPStatusError:
        pass  # a server that rejects the foreign event id (as it must) fails the SDK's resumption


async def _answer(context, params):
    from mcp import types

    return types.ElicitResult(action="accept", content=ANSWER["content"])


async def _call(session, tool: str, metadata):
    from mcp import types

    request = types.CallToolRequest(params=types.CallToolRequestParams(name=tool, arguments={}))
    return await session.send_request(request, types.CallToolResult, metadata=metadata)


STEP_SECONDS = 5.0


def session_of(record: Record) -> str | None:
    """The ``Mcp-Session-Id`` an exchange's request carried."""
    return record.exchange.request_headers.get("mcp-session-id")


def recorded(name: str, run: Callable[[str], Awaitable[object]] = scenario) -> list[Record]:
    """The records of ``run`` (default ``scenario``) through the proxy to the server ``name``.

    ``scenario``'s recording of a server is made once per process (tests record the reference and
    design 2 again and again); each caller gets a copy of its own to change."""
    if run is not scenario:
        return recorded_live(name, run)[0]
    return copy.deepcopy(_scenario_recording(name))


@functools.cache
def _scenario_recording(name: str) -> list[Record]:
    return recorded_live(name)[0]


def recorded_live(name: str, run: Callable[[str], Awaitable[object]] = scenario,
                  profile: Profile = Profile.BOUNDARY) -> tuple[list[Record], set[str]]:
    """The records of ``run`` through the proxy to the server ``name``, and the rules its live
    checker (``model.oracle.live``, as ``mcp-resume proxy`` runs it) reported FAILed while the
    client ran."""
    memory, failed = MemoryRecorder(), set()

    def on_finding(rule, validation) -> None:
        if rule.verdict is Verdict.FAIL:
            failed.add(rule.rule)

    fanout = Fanout(memory)
    with _upstream(name) as upstream:
        proxy = RecordingProxy(upstream, fanout)
        checker = LiveChecker(profile, on_finding, proxy.now)
        fanout.recorders = (memory, checker)
        with serving(proxy) as front:
            asyncio.run(run(front))
            until_every_exchange_ended(memory)
        checker.stop()
    return memory.records, failed


def _upstream(name: str):
    """An in-process server over HTTP, the plain SDK server (``plain-sdk``), or an embedded
    target (``python-sdk`` ...) started for real."""
    from mcp_resume.model.targets.embedded import running_target

    if name == "reference" or name.startswith(("design-", "variation-")):
        return serving_design(name)
    if name == "plain-sdk":
        from tests.helpers.servers.plain_sdk import serving_plain

        return serving_plain()
    return running_target(name)


def sdk_client(mode: str | None) -> Callable[[str], Awaitable[None]]:
    """The official Python SDK's ``Client`` as its README uses it: list the tools, call one.
    ``mode="legacy"`` speaks the initialize handshake with a session; the default (``None``)
    discovers the server and speaks 2026-07-28 when it can."""

    async def run(url: str) -> None:
        from mcp.client.client import Client

        async with Client(url, **({"mode": mode} if mode else {})) as client:
            await client.list_tools()
            await client.call_tool("add", {"a": 1, "b": 2})

    return run


PLAIN_RECORDINGS = {"legacy": "python-sdk-2.3-client-legacy.jsonl", None: "python-sdk-2.3-client-default.jsonl"}
"""The committed recordings (in ``RECORDINGS``) of ``sdk_client(mode)`` against the plain SDK server."""

RECORDINGS = Path(__file__).resolve().parent / "recordings"
"""``tests/helpers/recordings``: recorded client traffic the traffic tests read."""


def write_plain_recordings(folder) -> None:
    """Record ``sdk_client`` in both modes against the plain SDK server into ``folder``
    (how ``RECORDINGS`` were made: ``python -c 'import tests.helpers.traffic_runs as t;
    t.write_plain_recordings(t.RECORDINGS)'`` from the checkout)."""

    from mcp_resume.model.traffic.records import write_line

    for mode, name in PLAIN_RECORDINGS.items():
        records = recorded("plain-sdk", sdk_client(mode))
        (Path(folder) / name).write_text("".join(write_line(r) for r in records))


def until_every_exchange_ended(memory: MemoryRecorder, seconds: float = 5.0) -> None:
    """Wait (at most ``seconds``) until the proxy has seen every exchange end: it sees a
    client's drop a moment after the client went away."""
    deadline = time.monotonic() + seconds
    while any(r.ended is None for r in memory.records) and time.monotonic() < deadline:
        time.sleep(0.02)
