"""Where the catalog's MCP rule ids come from: revision, section and gist.

The catalog (``catalog.py``) cites rule ids of the project's notes on the MCP
transport rules (``B24``, ``D28``, a range such as ``D37-D41``, or ``§3.7`` for an
open question of those notes). The letter names the revision; this table gives
each cited id its section of that revision's text and a one-line gist, in this
project's words. Data only, used by the generated documentation.
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


@dataclass(frozen=True)
class Source:
    id: str
    section: str
    gist: str

    @property
    def revision(self) -> Revision | None:
        """The revision of an MCP rule id; ``None`` for an open question (``§3.x``)."""
        return REVISIONS.get(self.id[:1])

    @property
    def is_open_question(self) -> bool:
        return self.id.startswith(OPEN_QUESTION_PREFIX)


_SEND = "Sending Messages to the Server"
_MULTI = "Multiple Connections"
_RESUME = "Resumability and Redelivery"
_SESSION = "Session Management"

_TABLE: tuple[tuple[str, str, str], ...] = (
    ("B10", _SEND, "a POST response stream stays open until every response is sent, unless the session expires"),
    ("B12", _SEND, "a dropped connection is no cancellation (the client cancels with notifications/cancelled); "
                   "a server may make streams resumable"),
    ("B21", _MULTI, "each server message travels on exactly one stream; nothing is broadcast"),
    ("B23", _RESUME, "event ids, where used, are unique across every stream of the session"),
    ("B24", _RESUME, "to resume after a broken connection, the client sends a GET with Last-Event-ID set to the "
                     "last id it received"),
    ("B25", _RESUME, "the server may then replay what followed that id on the broken stream, and carry that "
                     "stream on"),
    ("B26", _RESUME, "the server must not replay anything meant for another stream"),
    ("B27", _RESUME, "an event id works as a cursor within its stream (non-normative)"),
    ("B28", _SESSION, "a server may hand out a session id in the Mcp-Session-Id header of its initialize response"),
    ("B30", _SESSION, "a session id is made of visible ASCII only, 0x21 to 0x7E"),
    ("B31", _SESSION, "once given a session id, the client sends it on every later request"),
    ("B32", _SESSION, "a server that needs sessions answers 400 to a request without one, initialize excepted"),
    ("B33", _SESSION, "a server may end a session at any time, and must then answer that id with 404"),
    ("B34", _SESSION, "a client that gets 404 for its session id starts over with initialize"),
    ("B35", _SESSION, "a client that is done with a session ends it with HTTP DELETE"),
    ("B36", _SESSION, "a server may refuse DELETE with 405; the success status is not specified"),
    ("B39", "Lifecycle: Timeouts", "the sender of a request times out and then sends notifications/cancelled"),
    ("B41", "Basic: Requests", "a requester never reuses a request id within one session"),
    ("C22-C27", "§2.4 " + _RESUME, "the 2025-03-26 resumability rules (B22-B27), unchanged"),
    ("C28-C36", "§2.5 " + _SESSION, "the 2025-03-26 session rules (B28-B36), unchanged"),
    ("D8", "§2.1 " + _SEND, "new: a POST SSE stream opens with an event that has an id and empty data (priming), "
                            "so the client has a cursor before anything else arrives"),
    ("D13", "§2.1 " + _SEND, "the server may end an SSE stream when the session expires (replaces B10)"),
    ("D15", "§2.1 " + _SEND, "as B12: a disconnection is no cancellation"),
    ("D24-D25", "§2.3 " + _MULTI, "as B20-B21: several streams at once, each message on exactly one"),
    ("D27", "§2.4 " + _RESUME, "as B23: event ids unique across the session's streams"),
    ("D28", "§2.4 " + _RESUME, "new: an event id carries enough to find the stream it came from"),
    ("D29", "§2.4 " + _RESUME, "after any disconnection, the client resumes with a GET and Last-Event-ID"),
    ("D30", "§2.4 " + _RESUME, "as B25-B26: a replay comes from the broken stream only"),
    ("D31", "§2.4 " + _RESUME, "resumption is always a GET, whether the stream began with a POST or a GET"),
    ("D32", "§2.4 " + _RESUME, "as B27: an event id is a cursor within its stream (non-normative)"),
    ("D33", "§2.5 " + _SESSION, "as B28; the header is spelled MCP-Session-Id (header names ignore case)"),
    ("D34-D35", "§2.5 " + _SESSION, "as B29-B30: session ids are secure and use 0x21 to 0x7E"),
    ("D37-D41", "§2.5 " + _SESSION, "as B31-B36: resend the id, 400 without it, 404 once ended, initialize "
                                    "again after a 404, DELETE, 405"),
    ("D47", "Utilities: Tasks", "experimental tasks: clients expect task messages on any SSE stream, the GET "
                                "stream included"),
    ("D50", "Security Best Practices: Session Hijacking", "a session id authenticates nothing; bind what is stored "
            "to the user and session, since a resumable stream can carry a payload into another client's stream"),
    ("F1", "Streamable HTTP (introduction)", "the endpoint takes POST; GET is no longer required"),
    ("F3", "§2 Sending Messages", "each message is a new POST carrying one request or notification; the client "
                                  "sends no JSON-RPC responses"),
    ("F6", "§3 Receiving Messages", "the response stream may carry notifications before the final response, each "
                                    "about the request that opened it"),
    ("F7", "§3 Receiving Messages", "no request of the server's own on this or any stream: input requests travel "
                                    "inside an InputRequiredResult"),
    ("F8", "§3 Receiving Messages", "the final response should end the stream"),
    ("F10", "§3 Receiving Messages", "resuming SSE streams with Last-Event-ID is not supported"),
    ("F11", "§5 Cancellation", "closing a response stream cancels its request: the server should stop and "
                               "must send nothing more about it"),
    ("F17", "§7.1 Earlier Streamable HTTP Revisions", "a server of this revision answers GET and DELETE with 405, "
                                                      "ignores Mcp-Session-Id and Last-Event-ID, mints no session id"),
    ("F19", "Base protocol: requests", "a request id never equals that of another request the sender still "
                                       "awaits an answer to, with or without a session"),
    ("F20", "Patterns: multi-round-trip requests", "a server may answer InputRequiredResult; the client retries "
            "with inputResponses and the echoed requestState under a new JSON-RPC id"),
    ("F21", "Changelog", "a broken response stream loses its request; the client sends it again as a new request "
                         "with a new id"),
    ("§3.2", "Last-Event-ID that cannot be resumed", "what to answer to a Last-Event-ID that cannot be resumed (unknown, expired, another "
                              "session's): no revision says (modelcontextprotocol#1939)"),
    ("§3.6", "Priming events and old clients", "priming is a MUST in SEP-1699 but a SHOULD in the specification, and clients older "
                              "than 2025-11-25 may trip over its empty data"),
    ("§3.7", "Pending server requests when their stream dies", "no revision says what becomes of a pending server request when the stream that "
                              "carried it dies"),
    ("§3.8", "Session vs stream: 404 and re-initialization", "what a 404 and a new initialize do to the old session's streams and event ids"),
)

SOURCES: dict[str, Source] = {sid: Source(sid, section, gist) for sid, section, gist in _TABLE}


def source(source_id: str) -> Source:
    """The entry for ``source_id``; ``KeyError`` naming the known ids otherwise."""
    try:
        return SOURCES[source_id]
    except KeyError:
        raise KeyError(f"no source entry for {source_id!r}; known: {', '.join(SOURCES)}") from None
