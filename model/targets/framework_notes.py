"""What each framework's source does behind each verdict of the compatibility page that is not PASS.

``NOTES`` maps a framework target (``model.targets.frameworks``) to its notes;
a ``Note`` covers the rules it names, says what the framework does and why,
and names the file of the pinned package where it does it. A note with
``verify_mistake`` explains a verdict that is verify's own error, not the
framework's fault. ``note_for(target, rule)`` is the note covering ``rule``, or
None; ``audit`` names the verdicts without a note and the stale notes.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass


@dataclass(frozen=True)
class Where:
    """A place in a pinned package's installed copy: ``path`` under the package's folder
    (npm: ``node_modules/<package>``; PyPI: ``site-packages``, the path then starts with
    the import name; a ``*`` matches a build hash), and the ``names`` defined or called there."""

    package: str
    path: str
    names: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.package}: {self.path}" + (f" {', '.join(self.names)}" if self.names else "")


@dataclass(frozen=True)
class Note:
    rules: tuple[str, ...]
    text: str
    where: tuple[Where, ...]
    verify_mistake: bool = False

    @property
    def source(self) -> str:
        return "; ".join(str(w) for w in self.where)


_NO_CLOSE = ("gives a tool no way to close its call's SSE connection early, so the fixture has no test_reconnection "
             "and verify sees no connection closed to be polled (D9): SKIP is right")

_SDK_GET = Where("mcp", "mcp/server/streamable_http.py", ("_handle_get_request", "GET_STREAM_KEY"))

FASTMCP_PYTHON = (
    Note(("reemit-pending", "reemit-keeps-pending"),
         "a pending elicitation/create whose POST connection dropped is never sent again: the SDK FastMCP runs "
         "on (mcp 2.3.0) stores the request under its call's stream only, and a GET with the session id alone "
         "opens the standalone stream (GET_STREAM_KEY), which carries new messages only; nothing re-emitted, so "
         "reemit-keeps-pending cannot be seen either (under the MCP profile re-emission is a MAY: PASS)",
         (_SDK_GET, Where("mcp", "mcp/server/streamable_http.py", ("message_router", "related_request_id")))),
    Note(("reject-foreign-event-id",),
         "FastMCP wraps its EventStore in a SessionScopedEventStore per session, whose replay_events_after "
         "returns None for an event id of another session (or one never issued, malformed or oversized), so "
         "nothing is replayed (no-cross-session PASSes where python-sdk FAILs); but the SDK's _replay_events "
         "has already answered the GET 200 with an SSE stream before it asks the store, so the refusal shows as "
         "an empty stream, not the 4xx boundary asks (MCP leaves the status open: PASS)",
         (Where("fastmcp", "fastmcp/server/session_scoped_event_store.py", ("replay_events_after",)),
          Where("mcp", "mcp/server/streamable_http.py", ("_replay_events",)))),
    Note(("malformed-session-400",),
         "the SDK's session manager looks every Mcp-Session-Id up and answers 404 'Session not found' to any id "
         "it does not hold, well formed or not; MCP allows 404 for an id it never issued, so only boundary's "
         "400-for-malformed FAILs it",
         (Where("mcp", "mcp/server/streamable_http_manager.py", ("_handle_stateful_request", "Session not found")),)),
)

_FASTMCP_TS = "dist/chunk-ZNPHP74O.js"
_TS_SDK_SEND = Where("@modelcontextprotocol/sdk", "dist/esm/server/webStandardStreamableHttp.js",
                     ("send(message, options)", "relatedRequestId", "_standaloneSseStreamId"))

FASTMCP_TYPESCRIPT = (
    Note(("reemit-pending", "reemit-keeps-pending"),
         "a tool's context.elicit (and FastMCPSession.requestSampling) calls the SDK's server.elicitInput(params, "
         "options) (createMessage) without a relatedRequestId, so the SDK's transport (@modelcontextprotocol/sdk "
         "1.32.2) sends the call's elicitation/create on the standalone GET stream while one is open, never on the "
         "call's own POST stream (against MCP B17: GET-stream messages SHOULD be unrelated to a running request); "
         "verify takes it from the GET stream it opened first. Once that connection drops, a GET with the session "
         "id alone opens a new standalone stream that carries new messages only: the pending request is never "
         "re-emitted (a MAY in the MCP revisions: PASS there), so whether re-emission keeps it pending cannot be seen",
         (Where("fastmcp", _FASTMCP_TS, ("elicit: (params, options) => this.#server.elicitInput(params, options)",
                                         "requestSampling")), _TS_SDK_SEND)),
    Note(("reject-foreign-event-id",),
         "mcp-proxy 6.7.19 gives each session's transport an InMemoryEventStore of its own, so another "
         "session's event id (or one never issued) is unknown there and nothing is replayed (no-cross-session "
         "PASSes); the SDK's replayEvents refuses it with 400 and JSON-RPC error -32000 'Invalid event ID "
         "format', the very status and code mcp-proxy gives a request without a session ('Bad Request: No valid "
         "session ID provided'), so a client cannot tell a bad event id from a missing session, which boundary "
         "asks (MCP accepts any 4xx: PASS)",
         (Where("mcp-proxy", "dist/startStdioServer-*.mjs", ("resolveEventStore", "No valid session ID provided")),
          Where("@modelcontextprotocol/sdk", "dist/esm/server/webStandardStreamableHttp.js",
                ("replayEvents", "Invalid event ID format")))),
    Note(("standalone-stream-scope",),
         "the call's elicitation/create (and sampling/createMessage) comes on the session's standalone GET stream "
         "while one is open, not on the call's own POST stream: context.elicit calls the SDK's "
         "server.elicitInput(params, options) without a relatedRequestId, and the SDK's transport sends a message "
         "with no related request to the standalone stream (MCP B17: what the GET stream carries SHOULD be "
         "unrelated to a running request; a MUST under boundary, where the carrying stream decides re-emission). "
         "The fix is to pass the tool call's request id as relatedRequestId (the SDK's extra.sendRequest does)",
         (Where("fastmcp", _FASTMCP_TS, ("elicit: (params, options) => this.#server.elicitInput(params, options)",
                                         "requestSampling")), _TS_SDK_SEND)),
    Note(("malformed-session-400",),
         "mcp-proxy 6.7.19, FastMCP's HTTP layer, answers every Mcp-Session-Id it does not hold with "
         "sendSessionNotFoundResponse, 404 'Session not found', without looking at its form; MCP allows 404 for "
         "an id it never issued, so only boundary's 400-for-malformed FAILs it",
         (Where("mcp-proxy", "dist/startStdioServer-*.mjs", ("handleStreamRequest", "sendSessionNotFoundResponse")),)),
    Note(("retry-before-close",),
         "FastMCP's tool context (reportProgress, streamContent and the like) " + _NO_CLOSE,
         (Where("fastmcp", _FASTMCP_TS, ("reportProgress", "streamContent")),)),
)

_TMCP_HTTP = "@tmcp/transport-http"
_TMCP_INDEX = "src/index.js"

TMCP = (
    Note(("replay-suffix", "no-cross-session", "no-reemit-on-stream-resume", "event-id-unique",
          "no-duplicate-tool-call"),
         "@tmcp/transport-http writes every SSE event as 'event: message' and 'data:' with no 'id:' line, keeps no "
         "event store and never reads Last-Event-ID: no stream can be resumed, so neither can a call cut off "
         "mid-way (whether it would run twice is never reached), and without ids a replayed or another session's "
         "message cannot be told from a new one. Event ids are optional in MCP (B22), so these rules cannot be "
         "judged: SKIP is right",
         (Where(_TMCP_HTTP, _TMCP_INDEX, ("#handle_get", "#controller_storage", "event: message")),)),
    Note(("priming-event",),
         "a POST stream opens with the call's own messages, each 'event: message' and 'data:' without an 'id:' "
         "line: no priming event (an event id with empty data, D8: a SHOULD from 2025-11-25 and under boundary; "
         "the 2025-06-18 tmcp negotiates has none, SKIP there), so a client cut off before the response has no "
         "id to resume from",
         (Where(_TMCP_HTTP, _TMCP_INDEX, ("event: message", "text/event-stream")),)),
    Note(("expiry-independent",),
         "nothing to judge: no stream carries an event id that could outlive its session, and tmcp's sessions "
         "and streams never expire (no time to live anywhere in the transport); --stream-ttl and --session-ttl "
         "would have no expiry to wait for",
         (Where(_TMCP_HTTP, _TMCP_INDEX, ("#handle_delete",)),)),
    Note(("reemit-pending", "reemit-keeps-pending"),
         "a tool's elicitation/create is written to its call's POST stream only (the server's 'send' handler "
         "finds the call's sink through AsyncLocalStorage, #controller_storage); once that connection drops the "
         "request is lost, nothing keeps it to send again (re-emission is a MAY in 2025-06-18: PASS there)",
         (Where(_TMCP_HTTP, _TMCP_INDEX, ("'send'", "#controller_storage")),)),
    Note(("unknown-session-404", "missing-session-400", "malformed-session-400", "reject-orphan-event-id"),
         "the transport takes request.headers.get('mcp-session-id') || getSessionId() as the session of every "
         "GET, POST and DELETE and never checks that the id was issued: a request without an id is served under "
         "a freshly minted one (200, not 400), an unknown, deleted or oversized id is served as if live (200, not "
         "404), a malformed id is echoed back in the answer's Mcp-Session-Id, and a GET with an invented "
         "Last-Event-ID and no session opens a stream for a new session (200, not 400)",
         (Where(_TMCP_HTTP, _TMCP_INDEX, ("#handle_get", "#handle_post", "#handle_delete", "getSessionId")),)),
    Note(("unsupported-version-400",),
         "MCP-Protocol-Version is read only to tell a request of the 2026-07-28 shape (#is_per_request, "
         "getPerRequestProtocolVersions); a request of a session that carries any other value, 1999-01-01 "
         "included, is served 200, where 2025-06-18 asks 400 for an unsupported version (C40)",
         (Where(_TMCP_HTTP, _TMCP_INDEX, ("#is_per_request", "getPerRequestProtocolVersions")),)),
    Note(("retry-before-close",),
         "tmcp's tool context " + _NO_CLOSE + "; the transport writes no SSE retry field anywhere, so a close it made "
         "would WARN",
         (Where(_TMCP_HTTP, _TMCP_INDEX, ("event: message", "text/event-stream")),)),
    Note(("reject-foreign-event-id",),
         "Last-Event-ID is never read: a GET with a live session and an event id it never issued (invented, "
         "malformed or oversized) is answered 200 with a fresh standalone stream, where boundary asks a 4xx; "
         "MCP leaves that answer open (PASS under 2025-06-18)",
         (Where(_TMCP_HTTP, _TMCP_INDEX, ("#handle_get",)),)),
)

_LITE = Where("mcp-lite", "dist/index.js", ("handleGet", "Protocol version mismatch", "handleInitialize"))

MCP_LITE = (
    Note(("protocol-version-accepted",),
         "handleGet answers 400 'Bad Request: Protocol version mismatch' to any MCP-Protocol-Version but "
         "2025-06-18 (hard-coded), while McpServer.handleInitialize answers a client offering 2025-11-25 with "
         "2025-03-26 (its oldest revision, not its newest) and handlePost accepts that header "
         "(validateProtocolHeader): the session's GET refuses the revision mcp-lite itself negotiated. MCP "
         "allows only an SSE stream or 405 there (B15) and 400 only for an unsupported version (C40); verify "
         "sent the same GET without the header and got the stream, so it drives the other rules' GETs without it",
         (_LITE, Where("mcp-lite", "dist/index.js", ("validateProtocolHeader",)))),
    Note(("replay-suffix", "no-reemit-on-stream-resume", "event-id-unique"),
         "POST streams carry no event ids and the session's GET stream (driven without the header) delivered no "
         "event while verify watched it: no cursor to resume from. Read in the source, what a resumption would "
         "find: InMemorySessionAdapter.appendEvent buffers every notification of the session under "
         "'_GET_stream', also those already written to a POST stream, so a GET resumed from any cursor "
         "re-delivers them; every session numbers its ids '<n>#_GET_stream' from 1 and replay looks the cursor "
         "up in the presenting session, so another session's id replays this session's own events",
         (_LITE, Where("mcp-lite", "dist/index.js", ("appendEvent", "replay", "_GET_stream")))),
    Note(("priming-event",),
         "createSSEStream's writer puts an 'id:' line before 'data:' only when it is given an event id, and "
         "handlePost opens its POST streams without one and writes no empty event first: no priming event "
         "(D8, a SHOULD from 2025-11-25 and under boundary; the 2025-03-26 mcp-lite negotiates has none, SKIP "
         "there), so a client cut off before the response has no cursor",
         (Where("mcp-lite", "dist/index.js", ("createSSEStream", "handlePost")),)),
    Note(("reject-foreign-event-id",),
         "an event id mcp-lite never issued (no '#') makes parseEventId throw inside replay, and handleGet "
         "answers 500 'Internal Server Error: Replay failed' instead of refusing it with a 4xx",
         (Where("mcp-lite", "dist/index.js", ("parseEventId", "Replay failed")),)),
    Note(("no-cross-session", "reemit-pending", "reemit-keeps-pending", "server-request-ownership",
          "no-duplicate-tool-call", "no-broadcast", "standalone-stream-scope"),
         "test_elicitation and test_sampling answer their call with JSON-RPC error -32603 'Internal error' "
         "before any server request, so no scenario that needs a pending server request can be driven. In the "
         "source, ctx.elicit hands the request to sendClientRequest, which throws 'No active streams to "
         "deliver client request' when it finds no writer for the call or the session; and a server request "
         "is never buffered, so one whose connection dropped would never be re-emitted",
         (Where("mcp-lite", "dist/index.js", ("sendClientRequest", "No active streams to deliver client request")),)),
    Note(("unknown-session-404", "malformed-session-400"),
         "handlePost only checks that an Mcp-Session-Id is present (missing-session-400 PASSes), never that it "
         "was issued: an unknown, deleted, oversized or malformed id is served as if live (200, and echoed "
         "back in the answer's Mcp-Session-Id), handleDelete answers 200 to any id, and handleGet answers an "
         "unknown id 400 'Bad Request: Invalid or missing session ID' where MCP says 404 (B33)",
         (Where("mcp-lite", "dist/index.js", ("handlePost", "handleDelete", "sessionAdapter.delete",
                                              "Invalid or missing session ID")),)),
    Note(("unsupported-version-400",),
         "validateProtocolHeader answers a POST whose MCP-Protocol-Version differs from the session's version "
         "400 (respondToProtocolMismatch), an unsupported one included: PASS under boundary; under auto mcp-lite "
         "negotiates 2025-03-26, which has no such header, so the rule does not apply (SKIP)",
         (Where("mcp-lite", "dist/index.js", ("validateProtocolHeader", "respondToProtocolMismatch")),)),
    Note(("retry-before-close",),
         "mcp-lite's tool context " + _NO_CLOSE + "; createSSEStream writes no SSE retry field, so a close it made "
         "would WARN",
         (Where("mcp-lite", "dist/index.js", ("createSSEStream",)),)),
    Note(("expiry-independent",),
         "nothing to judge: no stream delivered an event id while verify watched it, and "
         "InMemorySessionAdapter never expires a session or a stream (it only caps each stream's buffer at "
         "maxEventBufferSize)",
         (Where("mcp-lite", "dist/index.js", ("InMemorySessionAdapter", "maxEventBufferSize")),)),
)

NOTES: dict[str, tuple[Note, ...]] = {
    "fastmcp-python": FASTMCP_PYTHON,
    "fastmcp-typescript": FASTMCP_TYPESCRIPT,
    "tmcp": TMCP,
    "mcp-lite": MCP_LITE,
}


def note_for(target: str, rule: str) -> Note | None:
    """The note of ``target`` that covers ``rule``, or None."""
    return next((n for n in NOTES.get(target, ()) if rule in n.rules), None)


def audit(target: str, shown: Collection[str]) -> list[str]:
    """What is wrong with ``target``'s notes against ``shown``, the rules its section of the
    page lists (not PASS under some profile, and applicable): one line for each shown rule
    without a note, and one for each noted rule not shown (a stale note). Empty when right."""
    noted = [rule for note in NOTES.get(target, ()) for rule in note.rules]
    missing = [f"{rule}: no note for a verdict that is not PASS" for rule in shown if rule not in noted]
    stale = [f"{rule}: stale note (the rule PASSes or does not apply)" for rule in noted if rule not in shown]
    return missing + stale
