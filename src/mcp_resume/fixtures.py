"""The fixture tools ``mcp-resume verify`` drives, as a kit: ``add_fixture_tools(server)``.

One call adds the five tools of docs/fixtures.md to a server built with the official
MCP Python SDK, so that ``verify`` can judge every session-era rule of it::

    from mcp.server.mcpserver import MCPServer
    from mcp_resume.fixtures import add_fixture_tools
    from mcp_resume.event_store import BoundedEventStore, scope_sessions

    server = MCPServer("Demo")
    add_fixture_tools(server)          # before streamable_http_app()
    app = server.streamable_http_app(event_store=BoundedEventStore())
    scope_sessions(server.session_manager)   # one view of the store per session (B26)

The tools, their arguments, what each sends and in what order, and how long each
waits are defined once in ``mcp_resume.model.verify.fixture_tools`` (the page is
generated from it); this module only plays them with the SDK's calls. Add them to a
server you check, not to the one your users reach: they exist for verify.

This module imports the SDK only inside ``add_fixture_tools``, and only the release the
server comes from, so it loads beside mcp 1.x and 2.x alike.
"""

# No ``from __future__ import annotations`` here: the SDKs find a tool's Context
# parameter by its annotation, which must be the class itself, not a string.

import asyncio
import inspect
import warnings
from typing import Any, Callable

from mcp_resume.model.verify import fixture_tools as spec

__all__ = ["add_fixture_tools"]

SAMPLING_MAX_TOKENS = 32
"""``maxTokens`` of ``test_sampling``'s ``sampling/createMessage``."""
KINDS = {
    ("mcp.server.mcpserver.server", "MCPServer"): "mcpserver",
    ("mcp.server.fastmcp.server", "FastMCP"): "fastmcp",
    ("mcp.server.lowlevel.server", "Server"): "lowlevel",
}
"""The server classes of the official Python SDK the kit knows, by module and name."""


def add_fixture_tools(server: Any) -> Any:
    """Add ``test_tool_with_logging``, ``test_tool_with_progress``, ``test_elicitation``,
    ``test_sampling`` and ``test_reconnection`` to ``server``; returns ``server``.

    ``server`` is one of the official MCP Python SDK's servers:

    - ``mcp.server.mcpserver.MCPServer`` (mcp 2.x) or ``mcp.server.fastmcp.FastMCP``
      (mcp 1.x): the tools are registered with ``add_tool``, each taking the SDK's
      ``Context``;
    - ``mcp.server.lowlevel.Server`` of mcp 2.x (handlers given as ``on_list_tools`` /
      ``on_call_tool`` or ``add_request_handler``): its ``tools/list`` and ``tools/call``
      handlers are wrapped, so the fixture tools are listed after its own and every other
      call reaches its own handler unchanged.

    Shapes (docs/fixtures.md has the whole definition): every tool answers a
    ``CallToolResult`` with one text item; ``test_elicitation(message: str = "Please
    answer")`` sends ``elicitation/create`` for a form with one string field ``answer``,
    ``test_sampling(prompt: str = "Say hello")`` sends ``sampling/createMessage``, both on
    the call's own stream (MCP B17) and wait for the answer up to
    ``fixture_tools.ANSWER_TIMEOUT_SECONDS``; the history tools send
    ``fixture_tools.NOTIFICATIONS`` notifications ``STEP_SECONDS`` apart (what a stream
    resumption replays, B22, B25); ``test_reconnection`` closes its connection mid-call and
    finishes on the stream (D9, D29, SEP-1699). The server should give its streams event
    ids (an ``EventStore``) for verify to resume them (B22, D8).

    Raises ``TypeError`` for anything else (another framework, a low-level server of
    mcp 1.x), naming what it got and what it takes. Call it before the app is built
    (``streamable_http_app``), as for any tool.
    """
    kind = _kind(server)
    if kind in ("mcpserver", "fastmcp"):
        _add_to_high_level(server, kind)
    elif kind == "lowlevel" and hasattr(server, "add_request_handler"):
        _add_to_low_level(server)
    else:
        raise TypeError(_refusal(server, kind))
    return server


def _kind(server: Any) -> str | None:
    for klass in type(server).__mro__:
        kind = KINDS.get((klass.__module__, klass.__name__))
        if kind is not None:
            return kind
    return None


def _refusal(server: Any, kind: str | None) -> str:
    klass = type(server)
    what = f"{klass.__module__}.{klass.__qualname__}"
    if kind == "lowlevel":
        return (f"add_fixture_tools: {what} is the low-level Server of mcp 1.x, which the kit does not patch; "
                "use FastMCP (mcp.server.fastmcp), or mcp 2.x, or write the tools docs/fixtures.md defines")
    return (f"add_fixture_tools takes a server of the official MCP Python SDK (mcp.server.mcpserver.MCPServer, "
            f"mcp.server.fastmcp.FastMCP or mcp.server.lowlevel.Server), got {what}; for another framework write "
            "the tools docs/fixtures.md defines, or name your own tools with verify --tool ROLE=NAME")


# -- what the tools do, whatever the SDK -----------------------------------------------------


class _Calls:
    """What a fixture tool asks of the SDK during one call; one subclass per server kind."""

    async def log(self, text: str) -> None:
        raise NotImplementedError

    async def progress(self, step: int, total: int, message: str) -> None:
        raise NotImplementedError

    async def elicit(self, message: str) -> str:
        """Send ``elicitation/create``; the action the client answered."""
        raise NotImplementedError

    async def sample(self, prompt: str) -> str:
        """Send ``sampling/createMessage``; the text of the completion."""
        raise NotImplementedError

    async def close_connection(self) -> None:
        raise NotImplementedError


async def _with_logging(calls: _Calls) -> str:
    for step in range(1, spec.NOTIFICATIONS + 1):
        await calls.log(f"logging step {step}")
        await asyncio.sleep(spec.STEP_SECONDS)
    return spec.BY_NAME["test_tool_with_logging"].result


async def _with_progress(calls: _Calls) -> str:
    for step in range(1, spec.NOTIFICATIONS + 1):
        await calls.progress(step, spec.NOTIFICATIONS, f"step {step}")
        await asyncio.sleep(spec.STEP_SECONDS)
    return spec.BY_NAME["test_tool_with_progress"].result


async def _elicitation(calls: _Calls, message: str) -> str:
    action = await asyncio.wait_for(calls.elicit(message), spec.ANSWER_TIMEOUT_SECONDS)
    return f"elicitation {action}"


async def _sampling(calls: _Calls, prompt: str) -> str:
    return await asyncio.wait_for(calls.sample(prompt), spec.ANSWER_TIMEOUT_SECONDS)


async def _reconnection(calls: _Calls) -> str:
    await calls.log("before the connection closes")
    await asyncio.sleep(spec.STEP_SECONDS)
    await calls.close_connection()
    await asyncio.sleep(spec.RECONNECT_PAUSE_SECONDS)
    await calls.log("after the connection closed")
    return spec.BY_NAME["test_reconnection"].result


BEHAVIOURS: dict[str, Callable[..., Any]] = {
    "test_tool_with_logging": _with_logging,
    "test_tool_with_progress": _with_progress,
    "test_elicitation": _elicitation,
    "test_sampling": _sampling,
    "test_reconnection": _reconnection,
}
assert set(BEHAVIOURS) == set(spec.NAMES), "every fixture tool of the definition needs a behaviour"


def _default(tool: str, argument: str) -> Any:
    return next(a.default for a in spec.BY_NAME[tool].arguments if a.name == argument)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


# -- MCPServer (2.x) and FastMCP (1.x) -------------------------------------------------------------


class _ContextCalls(_Calls):
    """Through the ``Context`` that ``MCPServer`` and ``FastMCP`` give a tool."""

    def __init__(self, ctx: Any, sdk: Any) -> None:
        self.ctx, self.sdk = ctx, sdk

    async def log(self, text: str) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await _maybe_await(self.ctx.info(text))

    async def progress(self, step: int, total: int, message: str) -> None:
        await _maybe_await(self.ctx.report_progress(step, total, message))

    async def elicit(self, message: str) -> str:
        result = await self.ctx.elicit(message, self.sdk.answer_form)
        return str(getattr(result, "action", "answered"))

    async def sample(self, prompt: str) -> str:
        return await _create_message(self.ctx, self.sdk, prompt)

    async def close_connection(self) -> None:
        await _maybe_await(self.ctx.close_sse_stream())


async def _create_message(ctx: Any, types: Any, prompt: str) -> str:
    """Ask the client for a completion of ``prompt`` on the call's own stream (``related_request_id``)
    through ``ctx.session``; ``types``: where the SDK release keeps ``SamplingMessage`` and
    ``TextContent``. The completion's text, or ``"sampled"`` when it has none."""
    message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = await ctx.session.create_message([message], max_tokens=SAMPLING_MAX_TOKENS,
                                                  related_request_id=ctx.request_id)
    return getattr(result.content, "text", None) or "sampled"


class _Sdk:
    """The SDK classes the tools need, from the release the server comes from."""

    def __init__(self, kind: str) -> None:
        from pydantic import BaseModel

        if kind == "mcpserver":
            from mcp.server.mcpserver import Context
            from mcp_types import SamplingMessage, TextContent
        else:
            from mcp.server.fastmcp import Context
            from mcp.types import SamplingMessage, TextContent
        self.Context, self.SamplingMessage, self.TextContent = Context, SamplingMessage, TextContent

        class Answer(BaseModel):
            """The form ``test_elicitation`` asks the client to fill."""

            answer: str

        self.answer_form = Answer


def _add_to_high_level(server: Any, kind: str) -> None:
    sdk = _Sdk(kind)
    for name, tool in _high_level_tools(sdk).items():
        server.add_tool(tool, name=name, description=spec.BY_NAME[name].description)


def _high_level_tools(sdk: _Sdk) -> dict[str, Callable[..., Any]]:
    """One function per fixture tool, with the SDK's ``Context`` as the annotation it looks for."""
    Context = sdk.Context

    async def test_tool_with_logging(ctx: Context) -> str:
        return await _with_logging(_ContextCalls(ctx, sdk))

    async def test_tool_with_progress(ctx: Context) -> str:
        return await _with_progress(_ContextCalls(ctx, sdk))

    async def test_elicitation(ctx: Context, message: str = _default("test_elicitation", "message")) -> str:
        return await _elicitation(_ContextCalls(ctx, sdk), message)

    async def test_sampling(ctx: Context, prompt: str = _default("test_sampling", "prompt")) -> str:
        return await _sampling(_ContextCalls(ctx, sdk), prompt)

    async def test_reconnection(ctx: Context) -> str:
        return await _reconnection(_ContextCalls(ctx, sdk))

    return {
        "test_tool_with_logging": test_tool_with_logging,
        "test_tool_with_progress": test_tool_with_progress,
        "test_elicitation": test_elicitation,
        "test_sampling": test_sampling,
        "test_reconnection": test_reconnection,
    }


# -- the low-level Server (2.x) ------------------------------------------------------------------


class _RequestCalls(_Calls):
    """Through the ``ServerRequestContext`` the low-level server gives a handler."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx

    async def log(self, text: str) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await self.ctx.session.send_log_message("info", text, related_request_id=self.ctx.request_id)

    async def progress(self, step: int, total: int, message: str) -> None:
        await self.ctx.session.report_progress(step, total, message)

    async def elicit(self, message: str) -> str:
        schema = spec.ELICITATION_SCHEMA
        result = await self.ctx.session.elicit_form(message, schema, related_request_id=self.ctx.request_id)
        return str(result.action)

    async def sample(self, prompt: str) -> str:
        import mcp_types as types

        return await _create_message(self.ctx, types, prompt)

    async def close_connection(self) -> None:
        if self.ctx.close_sse_stream is not None:
            await _maybe_await(self.ctx.close_sse_stream())


def _add_to_low_level(server: Any) -> None:
    import mcp_types as types

    listing = server.get_request_handler("tools/list")
    calling = server.get_request_handler("tools/call")
    fixtures = [types.Tool(name=t.name, description=t.description, input_schema=_input_schema(t))
                for t in spec.FIXTURE_TOOLS]

    async def list_tools(ctx, params):
        own = await listing.handler(ctx, params) if listing is not None else types.ListToolsResult(tools=[])
        return own.model_copy(update={"tools": [*own.tools, *fixtures]})

    async def call_tool(ctx, params):
        if params.name not in BEHAVIOURS:
            if calling is None:
                raise ValueError(f"unknown tool {params.name!r}")
            return await calling.handler(ctx, params)
        given = params.arguments or {}
        arguments = {a.name: given.get(a.name, a.default) for a in spec.BY_NAME[params.name].arguments}
        text = await BEHAVIOURS[params.name](_RequestCalls(ctx), **arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    server.add_request_handler("tools/list", listing.params_type if listing else types.PaginatedRequestParams,
                               list_tools)
    server.add_request_handler("tools/call", types.CallToolRequestParams, call_tool)


def _input_schema(tool: spec.FixtureTool) -> dict[str, Any]:
    properties = {a.name: {"type": a.type, "default": a.default, "description": a.meaning} for a in tool.arguments}
    return {"type": "object", "properties": properties}
