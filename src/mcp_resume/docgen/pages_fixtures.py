"""The fixture tools page: what each tool verify drives takes, sends, in what order and for
how long, which rules it lets verify judge, the kits that add them, and ``verify --tool``.

Everything is read from ``model.verify.fixture_tools`` (the one definition), the verify
scenarios' needs (``model.verify.suite.SCENARIOS``) and the TypeScript kit's source."""

from __future__ import annotations

import json

from mcp_resume.model.targets.typescript_sdk import FIXTURE_TOOLS as TYPESCRIPT_KIT
from mcp_resume.model.verify import fixture_tools as spec
from mcp_resume.model.verify.suite import SCENARIOS

from .markdown import bullets, code, page, table
from .pages_spec import GENERATED, rule_link

PYTHON_EXAMPLE = '''from mcp.server.mcpserver import MCPServer
from mcp_resume.fixtures import add_fixture_tools
from mcp_resume.event_store import BoundedEventStore, scope_sessions

server = MCPServer("Demo")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


add_fixture_tools(server)  # the five tools below; before the app is built
app = server.streamable_http_app(
    event_store=BoundedEventStore(),  # event ids to resume from (B22, D8)
    retry_interval=1000,  # milliseconds a client waits before it reconnects to a closed connection (D10)
)
scope_sessions(server.session_manager)  # each session replays only its own events (B26)
'''

TOOL_EXAMPLE = ("mcp-resume verify http://127.0.0.1:8000/mcp \\\n"
                "  --tool 'server-request=book_flight:{\"destination\": \"Oslo\", \"seats\": 2}' \\\n"
                "  --tool 'notifications=tail_logs:{\"lines\": 3}' \\\n"
                "  --tool 'long-running=export_report'")


def fixtures_page() -> str:
    return page(
        "# Fixture tools",
        GENERATED + " Source: [model/verify/fixture_tools.py](../model/verify/fixture_tools.py), the one definition "
        "that the kits, the verify driver and the in-process façade read.",
        "Half of the rules are about what a server does *during* a tool call: a server request pending when the "
        "connection drops (MCP B12, D15), notifications a stream resumption must replay (B22, B25), a call the "
        "server interrupts (D9, D29). Over HTTP, verify can only make these happen by calling a tool that does "
        "them. It looks for tools named after the MCP conformance suite's fixtures (below); a server that lists "
        "none gets those rules SKIPped, with a line saying what would unlock them. There are two ways to unlock "
        "them: add the fixture tools to the server you check (one call with the kits below), or name tools "
        "your server already has with `verify --tool ROLE=NAME[:ARGUMENTS_JSON]`.",
        "## Roles",
        "Each fixture tool plays one role. *Its scenario needs it*: rules whose own scenario verify cannot run "
        "unless some tool plays the role; without one they are SKIP, unless another scenario's traffic happens to "
        "judge them (a server request another role's tool sends, for instance). *Also drives*: rules whose "
        "scenarios call it when there is one (a richer stream, one more case).",
        table(["role", "a tool of this role", "fixture tools", "its scenario needs it", "also drives"],
              [_role_row(role) for role in spec.Role]),
        f"{rule_link('no-duplicate-tool-call')} is SKIPped when there is no tool of either of the first two roles.",
        "## Add them in one call",
        "**Python SDK** (`mcp` 2.x `MCPServer`, 1.x `FastMCP`, or the 2.x low-level `Server`, whose `tools/list` "
        "and `tools/call` handlers are wrapped so that its own tools keep working):",
        f"```python\n{PYTHON_EXAMPLE}```",
        "`add_fixture_tools` raises `TypeError` for any other object. Add the tools to the server you check, not "
        "to the one your users reach: they exist for verify. `BoundedEventStore` and `scope_sessions` come from "
        "`mcp_resume.event_store` ([testing.md](testing.md)), a store to run in production too; a server with its "
        "own `EventStore` passes that instead, and the [EventStore test kit](testing.md) checks it.",
        f"**TypeScript SDK** (`McpServer`): copy [{TYPESCRIPT_KIT.name}](../model/targets/{TYPESCRIPT_KIT.parent.name}/"
        f"{TYPESCRIPT_KIT.name}) next to your server, then `addFixtureTools(server)`. It is the file below, run "
        "with node by every run of the embedded `typescript-sdk` target:",
        f"```js\n{TYPESCRIPT_KIT.read_text(encoding='utf-8')}```",
        "## Or name your own tools",
        "A server in real use has tools that already do these things. Name them, with the arguments to call them "
        "with (a JSON object), and verify calls them wherever it would call a fixture tool of that role; what "
        "they do is judged by the same checks. `--tool` is repeatable; the tools given for a role replace the "
        "fixture tools of that role.",
        f"```sh\n{TOOL_EXAMPLE}\n```",
        "An unknown role, arguments that are not a JSON object, or a tool the server's `tools/list` does not name "
        "is a usage error (exit code 2). Every report says which tool drove which rules (the text summary, "
        "Markdown, and `tools` in JSON). A `long-running` tool given with `--tool` is dropped by verify at its "
        "first event id and resumed from it until its response (a `test_reconnection` closes the connection "
        "itself).",
        "A tool given for a role its call does not play drives no rule: a `notifications` tool whose call sends "
        "no notification before its response, or a `long-running` tool answered at once (no event id before its "
        "response, or a resumed stream that carries only its response, already there), is dropped: the run "
        "goes on as if it had not been given (its role falls back to the fixture tools the server lists, or to "
        "none), so no finding is lost to it, and the report says what the tool did not do; a `server-request` "
        "tool that sends no server request makes the rules that need one INCONCLUSIVE. The report credits such a "
        "tool with no rule (`unplayed_tools` in the JSON capabilities). `verify` records the tools given in each finding's trace, and "
        "`mcp-resume replay TRACE URL` calls them again (`replay --tool` replaces those of a role).",
        "verify answers a server request of any tool: an `elicitation/create` is accepted with a value for every "
        "property of its `requestedSchema` (a property's `default`, else the first of its `enum`, else `true`, "
        "its `minimum` or 1, or the text `mcp-resume`), a URL-mode elicitation accepted without content, a "
        "`sampling/createMessage` answered with the text `mcp-resume`, `roots/list` with no roots.",
        "## The tools",
        "Times are the kits' (the Python and TypeScript kits and the embedded SDK targets); verify waits for each "
        "event up to its idle bound (`--timeout`, default 5 s), so any pause shorter than that works. Every tool "
        "answers a `CallToolResult` with one text item; every argument is optional. The call's `_meta` always "
        "carries a `progressToken`.",
        *[_tool_section(tool) for tool in spec.FIXTURE_TOOLS],
    )


def _role_row(role: spec.Role) -> tuple[str, str, str, str, str]:
    needed = _needing(spec.ROLE_NEEDS.get(role))
    also = [rule for rule in spec.ROLE_USES[role] if rule not in needed]
    return (code(role.value), spec.ROLE_MEANING[role], ", ".join(code(n) for n in spec.names_of(role)),
            ", ".join(rule_link(r) for r in needed) or "none", ", ".join(rule_link(r) for r in also) or "none")


def _needing(need: str | None) -> list[str]:
    """Rules whose scenario cannot run without ``need`` (a key of its ``needs``)."""
    if need is None:
        return []
    return [rule for rule, scenario in SCENARIOS.items() if need in scenario.needs]


def _tool_section(tool: spec.FixtureTool) -> str:
    arguments = (table(["argument", "type", "default", "meaning"],
                       [(code(a.name), a.type, code(json.dumps(a.default)), a.meaning) for a in tool.arguments])
                 if tool.arguments else "Arguments: none.")
    sends = "\n".join(f"{n}. {step}" for n, step in enumerate(tool.sends, start=1))
    request = ""
    if tool.server_request is not None:
        method, params = tool.server_request
        request = (f"The server request's params (`{method}`):\n\n```json\n{json.dumps(params, indent=2)}\n```")
    drives = _needing(spec.ROLE_NEEDS.get(tool.role)) + [r for r in spec.ROLE_USES[tool.role]
                                                         if r not in _needing(spec.ROLE_NEEDS.get(tool.role))]
    return page(
        f"### `{tool.name}`",
        f"{tool.description} Role: `{tool.role.value}`.",
        arguments,
        f"Sends on the call's POST stream, in order:\n\n{sends}",
        request,
        bullets([f"Waits: {tool.waits}.", f"Answers: {tool.result}.",
                 "verify drives with it: " + ", ".join(rule_link(r) for r in drives) + "."]),
    ).strip()

