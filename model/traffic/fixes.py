"""The fix of every rule, in the server author's terms, and the concrete remedy per known SDK.

``FIXES`` maps each catalog rule id (``spec/catalog.py``) to one or two sentences saying what a
server must do differently when the rule gets FAIL or WARN: what to change in the server, not
where the rule comes from (its page, docs/rules/<id>.md, says that). ``REMEDIES`` holds, for the
SDKs and frameworks ``verify`` knows (its embedded targets: ``python-sdk``, ``typescript-sdk``,
``fastmcp-python``, ``fastmcp-typescript``, ``tmcp``, ``mcp-lite``), the concrete remedy where one
is known. ``identify(server_info)`` names the SDK from the ``serverInfo`` of ``initialize``;
``fix_for(rule, sdk)`` is the ``Fix`` a report prints beside a FAIL or WARN.

Data only: nothing here does I/O. Every MCP rule id cited is one of ``spec/sources.py``
(docs/sources.md), so reports and pages can link it to its gist.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

FIXES: dict[str, str] = {
    "replay-suffix": (
        "On a GET with Last-Event-ID, send exactly the events of that event id's own stream stored after it, "
        "in the order they were first sent, each once, and nothing at or before it (MCP D30); event ids must "
        "order events even when two are stored in the same millisecond."),
    "no-cross-session": (
        "Your EventStore must tie each event id to the session (and stream) that created it, and refuse or "
        "ignore a Last-Event-ID of another session: never replay another session's or another stream's "
        "events (MCP B26, D30)."),
    "no-replay-on-session-resume": (
        "A GET with Mcp-Session-Id and no Last-Event-ID opens a new stream: send only new messages on it "
        "(and re-emit pending server requests), never events sent before (MCP B26)."),
    "no-reemit-on-stream-resume": (
        "On a stream resumption (GET with Last-Event-ID) send the replayed events and that stream's own new "
        "events only: do not send again server requests or messages of other streams (MCP B21, D24-D25)."),
    "reemit-pending": (
        "Keep every server request (elicitation, sampling, roots) pending until the client answers or you "
        "cancel it; when a GET with the session id alone opens a new stream, send each pending request whose "
        "connection dropped on it again, same JSON-RPC id, or cancel it with notifications/cancelled (B39)."),
    "reemit-keeps-pending": (
        "Re-emitting a server request must not resolve it: keep it in your pending table until its answer or "
        "its cancellation arrives, so a second drop and a second session resumption send it again (MCP B39)."),
    "reject-orphan-event-id": (
        "Answer a request that carries Last-Event-ID but no Mcp-Session-Id with 400, before anything else: "
        "never look the event id up to find or create a session from it (MCP B32)."),
    "reject-foreign-event-id": (
        "Check a Last-Event-ID against the session named before answering: one that is malformed, unknown, "
        "another session's or of an expired stream gets a 4xx other than 404 (400 or 409) and no stream; 404 "
        "would tell the client its session is gone (MCP B33)."),
    "unknown-session-404": (
        "Answer a well-formed Mcp-Session-Id that names no live session (never issued, expired, deleted) with "
        "404, whatever Last-Event-ID says, and replay nothing (MCP B33)."),
    "session-identity-stable": (
        "Resuming a stream or a session must reach the same session: keep its id, its state and its pending "
        "requests, and keep answering its requests; never mint a new session or reset it on a GET (MCP B31)."),
    "expiry-independent": (
        "Let a stream expire without ending its session, and when a session ends (DELETE, time to live) drop "
        "every event id of it: no later request of any session may replay its events (MCP D13, D27)."),
    "event-id-unique": (
        "Mint event ids unique across all the streams of a session (better: of the whole server, and "
        "unguessable), each naming exactly one stream and position (MCP B23, D27, D28)."),
    "server-request-ownership": (
        "Deliver under a session only the server requests that session's calls made: key pending requests and "
        "their streams by session, never by JSON-RPC id alone (MCP B41)."),
    "no-duplicate-tool-call": (
        "Never answer a request of a live session with 404 (the client would start over and send its tools/call "
        "again), and never run one tools/call twice (MCP B33, B34)."),
    "no-broadcast": (
        "Send each server message on one connected stream only; do not re-emit a pending server request on a "
        "new stream while the connection that carries it is still open (MCP B21)."),
    "standalone-stream-scope": (
        "Send a tool call's server requests and notifications on that call's own POST stream (pass the call's "
        "request id as the related request), never on the standalone GET stream (MCP B17)."),
    "missing-session-400": (
        "Answer a request other than initialize that carries no Mcp-Session-Id with 400, when your server "
        "issues sessions (MCP B32)."),
    "malformed-session-400": (
        "Check the form of Mcp-Session-Id before looking it up: an id with a character outside 0x21-0x7E gets "
        "400 (the boundary profile; MCP also accepts 404) (MCP B30)."),
    "new-session-on-initialize": (
        "Answer initialize without Mcp-Session-Id with 200 and a new session id in the Mcp-Session-Id header, "
        "made of visible ASCII only, 0x21 to 0x7E: no space, no control or non-ASCII character (MCP B28, B30)."),
    "session-delete": (
        "Answer DELETE with a live session id by ending the session (2xx) or with 405 if clients may not end "
        "sessions; after a 2xx, answer that id with 404 (MCP B35, B36)."),
    "sessionless-get-405": (
        "A server of the 2026-07-28 revision answers GET and DELETE with 405: it has no standalone stream and "
        "no session to delete (MCP F17)."),
    "sessionless-ignores-headers": (
        "A server of the 2026-07-28 revision never mints an Mcp-Session-Id and ignores Mcp-Session-Id and "
        "Last-Event-ID in requests (MCP F17)."),
    "priming-event": (
        "Start every POST SSE stream with an event that has an id and empty data, so the client can resume "
        "it before the first real message (MCP D8); with the Python SDK, give it an EventStore."),
    "protocol-version-accepted": (
        "Accept, on every request of the session (GET included), the MCP-Protocol-Version you negotiated in "
        "initialize; 400 is only for a version you do not support (MCP C40)."),
    "unsupported-version-400": (
        "Refuse with 400 every request after initialize whose MCP-Protocol-Version you do not support, before "
        "serving it (MCP C40); the official SDKs do this in their transports."),
    "retry-before-close": (
        "Send the SSE retry field (a reconnection delay in milliseconds) on a stream before you close its "
        "connection for the client to poll, e.g. on the priming event (MCP D10, D23); the Python SDK sends it when "
        "given retry_interval, the TypeScript SDK when given retryInterval."),
    "call-answered": (
        "Finish every tools/call with its response on the call's own stream and store that response with the "
        "stream's other events, so a client whose connection dropped gets it by resuming; do not take a dropped "
        "connection for a cancellation (MCP B8, B10, B12, D11, D15)."),
    "cancel-notifies": (
        "When you give up on a sampling, elicitation or roots request, send notifications/cancelled for it on the "
        "stream that carries it, so the client stops waiting (MCP B39)."),
    "sessionless-request-scope": (
        "Under 2026-07-28 a response stream carries only its own request's notifications, then one final "
        "response, then ends (MCP F6, F8)."),
    "sessionless-no-server-requests": (
        "Under 2026-07-28 send no request of your own on a stream: ask for sampling, elicitation or roots with "
        "an InputRequiredResult and let the client retry (MCP F7, F20)."),
    "sessionless-close-cancels": (
        "Under 2026-07-28 treat a closed response stream as the request's cancellation: stop its work and send "
        "nothing more about it on any stream (MCP F11)."),
    "sessionless-request-validated": (
        "Check each POST before serving it: answer 400 with HeaderMismatch (-32020) when MCP-Protocol-Version or "
        "Mcp-Method differs from the body, 400 for a protocol version you do not implement, and 404 with -32601 "
        "for a method you do not implement (MCP F12, F13, F14, F16)."),
    "sessionless-notification-202": (
        "Answer a POSTed notification you accept with 202 Accepted and an empty body, and one you refuse with an "
        "error status such as 400; never 200 with a body (MCP F4)."),
    "sessionless-input-required-retry": (
        "Under 2026-07-28 answer the client's retry with inputResponses under the retry's own JSON-RPC id, as "
        "a new request (MCP F20)."),
}

AGREEMENT_FIX = ("No catalog rule names this difference from the reference: read the exchanges in the report and "
                 "the decision page (docs/decision.md).")
"""The fix line of the pseudo rule ``agreement`` (a note, never a verdict)."""


@dataclass(frozen=True)
class Sdk:
    """A known SDK or framework: ``target`` is its embedded target's name, ``label`` its name in reports,
    ``names`` what its ``serverInfo`` name may contain (lower case)."""

    target: str
    label: str
    names: tuple[str, ...]


SDKS: tuple[Sdk, ...] = (  # the most specific first: "fastmcp-typescript" before "fastmcp"
    Sdk("fastmcp-typescript", "FastMCP (TypeScript)", ("fastmcp-typescript", "fastmcp-ts")),
    Sdk("fastmcp-python", "FastMCP (Python)", ("fastmcp-python", "fastmcp")),
    Sdk("mcp-lite", "mcp-lite", ("mcp-lite",)),
    Sdk("tmcp", "tmcp", ("tmcp",)),
    Sdk("typescript-sdk", "the official TypeScript SDK", ("typescript-sdk", "mcp typescript sdk")),
    Sdk("python-sdk", "the official Python SDK", ("python-sdk", "mcp python sdk")),
)
SDK_BY_TARGET = {sdk.target: sdk for sdk in SDKS}


@dataclass(frozen=True)
class Remedy:
    """What to change, concretely, in a server built with ``sdk`` (a target of ``SDKS``) for ``rules``."""

    sdk: str
    rules: tuple[str, ...]
    text: str


_PY_BOUNDED_STORE = (
    "give it mcp_resume.event_store.BoundedEventStore (streamable_http_app(event_store=BoundedEventStore())) "
    "and call mcp_resume.event_store.scope_sessions(server.session_manager) after it: every session then "
    "gets its own view of the one store, whose event ids carry the session, and a view refuses another "
    "session's event id; retention is bounded by count and age (docs/testing.md)")

REMEDIES: tuple[Remedy, ...] = (
    Remedy("python-sdk", ("no-cross-session", "expiry-independent"),
           "The SDK's EventStore is never told the session and StreamableHTTPSessionManager shares one store by "
           "all sessions: " + _PY_BOUNDED_STORE + "."),
    Remedy("python-sdk", ("event-id-unique", "replay-suffix"),
           "Mint event ids from one counter per store (or uuid4), never per stream key: the SDK keys a POST stream "
           "by its JSON-RPC id, which repeats across sessions; mcp_resume.event_store.BoundedEventStore does both "
           "right (docs/testing.md)."),
    Remedy("python-sdk", ("reject-foreign-event-id",),
           "The SDK's transport answers the GET 200 before it asks replay_events_after, so no EventStore can "
           "refuse the id with a 4xx: wrap the session manager's ASGI app in a middleware that answers 400 to a "
           "GET whose Last-Event-ID your store does not know for that session. With BoundedEventStore nothing "
           "foreign is replayed, which the MCP profiles accept."),
    Remedy("python-sdk", ("malformed-session-400",),
           "The SDK's session manager answers every Mcp-Session-Id it does not hold with 404: wrap its ASGI app "
           "in a middleware that answers 400 to an id with a character outside 0x21-0x7E."),
    Remedy("python-sdk", ("reemit-pending", "reemit-keeps-pending"),
           "The SDK (checked against mcp 2.3.0) never re-emits a pending server request on a session resumption, "
           "EventStore or not: a GET with the session id alone opens the standalone stream, which carries only "
           "messages sent after it opens. The EventStore serves stream resumption only: a client that resumes "
           "the call's own POST stream (GET with the Last-Event-ID of one of its events) gets the request "
           "replayed from the store. The MCP revisions do not make reemit-pending a rule (n/a: a session "
           "resumption owes a pending request nothing there; only boundary makes it a MUST), so with an EventStore you already do what the SDK can: tell your clients to resume "
           "the call's stream with Last-Event-ID; to satisfy the rule as well, keep your own table of pending "
           "requests per session and send them again on the new GET stream (a transport of your own), or give "
           "up on an unanswered request after a timeout (notifications/cancelled) and let the tool answer."),
    Remedy("python-sdk", ("priming-event",),
           "The SDK sends priming events only when it has an EventStore: pass one to streamable_http_app()."),
    Remedy("typescript-sdk", ("replay-suffix",),
           "The SDK's example InMemoryEventStore sorts event ids <stream>_<milliseconds>_<random>, so two events "
           "of one millisecond replay in random order: write an EventStore whose event ids order within one "
           "millisecond (a per-store counter, e.g. <stream>_<zero-padded counter>) and replay in that order."),
    Remedy("typescript-sdk", ("no-cross-session", "expiry-independent", "event-id-unique"),
           "Create one StreamableHTTPServerTransport and one EventStore per session (sessionIdGenerator and "
           "onsessioninitialized), never one store for all sessions; event ids must be unique in the store."),
    Remedy("typescript-sdk", ("reject-foreign-event-id", "malformed-session-400"),
           "The transport's handleRequest answers these itself: check Mcp-Session-Id's form (400 outside "
           "0x21-0x7E) and whether your store knows Last-Event-ID for that session (400 if not) before calling it."),
    Remedy("typescript-sdk", ("reemit-pending", "reemit-keeps-pending"),
           "The SDK sends a pending request again only on its own stream's resumption (with Last-Event-ID): "
           "give the transport an eventStore, or cancel the request when its connection drops."),
    Remedy("typescript-sdk", ("standalone-stream-scope",),
           "Send a tool's server requests with the handler's extra.sendRequest (or pass relatedRequestId), so "
           "the SDK puts them on the call's own stream."),
    Remedy("fastmcp-python", ("reject-foreign-event-id", "malformed-session-400"),
           "FastMCP runs on the Python SDK's session manager, which answers these before FastMCP's code: wrap "
           "http_app() in an ASGI middleware that checks Mcp-Session-Id's form (400) and Last-Event-ID "
           "(400 for an id of another session) first."),
    Remedy("fastmcp-python", ("reemit-pending", "reemit-keeps-pending"),
           "FastMCP (the Python SDK) keeps a server request only on its call's stream: pass an event_store so a "
           "stream resumption sends it again, or cancel it when its connection drops."),
    Remedy("fastmcp-typescript", ("standalone-stream-scope", "reemit-pending", "reemit-keeps-pending"),
           "FastMCP's context.elicit and requestSampling call the SDK without relatedRequestId, so the request "
           "goes on the standalone GET stream: pass the tool call's request id as relatedRequestId (the SDK's "
           "extra.sendRequest does) so it travels, and is resumed, with its call."),
    Remedy("fastmcp-typescript", ("malformed-session-400",),
           "FastMCP's HTTP layer (mcp-proxy) answers every unknown Mcp-Session-Id 404: put a check of the id's form "
           "(400 outside 0x21-0x7E) in front of it."),
    Remedy("tmcp", ("unknown-session-404", "missing-session-400", "malformed-session-400", "reject-orphan-event-id"),
           "@tmcp/transport-http serves any Mcp-Session-Id as a live session: keep the ids your server issued and, "
           "before calling the transport, answer a request without one 400 (not initialize), an id you never "
           "issued or deleted 404, a malformed one 400."),
    Remedy("tmcp", ("reject-foreign-event-id", "replay-suffix", "no-cross-session", "event-id-unique"),
           "@tmcp/transport-http writes no SSE id and never reads Last-Event-ID: streams cannot be resumed. Refuse "
           "a GET with Last-Event-ID with 400 until the transport keeps an event store."),
    Remedy("mcp-lite", ("protocol-version-accepted",),
           "mcp-lite's handleGet accepts only MCP-Protocol-Version 2025-06-18: negotiate that revision, or accept "
           "on GET the version initialize answered."),
    Remedy("mcp-lite", ("unknown-session-404", "malformed-session-400"),
           "mcp-lite checks only that Mcp-Session-Id is present: look it up in your session adapter before "
           "handling the request, 404 when unknown or deleted, 400 when malformed."),
    Remedy("mcp-lite", ("reject-foreign-event-id", "replay-suffix", "no-cross-session"),
           "mcp-lite numbers every session's event ids from 1 and fails (500) on an id without '#': refuse a "
           "Last-Event-ID your session adapter did not issue to that session with 400, and include the session "
           "in the ids it mints."),
)


@dataclass(frozen=True)
class Fix:
    """What to do about a FAIL or WARN of ``rule``: ``text`` is the generic fix; ``remedy`` the concrete
    one for the server's SDK (``sdk``, its label in ``sdk_label``), when one is known."""

    rule: str
    text: str
    sdk: str | None = None
    sdk_label: str | None = None
    remedy: str | None = None

    def line(self) -> str:
        """The fix in one line, the SDK's remedy after the generic fix."""
        return self.text + (f" {self.with_sdk()}" if self.remedy else "")

    def with_sdk(self) -> str:
        """``With <SDK>: <remedy>``, or ``""`` when no remedy is known."""
        return f"With {self.sdk_label}: {self.remedy}" if self.remedy else ""

    def to_json(self) -> dict[str, Any]:
        item: dict[str, Any] = {"text": self.text}
        if self.remedy:
            item["sdk"] = self.sdk
            item["remedy"] = self.remedy
        return item


def generic_fix(rule: str) -> str:
    """The generic fix of ``rule`` (``agreement`` included); ``KeyError`` for an unknown rule."""
    if rule == "agreement":
        return AGREEMENT_FIX
    return FIXES[rule]


SHOWN_ORDER = ("python-sdk", "typescript-sdk", "fastmcp-python", "fastmcp-typescript", "tmcp", "mcp-lite")
"""The order remedies are listed in: the official SDKs first."""


def remedies_for(rule: str) -> list[Remedy]:
    """Every known SDK's remedy for ``rule``, in ``SHOWN_ORDER``."""
    return sorted((r for r in REMEDIES if rule in r.rules), key=lambda r: SHOWN_ORDER.index(r.sdk))


def remedy(rule: str, sdk: str | None) -> Remedy | None:
    """The remedy of ``sdk`` (a target name) for ``rule``, or ``None``."""
    return next((r for r in REMEDIES if r.sdk == sdk and rule in r.rules), None)


def fix_for(rule: str, sdk: str | None = None) -> Fix:
    """The ``Fix`` of ``rule`` for a server built with ``sdk`` (a target name, or ``None`` when unknown)."""
    found = remedy(rule, sdk)
    if found is None:
        return Fix(rule, generic_fix(rule))
    return Fix(rule, generic_fix(rule), sdk, SDK_BY_TARGET[sdk].label, found.text)


def identify(server_info: Mapping[str, Any] | None) -> str | None:
    """The known SDK (its target name) a ``serverInfo`` object names, or ``None``.

    A server's ``serverInfo.name`` is its author's choice: an SDK is recognised only when that name
    (or ``title``) contains the SDK's name as a word, as ``fastmcp``, ``tmcp``, ``mcp-lite``,
    ``typescript-sdk`` or ``python-sdk`` (each embedded target names itself so)."""
    if not isinstance(server_info, Mapping):
        return None
    text = " ".join(str(server_info.get(key) or "") for key in ("name", "title")).lower()
    for sdk in SDKS:
        if any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) for name in sdk.names):
            return sdk.target
    return None
