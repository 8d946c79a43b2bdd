"""Where the catalog's MCP rule ids come from: revision, section and gist.

The catalog (``catalog.py``) cites rule ids of the project's notes on the MCP
transport rules (``B25``, ``D28``, a range such as ``D37-D41``, or ``§3.7`` for an
open question of those notes, where MCP is silent) and ids of the boundary's own
decision (``decision-3``: docs/design.md §2). The letter names the revision; this
table gives each cited id its section and a one-line gist, in this project's
words, with the RFC 2119 keyword of the text where it has one. Data only, used
by the generated documentation and the catalog's tests.
"""

from __future__ import annotations

from dataclasses import dataclass

from .profiles import Profile


@dataclass(frozen=True)
class Revision:
    """One MCP revision, by the letter that prefixes its rule ids."""

    letter: str
    name: str
    profile: Profile | None  # the profile that holds a server to it, if any
    page: str  # where its transport rules are, in the specification repository


REVISIONS: dict[str, Revision] = {
    r.letter: r
    for r in (
        Revision("A", "2024-11-05 (HTTP with SSE)", None, "docs/specification/2024-11-05/basic/transports.mdx"),
        Revision("B", "2025-03-26", Profile.MCP_2025_03_26, "docs/specification/2025-03-26/basic/transports.mdx"),
        Revision("C", "2025-06-18", Profile.MCP_2025_06_18, "docs/specification/2025-06-18/basic/transports.mdx"),
        Revision("D", "2025-11-25", Profile.MCP_2025_11_25, "docs/specification/2025-11-25/basic/transports.mdx"),
        Revision("E", "interim draft, Feb-Apr 2026 (never released)", None,
                 "docs/specification/draft/basic/transports.mdx"),
        Revision("F", "2026-07-28", Profile.MCP_2026_07_28,
                 "docs/specification/2026-07-28/basic/transports/streamable-http.mdx"),
    )
}

OPEN_QUESTION_PREFIX = "§"
"""Ids such as ``§3.7`` name an open question of the notes, not a rule of MCP."""

DECISION_PREFIX = "decision-"
"""Ids such as ``decision-3`` name a part of the boundary's decision (docs/design.md §2)."""


@dataclass(frozen=True)
class Source:
    id: str
    section: str
    gist: str

    @property
    def revision(self) -> Revision | None:
        """The revision of an MCP rule id; ``None`` for an open question or a decision id."""
        return None if self.is_decision else REVISIONS.get(self.id[:1])

    @property
    def is_open_question(self) -> bool:
        return self.id.startswith(OPEN_QUESTION_PREFIX)

    @property
    def is_decision(self) -> bool:
        return self.id.startswith(DECISION_PREFIX)

    @property
    def kind(self) -> str:
        """Where the id comes from, in words: a revision's name, an open question, or the decision."""
        if self.is_decision:
            return "the boundary's decision (docs/design.md §2)"
        if self.is_open_question:
            return "open question of the notes (MCP is silent)"
        assert self.revision is not None  # neither the decision nor an open question: a revision's rule
        return self.revision.name


_SEND = "Sending Messages to the Server"
_LISTEN = "Listening for Messages from the Server"
_MULTI = "Multiple Connections"
_RESUME = "Resumability and Redelivery"
_SESSION = "Session Management"
_F_RECEIVE = "§3 Receiving Messages"
_DECISION = "docs/design.md §2, The decision on reconnect"

_TABLE: tuple[tuple[str, str, str], ...] = (
    ("B7", _SEND, "a POST that holds a request is answered with an SSE stream or one JSON object (MUST)"),
    ("B8", _SEND, "the SSE stream of a POST should in the end carry the response to the request it holds (SHOULD)"),
    ("B9", _SEND, "before its response the server may send requests and notifications on the POST stream; they "
                  "should be about the request that opened it (MAY / SHOULD)"),
    ("B10", _SEND, "the server should not close the POST stream before it has sent the response, unless the session "
                   "expires (SHOULD NOT)"),
    ("B12", _SEND, "a disconnection may happen at any time and should not be taken as a cancellation of the request "
                   "(MAY / SHOULD NOT)"),
    ("B15", _LISTEN, "a GET is answered with an SSE stream or with 405 (MUST)"),
    ("B18", _LISTEN, "no JSON-RPC response goes on the GET stream, unless it resumes a stream of an earlier "
                     "request (MUST NOT)"),
    ("B17", _LISTEN, "what the server sends on the GET stream should be unrelated to any client request then "
                     "running (SHOULD)"),
    ("B21", _MULTI, "each server message travels on exactly one connected stream; nothing is broadcast (MUST)"),
    ("B23", _RESUME, "event ids, where used, are unique across every stream of the session (MUST)"),
    ("B25", _RESUME, "the server may then replay what followed that id on the broken stream, and carry that "
                     "stream on (MAY)"),
    ("B26", _RESUME, "the server must not replay anything meant for another stream (MUST NOT)"),
    ("B28", _SESSION, "a server may hand out a session id in the Mcp-Session-Id header of its initialize response "
                      "(MAY)"),
    ("B30", _SESSION, "a session id is made of visible ASCII only, 0x21 to 0x7E (MUST)"),
    ("B31", _SESSION, "once given a session id, the client sends it on every later request (MUST)"),
    ("B32", _SESSION, "a server that needs sessions answers 400 to a request without one, initialize excepted "
                      "(SHOULD)"),
    ("B33", _SESSION, "a server may end a session at any time, and must then answer that id with 404 (MAY / MUST)"),
    ("B34", _SESSION, "a client that gets 404 for its session id starts over with initialize (MUST)"),
    ("B35", _SESSION, "a client that is done with a session ends it with HTTP DELETE (SHOULD)"),
    ("B36", _SESSION, "a server may refuse DELETE with 405; the success status is not specified (MAY)"),
    ("B39", "Lifecycle: Timeouts", "the sender of a request times out and then sends notifications/cancelled "
                                   "(SHOULD)"),
    ("B41", "Basic: Requests", "a requester never reuses a request id within one session (MUST NOT)"),
    ("C7", "§2.1 " + _SEND, "as B7: a request gets an SSE stream or one JSON object"),
    ("C8", "§2.1 " + _SEND, "as B8: the POST stream should in the end carry the response"),
    ("C10", "§2.1 " + _SEND, "as B10: the POST stream is not closed before its response"),
    ("C12", "§2.1 " + _SEND, "as B12: a disconnection is not a cancellation"),
    ("C13-C19", "§2.2 " + _LISTEN, "as B13-B19: a GET gets an SSE stream or 405; no response on it unless resuming"),
    ("C20-C21", "§2.3 " + _MULTI, "as B20-B21: several streams at once, each message on exactly one"),
    ("C22-C27", "§2.4 " + _RESUME, "the 2025-03-26 resumability rules (B22-B27), unchanged"),
    ("C28-C36", "§2.5 " + _SESSION, "the 2025-03-26 session rules (B28-B36), unchanged"),
    ("C37", "§2.7 Protocol Version Header", "new in 2025-06-18: the client sends MCP-Protocol-Version on every "
                                            "request after initialize (2025-03-26 has no such header)"),
    ("C40", "§2.7 Protocol Version Header", "a request whose MCP-Protocol-Version is invalid or unsupported gets 400 "
                                            "(MUST): 400 is for such a version only, never for the negotiated one"),
    ("C42", "Lifecycle; Basic: Requests", "as B38, B39, B41: timeouts end in notifications/cancelled, request ids "
                                          "unique in the session"),
    ("D3-D7", "§2.1 " + _SEND, "as C3-C7: one POST per message; a request gets an SSE stream or one JSON object"),
    ("D9", "§2.1 " + _SEND, "new: once it has sent an event with an id, a server may close the connection without "
                           "ending the stream; the client polls by reconnecting"),
    ("D10", "§2.1 " + _SEND, "new: a server that closes the connection before ending the stream should first send "
                            "an event with the SSE retry field, which the client must wait before reconnecting"),
    ("D11", "§2.1 " + _SEND, "as C8: the POST stream should in the end carry the response"),
    ("D8", "§2.1 " + _SEND, "new: a POST SSE stream opens with an event that has an id and empty data (priming), "
                            "so the client has a cursor before anything else arrives (SHOULD)"),
    ("D13", "§2.1 " + _SEND, "the server may end an SSE stream when the session expires (replaces B10) (MAY)"),
    ("D15", "§2.1 " + _SEND, "as B12: a disconnection is not a cancellation"),
    ("D16-D22", "§2.2 " + _LISTEN, "as C13-C19: a GET gets an SSE stream or 405; no response on it unless resuming"),
    ("D23", "§2.2 " + _LISTEN, "new: a server that closes a GET connection without ending the stream polls as D10 "
                              "asks: the retry field first, then the client reconnects"),
    ("D47", "Tasks (utilities/tasks)", "tasks (experimental): a task's messages may be sent on any SSE stream, the "
                                       "GET stream too; the client should expect them there"),
    ("D24-D25", "§2.3 " + _MULTI, "as B20-B21: several streams at once, each message on exactly one"),
    ("D27", "§2.4 " + _RESUME, "as B23: event ids unique across the session's streams (MUST)"),
    ("D28", "§2.4 " + _RESUME, "new: an event id carries enough to find the stream it came from (SHOULD)"),
    ("D30", "§2.4 " + _RESUME, "as B25-B26: a server may replay, and a replay comes from the broken stream only "
                               "(MAY / MUST NOT)"),
    ("D31", "§2.4 " + _RESUME, "resumption is always a GET with Last-Event-ID, whether the stream began with a "
                               "POST or a GET"),
    ("D33", "§2.5 " + _SESSION, "as B28; the header is spelled MCP-Session-Id (header names ignore case) (MAY)"),
    ("D34-D35", "§2.5 " + _SESSION, "as B29-B30: session ids are secure and use 0x21 to 0x7E"),
    ("D37-D41", "§2.5 " + _SESSION, "as B31-B36: resend the id, 400 without it, 404 once ended, initialize "
                                    "again after a 404, DELETE, 405"),
    ("D42-D45", "§2.7 Protocol Version Header", "as C37-C40: every request after initialize carries the negotiated "
                                                "MCP-Protocol-Version; 400 only for an invalid or unsupported one"),
    ("D51", "Lifecycle; Basic: Requests", "as C42: timeouts end in notifications/cancelled, request ids unique in "
                                          "the session"),
    ("F1", "Streamable HTTP (introduction)", "the endpoint takes POST; GET is no longer required"),
    ("F4", "§2 Sending Messages", "an accepted notification gets 202 with no body; one the server does not "
                                  "accept gets an error status"),
    ("F6", "§3 Receiving Messages", "the response stream may carry notifications before the final response, each "
                                    "about the request that opened it"),
    ("F8", "§3 Receiving Messages", "the final response should end the stream"),
    ("F7", _F_RECEIVE, "no server request travels on any stream: sampling, elicitation and roots become "
                       "inputRequests of an InputRequiredResult (MUST NOT)"),
    ("F10", _F_RECEIVE, "resuming SSE streams with Last-Event-ID is not supported"),
    ("F11", "§5 Cancellation", "closing a request's SSE stream cancels that request"),
    ("F12", "§6.1 Protocol Version Header", "every POST carries MCP-Protocol-Version, equal to the version in its "
                                            "params._meta; a mismatch gets 400 and HeaderMismatch (-32020)"),
    ("F13", "§6.1 Protocol Version Header", "a version the server does not implement gets 400 and "
                                            "UnsupportedProtocolVersionError"),
    ("F14", "§6.1 Protocol Version Header", "an unknown method gets 404: a 404 no longer means the session is gone"),
    ("F16", "§6.2 Request Metadata Headers", "every request carries Mcp-Method (and Mcp-Name where the method names "
                                             "a tool, prompt or resource); one that does not match the body gets 400"),
    ("F17", "§7.1 Earlier Streamable HTTP Revisions", "a server of this revision answers GET and DELETE with 405, "
                                                      "ignores Mcp-Session-Id and Last-Event-ID, mints no session id "
                                                      "(SHOULD)"),
    ("F20", "Patterns: MRTR", "input the server needs comes back in a retry with a new JSON-RPC id"),
    ("F21", "Changelog", "a broken response stream loses the in-flight request; the client re-issues it with a new "
                         "id"),
    ("§3.1", "Scope of event ids: unique in the session, a cursor in the stream", "ids are a per-stream cursor "
             "(B27), yet no revision says a replay may not repeat the cursor's own or an earlier event (MCP is silent)"),
    ("§3.2", "Last-Event-ID that cannot be resumed", "what to answer to a Last-Event-ID that cannot be resumed "
             "(unknown, expired, another session's): no revision says (modelcontextprotocol#1939)"),
    ("§3.6", "Priming events and old clients", "priming is a MUST in SEP-1699 but a SHOULD in the specification, "
             "and clients older than 2025-11-25 may trip over its empty data"),
    ("§3.7", "Pending server requests when their stream dies", "no revision says what becomes of a pending server "
             "request when the stream that carried it dies"),
    ("§3.8", "Session vs stream: 404 and re-initialization", "what a 404 and a new initialize do to the old "
             "session's streams and event ids; B33's 404 covers only sessions the server ended, not ids it never "
             "issued"),
    ("decision-guards", _DECISION, "an id that is malformed gets 400, a well-formed one naming no live session "
                                   "404, whatever Last-Event-ID says"),
    ("decision-1", _DECISION, "branch 1, stream resumption: replay exactly the stream's events after the id, then "
                              "continue it; send nothing else"),
    ("decision-2", _DECISION, "branch 2, session resumption: a fresh stream, no replay; pending requests whose "
                              "carrying stream has no open connection are re-emitted or cancelled, none on an open "
                              "one sent again"),
    ("decision-3", _DECISION, "branch 3: an event id not valid for the live session gets a 4xx other than 404, "
                              "distinct from the missing-session error; nothing replayed"),
    ("decision-4", _DECISION, "branch 4: an event id without a session id gets 400 and creates nothing"),
    ("decision-5", _DECISION, "branch 5: initialize without a session id makes a new session; anything else "
                              "without one gets 400"),
    ("decision-pending", _DECISION, "re-emission resolves nothing: a request stays pending until answered or "
                                    "cancelled, and its new stream carries it"),
    ("decision-expiry", _DECISION, "a stream may expire while its session lives; a session's end ends its streams "
                                   "and event ids"),
    ("decision-client", _DECISION, "the client model: it answers server requests, re-initializes after a 404 and "
                                   "may re-send a tools/call whose result it never saw"),
    ("decision-reference", _DECISION, "the reference's answer to every request: the spec's own, where no rule of "
                                      "the catalog names the difference"),
)

SOURCES: dict[str, Source] = {sid: Source(sid, section, gist) for sid, section, gist in _TABLE}


def anchor(source_id: str) -> str:
    """The HTML anchor of ``source_id``'s row in docs/sources.md: ``source-`` and the id in lower case,
    ``§`` spelled ``q`` and ``.`` as ``-`` (``B26`` -> ``source-b26``, ``§3.7`` -> ``source-q3-7``)."""
    return "source-" + source_id.lower().replace("§", "q").replace(".", "-")


def source(source_id: str) -> Source:
    """The entry for ``source_id``; ``KeyError`` naming the known ids otherwise."""
    try:
        return SOURCES[source_id]
    except KeyError:
        raise KeyError(f"no source entry for {source_id!r}; known: {', '.join(SOURCES)}") from None
