"""The actions of the model: what a client sends and what a server does.

Client actions are HTTP requests; their header fields hold the literal header
value or ``None`` when the header is absent, so any combination can be expressed,
including ids of another session (``"S2"``), malformed ones (``"bad id"``) and
well-formed ones that name nothing (``"unknown-session"``). Server actions name
the stream or request they act on; they are enabled only when that target exists
in a state that allows them (see ``transitions.enabled``).

Every action converts to and from a JSON object ``{"kind": ..., <fields>}``; a
trace is a list of them (see ``trace``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import ClassVar, Union



@dataclass(frozen=True, slots=True)
class Initialize:
    """Client POSTs ``initialize`` without ``Mcp-Session-Id`` (docs/design.md §2 branch 5)."""

    kind: ClassVar[str] = "initialize"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class CallTool:
    """Client POSTs ``tools/call``; the response opens a POST stream."""

    session: str | None
    kind: ClassVar[str] = "call_tool"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class Reconnect:
    """Client GETs the MCP endpoint with any combination of the two headers.

    With ``session`` only, this opens a fresh GET stream (session resumption);
    with both, it asks to resume the stream of ``last_event_id``.
    """

    session: str | None
    last_event_id: str | None
    kind: ClassVar[str] = "reconnect"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class AnswerRequest:
    """Client POSTs its JSON-RPC response to server request ``request``."""

    session: str | None
    request: str
    kind: ClassVar[str] = "answer_request"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class DeleteSession:
    """Client sends HTTP DELETE with ``Mcp-Session-Id`` (MCP B35)."""

    session: str | None
    kind: ClassVar[str] = "delete_session"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class DropConnection:
    """The connection delivering ``stream`` breaks; the stream lives on."""

    stream: str
    kind: ClassVar[str] = "drop_connection"
    side: ClassVar[str] = "network"


@dataclass(frozen=True, slots=True)
class RestartClient:
    """The client process restarts: it forgets every event id and every request it saw."""

    kind: ClassVar[str] = "restart_client"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class CloseConnection:
    """Server closes the connection delivering ``stream`` (SEP-1699, with ``retry``):
    unlike a network drop it is the server's choice, and the stream lives on for
    the client to resume (MCP D9/D10/D23)."""

    stream: str
    kind: ClassVar[str] = "close_connection"
    side: ClassVar[str] = "server"


@dataclass(frozen=True, slots=True)
class EvictEvent:
    """Server's ring buffer discards the oldest retained event of ``stream``; a
    ``Last-Event-ID`` naming it can no longer be answered with an exact suffix."""

    stream: str
    kind: ClassVar[str] = "evict_event"
    side: ClassVar[str] = "server"


@dataclass(frozen=True, slots=True)
class EmitEvent:
    """Server sends a notification on ``stream``."""

    stream: str
    kind: ClassVar[str] = "emit_event"
    side: ClassVar[str] = "server"


@dataclass(frozen=True, slots=True)
class IssueServerRequest:
    """Server sends a request (sampling, elicitation, roots) on ``stream``."""

    stream: str
    kind: ClassVar[str] = "issue_server_request"
    side: ClassVar[str] = "server"


@dataclass(frozen=True, slots=True)
class CancelRequest:
    """Server gives up on a pending request and says so: ``notifications/cancelled`` on
    the stream that carries it (MCP B39)."""

    request: str
    kind: ClassVar[str] = "cancel_request"
    side: ClassVar[str] = "server"


@dataclass(frozen=True, slots=True)
class Respond:
    """Server sends the JSON-RPC response to the call that opened POST stream ``stream``,
    then terminates that stream (MCP B8/B11, C8, D11): the response is the stream's last
    event, stored for replay like any other."""

    stream: str
    kind: ClassVar[str] = "respond"
    side: ClassVar[str] = "server"


@dataclass(frozen=True, slots=True)
class EndStream:
    """Server terminates the standalone GET stream ``stream`` (a POST stream ends with its
    response: ``Respond``)."""

    stream: str
    kind: ClassVar[str] = "end_stream"
    side: ClassVar[str] = "server"


@dataclass(frozen=True, slots=True)
class ExpireStream:
    """Server discards the events of ``stream``; its session lives on."""

    stream: str
    kind: ClassVar[str] = "expire_stream"
    side: ClassVar[str] = "server"


@dataclass(frozen=True, slots=True)
class ExpireSession:
    """Server ends ``session`` on its own (MCP B33)."""

    session: str
    kind: ClassVar[str] = "expire_session"
    side: ClassVar[str] = "server"


Action = Union[
    Initialize,
    CallTool,
    Reconnect,
    AnswerRequest,
    DeleteSession,
    DropConnection,
    RestartClient,
    CloseConnection,
    EvictEvent,
    EmitEvent,
    IssueServerRequest,
    CancelRequest,
    Respond,
    EndStream,
    ExpireStream,
    ExpireSession,
]

ACTION_TYPES: dict[str, type] = {
    cls.kind: cls
    for cls in (
        Initialize,
        CallTool,
        Reconnect,
        AnswerRequest,
        DeleteSession,
        DropConnection,
        RestartClient,
        CloseConnection,
        EvictEvent,
        EmitEvent,
        IssueServerRequest,
        CancelRequest,
        Respond,
        EndStream,
        ExpireStream,
        ExpireSession,
    )
}
"""Every action type by its ``kind``, in a fixed order."""


def action_to_json(action: Action) -> dict[str, str | None]:
    """``{"kind": <kind>, <field>: <value>, ...}`` for one action."""
    return {"kind": action.kind, **asdict(action)}


def action_from_json(data: object) -> Action:
    """The action described by ``data`` (the shape ``action_to_json`` writes).

    Raises ``ValueError`` when ``data`` is not an object, names no known kind, or
    lacks or adds fields.
    """
    if not isinstance(data, dict):
        raise ValueError(f"an action must be a JSON object, got {type(data).__name__}")
    kind = data.get("kind")
    cls = ACTION_TYPES.get(kind)  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(f"unknown action kind {kind!r}; known kinds: {', '.join(ACTION_TYPES)}")
    expected = {f.name for f in fields(cls)}
    given = set(data) - {"kind"}
    if given != expected:
        raise ValueError(
            f"action {kind!r} takes fields {sorted(expected)}, got {sorted(given)}"
        )
    for name in expected:
        value = data[name]
        if value is not None and not isinstance(value, str):
            raise ValueError(f"field {name!r} of action {kind!r} must be a string or null")
    action: Action = cls(**{name: data[name] for name in expected})
    return action


def describe(action: Action) -> str:
    """A one-line human reading of an action, e.g. ``reconnect(session=S1, last_event_id=E3)``."""
    args = ", ".join(f"{k}={v if v is not None else '-'}" for k, v in asdict(action).items())
    return f"{action.kind}({args})"
