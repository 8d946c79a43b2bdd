"""An in-process server of the 2026-07-28 revision, and the ways real ports get it wrong.

``SessionlessServer`` is a second, imperative statement of ``spec/sessionless/machine.py``:
a table of requests keyed by their JSON-RPC id (the client's), each with an open
flag and the id it retries. Each faulty server below is it with one method
changed, the way a server ported from the session era breaks a rule of §F.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_resume.spec.sessionless import machine as s
from mcp_resume.spec.sessionless.machine import Message, MessageKind, Observation


@dataclass
class RequestRecord:
    id: str
    retries: str | None = None
    open: bool = True


class SessionlessServer:
    """Applies ``spec.sessionless.machine`` actions; ``apply`` returns the observation."""

    name = "sessionless"

    def __init__(self) -> None:
        self.requests: dict[str, RequestRecord] = {}

    def apply(self, action: s.SessionlessAction) -> Observation:
        return getattr(self, "on_" + action.kind)(action)

    def close(self) -> None:
        pass

    # -- client requests ------------------------------------------------------------

    def on_send_request(self, action: s.SendRequest) -> Observation:
        self.requests[action.id] = RequestRecord(action.id)
        return Observation(200, call=action.id)

    def on_retry_with_input(self, action: s.RetryWithInput) -> Observation:
        self.requests[action.id] = RequestRecord(action.id, retries=action.call)
        return Observation(200, call=action.id)

    def on_send_invalid(self, action: s.SendInvalid) -> Observation:
        status, error = s.REFUSAL[action.fault]
        return Observation(status, error=error)

    def on_close_stream(self, action: s.CloseStream) -> Observation:
        self.requests[action.call].open = False
        return Observation(closed=(action.call,))

    def on_send_notification(self, action: s.SendNotification) -> Observation:
        return Observation(202)

    def on_legacy_get(self, action: s.LegacyGet) -> Observation:
        return Observation(405)

    def on_legacy_delete(self, action: s.LegacyDelete) -> Observation:
        return Observation(405)

    # -- server actions -----------------------------------------------------------------

    def on_send_progress(self, action: s.SendProgress) -> Observation:
        record = self.requests[action.call]
        return Observation(messages=(Message(self.stream_for(record), record.id, MessageKind.NOTIFICATION),))

    def on_require_input(self, action: s.RequireInput) -> Observation:
        return self.finish(self.requests[action.call], MessageKind.INPUT_REQUIRED)

    def on_send_result(self, action: s.SendResult) -> Observation:
        return self.finish(self.requests[action.call], MessageKind.RESULT)

    # -- the parts the faulty servers change ----------------------------------------------

    def stream_for(self, record: RequestRecord) -> str:
        """The response stream a message about ``record`` goes on: its own (F6)."""
        return record.id

    def answer_id(self, record: RequestRecord) -> str:
        """The JSON-RPC id a final response carries: the request's own, a retry's too (F20)."""
        return record.id

    def finish(self, record: RequestRecord, kind: MessageKind) -> Observation:
        record.open = False
        message = Message(record.id, self.answer_id(record), kind)
        return Observation(messages=(message,), closed=(record.id,))


class ServerRequestsOnStream(SessionlessServer):
    """Asks for input the session-era way: an ``elicitation/create`` request on the
    response stream, which stays open for the answer (breaks F7)."""

    name = "sessionless-server-requests"

    def on_require_input(self, action: s.RequireInput) -> Observation:
        return Observation(messages=(Message(action.call, f"elicit-{action.call}", MessageKind.REQUEST),))


class DisconnectIsNotCancel(SessionlessServer):
    """Keeps working when a client closes a response stream, as 2025 servers must
    (B12/D15), and hands the finished result to the next stream that opens (breaks F11)."""

    name = "sessionless-disconnect-is-not-cancel"

    def __init__(self) -> None:
        super().__init__()
        self.orphans: list[str] = []

    def on_close_stream(self, action: s.CloseStream) -> Observation:
        self.orphans.append(action.call)
        return super().on_close_stream(action)

    def on_send_request(self, action: s.SendRequest) -> Observation:
        opened = super().on_send_request(action)
        late = tuple(Message(action.id, orphan, MessageKind.RESULT) for orphan in self.orphans)
        self.orphans = []
        return Observation(opened.status, call=opened.call, messages=late)


class RetryUnderOriginalId(SessionlessServer):
    """Keys its work by ``requestState``, which names the first request, and answers a
    retry under that request's id (breaks F20)."""

    name = "sessionless-retry-under-original-id"

    def answer_id(self, record: RequestRecord) -> str:
        while record.retries is not None:
            record = self.requests[record.retries]
        return record.id


class OneProgressStream(SessionlessServer):
    """Sends every progress notification on the latest stream still open, as if it
    were the session's one GET stream (breaks F6)."""

    name = "sessionless-one-progress-stream"

    def stream_for(self, record: RequestRecord) -> str:
        return [r.id for r in self.requests.values() if r.open][-1]


class MintsSessionIds(SessionlessServer):
    """Still answers every POST with an ``Mcp-Session-Id`` (breaks F17's SHOULD)."""

    name = "sessionless-mints-session-ids"

    def on_send_request(self, action: s.SendRequest) -> Observation:
        opened = super().on_send_request(action)
        return Observation(opened.status, call=opened.call, session="sess-legacy")


class TakesAnyRequest(SessionlessServer):
    """Serves a request whatever its headers and method say, as a session-era server that reads
    the body alone would: 200 and a stream (breaks F12-F14, F16)."""

    name = "sessionless-takes-any-request"

    def on_send_invalid(self, action: s.SendInvalid) -> Observation:
        return Observation(200, call=action.id)


class ServesGet(SessionlessServer):
    """Answers GET with an empty 200 SSE stream (breaks F17's SHOULD: 405)."""

    name = "sessionless-serves-get"

    def on_legacy_get(self, action: s.LegacyGet) -> Observation:
        return Observation(200)


FAULTY: dict[str, type[SessionlessServer]] = {
    "sessionless-no-server-requests": ServerRequestsOnStream,
    "sessionless-close-cancels": DisconnectIsNotCancel,
    "sessionless-input-required-retry": RetryUnderOriginalId,
    "sessionless-request-scope": OneProgressStream,
    "sessionless-ignores-headers": MintsSessionIds,
    "sessionless-get-405": ServesGet,
    "sessionless-request-validated": TakesAnyRequest,
}
"""Each faulty server, by the rule it breaks."""
