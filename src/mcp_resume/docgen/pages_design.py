"""The design page: what the project checks and how it is built, the page every docstring,
help text and rule page cites as ``docs/design.md §N`` (the sections keep their numbers)."""

from __future__ import annotations

from mcp_resume.spec.catalog import RULES
from mcp_resume.spec.designs import DESIGNS, VARIATIONS
from mcp_resume.spec.profiles import PROFILE_NOTES, Profile

from .markdown import code, page, table
from .pages_spec import GENERATED, rule_link

VOCABULARY = (
    ("session", "the server-side state an `Mcp-Session-Id` names; it outlives every stream of it"),
    ("stream", "one logical SSE stream: the answer to one POST, or the standalone stream a GET opens; its events are ordered"),
    ("connection", "the HTTP response body delivering a stream right now; it can break while the stream goes on"),
    ("event id", "the SSE `id:` of an event: a position in one stream, unique among all streams of its session"),
    ("server request", "a JSON-RPC request the server sends the client (sampling, elicitation, roots); it is "
                       "pending until the client answers it or the server cancels it"),
    ("replay", "sending again, on a resumed connection, the events of that same stream after `Last-Event-ID`"),
    ("re-emit", "sending a still-pending server request again, same JSON-RPC id, on a new stream of its session"),
    ("retained / expired stream", "a stream whose events the server still keeps / has thrown away"),
)

BRANCHES = (
    ("1", "live session", "an event of a retained stream of that session",
     "stream resumption: 200 SSE, the events of that stream after the cursor in order, then the stream goes on live; "
     "nothing else is sent again"),
    ("2", "live session", "absent",
     "session resumption: 200 SSE on a new stream; each pending request whose stream has no open connection is "
     "re-emitted on it or cancelled; no past event is replayed"),
    ("3", "live session", "present, but not valid for it",
     "refused with a 4xx other than 404, told apart from the missing-session answer; nothing replayed, nothing changed"),
    ("4", "absent", "present", "refused with 400; no session created, nothing replayed"),
    ("5", "absent", "absent", "a new session for POST `initialize`; 400 for anything else when the server requires sessions"),
)


def design_page() -> str:
    invariants = [r for r in RULES if r.origin == "design"]
    return page(
        "# The design: what mcp-resume checks, and how it is built",
        GENERATED + " Rule statements, profiles and designs come from [spec/](../spec/); the rest is the "
        "project's own account of them. Docstrings and help texts cite this page as `docs/design.md §N`.",
        "## §1 Vocabulary",
        table(["term", "meaning"], VOCABULARY),
        "## §2 The decision on reconnect",
        "A server decides on the two headers together, never on one alone. Guards come first: a session id "
        "outside 0x21-0x7E gets 400, a well-formed one that names no live session (never issued, expired, "
        "deleted) gets 404, whatever `Last-Event-ID` says (MCP B30, B33, B34). Then:",
        table(["#", "Mcp-Session-Id", "Last-Event-ID", "what the server must do"], BRANCHES),
        "Re-emitting a request does not resolve it: it stays pending, and the stream it went out on becomes "
        "the one carrying it, so a second drop and a second session resumption send it again. A stream may "
        "expire while its session lives; when a session ends, all its streams and event ids end with it. "
        "A 404 means *session gone* to a client that follows MCP: it starts over and may send again a tool "
        "call whose answer it never saw, which is why branch 3 must not answer 404.",
        "What real servers do beside the table, and how it is judged: a ring buffer may keep only a stream's "
        "latest events (an evicted cursor is refused, or answered with the exact rest when every later event "
        "is kept); a server learns of a dropped connection a moment late (re-emission is awaited a short "
        "while); a second GET while one is connected may be refused with a client error other than 404, or "
        "replace the first; a server may end a session at any time and answer 404 for it from then on (MCP "
        "B33; the boundary profile holds a session's life apart from its streams'); a resumed stream goes on "
        "with its own new events; a request given up on gets `notifications/cancelled` (B39). The full "
        "table by header class is [the decision page](decision.md).",
        "A server without sessions (it mints no `Mcp-Session-Id`, which MCP allows: B28) is outside the table: "
        "every row names a session, and MCP leaves open how such a server tells one client's streams from "
        "another's (its event ids are unique across \"all streams with that specific client\", B23). No "
        "resumption rule can be judged on it without guessing which streams are one client's, so `verify` "
        "SKIPs every rule that needs a session, with that reason and what would unlock it (an "
        "`Mcp-Session-Id` on initialize).",
        "## §3 Profiles and verdicts",
        table(["profile", "what it holds a server to"], [(code(p.value), PROFILE_NOTES[p]) for p in Profile]),
        "Every rule has a level per profile: MUST, SHOULD, MAY or not applicable ([profiles](profiles.md)). "
        "A verdict is PASS (a step where the rule's check could fail held it), FAIL (a MUST broken), WARN (a "
        "SHOULD broken, or a MAY whose check failed: the server may choose otherwise, but a 5xx meets no "
        "expectation), SKIP (the server does not offer what the rule is about) or INCONCLUSIVE (it does, but "
        "the scenario could not be driven), always with its evidence. A difference from the spec that no rule "
        "names is a note, never a verdict. Reports show each rule under the chosen profile and under the "
        "other one; the exit code follows the chosen one.",
        "## §4 Invariants",
        "Each is a check of what a server sends, shared by every checker; the ids are stable.",
        table(["id", "what must hold"], [(rule_link(r.id), r.statement) for r in invariants]),
        "## §5 Faulty designs and correct variations",
        "Small in-process servers that break the boundary the way real servers have; every checker must "
        "catch each one (that is how the checks are known not to be vacuous), and blame none of the variations.",
        table(["design", "what it does wrong", "rules it breaks"],
              [(str(d.number), d.summary, ", ".join(code(r) for r in sorted(d.rules))) for d in DESIGNS]),
        table(["correct variation", "what it does"], [(code(v.target), v.summary) for v in VARIATIONS]),
        "Two readings of the MCP text decided once, and why:",
        "- **B26 on a resumed stream and on a fresh one.** B26 forbids replaying messages that would have been "
        "delivered on a different stream: it is about what a connection that *continues* a stream carries. A "
        "stream resumption continues one stream, so a pending request of another stream sent on it is that "
        "other stream's message delivered here (`no-reemit-on-stream-resume`, MUST in every session-era "
        "revision). A session resumption opens a new stream with no past: a pending request sent again on it "
        "is a new event of that stream (B21: each message on one stream), no replay, so the MCP revisions "
        "accept it (and owe it nothing: `reemit-pending` is not a rule there), and `boundary` requires it.",
        "- **One standalone stream per session across GET connections** (both official SDKs key every GET "
        "stream of a session `_GET_stream`). A GET without `Last-Event-ID` is no resumption (B24, D31): it "
        "opens a new stream. Resuming an older GET connection's cursor must then replay only what followed "
        "the cursor on that stream; replaying what a newer GET connection carried delivers another stream's "
        "messages again (B26). It is a fault (`no-cross-session`), not a variation, and the EventStore kit "
        "reports it as a limit of the SDK (`reused-standalone-key`) that no store can lift.",
        "## §6 Architecture",
        "One package, `mcp_resume`, with three layers. `spec/` is the specification: pure, standard library "
        "only, no I/O (state, actions, the decision, the checks, the profiles and the rule catalog). `model/` "
        "holds what runs against it: the Hypothesis state machine, the exhaustive explorer, the faulty "
        "designs, and the adapters to real servers. `proofs/` turns the spec into Z3 queries, proof "
        "artifacts and diagrams. Data flows one way, spec -> model and proofs -> reports; a trace is a "
        "sequence of the spec's actions, so a counterexample from Z3, the explorer or Hypothesis replays "
        "against any adapter. **One oracle**: `verify`, `validate` and the proxy turn what a client saw into "
        "the spec's actions and observations through one mapping (`model/oracle/judge.py`) and take every "
        "verdict from the spec's checks and the catalog's levels; `verify`'s scenarios only drive the server.",
        "## §7 Driving a real server",
        "Servers that took the MCP conformance suite expose its fixture tools: `test_tool_with_logging` and "
        "`test_tool_with_progress` (notifications before the answer), `test_sampling` and `test_elicitation` "
        "(a pending server request), `test_reconnection` (the server closes the connection mid-call and the "
        "first resumption carries the rest). `verify` uses them where listed and SKIPs, saying what would "
        "unlock it, where not. Invented ids (orphan, foreign, malformed, oversized) need no cooperation; an "
        "oversized one may get any 4xx. POSTs answered with JSON, event ids on any stream, re-serialised "
        "replays and the 2026-07-28 request shape are all judged; messages are compared as JSON-RPC values. "
        "Streams of other sessions are watched while a session works. Every network wait is bounded.",
    )
