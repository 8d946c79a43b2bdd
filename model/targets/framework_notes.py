"""What each framework's source does behind each verdict of the compatibility page that is not PASS.

``NOTES`` maps a framework target (``model.targets.frameworks``) to its notes;
a ``Note`` covers the rules it names, says what the framework does and why,
and names the file of the pinned package where it does it. A note with
``verify_mistake`` explains a verdict that is verify's own error, not the
framework's fault; ``COMMON_NOTES`` hold for every target. ``note_for(target, rule)``
is the note covering ``rule``, or None.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Note:
    rules: tuple[str, ...]
    text: str
    source: str
    verify_mistake: bool = False


_SDK_PY = "mcp 2.3.0, the SDK FastMCP runs on: mcp/server/streamable_http.py"
_NO_EVENT_IDS = ("replay-suffix", "no-cross-session", "no-reemit-on-stream-resume", "reject-orphan-event-id",
                 "reject-foreign-event-id", "expiry-independent", "event-id-unique", "no-duplicate-tool-call")

NOTES: dict[str, tuple[Note, ...]] = {
    "fastmcp-python": (
        Note(("replay-suffix", "expiry-independent"),
             "the replay is exact (the same event ids, the same messages), but FastMCP's EventStore keeps each "
             "message as a dumped dict in a py-key-value store, which serialises it with json.dumps(sort_keys=True): "
             "the replayed log notification's data comes back with its keys sorted, and verify compares the bytes "
             "instead of the JSON-RPC values",
             "fastmcp/server/event_store.py EventStore.store_event; key_value/aio/_utils/managed_entry.py",
             verify_mistake=True),
        Note(("reemit-pending",),
             "a pending elicitation/create whose POST connection dropped is never sent again: the SDK's transport "
             "keeps no record of a stream's unanswered server requests, and a GET with the session id alone only "
             "opens the standalone stream for new messages (FastMCP adds nothing here; the same verdict as python-sdk)",
             f"{_SDK_PY} _handle_get_request"),
        Note(("reemit-keeps-pending",),
             "follows from reemit-pending: nothing is re-emitted, so whether re-emission keeps a request pending "
             "cannot be seen", f"{_SDK_PY} _handle_get_request"),
        Note(("reject-foreign-event-id",),
             "FastMCP's SessionScopedEventStore does refuse another session's event id (its stream key lacks this "
             "session's prefix: replay_events_after returns None), which is why no-cross-session PASSes where "
             "python-sdk FAILs; but the SDK has already answered the GET 200 with an SSE stream before it asks the "
             "store, so the refusal shows as an empty stream, not as a 4xx",
             f"fastmcp/server/session_scoped_event_store.py; {_SDK_PY} _replay_events"),
        Note(("malformed-session-400",),
             "the SDK's session manager looks every Mcp-Session-Id up and answers 404 'Session not found' to any id "
             "it does not hold, well formed or not; 404 is what the MCP revisions ask for an unknown id, so only "
             "boundary's 400-for-malformed FAILs it",
             "mcp 2.3.0: mcp/server/streamable_http_manager.py handle_request"),
    ),
    "fastmcp-typescript": (
        Note(("no-reemit-on-stream-resume", "reemit-pending", "reemit-keeps-pending", "server-request-ownership"),
             "a tool's context.elicit calls the SDK's server.elicitInput(params, options) without relatedRequestId, "
             "and FastMCPSession.requestSampling does the same, so the SDK's transport sends the tool call's "
             "elicitation/create on the standalone GET stream, not on the call's POST stream (against MCP B17: GET "
             "messages SHOULD be unrelated to running requests; when no GET stream is open the request waits "
             "unseen until it times out). verify waits for it on the POST stream only and ends INCONCLUSIVE; it "
             "would have to open the GET stream first to judge these rules",
             "fastmcp dist/chunk-ZNPHP74O.js, FastMCPSession's tools/call handler (elicit) and requestSampling"),
        Note(("no-duplicate-tool-call",),
             "a tool's context.log.info goes through FastMCPSession#sendLog, which calls server.sendLoggingMessage "
             "with no related request: the SDK puts log notifications on the standalone GET stream (or drops them "
             "when none is open), so a tool call's POST stream carries no notification before its response and the "
             "scenario has nothing to resume from",
             "fastmcp dist/chunk-ZNPHP74O.js FastMCPSession#sendLog"),
        Note(("malformed-session-400",),
             "mcp-proxy (FastMCP's HTTP layer) answers every Mcp-Session-Id it does not hold with "
             "sendSessionNotFoundResponse, 404 'Session not found', without looking at its form; the MCP revisions "
             "ask 404 for an unknown id, so only boundary's 400-for-malformed FAILs it",
             "mcp-proxy 6.7.19 dist/startStdioServer-*.mjs handleStreamRequest, sendSessionNotFoundResponse"),
    ),
    "tmcp": (
        Note(_NO_EVENT_IDS,
             "@tmcp/transport-http writes every SSE event as 'event: message' and 'data:' with no 'id:' line, has "
             "no event store and ignores Last-Event-ID: no stream can be resumed (event ids are optional in MCP, "
             "so these rules do not apply: SKIP is right)",
             "@tmcp/transport-http src/index.js"),
        Note(("reemit-pending",),
             "a tool's elicitation/create is written to the POST stream of the call (the 'send' handler finds the "
             "call's response sink through AsyncLocalStorage); once that connection drops the request is lost: "
             "nothing keeps it to send again on a new stream",
             "@tmcp/transport-http src/index.js, the server's 'send' handler; tmcp src/index.js elicitation"),
        Note(("reemit-keeps-pending",),
             "follows from reemit-pending: nothing is re-emitted", "@tmcp/transport-http src/index.js"),
        Note(("unknown-session-404", "missing-session-400"),
             "the transport takes request.headers.get('mcp-session-id') || getSessionId() as the session of every "
             "GET, POST and DELETE and never checks that the id was issued: a request without an id is served "
             "under a freshly minted one (200, not 400) and an unknown or deleted id is served as if live (200, not "
             "404); a GET with no id even opens a stream for a new session",
             "@tmcp/transport-http src/index.js #handle_get, #handle_post, #handle_delete"),
        Note(("malformed-session-400",),
             "a malformed Mcp-Session-Id is accepted as a session like any other and echoed back in the answer's "
             "Mcp-Session-Id header (the same code as unknown-session-404); verify ends INCONCLUSIVE ('server sent "
             "a malformed Mcp-Session-Id') where it should FAIL the rule",
             "@tmcp/transport-http src/index.js #handle_get", verify_mistake=True),
        Note(("priming-event",),
             "tmcp negotiated 2025-06-18 (it does not offer 2025-11-25), a revision without priming events; under "
             "boundary verify still expects the 2025-11-25 priming event (under the negotiated profile it PASSes)",
             "tmcp src/validation/version.js SUPPORTED_VERSIONS", verify_mistake=True),
    ),
    "mcp-lite": (
        Note(tuple(r for r in _NO_EVENT_IDS if r != "no-reemit-on-stream-resume"),
             "mcp-lite answers POST requests on SSE streams whose events carry no id; only the session's GET stream "
             "has ids ('<n>#_GET_stream', from InMemorySessionAdapter.appendEvent), and verify never got that stream "
             "(see no-replay-on-session-resume). Read in the source (the last point also seen by hand): appendEvent buffers every "
             "notification of the session, also those written to a POST stream, so a GET resumed from any cursor "
             "re-delivers progress notifications already delivered on POST streams; every session numbers its ids "
             "from 1 with the same stream name, and the replay looks the cursor up in the presenting session, so "
             "another session's id replays this session's own events instead of being refused; an id without '#' "
             "makes parseEventId throw and the GET answers 500 'Replay failed'",
             "mcp-lite dist/index.js InMemorySessionAdapter.appendEvent and replay, StreamableHttpTransport.handleGet"),
        Note(("no-replay-on-session-resume", "no-reemit-on-stream-resume", "reemit-pending", "reemit-keeps-pending",
              "server-request-ownership"),
             "every GET was answered 400 'Protocol version mismatch': handleGet accepts MCP-Protocol-Version "
             "2025-06-18 only (hard-coded) or no header at all. verify sent 2025-11-25 where the session had "
             "negotiated 2025-03-26, which is verify's error; but a client sending the negotiated 2025-03-26 gets "
             "the same 400 (seen by hand; without the header the GET gets its stream), so mcp-lite's GET stream refuses the revision mcp-lite itself negotiated (it answers "
             "an initialize asking for an unsupported revision with its oldest, 2025-03-26, not its newest). From "
             "the source: a server request (sendClientRequest) is written to its call's POST stream or the GET "
             "stream and never buffered, so one whose connection dropped is never re-emitted",
             "mcp-lite dist/index.js StreamableHttpTransport.handleGet, sendClientRequest; McpServer's initialize"),
        Note(("unknown-session-404", "session-identity-stable", "priming-event"),
             "every POST after initialize was refused 400 with a JSON body 'Protocol version mismatch' because verify "
             "sent MCP-Protocol-Version 2025-11-25 and not the negotiated 2025-03-26; with the right header mcp-lite "
             "answers tools/list on an SSE stream. Read in the source and seen by hand: handlePost never checks "
             "that a presented Mcp-Session-Id was issued (tools/list with a never-issued id is answered 200) and "
             "handleDelete answers 200 to any id, so unknown-session-404 is broken",
             "mcp-lite dist/index.js StreamableHttpTransport.validateProtocolHeader, handlePost, handleDelete",
             verify_mistake=True),
    ),
}


COMMON_NOTES: tuple[Note, ...] = (
    Note(("no-broadcast",),
         "verify does not drive no-broadcast (MCP B21) over HTTP yet: no framework is judged on it",
         "model/verify/suite.py", verify_mistake=True),
)
"""Notes that hold for every framework target; a target's own note of the same rule wins."""


def note_for(target: str, rule: str) -> Note | None:
    """The note of ``target`` that covers ``rule``, else the common note that does, else None."""
    notes = NOTES.get(target, ()) + COMMON_NOTES
    return next((n for n in notes if rule in n.rules), None)
