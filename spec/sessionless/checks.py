"""Checks of what a server sends in the 2026-07-28 revision (rules file §F).

Each check reads the machine's state *before* the step, the action and what the
server was observed to send (``machine.Observation``), never the machine's
state after it, so each can fail for a server. A finding is filed under the
catalog rule whose statement it breaks:

- ``sessionless-no-server-requests`` (F7): no request of the server's own on any stream;
- ``sessionless-close-cancels`` (F11): nothing more about a request whose stream the client closed;
- ``sessionless-input-required-retry`` (F20): a retry is answered under its own id, never
  under the id of the request it retries;
- ``sessionless-request-scope`` (F6): a message travels on the response stream of the
  request it is about, while that stream is open; a second final response, or a stream
  held open after the final one, is its case ``after-final`` (F8: the final response should
  end the stream);
- ``sessionless-get-405`` (F17): GET and DELETE get 405 and nothing else;
- ``sessionless-ignores-headers`` (F10, F17): no session id minted or echoed, and a POST
  carrying legacy headers is answered as one without them;
- ``sessionless-request-validated`` (F12-F14, F16): a request the server cannot take as
  sent gets its fault's status and JSON-RPC error code (``machine.REFUSAL``).

``check_step`` runs them all, and files any other difference from the machine's
own observation under ``agreement``: a note, never a verdict.
"""

from __future__ import annotations

from typing import Callable

from ..catalog import AFTER_FINAL, AGREEMENT
from ..invariants import Finding
from .machine import (
    FINAL,
    STATUS,
    CallStatus,
    CloseStream,
    LegacyDelete,
    LegacyGet,
    Message,
    MessageKind,
    Observation,
    REFUSAL,
    RequireInput,
    RetryWithInput,
    SendInvalid,
    SendNotification,
    SendRequest,
    SendResult,
    SessionlessAction,
    SessionlessState,
)

NO_SERVER_REQUESTS = "sessionless-no-server-requests"
CLOSE_CANCELS = "sessionless-close-cancels"
RETRY_NEW_ID = "sessionless-input-required-retry"
REQUEST_SCOPE = "sessionless-request-scope"
GET_405 = "sessionless-get-405"
IGNORES_HEADERS = "sessionless-ignores-headers"
REQUEST_VALIDATED = "sessionless-request-validated"
NOTIFICATION_202 = "sessionless-notification-202"

Check = Callable[[SessionlessState, SessionlessAction, Observation], list[str]]


def no_server_requests(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[str]:
    return [
        f"the server sent a request of its own ({m.about}) on stream {m.stream}: input requests travel "
        "inside an InputRequiredResult"
        for m in observed.messages if m.kind is MessageKind.REQUEST
    ]


def close_cancels(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[str]:
    cancelled = _cancelled(before, action)
    return [
        f"sent a {m.kind.value} about {m.about} on stream {m.stream} after the client closed the stream of "
        f"{m.about}, which cancelled it"
        for m in observed.messages if m.about in cancelled and m.kind is not MessageKind.REQUEST
    ]


def retry_answered_under_its_id(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[str]:
    return [
        f"answered retry {m.stream} under the id of {m.about}, the request it retries: a retry is a new request"
        for m in observed.messages if _judged_here(m, before, action) and m.about in _retried_by(before, action, m.stream)
    ]


def request_scope(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[str]:
    """Each message on the response stream of the request it is about (F6)."""
    homes = _homes(before, action, observed)
    problems = []
    for m in _scoped(before, action, observed):
        if m.stream not in homes:
            problems.append(f"a {m.kind.value} about {m.about} came on stream {m.stream}, which this step does not answer")
        elif m.about != m.stream:
            problems.append(f"the response stream of {m.stream} carried a {m.kind.value} about {m.about}")
    return problems


def one_final_response(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[str]:
    """The final response ends its stream (F8, SHOULD): nothing final comes after it."""
    homes = _homes(before, action, observed)
    problems = []
    finals: set[str] = set()
    for m in _scoped(before, action, observed):
        if m.stream in homes and m.about == m.stream and m.kind in FINAL:
            if m.stream in finals:
                problems.append(f"the response stream of {m.stream} carried a second final response")
            finals.add(m.stream)
    return problems


def final_ends_stream(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[str]:
    """The final response ends its stream (F8, SHOULD): a stream the server held open after it
    (``Observation.held_open``) breaks it."""
    if not isinstance(action, (SendResult, RequireInput)) or not observed.held_open:
        return []
    return [f"the response stream of {action.call} stayed open after its final response"]


def _scoped(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[Message]:
    """The messages the scope checks judge: not a server request, not about a cancelled
    request, not a retry's answer under an id it retries (each has a rule of its own)."""
    return [m for m in observed.messages
            if _judged_here(m, before, action) and m.about not in _retried_by(before, action, m.stream)]


def get_405(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[str]:
    if not isinstance(action, (LegacyGet, LegacyDelete)):
        return []
    method = "GET" if isinstance(action, LegacyGet) else "DELETE"
    problems = [] if observed.status == 405 else [f"{method} was answered {observed.status}, not 405"]
    if observed.messages:
        problems.append(f"{method} delivered {len(observed.messages)} message(s)")
    return problems


def ignores_headers(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[str]:
    problems = []
    if observed.session is not None:
        problems.append(f"the response carried Mcp-Session-Id {observed.session}")
    if isinstance(action, SendRequest) and (action.session or action.last_event_id):
        if observed.status != STATUS[SendRequest]:
            problems.append(f"a POST carrying legacy headers was answered {observed.status}, not as one without them")
        others = [m for m in observed.messages if m.about != action.id]
        if others:
            problems.append(f"a POST carrying legacy headers got {len(others)} message(s) of other requests")
    return problems


def refuses_invalid(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[str]:
    """A request the server cannot take as sent gets its fault's status and error (F12-F14, F16);
    anything it delivers is ``request_scope``'s (no stream of it is open)."""
    if not isinstance(action, SendInvalid):
        return []
    status, error = REFUSAL[action.fault]
    sent = f"a request with a {action.fault.value}"
    if observed.status != status:
        return [f"{sent} was answered {observed.status}, not {status}"]
    if error is not None and observed.error != error:
        shown = "no JSON-RPC error" if observed.error is None else f"JSON-RPC error {observed.error}"
        return [f"{sent} was refused {status} with {shown}, not {error}"]
    return []


def notification_202(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[str]:
    """A POSTed notification gets 202 when accepted, an error status (4xx, 5xx) when not (F4)."""
    if not isinstance(action, SendNotification) or observed.status == STATUS[SendNotification]:
        return []
    if observed.status is not None and observed.status >= 400:
        return []
    return [f"a notification was answered {observed.status}: accepted, it gets 202 with no body; refused, an error "
            "status"]


def status(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[str]:
    """A POST's status (``agreement`` when no rule above names it)."""
    expected = STATUS.get(type(action))
    if expected is None or observed.status == expected or isinstance(action, (LegacyGet, LegacyDelete, SendNotification)):
        return []
    if isinstance(action, SendRequest) and (action.session or action.last_event_id):
        return []  # judged by ignores_headers
    return [f"{action.kind} was answered {observed.status}, expected {expected}"]


SERVER_CHECKS: tuple[tuple[str, Check], ...] = (
    (NO_SERVER_REQUESTS, no_server_requests),
    (CLOSE_CANCELS, close_cancels),
    (RETRY_NEW_ID, retry_answered_under_its_id),
    (REQUEST_SCOPE, request_scope),
    (REQUEST_SCOPE, one_final_response),
    (REQUEST_SCOPE, final_ends_stream),
    (GET_405, get_405),
    (IGNORES_HEADERS, ignores_headers),
    (REQUEST_VALIDATED, refuses_invalid),
    (NOTIFICATION_202, notification_202),
    (AGREEMENT, status),
)
"""Every check of what a server sent, in the order its findings are reported."""


CASES: dict[Check, str] = {one_final_response: AFTER_FINAL, final_ends_stream: AFTER_FINAL}
"""The case of its rule each check's findings are (the catalog levels a second final response
apart: F8 is a SHOULD)."""


def check_observation(before: SessionlessState, action: SessionlessAction, observed: Observation) -> list[Finding]:
    """Every finding on what a server sent for ``action`` in ``before``."""
    return [Finding(rule, message, CASES.get(check)) for rule, check in SERVER_CHECKS
            for message in check(before, action, observed)]


def check_step(before: SessionlessState, action: SessionlessAction, observed: Observation,
               expected: Observation | None = None) -> list[Finding]:
    """``check_observation``, then (when no rule explains the step) any difference from
    the machine's ``expected`` observation, filed under ``agreement``."""
    findings = check_observation(before, action, observed)
    if not findings and expected is not None and observed != expected:
        findings.append(Finding(AGREEMENT, f"observed {observed}, the 2026-07-28 machine expects {expected}"))
    return findings


# -- helpers ------------------------------------------------------------------------------


def _cancelled(before: SessionlessState, action: SessionlessAction) -> set[str]:
    cancelled = {c.id for c in before.calls if c.status is CallStatus.CANCELLED}
    return cancelled | ({action.call} if isinstance(action, CloseStream) else set())


def _judged_here(message: Message, before: SessionlessState, action: SessionlessAction) -> bool:
    """Not a server request nor about a cancelled request: those have rules of their own."""
    return message.kind is not MessageKind.REQUEST and message.about not in _cancelled(before, action)


def _retried_by(before: SessionlessState, action: SessionlessAction, stream: str) -> tuple[str, ...]:
    """The ids the request answered on ``stream`` retries."""
    if isinstance(action, RetryWithInput) and stream == action.id:
        return (action.call,) + before.retried_ids(action.call)
    return before.retried_ids(stream)


def _homes(before: SessionlessState, action: SessionlessAction, observed: Observation) -> set[str]:
    """The response streams this step may send on: the stream a request opened, or
    the open request a server action is about."""
    if isinstance(action, (SendRequest, RetryWithInput)):
        return {action.id}
    call = before.call(getattr(action, "call", None))
    if action.side == "server" and call is not None and call.status is CallStatus.OPEN:
        return {call.id}
    return set()
