"""Trace validation in the 2026-07-28 revision: exchanges judged by its own state machine.

The same walk as ``validate`` over the records' moments, onto the actions of
``spec.sessionless.machine`` and judged by ``spec.sessionless.checks`` (rules file §F):

- a POSTed JSON-RPC request -> ``SendRequest`` (its id is the client's, named
  ``Q1, Q2 ...`` in sending order), or ``RetryWithInput`` when its params carry
  ``inputResponses`` and a request was answered with an InputRequiredResult (F20),
  or ``SendInvalid`` when the server cannot take it as sent (``fault_of``: a version
  header that differs from ``_meta`` or that no revision has, an ``Mcp-Method`` that
  differs from the body, the method ``UNIMPLEMENTED_METHOD``);
  a POSTed notification -> ``SendNotification``; GET -> ``LegacyGet``; DELETE ->
  ``LegacyDelete``; a POSTed response is no action (this revision has no server
  requests to answer, F7);
- each message on a request's response stream (SSE events, or a JSON body): a
  notification -> ``SendProgress``, a server request -> the same step carrying a
  ``request`` message (F7 forbids it), the final response -> ``SendResult`` or
  ``RequireInput``; what a message is *about* is the request its progress token (the one
  a request asked under in ``params._meta``) or response id names, else the request of the
  stream that carried it: a ``subscriptions/listen`` stream (F22) carries its change
  notifications, never another request's progress;
- the client leaving a response stream before its final response -> ``CloseStream``
  (F11, F21).

A step the machine does not allow from the state the log implies is left open with
its reason. ``validate_sessionless(records) -> Validation``; no I/O.
"""

from __future__ import annotations

from typing import Any

from mcp_resume.spec.sessionless import machine as s
from mcp_resume.spec.profiles import PROFILE_OF_REVISION, Profile
from mcp_resume.spec.sessionless.checks import (
    CLOSE_CANCELS, GET_405, IGNORES_HEADERS, NO_SERVER_REQUESTS, NOTIFICATION_202, REQUEST_SCOPE, REQUEST_VALIDATED,
    RETRY_NEW_ID, check_step,
)
from mcp_resume.spec.catalog import AGREEMENT

from mcp_resume.model.harness.checker import StepReport
from mcp_resume.model.http.client import META_VERSION_KEY
from mcp_resume.model.http.evidence import End, SseEvent, error_code
from mcp_resume.model.traffic.records import Record
from mcp_resume.model.traffic.trace_validation import Placed, Validation, moments_in_order, notes_of, results_of

REVISION = s.REVISION

UNIMPLEMENTED_METHOD = "mcp-resume/unimplemented"
"""A method no server implements (in mcp-resume's own namespace): what verify sends for F14."""


class _Timeline:
    def __init__(self) -> None:
        self.state = s.SessionlessState()
        self.steps: list[Placed] = []
        self.open: list[str] = []
        self.calls: dict[str, str] = {}  # the client's JSON-RPC id (as text) -> the machine's Q<n>
        self.tokens: dict[str, str] = {}  # a progressToken a request asked under (as text) -> its Q<n>
        self.stream_of: dict[int, str] = {}  # record number -> Q<n> of its open response stream

    def place(self, action, observed: s.Observation, record: Record) -> bool:
        if not s.enabled(self.state, action):
            self.open.append(f"exchange {record.number}: {s.describe(action)} does not follow from what the log "
                             "shows (something happened unseen): not judged")
            return False
        spec = s.step(self.state, action)
        findings = check_step(self.state, action, observed, spec.observation)
        judged = _judged(self.state, action, observed) | {f.rule for f in findings if f.rule != AGREEMENT}
        report = StepReport(len(self.steps) + 1, action, spec.observation, observed, tuple(findings), (),
                            judged=frozenset(judged))
        self.steps.append(Placed(action, (record.number,), report))
        self.state = spec.after if observed.status in (None, s.STATUS.get(type(action))) else self.state
        return True

    # -- requests ------------------------------------------------------------------

    def start(self, record: Record) -> None:
        x = record.exchange
        if x.status is None:
            self.open.append(f"exchange {record.number}: no answer from the server ({x.error or 'none recorded'}): not judged")
            return
        session = x.request_headers.get("mcp-session-id")
        cursor = x.request_headers.get("last-event-id")
        minted = x.response_headers.get("mcp-session-id")
        body = x.request_body
        if x.method == "GET":
            self.place(s.LegacyGet(session, cursor), s.Observation(x.status, session=minted), record)
        elif x.method == "DELETE":
            self.place(s.LegacyDelete(session), s.Observation(x.status, session=minted), record)
        elif isinstance(body, dict) and "method" in body and "id" in body:
            self._request(record, body, session, cursor, minted)
        elif isinstance(body, dict) and "method" in body:
            self.place(s.SendNotification(session), s.Observation(x.status, session=minted), record)

    def _request(self, record: Record, body: dict, session, cursor, minted) -> None:
        x = record.exchange
        fault = fault_of(x.request_headers, body)
        if fault is not None:
            refused = s.Observation(x.status, session=minted, error=error_code(x.body))
            self.place(s.SendInvalid(self.state.next_call_id(), fault), refused, record)
            return
        call = self.calls[str(body["id"])] = self.state.next_call_id()
        token = _progress_token_of(body)
        if token is not None:
            self.tokens[str(token)] = call
        retried = _retried(self.state) if "inputResponses" in (body.get("params") or {}) else None
        action = s.RetryWithInput(retried, call) if retried else s.SendRequest(call, session, cursor)
        observed = s.Observation(x.status, call=call if x.status == 200 else None, session=minted)
        if not self.place(action, observed, record) or x.status != 200:
            return
        self.stream_of[record.number] = call
        if x.content_type != "text/event-stream" and isinstance(x.body, dict):
            self._message(record, x.body)

    # -- messages and ends -----------------------------------------------------------

    def event(self, record: Record, index: int) -> None:
        event: SseEvent = record.exchange.events[index]
        if record.number in self.stream_of and isinstance(event.message, dict):
            self._message(record, event.message)

    def _message(self, record: Record, message: dict[str, Any]) -> None:
        call = self.stream_of[record.number]
        kind, about = self._kind(message, call)
        final = kind in s.FINAL
        held = final and _held_open(record)
        observed = s.Observation(messages=(s.Message(call, about, kind),), closed=(call,) if final else (),
                                 held_open=held)
        if kind is s.MessageKind.RESULT:
            action = s.SendResult(call)
        elif kind is s.MessageKind.INPUT_REQUIRED:
            action = s.RequireInput(call)
        else:
            action = s.SendProgress(call)
        self.place(action, observed, record)
        if final:
            self.stream_of.pop(record.number, None)

    def _kind(self, message: dict[str, Any], call: str) -> tuple[s.MessageKind, str]:
        if "method" in message and "id" in message:
            return s.MessageKind.REQUEST, call
        if "method" in message:
            params = message.get("params") if isinstance(message.get("params"), dict) else {}
            token = str(params.get("progressToken", ""))
            named = (self.tokens.get(token) or self.calls.get(token.removesuffix("-progress"))) if token else None
            return s.MessageKind.NOTIFICATION, named or call
        about = self.calls.get(str(message.get("id")), call)
        result = message.get("result")
        required = isinstance(result, dict) and ("inputRequests" in result or result.get("resultType") == "input_required")
        return (s.MessageKind.INPUT_REQUIRED if required else s.MessageKind.RESULT), about

    def end(self, record: Record) -> None:
        call = self.stream_of.pop(record.number, None)
        if call is None or record.exchange.end in (End.CLOSED, None):
            return  # the server ended it, or the log does not say who did
        self.place(s.CloseStream(call), s.Observation(closed=(call,)), record)


def _held_open(record: Record) -> bool:
    """The server held the response stream open after its final response: the client read on
    past it and stopped waiting (its idle or exchange bound ran out) before the stream ended.
    A stream that ended, one the client left at its final response, and a log that does not
    say how it ended (HAR) are not (F8)."""
    x = record.exchange
    return x.content_type == "text/event-stream" and x.end in (End.IDLE, End.DEADLINE)


def fault_of(headers: dict[str, str], body: dict) -> s.Fault | None:
    """What makes the POSTed request ``body`` with ``headers`` (lower-case names) one a server
    cannot take as sent, or ``None``: an ``MCP-Protocol-Version`` that differs from the body's
    ``_meta`` (F12) or that no MCP revision has (F13), an ``Mcp-Method`` that differs from the
    body's method (F16), the method ``UNIMPLEMENTED_METHOD`` (F14)."""
    version = headers.get("mcp-protocol-version")
    meta = _meta_version(body)
    if version is not None and meta is not None and version != meta:
        return s.Fault.VERSION_MISMATCH
    if version is not None and version not in PROFILE_OF_REVISION:
        return s.Fault.VERSION_UNSUPPORTED
    named = headers.get("mcp-method")
    if named is not None and named != body.get("method"):
        return s.Fault.METHOD_MISMATCH
    return s.Fault.METHOD_UNKNOWN if body.get("method") == UNIMPLEMENTED_METHOD else None


def _progress_token_of(body: dict) -> Any:
    """The ``progressToken`` a request asked progress under (``params._meta``), else ``None``."""
    params = body.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get("progressToken") if isinstance(meta, dict) else None


def _meta_version(body) -> str | None:
    params = body.get("params") if isinstance(body, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(META_VERSION_KEY) if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


def _retried(state: s.SessionlessState) -> str | None:
    """The request answered with an InputRequiredResult most lately and not retried yet."""
    waiting = [c.id for c in state.calls if c.status is s.CallStatus.INPUT_REQUIRED and not state.retried(c.id)]
    return waiting[-1] if waiting else None


def _judged(before: s.SessionlessState, action, observed: s.Observation) -> set[str]:
    """The 2026-07-28 rules whose check could have failed on this step."""
    judged = set()
    if action.side == "client":
        judged.add(IGNORES_HEADERS)
    if isinstance(action, s.SendInvalid):
        judged.add(REQUEST_VALIDATED)
    if isinstance(action, s.SendNotification):
        judged.add(NOTIFICATION_202)
    if isinstance(action, (s.LegacyGet, s.LegacyDelete)):
        judged.add(GET_405)
    if observed.messages:
        judged |= {NO_SERVER_REQUESTS, REQUEST_SCOPE}
        if any(c.status is s.CallStatus.CANCELLED for c in before.calls):
            judged.add(CLOSE_CANCELS)
        if any(before.call(m.stream) and before.call(m.stream).retries for m in observed.messages):
            judged.add(RETRY_NEW_ID)
    return judged


def is_sessionless(record: Record) -> bool:
    """An exchange in the request shape of 2026-07-28: its ``MCP-Protocol-Version`` header, or
    the version in its body's ``params._meta`` (F12), names that revision, or it carries an
    ``Mcp-Method`` header, which no earlier revision has (F16)."""
    x = record.exchange
    if x.request_headers.get("mcp-protocol-version") == REVISION or "mcp-method" in x.request_headers:
        return True
    params = x.request_body.get("params") if isinstance(x.request_body, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and REVISION in {str(v) for v in meta.values()}


def validate_sessionless(records: list[Record]) -> Validation:
    """Judge ``records`` (in any order) against the 2026-07-28 machine; see the module docstring."""
    timeline = _Timeline()
    for _, _, kind, record, index in moments_in_order(records):
        if kind == "start":
            timeline.start(record)
        elif kind == "event":
            timeline.event(record, index)
        elif kind == "end":
            timeline.end(record)  # this revision has no session to expire, nor promises to keep
    profile = Profile.MCP_2026_07_28
    return Validation(profile, results_of(timeline.steps, timeline.open, profile), timeline.steps, timeline.open,
                      [], notes_of(timeline.steps))
