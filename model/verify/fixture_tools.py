"""The fixture tools ``verify`` drives, defined once: names, arguments, what each sends
and in what order, how long it waits, and the role it plays.

A fixture tool is named after the MCP conformance suite's (``test_tool_with_logging``,
``test_tool_with_progress``, ``test_sampling``, ``test_elicitation``,
``test_reconnection``). Every reader takes its definition from here:

- the docs page ``docs/fixtures.md`` (``mcp_resume.docgen.pages_fixtures``);
- the kit ``mcp_resume.fixtures.add_fixture_tools`` (official Python SDK servers) and
  its TypeScript twin ``model/targets/typescript_fixture/fixture_tools.mjs``;
- the façade in front of in-process servers (``model.serving.facade``);
- the verify driver (``model.verify.driver``), which calls them by role.

A *role* is what verify needs a tool for; ``verify --tool ROLE=NAME[:ARGUMENTS_JSON]``
names a server's own tool for a role (``model.verify.roles``):

- ``notifications``: its POST stream carries notifications before the response, so
  a stream has history to resume from (MCP B22, B25, D8);
- ``server-request``: it sends a server request (elicitation, sampling, roots) on
  its POST stream and waits for the answer, so a request is pending when the
  connection drops (MCP B12, B17, D15; rules §3.7);
- ``long-running``: it works on after its first event, so a call can be
  interrupted and resumed before its response (MCP D9, D29, SEP-1699).

Times are seconds. Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

PAGE = "docs/fixtures.md"
"""The page that defines the fixture tools for server authors."""
KIT = "mcp_resume.fixtures.add_fixture_tools(server)"
"""The one call that adds them to a server built with the official Python SDK."""

NOTIFICATIONS = 3
"""Notifications a history tool sends before its response."""
STEP_SECONDS = 0.05
"""Pause after each notification of a fixture tool (the kit's; any pause shorter than
verify's idle bound, ``--timeout``, works: the façade uses 0.02 s)."""
RECONNECT_PAUSE_SECONDS = 0.3
"""How long ``test_reconnection`` works on after closing its connection (the kit's;
the façade uses 0.2 s; verify reads the resumed stream up to its idle bound)."""
ANSWER_TIMEOUT_SECONDS = 60.0
"""How long a server-request tool waits for the client's answer before it gives up
(the façade then cancels the request; the SDKs end the call with an error)."""


class Role(str, Enum):
    """What verify needs a tool for (``verify --tool ROLE=NAME``)."""

    NOTIFICATIONS = "notifications"
    SERVER_REQUEST = "server-request"
    LONG_RUNNING = "long-running"


ROLE_MEANING = {
    Role.NOTIFICATIONS: "sends notifications on its POST stream before its response (a stream with history)",
    Role.SERVER_REQUEST: "sends a server request (elicitation/create, sampling/createMessage or roots/list) on its "
                         "POST stream and waits for the client's answer",
    Role.LONG_RUNNING: "works on for a while after its first event before it answers (a call to interrupt and resume)",
}


@dataclass(frozen=True)
class Argument:
    """One argument of a fixture tool: JSON type, default (every argument is optional), meaning."""

    name: str
    type: str
    default: Any
    meaning: str


@dataclass(frozen=True)
class FixtureTool:
    """One fixture tool.

    - ``sends``: what the server writes on the call's POST stream, in order (a priming
      event first, MCP D8, when the server gives its streams event ids);
    - ``server_request``: ``(method, params)`` of the server request it sends, if any;
    - ``waits``: how long it waits, in words, with the values above;
    - ``result``: the text of its ``CallToolResult``.
    """

    name: str
    role: Role
    description: str
    arguments: tuple[Argument, ...]
    sends: tuple[str, ...]
    waits: str
    result: str
    server_request: tuple[str, dict[str, Any]] | None = None


PRIMING = "a priming event: an event id and empty data (MCP D8), if the server gives event ids"
RESPONSE = "the JSON-RPC response to the tools/call (a `CallToolResult` with one text item)"
ELICITATION_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}

FIXTURE_TOOLS: tuple[FixtureTool, ...] = (
    FixtureTool(
        "test_tool_with_logging", Role.NOTIFICATIONS, "Send three log notifications, then answer.", (),
        (PRIMING, f"{NOTIFICATIONS} `notifications/message` (level info, data `logging step 1`, `2`, `3`), "
                  f"{STEP_SECONDS:g} s apart", RESPONSE),
        f"{STEP_SECONDS:g} s after each notification: about {NOTIFICATIONS * STEP_SECONDS:g} s in all",
        "logged three messages",
    ),
    FixtureTool(
        "test_tool_with_progress", Role.NOTIFICATIONS, "Report progress three times, then answer.", (),
        (PRIMING, f"{NOTIFICATIONS} `notifications/progress` (progress 1, 2, 3 of total {NOTIFICATIONS}, for the "
                  "`progressToken` of the call's `_meta`; verify always sends one), "
                  f"{STEP_SECONDS:g} s apart", RESPONSE),
        f"{STEP_SECONDS:g} s after each notification: about {NOTIFICATIONS * STEP_SECONDS:g} s in all",
        "progress reported",
    ),
    FixtureTool(
        "test_elicitation", Role.SERVER_REQUEST, "Ask the client to fill a one-field form.",
        (Argument("message", "string", "Please answer", "the message shown to the user"),),
        (PRIMING, "one `elicitation/create` server request (form mode, one string field `answer`) related to "
                  "the call (on the call's own POST stream, MCP B17)", RESPONSE + ", once the client has answered"),
        f"until the client answers, at most {ANSWER_TIMEOUT_SECONDS:g} s",
        "`elicitation <action>`, the action the client answered",
        ("elicitation/create", {"message": "Please answer", "requestedSchema": ELICITATION_SCHEMA}),
    ),
    FixtureTool(
        "test_sampling", Role.SERVER_REQUEST, "Ask the client for a completion and return its text.",
        (Argument("prompt", "string", "Say hello", "the text of the one user message"),),
        (PRIMING, "one `sampling/createMessage` server request related to the call (on the call's own POST "
                  "stream, MCP B17)", RESPONSE + ", once the client has answered"),
        f"until the client answers, at most {ANSWER_TIMEOUT_SECONDS:g} s",
        "the text of the completion",
        ("sampling/createMessage",
         {"messages": [{"role": "user", "content": {"type": "text", "text": "Say hello"}}], "maxTokens": 32}),
    ),
    FixtureTool(
        "test_reconnection", Role.LONG_RUNNING, "Close this call's SSE connection mid-call, then finish.", (),
        (PRIMING, "`notifications/message` `before the connection closes`",
         f"the server closes the connection after {STEP_SECONDS:g} s, keeping the stream (SEP-1699; the Python "
         "SDK's `close_sse_stream`, the TypeScript SDK's `closeSSEStream`)",
         f"after {RECONNECT_PAUSE_SECONDS:g} s more, `notifications/message` `after the connection closed`, "
         "then " + RESPONSE + ": both for the client's stream resumption (`Last-Event-ID`) to deliver"),
        f"{STEP_SECONDS:g} s before closing, {RECONNECT_PAUSE_SECONDS:g} s after",
        "reconnection test finished",
    ),
)
"""Every fixture tool, in the order the docs list them."""

BY_NAME = {tool.name: tool for tool in FIXTURE_TOOLS}
NAMES = tuple(BY_NAME)


def names_of(role: Role) -> tuple[str, ...]:
    """The fixture tools of ``role``, in definition order."""
    return tuple(tool.name for tool in FIXTURE_TOOLS if tool.role is role)


HISTORY_TOOLS = names_of(Role.NOTIFICATIONS)
SERVER_REQUEST_TOOLS = names_of(Role.SERVER_REQUEST)
RECONNECTION_TOOL = names_of(Role.LONG_RUNNING)[0]

ROLE_NEEDS = {Role.SERVER_REQUEST: "server-request-tool", Role.NOTIFICATIONS: "history-tool"}
"""The verify need (``scenarios.NEEDS`` / ``UNLOCKS``) a tool of each role meets."""

ROLE_USES = {
    Role.NOTIFICATIONS: (
        "replay-suffix", "no-cross-session", "no-replay-on-session-resume", "reject-orphan-event-id",
        "reject-foreign-event-id", "unknown-session-404", "session-identity-stable", "expiry-independent",
        "event-id-unique", "no-duplicate-tool-call", "priming-event",
    ),
    Role.SERVER_REQUEST: ("no-cross-session", "no-duplicate-tool-call"),
    Role.LONG_RUNNING: ("replay-suffix",),
}
"""Rules whose scenarios call a tool of each role when there is one, beyond those that
cannot run without it (a richer stream, one more case): the rest of what it drives."""
