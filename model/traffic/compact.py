"""Compact records: each exchange reduced, as it is read, to what the judge reads of it.

A long recording (``mcp-resume proxy --record`` over hours: hundreds of megabytes of
2 KB log notifications) is judged in memory bounded by its number of exchanges and
events, not by its bytes. The judge (``model.traffic.trace_validation``, ``.sessionless``,
``.judge``) reads of a JSON-RPC message only its kind, its ``id``, its ``method``,
the ids it names (``params.requestId`` of a cancellation, ``params.progressToken``),
whether it is sent for a task (``params._meta``'s related-task key, MCP D47),
the revision it shows (``params._meta``, ``result.protocolVersion``), whether it
asks for or carries input (``result.inputRequests`` / ``resultType``,
``params.inputResponses``) and an error's ``code``; never its text (a message is known by
where it was sent, docs/design.md §2). ``skeleton`` keeps exactly that; an event's
``data`` is ``MESSAGE_DATA`` when it carries a message, else cut to ``EXCERPT_CHARS``
characters of evidence (an empty one, a priming event, MCP D8, stays empty).

``compact_record(record) -> Record`` (the same exchange, compacted in place);
the judge gives every verdict a whole record gives. No I/O.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mcp_resume.model.http.evidence import SseEvent

EXCERPT_CHARS = 80
"""Characters kept of an event's data, and of a body that is not JSON: the evidence excerpt."""

MESSAGE_DATA = "{…}"
"""The data kept of an event that carries a JSON-RPC message (its skeleton and digest stand for it):
not empty, as only a priming event's is (MCP D8)."""

SCALAR_CHARS = 256
"""Longest text kept as a value of ``params._meta`` (a revision, a token); longer ones name nothing the judge reads."""

SHARED_CHARS = 64
"""Texts up to this long (a method, ``2.0``, ``message``) are kept as one copy that every event shares."""

PRESENT = None
"""The value kept for a field the judge only tests for presence (``inputRequests``, ``inputResponses``)."""

_PARAMS = ("requestId", "progressToken", "progress")  # kept whole: ids the judge compares
RELATED_TASK = "io.modelcontextprotocol/related-task"
"""The ``params._meta`` key of a message sent for a task (MCP 2025-11-25 tasks, D47), kept for its presence."""
_RESULT = ("protocolVersion", "resultType")


def skeleton(message: Any) -> Any:
    """A JSON-RPC body reduced to what the judge reads (see the module docstring): an object
    keeps ``jsonrpc``, ``id``, ``method`` and the named fields of ``params``, ``result`` and
    ``error``; a list, the skeletons of its items; text, its first ``EXCERPT_CHARS`` characters;
    a number, ``true``/``false`` or ``null`` as it is. ``params`` of which nothing is kept is
    left out (the judge reads a missing ``params`` and an empty one alike)."""
    if isinstance(message, str):
        return message[:EXCERPT_CHARS]
    if isinstance(message, list):
        return [skeleton(item) for item in message]
    if not isinstance(message, dict):
        return message
    kept = {k: _shared(message[k]) for k in ("jsonrpc", "id", "method") if k in message}
    params = _params(message["params"]) if "params" in message else {}
    if params != {}:
        kept["params"] = params
    if "result" in message:
        kept["result"] = _result(message["result"])
    if "error" in message:
        kept["error"] = _error(message["error"])
    return kept


class Skeletons:
    """One copy of each skeleton many events share (every ``notifications/message`` of a log has
    the same one), up to ``SHARED_SKELETONS`` of them: the judge only reads skeletons."""

    def __init__(self) -> None:
        self.copies: dict[str, Any] = {}

    def __call__(self, message: Any) -> Any:
        kept = skeleton(message)
        if not isinstance(kept, dict):
            return kept
        text = json.dumps(kept, sort_keys=True)
        if len(self.copies) < SHARED_SKELETONS:
            return self.copies.setdefault(text, kept)
        return self.copies.get(text, kept)


SHARED_SKELETONS = 10_000
"""Skeletons kept as one shared copy by a ``Skeletons``; beyond, each event keeps its own."""


def compact_event(event: SseEvent, skeletons=skeleton) -> SseEvent:
    """``event`` with its message as a skeleton (made by ``skeletons``: ``skeleton``, or a
    ``Skeletons`` that shares equal ones), its data ``MESSAGE_DATA``; an event whose data
    is no JSON object keeps ``EXCERPT_CHARS`` of it."""
    kind = _shared(event.event)
    if event.message is None:
        return SseEvent(event.id, kind, event.data[:EXCERPT_CHARS], event.retry)
    return SseEvent(event.id, kind, MESSAGE_DATA, event.retry, skeletons(event.message))


def compact_record(record, skeletons=skeleton):
    """``record`` (a ``records.Record``) with its bodies and events compacted (``compact_event``);
    returns it. Its skeletons are values to read, never to change (``Skeletons`` shares them)."""
    x = record.exchange
    x.request_body = skeleton(x.request_body)
    x.body = skeleton(x.body)
    x.events = [compact_event(e, skeletons) for e in x.events]
    return record


def _params(params: Any) -> Any:
    if not isinstance(params, dict):
        return skeleton(params) if isinstance(params, list) else params
    kept = {k: params[k] for k in _PARAMS if k in params}
    if "inputResponses" in params:
        kept["inputResponses"] = PRESENT
    meta = params.get("_meta")
    if isinstance(meta, dict):
        kept["_meta"] = {k: v if _scalar(v) else PRESENT for k, v in meta.items() if _scalar(v) or k == RELATED_TASK}
    elif "_meta" in params:
        kept["_meta"] = None
    return kept


def _result(result: Any) -> Any:
    if not isinstance(result, dict):
        return None if isinstance(result, (list, str)) else result
    kept = {k: result[k] for k in _RESULT if k in result}
    if "inputRequests" in result:
        kept["inputRequests"] = PRESENT
    return kept


def _error(error: Any) -> Any:
    if isinstance(error, str):
        return error[:EXCERPT_CHARS]
    if not isinstance(error, dict):
        return error if _scalar(error) else None
    kept = {"code": error["code"]} if "code" in error else {}
    if isinstance(error.get("message"), str):
        kept["message"] = error["message"][:EXCERPT_CHARS]
    return kept


def _shared(value: Any) -> Any:
    """A short text as the one copy every event shares (``SHARED_CHARS``)."""
    return sys.intern(value) if isinstance(value, str) and len(value) <= SHARED_CHARS else value


def _scalar(value: Any) -> bool:
    """A value kept as it is: a number, a boolean, ``null`` or a text of at most ``SCALAR_CHARS``."""
    return value is None or isinstance(value, (int, float, bool)) or isinstance(value, str) and len(value) <= SCALAR_CHARS
