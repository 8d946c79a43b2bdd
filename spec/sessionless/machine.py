"""The 2026-07-28 revision as a state machine: no session, POST only (rules file §F).

Every client request is one POST carrying one JSON-RPC request and is answered on
its own response stream (F3, F5). The server may send notifications about the
request on that stream (F6), then one final response: a result, or an
``InputRequiredResult`` whose input requests the client answers by *retrying*
with ``inputResponses`` under a new JSON-RPC id (F20). The server never sends a
request of its own on any stream (F7). Closing a response stream cancels its
request, and a broken connection is the same to the server (F11, F21). Legacy
traffic: GET and DELETE get 405; ``Mcp-Session-Id`` and ``Last-Event-ID`` are
ignored and no session id is ever minted or echoed (F10, F17). A request the server
cannot take as sent is refused and changes nothing: 400 for an ``MCP-Protocol-Version``
that differs from the body's ``_meta`` (F12) or that the server does not implement
(F13), or an ``Mcp-Method`` header that differs from the body (F16); 404 for a method
the server does not implement (F14).

A request is named by its JSON-RPC id, which the *client* picks (``Q1, Q2, ...``
in sending order): a server's observation needs no id map. Nothing here is
shared with the session-era modules (``state``, ``actions``, ``transitions``),
so the two eras can be read apart; ``checks`` beside it judges what a server
sends in this one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from enum import Enum
from typing import Callable, ClassVar, Union

from ..headers import MALFORMED_EVENT, MALFORMED_SESSION, UNKNOWN_EVENT, UNKNOWN_SESSION

REVISION = "2026-07-28"
"""The ``MCP-Protocol-Version`` every request of this machine carries (F12)."""


# -- state ----------------------------------------------------------------------


class CallStatus(str, Enum):
    OPEN = "open"  # its response stream is open; the server is still working on it
    INPUT_REQUIRED = "input-required"  # answered with an InputRequiredResult (F20)
    COMPLETED = "completed"  # answered with its result
    CANCELLED = "cancelled"  # the client closed its response stream first (F11)


@dataclass(frozen=True, slots=True)
class Call:
    """One client request; ``retries`` names the request whose InputRequiredResult it answers."""

    id: str
    retries: str | None = None
    status: CallStatus = CallStatus.OPEN
    notified: int = 0  # notifications sent on its response stream


@dataclass(frozen=True, slots=True)
class SessionlessState:
    calls: tuple[Call, ...] = ()

    def call(self, call_id: str | None) -> Call | None:
        return next((c for c in self.calls if c.id == call_id), None)

    def held_call(self, call_id: str | None) -> Call:
        """The request ``call_id``, which the caller knows the state holds (``KeyError`` otherwise)."""
        call = self.call(call_id)
        if call is None:
            raise KeyError(f"the state holds no request {call_id}")
        return call

    def next_call_id(self) -> str:
        return f"Q{len(self.calls) + 1}"

    def with_call(self, call: Call) -> "SessionlessState":
        kept = tuple(call if c.id == call.id else c for c in self.calls)
        return SessionlessState(kept if self.call(call.id) else self.calls + (call,))

    def open_calls(self) -> tuple[Call, ...]:
        return tuple(c for c in self.calls if c.status is CallStatus.OPEN)

    def retried(self, call_id: str) -> bool:
        return any(c.retries == call_id for c in self.calls)

    def retried_ids(self, call_id: str) -> tuple[str, ...]:
        """The ids ``call_id`` retries, nearest first (a retry may itself be retried)."""
        chain, call = [], self.call(call_id)
        while call is not None and call.retries is not None:
            chain.append(call.retries)
            call = self.call(call.retries)
        return tuple(chain)


INITIAL = SessionlessState()


# -- what the client sees ---------------------------------------------------------


class MessageKind(str, Enum):
    NOTIFICATION = "notification"  # progress or log about the request (F6)
    RESULT = "result"  # the final response
    INPUT_REQUIRED = "input-required"  # the final response, an InputRequiredResult (F20)
    REQUEST = "request"  # a server-to-client JSON-RPC request: never in this revision (F7)


FINAL = frozenset({MessageKind.RESULT, MessageKind.INPUT_REQUIRED})


@dataclass(frozen=True, slots=True)
class Message:
    """One JSON-RPC message: the stream that carried it (a request's id, or a server's
    key for a stream that is no request's) and the request id it is about."""

    stream: str
    about: str
    kind: MessageKind


@dataclass(frozen=True, slots=True)
class Observation:
    """What the client saw of one action.

    - ``status``: the HTTP status of a client request, ``None`` otherwise;
    - ``call``: the request whose response stream a POST opened;
    - ``session``: an ``Mcp-Session-Id`` on the response (never, F17);
    - ``messages``: what arrived in this step, in order;
    - ``closed``: response streams that ended in this step;
    - ``held_open``: the stream of this step's final response stayed open after it, until the
      client stopped waiting (F8); ``False`` when it ended or nobody can tell.
    """

    status: int | None = None
    call: str | None = None
    session: str | None = None
    messages: tuple[Message, ...] = ()
    closed: tuple[str, ...] = ()
    error: int | None = None
    held_open: bool = False


# -- actions ----------------------------------------------------------------------


class Fault(str, Enum):
    """What makes a POSTed request one the server cannot take as sent (§6.1, §6.2)."""

    VERSION_MISMATCH = "version-mismatch"  # MCP-Protocol-Version differs from params._meta's (F12)
    VERSION_UNSUPPORTED = "version-unsupported"  # a version the server does not implement (F13)
    METHOD_MISMATCH = "method-mismatch"  # the Mcp-Method header differs from the body's method (F16)
    METHOD_UNKNOWN = "method-unknown"  # a method the server does not implement (F14)


HEADER_MISMATCH_ERROR = -32020
"""The JSON-RPC error code of ``HeaderMismatch`` (F12, F16)."""

METHOD_NOT_FOUND_ERROR = -32601
"""JSON-RPC's "method not found", which F14 names for an unimplemented method."""

REFUSAL: dict[Fault, tuple[int, int | None]] = {
    Fault.VERSION_MISMATCH: (400, HEADER_MISMATCH_ERROR),
    Fault.VERSION_UNSUPPORTED: (400, None),  # F13 names UnsupportedProtocolVersionError, with no code
    Fault.METHOD_MISMATCH: (400, HEADER_MISMATCH_ERROR),
    Fault.METHOD_UNKNOWN: (404, METHOD_NOT_FOUND_ERROR),
}
"""The status and JSON-RPC error code each fault is refused with (``None``: any code)."""


@dataclass(frozen=True, slots=True)
class SendRequest:
    """Client POSTs request ``id``, with any legacy headers (ignored, F17)."""

    id: str
    session: str | None = None
    last_event_id: str | None = None
    kind: ClassVar[str] = "send_request"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class RetryWithInput:
    """Client retries ``call`` with ``inputResponses`` and ``requestState`` as request ``id`` (F20)."""

    call: str
    id: str
    kind: ClassVar[str] = "retry_with_input"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class SendInvalid:
    """Client POSTs request ``id`` with ``fault``: refused (``REFUSAL``), nothing opened (F12-F16)."""

    id: str
    fault: Fault
    kind: ClassVar[str] = "send_invalid"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class CloseStream:
    """Client closes the response stream of ``call``: it cancels the request (F11).
    A broken connection is the same to the server (F21)."""

    call: str
    kind: ClassVar[str] = "close_stream"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class SendNotification:
    """Client POSTs a notification (F4: 202, no body)."""

    session: str | None = None
    kind: ClassVar[str] = "send_notification"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class LegacyGet:
    """Client GETs the endpoint, as a session-era client resuming would (F17: 405)."""

    session: str | None = None
    last_event_id: str | None = None
    kind: ClassVar[str] = "legacy_get"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class LegacyDelete:
    """Client sends DELETE, as a session-era client ending its session would (F17: 405)."""

    session: str | None = None
    kind: ClassVar[str] = "legacy_delete"
    side: ClassVar[str] = "client"


@dataclass(frozen=True, slots=True)
class SendProgress:
    """Server sends a notification about ``call`` on its stream (F6)."""

    call: str
    kind: ClassVar[str] = "send_progress"
    side: ClassVar[str] = "server"


@dataclass(frozen=True, slots=True)
class RequireInput:
    """Server answers ``call`` with an InputRequiredResult and ends its stream (F20, F8)."""

    call: str
    kind: ClassVar[str] = "require_input"
    side: ClassVar[str] = "server"


@dataclass(frozen=True, slots=True)
class SendResult:
    """Server answers ``call`` with its result and ends its stream (F8)."""

    call: str
    kind: ClassVar[str] = "send_result"
    side: ClassVar[str] = "server"


SessionlessAction = Union[
    SendRequest, RetryWithInput, SendInvalid, CloseStream, SendNotification, LegacyGet, LegacyDelete,
    SendProgress, RequireInput, SendResult,
]

ACTION_TYPES: dict[str, type] = {
    cls.kind: cls
    for cls in (SendRequest, RetryWithInput, SendInvalid, CloseStream, SendNotification, LegacyGet, LegacyDelete,
                SendProgress, RequireInput, SendResult)
}

STATUS: dict[type, int] = {
    SendRequest: 200,
    RetryWithInput: 200,
    SendNotification: 202,
    LegacyGet: 405,
    LegacyDelete: 405,
}
"""The status of each client request (F4, F5, F17); other actions have none (``SendInvalid``:
its fault's, ``REFUSAL``)."""


def describe(action: SessionlessAction) -> str:
    """One line, e.g. ``send_request(id=Q1, session=-, last_event_id=-)``, ``send_invalid(id=Q2, fault=method-unknown)``."""
    args = ", ".join(f"{k}={'-' if v is None else getattr(v, 'value', v)}" for k, v in asdict(action).items())
    return f"{action.kind}({args})"


# -- the transition relation ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Transition:
    before: SessionlessState
    action: SessionlessAction
    observation: Observation
    after: SessionlessState


def enabled(state: SessionlessState, action: SessionlessAction) -> bool:
    """True when ``action`` can happen in ``state``.

    A new request, a refused one too, needs an id the client never used (F19, and F20's new
    id for a retry); a retry needs an InputRequiredResult not retried yet; closing a stream
    and every server action need the request open. Legacy requests are always
    enabled.
    """
    if isinstance(action, (SendRequest, RetryWithInput, SendInvalid)) and state.call(action.id) is not None:
        return False
    if isinstance(action, RetryWithInput):
        call = state.call(action.call)
        return call is not None and call.status is CallStatus.INPUT_REQUIRED and not state.retried(call.id)
    if isinstance(action, (CloseStream, SendProgress, RequireInput, SendResult)):
        call = state.call(action.call)
        return call is not None and call.status is CallStatus.OPEN
    return True


def step(state: SessionlessState, action: SessionlessAction) -> Transition:
    """The reference transition; ``ValueError`` when ``action`` is not ``enabled``."""
    if not enabled(state, action):
        raise ValueError(f"action {describe(action)} is not enabled in this state")
    observation, after = _HANDLERS[type(action)](state, action)
    return Transition(state, action, observation, after)


Handled = tuple[Observation, SessionlessState]
"""What a step's handler gives: what the client saw, and the state after."""


def _open(state: SessionlessState, action: SendRequest | RetryWithInput) -> Handled:
    retries = action.call if isinstance(action, RetryWithInput) else None
    return Observation(200, call=action.id), state.with_call(Call(action.id, retries))


def _close(state: SessionlessState, action: CloseStream) -> Handled:
    call = state.held_call(action.call)
    return Observation(closed=(call.id,)), state.with_call(replace(call, status=CallStatus.CANCELLED))


def _refuse(state: SessionlessState, action: SessionlessAction) -> Handled:
    return Observation(STATUS[type(action)]), state


def _refuse_invalid(state: SessionlessState, action: SendInvalid) -> Handled:
    status, error = REFUSAL[action.fault]
    return Observation(status, error=error), state


def _progress(state: SessionlessState, action: SendProgress) -> Handled:
    call = state.held_call(action.call)
    message = Message(call.id, call.id, MessageKind.NOTIFICATION)
    return Observation(messages=(message,)), state.with_call(replace(call, notified=call.notified + 1))


def _finish(kind: MessageKind, status: CallStatus) -> Callable[[SessionlessState, RequireInput | SendResult], Handled]:
    def handler(state: SessionlessState, action: RequireInput | SendResult) -> Handled:
        call = state.held_call(action.call)
        observation = Observation(messages=(Message(call.id, call.id, kind),), closed=(call.id,))
        return observation, state.with_call(replace(call, status=status))

    return handler


_HANDLERS: dict[type, Callable[..., Handled]] = {
    SendRequest: _open,
    RetryWithInput: _open,
    SendInvalid: _refuse_invalid,
    CloseStream: _close,
    SendNotification: _refuse,
    LegacyGet: _refuse,
    LegacyDelete: _refuse,
    SendProgress: _progress,
    RequireInput: _finish(MessageKind.INPUT_REQUIRED, CallStatus.INPUT_REQUIRED),
    SendResult: _finish(MessageKind.RESULT, CallStatus.COMPLETED),
}


# -- the actions worth trying, and the bounds of an exploration -------------------------------


@dataclass(frozen=True)
class SessionlessBounds:
    """At most ``calls`` requests and ``notifications`` per request; ``depth`` steps (None: no limit)."""

    calls: int
    notifications: int
    depth: int | None = None

    def within(self, state: SessionlessState) -> bool:
        return len(state.calls) <= self.calls and all(c.notified <= self.notifications for c in state.calls)


LEGACY_SESSIONS: tuple[str | None, ...] = (None, "S1", UNKNOWN_SESSION, MALFORMED_SESSION)
"""Session headers a 2026 client may carry: none, a stale session-era id, unknown, malformed."""

LEGACY_EVENTS: tuple[str | None, ...] = (None, "E1", UNKNOWN_EVENT, MALFORMED_EVENT)


def candidate_actions(state: SessionlessState) -> list[SessionlessAction]:
    """Every action worth trying in ``state``: new requests with every combination of
    legacy headers, retries, closes, the legacy methods, and each server action on
    each open request. An explorer keeps the ``enabled`` ones."""
    fresh = state.next_call_id()
    found: list[SessionlessAction] = [
        SendRequest(fresh, session, event) for session in LEGACY_SESSIONS for event in LEGACY_EVENTS
    ]
    found += [RetryWithInput(c.id, fresh) for c in state.calls]
    found += [SendInvalid(fresh, fault) for fault in Fault]
    found += [LegacyGet(session, event) for session in LEGACY_SESSIONS for event in LEGACY_EVENTS]
    found += [LegacyDelete(session) for session in LEGACY_SESSIONS] + [SendNotification()]
    for call in state.calls:
        found += [CloseStream(call.id), SendProgress(call.id), RequireInput(call.id), SendResult(call.id)]
    return found


# -- sanity checks of the machine itself (never a server's finding) ---------------------------


def sanity_check(state: SessionlessState) -> list[str]:
    """What must hold in every state the machine reaches: ids in sending order, each
    retry answering an InputRequiredResult once, never under that request's id."""
    problems = []
    for index, call in enumerate(state.calls, start=1):
        if call.id != f"Q{index}":
            problems.append(f"request {call.id} is number {index} the client sent")
        origin = state.call(call.retries) if call.retries else None
        if call.retries is not None and (origin is None or origin.status is not CallStatus.INPUT_REQUIRED):
            problems.append(f"request {call.id} retries {call.retries}, which asked for no input")
        if call.id in state.retried_ids(call.id):
            problems.append(f"request {call.id} retries itself")
    retried = [c.retries for c in state.calls if c.retries]
    problems += [f"request {r} was retried {retried.count(r)} times" for r in sorted(set(retried)) if retried.count(r) > 1]
    return problems
