"""Trace validation: recorded exchanges with a real server judged against the spec.

The records (``records.Record``) are laid on one time line: a request when it
was sent, each SSE event when it arrived, an exchange's end. Each moment is
mapped onto the spec's actions (docs/design.md §2) and judged by the checker
(``model.harness.checker``) exactly as a driven server is, every finding kept:

- ``initialize`` -> ``Initialize``; another POSTed request -> ``CallTool`` (its
  SSE stream is the spec's new stream; a JSON answer is a stream the client
  never reads, so ``DropConnection`` follows); a POSTed JSON-RPC response ->
  ``AnswerRequest``; GET -> ``Reconnect`` with the two headers as sent; DELETE
  -> ``DeleteSession``. Notifications the client sends are not actions.
- Events: an event on a stream is ``EmitEvent``, a server request that waits on the
  client (sampling, elicitation, roots; a ``ping`` is an event: no resumption owes it)
  ``IssueServerRequest``, a ``notifications/cancelled`` of a pending request
  ``CancelRequest``, the response to the request that opened the stream ``Respond`` (which
  ends the stream; a response elsewhere is an ``EmitEvent``, judged so). What a GET delivers at once (the events that arrive within
  ``REPLAY_WINDOW`` seconds of its response head, all of them in a HAR file, whose
  events carry no times) is the ``Reconnect``'s own observation: its replay or
  its re-emitted requests. An event replayed that the log never showed before
  was sent while no connection was open: it is placed on its stream just
  before the ``Reconnect`` (the spec's server sent it there).
- An exchange's end: after the response, nothing more (``Respond`` ended the stream);
  before -> ``CloseConnection``; the client went away -> ``DropConnection``.

What the server may do unseen is assumed and said (``Validation.assumed``): a
refused cursor of a retained stream is a ring buffer's eviction; a 404 for a session
the log shows live is the server having ended it (MCP B33), so that a later answer
for it other than 404 FAILs ``unknown-session-404``; a DELETE's end of the
session's open streams is what the log shows ending within ``REPLAY_WINDOW``.

What the log cannot show is left open, never guessed: a session whose
``initialize`` is not in the log (its exchanges are not judged), a step the
spec does not allow from the state the log implies (the log is missing
something: the rest of that session is not judged). A rule that only such
exchanges touched is INCONCLUSIVE with the reason; a rule no judged step
touched is SKIP; a rule touched and never broken is PASS.

``validate(records, profile) -> Validation``; no I/O.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import Any

from mcp_resume.spec import actions as a
from mcp_resume.spec.catalog import AGREEMENT, RULES
from mcp_resume.spec.decision import Branch
from mcp_resume.spec.headers import MALFORMED_EVENT, MALFORMED_SESSION, is_well_formed, names_no_revision
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.state import SessionStatus, State
from mcp_resume.spec.trace import Failure, Trace
from mcp_resume.spec.transitions import Delivered, Observation, ended_at_will, step
from mcp_resume.spec.verdicts import Verdict, verdict_for_finding, worst

from mcp_resume.model.harness.checker import Checker, SpecSanityError, StepReport
from mcp_resume.model.servers.idmap import IdMap
from mcp_resume.model.http.evidence import End, ErrorKind, SseEvent, error_code
from mcp_resume.model.traffic.compact import MESSAGE_DATA, RELATED_TASK
from mcp_resume.model.traffic.records import Record

EVERY_RULE = frozenset(rule.id for rule in RULES)
"""What a step the log implies but no client sent judges: nothing (``_follow_minted``)."""

UNKEPT = Observation()
"""What a lean validation keeps of a step's expected and observed observations (``validate``'s ``lean``)."""

REPLAY_WINDOW = 1.0
"""Seconds after a GET's response head within which its events count as the replay or
re-emission the GET itself caused; later ones are the server's new messages."""

OVERSIZED_HEADER_CHARS = 1024
"""An ``Mcp-Session-Id`` or ``Last-Event-ID`` longer than this is oversized: a server may refuse
it with any 4xx (a cap on ids, 400 or 431); what it may not do is answer 2xx or 5xx, or mint a
session for it."""

UNRESUMABLE = frozenset({"expiry-independent", "no-duplicate-tool-call"})
"""Rules about what a resumable stream's life owes the client: in a log where no event carries an
id (MCP B22), nothing can be resumed, so a stream's expiry is nothing a client can see, and a
dropped call's result is lost whatever the server answers; they are judged only by a finding."""

BLIND_WITHOUT_IDS = frozenset({"no-cross-session"})
"""Rules about replays of other streams' events: in a log where no event carries an id (MCP B22
lets a server omit them) nothing can be replayed, so the rule is judged only by a finding (a
response, known by the client's own request id wherever it goes, still shows a leak:
``_event_id``). ``no-replay-on-session-resume`` and ``server-request-ownership`` stay judged:
a session resumption and a server request are there to judge."""

QUIET_SECONDS = 5.0
"""Under ``boundary``: seconds a session must have been idle (no answer in 2xx, no event on
one of its streams, no connection of it open) before a 404 for it is read as the server
having ended it unseen (MCP B33: an idle timeout, which ``boundary`` allows too). Sooner, the
404 is judged as it stands (``expiry-independent``): a server that forgets a session it was
serving a moment ago, right after one of its streams dropped or expired, is the bug the
boundary profile is about. Real idle timeouts are minutes; five seconds is far above the
moment such a server takes to forget, and far below any idle timeout a server announces."""

@dataclass(slots=True)
class Placed:
    """One judged step: the spec action, the records it came from, and its report."""

    action: a.Action
    records: tuple[int, ...]
    report: StepReport


@dataclass
class RuleResult:
    rule: str
    verdict: Verdict
    reason: str
    steps: list[Placed] = field(default_factory=list)
    allowed: bool = False  # a PASS whose steps show what the profile allows and a stricter one may not

    def to_json(self, steps: bool = True) -> dict[str, Any]:
        """``{"rule", "verdict", "reason", "exchanges", "steps"}``; ``steps=False`` leaves the steps
        out, for a writer that adds them one at a time (``step_json``)."""
        item = {
            "rule": self.rule, "verdict": self.verdict.value, "reason": self.reason,
            "exchanges": sorted({n for s in self.steps for n in s.records}),
        }
        if steps:
            item["steps"] = [self.step_json(s) for s in self.steps]
        return item

    def step_json(self, step: Placed) -> dict[str, Any]:
        """``{"step", "action", "exchanges", "findings"}`` of one of this rule's steps (its findings under this rule)."""
        return {"step": step.report.number, "action": step.action.kind, "exchanges": list(step.records),
                "findings": [f.message for f in step.report.findings if f.rule == self.rule]}


@dataclass
class Validation:
    profile: Profile
    results: list[RuleResult]
    steps: list[Placed]
    open: list[str]  # exchanges the log did not let us judge, one line each
    assumed: list[str] = field(default_factory=list)  # what was assumed the server did unseen
    notes: list[str] = field(default_factory=list)  # differences from the spec that no catalog rule names
    state: State | None = None  # the spec state the log leaves (session era only)
    ids: IdMap | None = None  # the server's id of each spec handle in that state

    @property
    def failed(self) -> bool:
        return any(r.verdict is Verdict.FAIL for r in self.results)

    def verdicts_only(self) -> "Validation":
        """The same judgement holding only each rule's verdict and reason and the lines of what was
        left open, assumed and noted: what a report shows of the profile beside (steps, state and
        ids let go, so that a long log's two judgements are not held at once)."""
        return Validation(self.profile, [RuleResult(r.rule, r.verdict, r.reason, allowed=r.allowed) for r in self.results], [],
                          self.open, self.assumed, self.notes)

    def result(self, rule: str) -> RuleResult:
        return next(r for r in self.results if r.rule == rule)

    def trace(self, rule: RuleResult) -> Trace | None:
        """The spec trace (``mcp-resume-trace/1``, what ``mcp-resume replay`` runs) of the judged
        steps up to ``rule``'s first broken one, that step marked as the failure; ``None`` when
        ``rule`` broke nowhere. Its handles are the spec's (``S1``, ``T2``...), not the log's ids."""
        broken = next((s for s in rule.steps if any(f.rule == rule.rule for f in s.report.findings)), None)
        if broken is None:
            return None
        upto = next(i for i, s in enumerate(self.steps) if s is broken) + 1
        finding = next(f for f in broken.report.findings if f.rule == rule.rule)
        meta = {"exchanges": sorted({n for s in self.steps[:upto] for n in s.records})}
        return Trace(tuple(s.action for s in self.steps[:upto]), self.profile,
                     Failure(upto, rule.rule, finding.message), "validate", meta)


class _Recorded:
    """The server under test of a validation: it answers each action with the
    observation the log recorded for it (``next``), in the server's ids."""

    name = "recorded"

    def __init__(self) -> None:
        self.next: Observation | None = None

    def apply(self, action: a.Action) -> Observation:
        observed, self.next = self.next, None
        return observed if observed is not None else Observation()


class _Timeline:
    """The walk over the records' moments, building and judging spec steps."""

    def __init__(self, profile: Profile, complete: bool = False, session_ttl: float | None = None,
                 lean: bool = False, bounded_waits: bool = False) -> None:
        self.lean = lean  # keep of each step only what verdicts and reports read (``validate``'s ``lean``)
        self.shared: dict = {}  # equal small values the steps share, one copy each (lean)
        self.session_ttl = session_ttl  # seconds a session lives idle, as the server states it (``verify --session-ttl``)
        self.complete = complete  # the log holds every session the client made: an id it never saw issued is unknown
        self.bounded_waits = bounded_waits  # the client bounded its own waits: a GET it waited for in vain went unanswered
        self.without_sessions = False  # an initialize was answered without a session id: the server uses none
        self.server = _Recorded()
        self.checker = Checker(self.server, profile, fail_on=frozenset(), keep_reports=not lean)
        self.steps: list[Placed] = []
        self.open: list[str] = []  # exchanges not judged, and why
        self.assumed: list[str] = []  # what the validation assumed the server did unseen
        self.stream_of: dict[int, str] = {}  # record number -> server stream key
        self.event_stream: dict[str, str] = {}  # an event's name (``_name``) -> server stream key
        self.owners: dict[str, set[str]] = {}  # a server event id -> the sessions whose event it named
        self.ids_per_session = False  # the server counts event ids per session (``ids_per_session``)
        self.request_owners: dict[str, set[str]] = {}  # a server request's JSON-RPC id -> the sessions that issued one
        self.requests_per_session = False  # the server numbers its requests per session (``requests_per_session``)
        self.asked: dict[str, set[str]] = {}  # a client request's JSON-RPC id (``repr``) -> the sessions that sent it
        self.request_keys: dict[tuple, str] = {}  # (session, "id" or "progress", repr) -> the stream its request opened
        self.sessions: set[str] = set()  # server session ids whose initialize the log shows
        self.unjudged: set[str] = set()  # sessions whose rest is not judged
        self.unjudged_records: set[int] = set()  # exchanges of those sessions
        self.unjudged_events: set[str] = set()  # names of the events seen only on those exchanges
        self.replayed: dict[int, set[int]] = {}  # GET record -> indices of the events its Reconnect delivered
        self.requests_seen: set[str] = set()  # server request ids delivered so far, scoped by session (``_scoped``)
        self.session_of_stream: dict[str, str | None] = {}  # server stream key -> the session its connection was opened under
        self.records: dict[int, Record] = {}  # record number -> record, once started
        self.alive_at: dict[str, float] = {}  # server session id -> its last sign of life
        self.now = 0.0  # the time of the moment being judged
        self.key_of: dict[int, str] = {}  # record number -> the server stream key it opened or resumed
        self.every_record: list[Record] = []  # for what a promise says was sent before it showed
        self.resumable = False  # some event of the log carries an id: the server offers resumption
        self.names: dict[int, str] = {}  # id() of an event sent without an SSE id -> the name it is judged under
        self.unnamed_count = 0  # events named so far for want of an SSE id
        self.negotiated: set[str] = set()  # the protocolVersion of every initialize answer in the log

    @property
    def seen_events(self):
        """The names (``_name``) of the events delivered so far (the keys of ``event_stream``), a set-like view."""
        return self.event_stream.keys()

    # -- placing one step ------------------------------------------------------------

    def place(self, action: a.Action, observed: Observation, records: tuple[int, ...], session: str | None,
              unjudged: frozenset[str] = frozenset()) -> bool:
        """Judge ``action`` with what the server was seen to do; ``unjudged``: rules whose check
        cannot fail on this step whatever the spec thinks (e.g. an id the log made up)."""
        if session is not None and session in self.unjudged:
            return False
        if not self.resumable:
            unjudged |= UNRESUMABLE | BLIND_WITHOUT_IDS
        if action.side == "client" and not isinstance(action, a.Initialize) and _version_of_no_revision(
                self.records[records[0]]):
            observed = replace(observed, version_unsupported=True)  # its answer is unsupported-version-400's
        elif observed.status == 404 and action.side == "client":
            self._assume_ended(action, records, session)
        if not self.checker.enabled(action):
            if session is not None:
                self.unjudged.add(session)
            self.open.append(f"exchange {records[0]}: {action.kind} does not follow from what the log shows of "
                             f"session {session!r} (something happened unseen): the rest of it is not judged")
            return False
        self.server.next = observed
        if self.lean:  # equal actions are one value (``EmitEvent`` of a stream, event after event)
            action = self.shared.setdefault(action, action)
        try:
            report = self.checker.apply(action)
        except SpecSanityError as error:
            self.open.append(f"exchange {records[0]}: {error}")
            return False
        if unjudged & report.judged:
            report = replace(report, judged=report.judged - (unjudged - {f.rule for f in report.findings}))
        if self.lean:
            report, records = self._lean(report), self.shared.setdefault(records, records)
        self.steps.append(Placed(action, records, report))
        return True

    def _lean(self, report: StepReport) -> StepReport:
        """``report`` without what the server was expected to do and did (``UNKEPT`` in their
        place), its set of judged rules shared with the equal ones of other steps."""
        return replace(report, expected=UNKEPT, observed=UNKEPT, judged=self.shared.setdefault(report.judged, report.judged))

    def _leave_unanswered(self, record: Record) -> None:
        """An exchange the server never answered (the upstream unreachable through the proxy,
        an aborted request in a HAR file): what the server did with it is unknown, so the rest
        of its session is not judged."""
        x = record.exchange
        session = _session_of(record)
        self.open.append(f"exchange {record.number}: no answer from the server ({x.error or 'none recorded'}): "
                         + ("the rest of its session is not judged" if session else "not judged"))
        self.unjudged_records.add(record.number)
        if session is not None:
            self.unjudged.add(session)

    def _alive(self, record: Record) -> None:
        session = _session_of(record)
        if session is not None:
            self.alive_at[session] = self.now

    def _open_streams_of(self, session: str | None) -> list[int]:
        """The records, in order, whose stream the log still has open in ``session``."""
        return sorted(n for n in self.stream_of if _session_of(self.records[n]) == session)

    def _assume_ended(self, action: a.Action, records: tuple[int, ...], session: str | None) -> None:
        """A 404 for a session the log shows live: MCP lets a server end a session at any time
        (B33), which the log cannot show. Under an MCP revision, assume it ended the session
        just before (with the connections of it the log still has open), and say so: a later
        answer for it other than 404 is then the failure; as the spec reads it
        (``spec.transitions.ended_at_will``: not for a cursor the session cannot resume, nor
        while a call of it is unfinished). Under ``boundary``, whose
        ``expiry-independent`` holds a session's life apart from its streams', only after
        ``QUIET_SECONDS`` without a sign of life and with no connection of it open (a session
        idle that long may have timed out)."""
        spec_session = getattr(action, "session", None)
        known = self.checker.state.session(spec_session) if spec_session is not None else None
        if known is None or known.status is not SessionStatus.LIVE:
            return
        idle = 0.0 if self._open_streams_of(session) else self.now - self.alive_at.get(session, float("-inf"))
        timed_out = self.session_ttl is not None and idle >= self.session_ttl  # the server said it would
        at_will = ended_at_will(self.checker.state, action, 404, self.checker.profile) is not None
        if not timed_out and idle < QUIET_SECONDS and not at_will:
            return
        still_open = self._open_streams_of(session)
        observed = Observation(closed=tuple(self.stream_of[n] for n in still_open))
        if self.place(a.ExpireSession(spec_session), observed, records, session):
            for number in still_open:
                self.stream_of.pop(number)
            self.assumed.append(f"exchange {records[0]}: the 404 for session {session!r}, live as far as the log "
                                "shows, is read as the server having ended it unseen (MCP B33: it may, at any time)")

    def handle(self, server_id: str | None) -> str | None:
        return self.checker.ids.handle(server_id)

    # -- requests --------------------------------------------------------------------

    def start(self, record: Record) -> None:
        self.records[record.number] = record
        x = record.exchange
        if _unanswered(record) and not (self.bounded_waits and _silent_get(record)):
            self._leave_unanswered(record)
            return
        if x.method == "POST" and isinstance(x.request_body, str):
            self.open.append(f"exchange {record.number}: its request body is not JSON (a HAR export may cut or "
                             "encode it): not judged")
            self.unjudged_records.add(record.number)
            return
        if x.status is not None and 200 <= x.status < 300:
            self._alive(record)
        session = x.request_headers.get("mcp-session-id")
        spec_session = self._session_handle(session)
        if session is not None and is_well_formed(session) and session not in self.sessions and not self.complete:
            self.open.append(f"exchange {record.number}: session {session!r} began before the recording "
                             "(its initialize is not in the log): not judged")
            self.unjudged.add(session)
            self.sessions.add(session)
        if session in self.unjudged:
            self.unjudged_records.add(record.number)
            return
        if _oversized_refused(x):
            self.assumed.append(f"exchange {record.number}: a header value longer than {OVERSIZED_HEADER_CHARS:,} "
                                f"characters refused with {x.status}: any 4xx is acceptable for it")
            return
        body = x.request_body
        initialize = x.method == "POST" and isinstance(body, dict) and body.get("method") == "initialize"
        if initialize and x.status == 200 and "mcp-session-id" not in x.response_headers:
            self.without_sessions = True
            self.assumed.append(f"exchange {record.number}: initialize issued no Mcp-Session-Id (B28: MAY); the "
                                "requests without one are not judged by the session rules")
        if self.without_sessions and session is None:
            self.unjudged_records.add(record.number)
            return
        if initialize:
            minted = x.response_headers.get("mcp-session-id")
            if self.place(a.Initialize(), Observation(x.status, session=minted), (record.number,), None) and minted:
                self.sessions.add(minted)
                if not is_well_formed(minted):
                    self._leave_malformed(record, minted)
        elif x.method == "POST" and isinstance(body, dict) and "method" in body and "id" in body:
            self._call(record, spec_session, session)
        elif x.method == "POST" and isinstance(body, dict) and "id" in body and ("result" in body or "error" in body):
            request = self.handle(self._request_name(body["id"], session))
            self.place(a.AnswerRequest(spec_session, request), Observation(x.status, session=_named(x)),
                       (record.number,), session)
        elif x.method == "GET":
            self._reconnect(record, spec_session, session)
        elif x.method == "DELETE":
            self._delete(record, spec_session, session)
        if not initialize:
            self._follow_minted(record)

    def _leave_malformed(self, record: Record, minted: str) -> None:
        """A session minted with an id outside 0x21-0x7E (MCP B30) is judged on its
        ``initialize`` (new-session-on-initialize); its later requests would each be judged as
        a stranger's malformed id, a second finding of the same fault, so they are not judged."""
        self.unjudged.add(minted)
        self.open.append(f"exchange {record.number}: session {minted!r} was minted malformed (MCP B30): "
                         "the rest of it is not judged")

    def _follow_minted(self, record: Record) -> None:
        """A request that is not ``initialize`` answered 2xx with a new ``Mcp-Session-Id`` (a
        server that mints a session for an orphan ``Last-Event-ID``, say: its own rule's finding,
        judged on that step): the server made that session, so the spec follows it, unjudged, and
        the session's later use is judged as any live session's, not as an unknown id's."""
        x = record.exchange
        minted = _named(x)
        if x.status is None or not 200 <= x.status < 300 or minted is None or not is_well_formed(minted) \
                or minted in self.sessions:
            return
        if self.place(a.Initialize(), Observation(200, session=minted), (record.number,), None, EVERY_RULE):
            self.sessions.add(minted)
            self.assumed.append(f"exchange {record.number}: the server made session {minted!r} for a request "
                                "that was no initialize; it is followed as the live session it is")

    def _delete(self, record: Record, spec_session, session) -> None:
        """A DELETE that ends the session also ends its open streams: those whose end the log shows
        within ``REPLAY_WINDOW`` seconds of the DELETE's answer are the ``closed`` of its observation."""
        x = record.exchange
        closed = self._ended_with(record, session) if x.status is not None and 200 <= x.status < 300 else []
        observed = Observation(x.status, session=_named(x), closed=tuple(self.stream_of[n] for n in closed))
        if self.place(a.DeleteSession(spec_session), observed, (record.number, *closed), session):
            for number in closed:
                self.stream_of.pop(number)

    def _ended_with(self, delete: Record, session: str | None) -> list[int]:
        answered = delete.ended if delete.ended is not None else delete.started
        return [n for n in self._open_streams_of(session) if (ended := self.records[n].ended) is not None
                and delete.started <= ended <= answered + REPLAY_WINDOW]

    def _session_handle(self, session: str | None) -> str | None:
        if session is None:
            return None
        never_issued_oversized = len(session) > OVERSIZED_HEADER_CHARS and session not in self.sessions
        return self.handle(session) if is_well_formed(session) and not never_issued_oversized else MALFORMED_SESSION

    def _call(self, record: Record, spec_session, session) -> None:
        x = record.exchange
        key = self.key_of[record.number] = f"x{record.number}"
        self.session_of_stream[key] = session
        body = x.request_body
        self.request_keys.setdefault((session, "id", repr(body.get("id"))), key)
        if _progress_token_of(body) is not None:
            self.request_keys.setdefault((session, "progress", repr(_progress_token_of(body))), key)
        if x.status == 200:
            primed = _primed(x)  # D8 is a SHOULD whether or not the server keeps events
            observed = Observation(200, session=_named(x), stream=key, primed=primed)
        else:
            observed = Observation(x.status, session=_named(x), error=error_code(x.body))
        if self.place(a.CallTool(spec_session), observed, (record.number,), session) and x.status == 200:
            self.stream_of[record.number] = key
            if x.content_type != "text/event-stream":
                self._json_answer(record, key, session)

    def _json_answer(self, record: Record, key: str, session) -> None:
        """A POSTed request answered with one JSON object (MCP B7): a stream that delivers that
        response and ends (so a later replay of it is known, by the client's own request id);
        any other body, a stream the client never reads (it drops the connection)."""
        x = record.exchange
        self.stream_of.pop(record.number)
        if not _answered_in_body(record):
            self._server_step(a.DropConnection(self.handle(key)), Observation(closed=(key,)), record, session)
            return
        body = SseEvent(None, "message", MESSAGE_DATA, message=x.body)
        self._server_event(body, key, record, session, unjudged=frozenset({"no-duplicate-tool-call"}))  # it is the answer

    def _reconnect(self, record: Record, spec_session, session) -> None:
        x = record.exchange
        cursor = x.request_headers.get("last-event-id")
        named = None if cursor is None else self._name(cursor, session)
        if named is not None and named in self.unjudged_events:
            self.open.append(f"exchange {record.number}: Last-Event-ID {cursor!r} is an event of a session the log "
                             "does not show whole: not judged")
            if session is not None:
                self.unjudged.add(session)
            return
        spec_cursor = None if cursor is None else (self.handle(named) if is_well_formed(cursor) else MALFORMED_EVENT)
        if x.status != 200:
            version_refused = self._version_refused(record)
            if x.status is not None and 400 <= x.status < 500 and x.status != 404 and not version_refused \
                    and not _version_of_no_revision(record):
                self._assume_evicted(record, spec_cursor, session)
            refused = Observation(x.status, session=_named(x), error=error_code(x.body), version_refused=version_refused)
            self.place(a.Reconnect(spec_session, spec_cursor), refused, (record.number,), session)
            return
        key = self.event_stream.get(named, f"x{record.number}") if named is not None else f"x{record.number}"
        self.session_of_stream.setdefault(key, session)
        burst = _burst(record, resumption=cursor is not None, sent_again=lambda e: self._sent_again(e, key),
                       seen=lambda e: (e.id is not None or _response_id(e) is not None)
                       and self._event_id(e, key) in self.seen_events)
        primed = cursor is None and _opens_with_priming(record)
        if primed and 0 not in burst:
            burst = [0, *burst]
        events = [record.exchange.events[i] for i in burst]
        if cursor is not None:
            self._unseen_before_replay(record, events, key, session)
        delivered = tuple(self._delivered(e, key) for e in events if primed and e is events[0] or not e.is_priming)
        observed = Observation(200, session=_named(x), stream=key, events=delivered, primed=primed or None,
                               version_refused=self._version_refused(record))
        if self.place(a.Reconnect(spec_session, spec_cursor), observed, (record.number,), session):
            self.stream_of[record.number] = self.key_of[record.number] = key
            self.replayed[record.number] = set(burst)
            for event in events:
                self._saw(event, key)

    def _version_refused(self, record: Record) -> bool | None:
        """For a GET that carried a negotiated ``MCP-Protocol-Version``: ``True`` when it was
        refused 400 and the same GET without the header was served in the log (C40), ``False``
        when it was answered as MCP allows a GET (an SSE stream or 405, B15) or the same GET
        without the header was refused 400 too, ``None`` when the log cannot tell."""
        x = record.exchange
        if x.request_headers.get("mcp-protocol-version") not in self.negotiated:
            return None
        if x.status in (200, 405):
            return False
        if x.status != 400:
            return None
        same = ("mcp-session-id", "last-event-id")
        bare = {other.exchange.status for other in self.every_record
                if other.exchange.method == x.method and "mcp-protocol-version" not in other.exchange.request_headers
                and all(other.exchange.request_headers.get(h) == x.request_headers.get(h) for h in same)}
        if 200 in bare:
            return True
        return False if 400 in bare else None  # refused without the header too: not for the header

    def _assume_evicted(self, record: Record, spec_cursor: str | None, session) -> None:
        """A stream resumption refused as branch 3 where the spec would replay: the
        server may keep only a suffix of the stream (a ring buffer, docs/design.md §2), which
        the log cannot show. Assume it evicted events up to the cursor, and say so."""
        state = self.checker.state
        event = state.event(spec_cursor) if spec_cursor is not None else None
        action = a.Reconnect(self._session_handle(record.exchange.request_headers.get("mcp-session-id")), spec_cursor)
        if event is None or not self.checker.enabled(action):
            return
        outcome = step(state, action, self.checker.profile).outcome
        if outcome is None or outcome.branch is not Branch.STREAM_RESUMPTION:
            return
        evicted = 0
        while event in self.checker.state.retained_events(event.stream):
            if not self.place(a.EvictEvent(event.stream), Observation(), (record.number,), session):
                return
            evicted += 1
        self.assumed.append(f"exchange {record.number}: the refusal of a retained cursor is read as the server "
                            f"having evicted {evicted} events of its stream (the log cannot show a ring buffer)")

    def _unseen_before_replay(self, record: Record, burst: list[SseEvent], key: str, session) -> None:
        """Events a stream resumption replays that the log never showed were sent while
        the stream had no connection: the spec's server sends them first."""
        for event in burst:
            if event.id is None or self._name(event.id, session) in self.seen_events or event.is_priming \
                    or self._sent_again(event, key):
                continue
            self._server_event(event, key, record, session, delivered=False)

    # -- server messages and ends ----------------------------------------------------

    def event(self, record: Record, index: int) -> None:
        event = record.exchange.events[index]
        self._alive(record)
        session = record.exchange.request_headers.get("mcp-session-id")
        if record.number in self.unjudged_records and event.id is not None:
            self.unjudged_events.add(self._name(event.id, _session_of(record)))
            self.owners.setdefault(event.id, set()).add(_session_of(record) or "-")
        if index in self.replayed.get(record.number, ()) or record.number not in self.stream_of:
            return
        key = self.stream_of[record.number]
        if event.id is not None and self.event_stream.get(self._name(event.id, session)) == key:
            return  # delivered again on its own stream: a replay, judged with the answer that replayed it
        self._server_event(event, key, record, session)
        if _is_response(event, record):  # the call is over: its response ended its stream (MCP B13)
            self.stream_of.pop(record.number, None)

    def _server_event(self, event: SseEvent, key: str, record: Record, session, delivered: bool = True,
                      unjudged: frozenset[str] = frozenset()) -> None:
        item = self._delivered(event, key)
        events = (item,) if delivered else ()
        if event.method == "notifications/cancelled" and item.cancels is not None:
            action = a.CancelRequest(self.handle(item.cancels))
            observed = Observation(event=item.event, events=events)
        elif event.is_input_request:
            action = a.IssueServerRequest(self.handle(key))
            observed = Observation(event=item.event, request=item.request, events=events,
                                   about=None if _for_a_task(event) else self._call_it_serves(key, session))
        else:
            about = self._request_stream(event, session)
            response = about is not None and _response_id(event) is not None
            own = response and about == key and self.checker.enabled(a.Respond(self.handle(key)))
            action = a.Respond(self.handle(key)) if own else a.EmitEvent(self.handle(key))
            closed = (key,) if own and delivered else ()  # a response ends its own stream (MCP B11, D11)
            observed = Observation(event=item.event, events=events, about=about, response=response, closed=closed)
        if event.id is None:
            unjudged |= {"event-id-unique"}  # the log named it
        self.place(action, observed, (record.number,), session, unjudged)
        self._saw(event, key)

    def _request_stream(self, event: SseEvent, session) -> str | None:
        """The stream key of the client request ``event`` is about, told by the client's own ids: a
        response by its JSON-RPC id, a progress notification by its ``progressToken``; ``None`` when
        the event names neither, or no request of ``session`` with it opened a stream."""
        answered = _response_id(event)
        if answered is not None:
            return self.request_keys.get((session, "id", repr(answered)))
        token = _progress_token(event)
        return None if token is None else self.request_keys.get((session, "progress", repr(token)))

    def _call_it_serves(self, key: str, session) -> str | None:
        """For an input request that came on a GET stream: the stream of the one tools/call of
        the session still running on an SSE stream (its response not seen yet), which it must
        be about (sampling, elicitation and roots answer a running request, B17); ``None`` when
        it came on a POST stream, or no call or several are running (nobody can tell)."""
        record = self.records.get(int(key[1:])) if key.startswith("x") and key[1:].isdigit() else None
        if record is None or record.exchange.method != "GET":
            return None
        running = [self.stream_of[n] for n in self._open_streams_of(session)
                   if self._is_running_call(self.records[n])]
        return running[0] if len(running) == 1 else None

    def _is_running_call(self, record: Record) -> bool:
        x = record.exchange
        body = x.request_body
        calling = x.method == "POST" and isinstance(body, dict) and body.get("method") == "tools/call"
        return calling and x.content_type == "text/event-stream" and not self._responded(body.get("id"), _session_of(record))

    def _server_step(self, action, observed: Observation, record: Record, session, soft: bool = False) -> None:
        """Place a server or network step; a ``soft`` one (the end of a connection the
        spec may already have closed) is dropped quietly when the spec does not allow it."""
        if soft and not self.checker.enabled(action):
            return
        self.place(action, observed, (record.number,), session)

    def expire(self, record: Record) -> None:
        """The time to live the server states (``verify --stream-ttl`` / ``--session-ttl``) ran
        out for what ``record`` opened: its stream expires, or the session its ``initialize``
        opened ends (MCP B33), with the connections of it still open."""
        x = record.exchange
        session = _session_of(record)
        if isinstance(x.request_body, dict) and x.request_body.get("method") == "initialize":
            still_open = self._open_streams_of(session)
            action = a.ExpireSession(self.handle(session))
            observed = Observation(closed=tuple(self.stream_of[n] for n in still_open))
        elif record.number in self.key_of:
            still_open, action, observed = [], a.ExpireStream(self.handle(self.key_of[record.number])), Observation()
        else:
            return
        if self.checker.enabled(action) and self.place(action, observed, (record.number,), session):
            for number in still_open:
                self.stream_of.pop(number, None)
            self.assumed.append(f"exchange {record.number}: {action.kind} when the time to live the server "
                                "states ran out (--stream-ttl / --session-ttl)")

    def promise(self, record: Record) -> None:
        """By the definition of the fixture tool whose stream ``record`` opened or resumed, the
        server has sent every event of that stream by now, its response included. Events the
        log shows only later, in a replay of the stream, are placed here, on the stream's
        connection then open if any (where they should have arrived: ``live_delivery`` judges
        that); a response the log never shows is placed here unseen, so that a resumption
        after now must replay it."""
        key = self.key_of.get(record.number)
        if key is None:
            return
        session = _session_of(record)
        for later in self.every_record:
            cursor = later.exchange.request_headers.get("last-event-id")
            if later.started <= self.now or later.exchange.method != "GET" or cursor is None:
                continue
            scope = _session_of(later)
            if self.event_stream.get(self._name(cursor, scope)) != key:
                continue
            for event in later.exchange.events:
                if event.id is not None and self._name(event.id, scope) not in self.seen_events and not event.is_priming:
                    self._server_event(event, key, record, session, delivered=False)
        call = self._call_of(key)
        if call is not None and not self._responded(call, session):
            due = SseEvent(f"(the response to {call}, due by now)", "message", "{}",
                           message={"jsonrpc": "2.0", "id": call, "result": {}})
            self._server_event(due, key, record, session, delivered=False)
        self.assumed.append(f"exchange {record.number}: by the definition of the fixture tool, the rest of its "
                            "stream, its response included, was due on this connection")

    def _call_of(self, key: str):
        """The JSON-RPC id of the client request whose POST opened stream ``key``, if any."""
        record = self.records.get(int(key[1:])) if key.startswith("x") and key[1:].isdigit() else None
        body = record.exchange.request_body if record is not None else None
        return body.get("id") if isinstance(body, dict) and "method" in body else None

    def _responded(self, call, session: str | None) -> bool:
        """A response to ``session``'s request ``call`` reached the log by now, or in a replay placed
        by now (JSON-RPC ids are the client's, scoped by its session: another session may use the same)."""
        return any(e.is_response_to(call) and (e.id is not None and self._name(e.id, session) in self.seen_events
                                                or at <= self.now)
                   for r in self.every_record if _session_of(r) == session
                   for e, at in zip(r.exchange.events, r.arrivals))

    def end(self, record: Record) -> None:
        status = record.exchange.status
        if status is not None and 200 <= status < 300:
            self._alive(record)  # a connection of the session was open until now
        key = self.stream_of.pop(record.number, None)
        if key is None:
            return
        session = _session_of(record)
        action = a.CloseConnection(self.handle(key))
        if record.exchange.end is not End.CLOSED or not self.checker.enabled(action):
            # before 2025-11-25 a server does not close a POST stream's connection before the response
            # (B10): on the wire that close is the same as a drop, which the judge places instead
            action = a.DropConnection(self.handle(key))
        closing = isinstance(action, a.CloseConnection)
        retry, cursor = (self._retry_sent(key), self._cursor_sent(key)) if closing else (None, None)
        self._server_step(action, Observation(closed=(key,), retry=retry, cursor=cursor), record, session, soft=True)

    def _retry_sent(self, key: str) -> bool:
        """An event of stream ``key`` carried the SSE ``retry`` field on one of its connections so far
        (the walk has begun only those that began before the close it judges; MCP D10, D23)."""
        return any(self.records[number].exchange.retry is not None
                   or any(e.retry is not None for e in self.records[number].exchange.events)
                   for number, k in self.key_of.items() if k == key)

    def _cursor_sent(self, key: str) -> bool:
        """An event of stream ``key`` with an id came on one of its connections so far: a
        ``Last-Event-ID`` its client can resume from (MCP D9)."""
        return any(e.id is not None for number, k in self.key_of.items() if k == key
                   for e in self.records[number].exchange.events)

    def _sent_again(self, event: SseEvent, key: str) -> bool:
        """A server request of the session delivered before, now under a new event id: a
        re-emission (or a re-send), which belongs to the answer that carries it."""
        return event.is_input_request and self._scoped(event.request_id, key) in self.requests_seen

    def _scoped(self, request_id, key: str) -> str:
        """A server request's JSON-RPC id, delivered on a connection of stream ``key``, as the spec's
        server id (``_request_name``)."""
        return self._request_name(request_id, self.session_of_stream.get(key))

    def _request_name(self, request_id, session: str | None) -> str:
        """A server request's JSON-RPC id as the spec's server id: scoped by the session that issued
        it, since a server may number its requests per session (two sessions' first requests may
        both be ``0``): ``session``'s own, unless ``session`` never had it and exactly one other
        session did while the server's request ids are unique across sessions
        (``requests_per_session`` is off)."""
        text = str(request_id)
        scope = _owner(text, session, self.request_owners, self.requests_per_session)
        return f"{scope}#{text}"

    def _delivered(self, event: SseEvent, key: str) -> Delivered:
        request = self._scoped(event.request_id, key) if event.is_input_request else None
        cancels = self._scoped(event.cancels, key) if event.cancels is not None else None
        return Delivered(self._event_id(event, key), request, key, cancels)

    def _event_id(self, event: SseEvent, key: str) -> str:
        """The event's name (``_name``) as delivered on a connection of stream ``key``; for an
        event sent without an SSE id (MCP lets a server omit it, B22), a name of its own that no
        client can send back as ``Last-Event-ID``."""
        answered = _response_id(event)
        if event.id is not None:
            session = self.session_of_stream.get(key)
            asker = _owner(repr(answered), session, self.asked, False) if answered is not None else None
            if asker is not None and asker != (session or "-") and self.ids_per_session:
                return f"{asker}#{event.id}"  # per-session ids say nothing; the request id says whose it is
            return self._name(event.id, session)
        if answered is not None:  # known by the client's own request id, wherever it goes
            scope = _owner(repr(answered), self.session_of_stream.get(key), self.asked, False)
            return f"{scope}#(the response to {answered!r})"
        name = self.names.get(id(event))
        if name is None:
            self.unnamed_count += 1
            name = self.names[id(event)] = f"(event {self.unnamed_count} without an id)"
        return name

    def _name(self, event_id: str, session: str | None) -> str:
        """A server's event id as the spec's server id: scoped by the session it belongs to, since
        event ids are unique within a session, not across sessions (MCP B23/D27: two sessions may
        both count ``1, 2, 3``). An id seen or presented under session S is S's, unless S never had
        it and exactly one other session did while the server's ids are unique across sessions
        (``ids_per_session`` is off): then it is that session's event, delivered to S
        (``no-cross-session`` judges it)."""
        return f"{_owner(event_id, session, self.owners, self.ids_per_session)}#{event_id}"

    def _saw(self, event: SseEvent, key: str) -> None:
        if event.is_input_request:
            name = self._scoped(event.request_id, key)
            self.requests_seen.add(name)
            self.request_owners.setdefault(str(event.request_id), set()).add(name[: -len(str(event.request_id)) - 1])
        if event.id is not None or _response_id(event) is not None:
            name = self._event_id(event, key)
            self.event_stream.setdefault(name, key)
            if event.id is not None:
                self.owners.setdefault(event.id, set()).add(name[: -len(event.id) - 1])


def validate(records: list[Record], profile: Profile = Profile.BOUNDARY, *, complete: bool = False,
             session_ttl: float | None = None, lean: bool = False, bounded_waits: bool = False) -> Validation:
    """Judge ``records`` (in any order) against the spec under ``profile``; see the module docstring.

    ``complete``: the records hold every session their client ever used (``verify``'s own
    traffic), so a well-formed session id no record saw issued names no session (unknown,
    MCP B33/B34) instead of one that began before the recording. ``session_ttl``: the seconds
    a session lives idle, as the server states it: a 404 for a session idle that long is its
    expiry (MCP B33), under every profile. ``lean``: each step keeps its number, action, exchanges,
    findings and judged rules, not the observations expected and seen (``UNKEPT``): the same
    verdicts, reasons, traces and JSON report, in less memory for a long recording (``validate``).
    ``bounded_waits``: the records' client bounded every wait itself (``verify``), so a GET with no
    response head within its bound (``ErrorKind.FIRST_BYTE``) is judged as left unanswered (MCP B15:
    an SSE stream or 405), where a recording leaves it open (a proxy's upstream may be unreachable)."""
    timeline = _Timeline(profile, complete, session_ttl, lean, bounded_waits)
    timeline.every_record = records
    timeline.negotiated = set(negotiated_versions(records))
    timeline.resumable = any(e.id is not None for r in records for e in r.exchange.events)
    timeline.ids_per_session = ids_per_session(records)
    timeline.requests_per_session = requests_per_session(records)
    timeline.asked = client_requests(records)
    origin = _origin(records)
    for at, _, kind, record, index in moments_in_order(records, origin):
        timeline.now = at
        if kind == "start":
            timeline.start(record)
        elif kind == "event":
            timeline.event(record, index)
        elif kind == "expires":
            timeline.expire(record)
        elif kind == "promised":
            timeline.promise(record)
        else:
            timeline.end(record)
    return Validation(profile, results_of(timeline.steps, timeline.open, profile), timeline.steps, timeline.open,
                      timeline.assumed, notes_of(timeline.steps), timeline.checker.state, timeline.checker.ids)


def ids_per_session(records: list[Record]) -> bool:
    """Whether the server counts event ids per session (MCP B23/D27 require them unique within a
    session only): two sessions' POST response streams open with the same event id. A POST
    stream is new, so its first event is its session's own, whatever the server's bugs."""
    first: dict[str, str | None] = {}
    for record in records:
        x = record.exchange
        body = x.request_body
        if x.method != "POST" or not isinstance(body, dict) or "method" not in body or "id" not in body:
            continue
        event_id = next((e.id for e in x.events if e.id is not None), None)
        session = _session_of(record)
        if event_id is None or session is None:
            continue
        if first.setdefault(event_id, session) != session:
            return True
    return False


def requests_per_session(records: list[Record]) -> bool:
    """Whether the server numbers its server requests per session: two sessions' tool calls send
    their first server request under the same JSON-RPC id (a new request of the call's own session,
    whatever the server's bugs). A call's request is its own where it comes on the call's POST
    stream, or on the session's open GET stream after the session sent a call (``_own_request_ids``):
    a server that sends a call's requests on the GET stream (against B17) still numbers them, and
    what a GET stream carries as it opens (a re-emission, maybe another session's) is not counted."""
    calls: dict[str, list[float]] = {}
    for record in records:
        body = record.exchange.request_body
        if record.exchange.method == "POST" and isinstance(body, dict) and body.get("method") == "tools/call":
            calls.setdefault(_session_of(record), []).append(record.started)
    first: dict[str, str] = {}
    for record in records:
        session = _session_of(record)
        if session is None:
            continue
        for request_id in _own_request_ids(record, calls.get(session, ())):
            if first.setdefault(str(request_id), session) != session:
                return True
    return False


def _own_request_ids(record: Record, calls: Collection[float]) -> list:
    """The JSON-RPC ids of the server requests ``record`` carried that a call of its own session
    made: a POST stream's first one, or each one a GET stream carried after one of ``calls`` (when
    the session's tools/call requests were sent) went out while that GET stream was open."""
    x = record.exchange
    if x.method == "POST":
        first = next((e.request_id for e in x.events if e.is_input_request), None)
        return [] if first is None else [first]
    if x.method != "GET" or not record.timed or record.head is None:
        return []
    asked = [sent for sent in calls if sent > record.head]
    return [e.request_id for e, at in zip(x.events, record.arrivals)
            if e.is_input_request and any(sent < at for sent in asked)]


def client_requests(records: list[Record]) -> dict[str, set[str]]:
    """Each JSON-RPC id (its ``repr``) the client sent a request under -> the sessions that sent it."""
    asked: dict[str, set[str]] = {}
    for record in records:
        body = record.exchange.request_body
        if record.exchange.method == "POST" and isinstance(body, dict) and "method" in body and "id" in body:
            asked.setdefault(repr(body["id"]), set()).add(_session_of(record) or "-")
    return asked


def _owner(value: str, session: str | None, owners: dict[str, set[str]], per_session: bool) -> str:
    """The session ``value`` (an id seen under ``session``) belongs to: ``session``'s own, unless
    ``session`` never had it and exactly one other session did while such ids are unique across
    sessions (``per_session`` off): then that session's, delivered to ``session`` (or presented by
    it), which ``no-cross-session`` and ``server-request-ownership`` judge."""
    scope = session or "-"
    known = owners.get(value)
    if known and scope not in known and len(known) == 1 and not per_session:
        return next(iter(known))
    return scope


def _for_a_task(event: SseEvent) -> bool:
    """The message says it is sent for a task (``params._meta`` names the related task): a task's
    message may go on any SSE stream, the GET stream too (MCP D47), so it is about no running call."""
    params = event.message.get("params") if isinstance(event.message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and RELATED_TASK in meta


def _progress_token(event: SseEvent):
    """The ``progressToken`` of a ``notifications/progress`` event, else ``None``."""
    params = event.message.get("params") if isinstance(event.message, dict) else None
    return params.get("progressToken") if event.method == "notifications/progress" and isinstance(params, dict) else None


def _progress_token_of(body: dict):
    """The ``progressToken`` a client request asked progress under (``params._meta``), else ``None``."""
    params = body.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta.get("progressToken") if isinstance(meta, dict) else None


def _response_id(event: SseEvent):
    """The JSON-RPC id a response event answers, ``None`` for any other event."""
    message = event.message
    if isinstance(message, dict) and event.method is None and ("result" in message or "error" in message):
        return message.get("id")
    return None


def moments_of(records: list[Record], origin: float = 0.0):
    """Every moment of ``records`` as ``(seconds, order, kind, record, index)``: a start, each
    event's arrival, an end, and an exchange's ``expires``/``promised`` marks (monotonic
    seconds, made record time by subtracting ``origin``); sort by the first two fields."""
    for r in records:
        yield r.started, (r.number, 0), "start", r, 0
        for i, at in enumerate(r.arrivals):
            yield at, (r.number, 1 + i), "event", r, i
        if r.ended is not None:
            yield r.ended, (r.number, 1 + len(r.arrivals)), "end", r, 0
        for kind in ("expires", "promised"):
            at = getattr(r.exchange, kind)
            if at is not None:
                yield at - origin, (r.number, 2 + len(r.arrivals)), kind, r, 0


def moments_in_order(records: list[Record], origin: float = 0.0):
    """``moments_of(records, origin)`` sorted by their first two fields, equal ones in the order
    made (as ``sorted`` would), each exchange's moments made only when the walk reaches the first
    of them: the moments held at once are those of the exchanges under way, not of the whole log."""
    firsts = sorted((min(_moment_key(m, position, n) for n, m in enumerate(moments_of([r], origin))), position)
                    for position, r in enumerate(records))
    waiting: list = []  # (key, moment) of the exchanges reached, a heap
    for first, position in firsts:
        while waiting and waiting[0][0] < first:
            yield heapq.heappop(waiting)[1]
        for n, moment in enumerate(moments_of([records[position]], origin)):
            heapq.heappush(waiting, (_moment_key(moment, position, n), moment))
    while waiting:
        yield heapq.heappop(waiting)[1]


def _moment_key(moment, position: int, n: int) -> tuple:
    """The order of a moment: its seconds and order, then the place it was made in (the exchange's
    position among the records, its place among that exchange's moments), which no two share."""
    return moment[0], moment[1], position, n


def negotiated_versions(records: list[Record]) -> list[str]:
    """The ``protocolVersion`` of every answered ``initialize`` in ``records``, in the order sent."""
    versions = []
    for record in sorted(records, key=lambda r: (r.started, r.number)):
        body = record.exchange.request_body
        if isinstance(body, dict) and body.get("method") == "initialize":
            versions += [m["result"]["protocolVersion"] for m in record.exchange.messages
                         if isinstance(m, dict) and isinstance(m.get("result"), dict)
                         and isinstance(m["result"].get("protocolVersion"), str)]
    return versions


def _origin(records: list[Record]) -> float:
    """The monotonic time of second 0 of ``records`` made by ``records_of`` (``Exchange.started``
    is monotonic), 0 for records read from a file (their marks, if any, are in record time)."""
    timed = [r for r in records if r.exchange.started is not None]
    return min((r.exchange.started - r.started for r in timed), default=0.0)


def results_of(steps: list[Placed], left_open: list[str], profile: Profile) -> list[RuleResult]:
    """One result per catalog rule: FAIL/WARN where a step broke it (the catalog's verdict of
    its level under ``profile``), PASS where a step could have broken it and did not, else
    INCONCLUSIVE when the log left something open, SKIP when nothing in it applies."""
    results = []
    for rule in RULES:
        if rule.level(profile) is Level.NOT_APPLICABLE:
            results.append(RuleResult(rule.id, Verdict.SKIP, f"not applicable under {profile.value}"))
            continue
        broken = [s for s in steps if any(f.rule == rule.id for f in s.report.findings)]
        touched = [s for s in steps if _touches(rule.id, s)]
        if broken:
            worst = _worst(rule.id, profile, broken)
            shown = [s for s in broken if _worst(rule.id, profile, [s]) is worst]
            first = next(f for f in shown[0].report.findings if f.rule == rule.id)
            where = f"exchange {shown[0].records[0]}: {first.message}" + (f" (+{len(shown) - 1} more)" if len(shown) > 1 else "")
            if worst is Verdict.PASS:  # what the profile allows: a note, with the level that allows it
                level = rule.level(profile, first.case).value
                where = f"allowed under {profile.value} ({level}): {where}"
            results.append(RuleResult(rule.id, worst, where, broken if worst is not Verdict.PASS else touched or broken,
                                      allowed=worst is Verdict.PASS))
        elif touched:
            results.append(RuleResult(rule.id, Verdict.PASS, f"{len(touched)} step{'' if len(touched) == 1 else 's'} of the log held it", touched))
        elif left_open:
            results.append(RuleResult(rule.id, Verdict.INCONCLUSIVE, "no judged step touched it, and the log left "
                                      f"{len(left_open)} thing{'' if len(left_open) == 1 else 's'} open: {left_open[0]}"))
        else:
            results.append(RuleResult(rule.id, Verdict.SKIP, "the log has no step where it applies"))
    return results


def notes_of(steps: list[Placed]) -> list[str]:
    """The differences from the spec that no catalog rule names, one line each: a note,
    never a verdict (a finding is filed under the rule whose statement it breaks)."""
    return [f"exchange {s.records[0]}: {f.message}" for s in steps for f in s.report.findings
            if f.rule == AGREEMENT]


def _touches(rule: str, step: Placed) -> bool:
    return rule in step.report.judged


def _worst(rule: str, profile: Profile, steps: list[Placed]) -> Verdict:
    return worst(verdict_for_finding(f, profile) for s in steps for f in s.report.findings if f.rule == rule)


def _burst(record: Record, *, resumption: bool, sent_again, seen) -> list[int]:
    """Indices of the events the GET itself delivered: on a stream resumption every
    event of the first ``REPLAY_WINDOW`` seconds (the replay; all of them in a HAR
    file); on a session resumption the events that re-emit or cancel a server request
    delivered before (docs/design.md §2 branch 2) or deliver a past event again (a replay,
    which branch 2 must not do), each within ``REPLAY_WINDOW`` of the head or of the one
    before it (a server that re-emits several requests one by one)."""
    events, arrivals = record.exchange.events, record.arrivals
    if not events:
        return []
    timed = record.timed and len(arrivals) == len(events)
    head = record.head if record.head is not None else (arrivals[0] if arrivals else record.started)
    window = [i for i in range(len(events)) if not timed or arrivals[i] - head <= REPLAY_WINDOW]
    if resumption:
        return window
    owed = lambda i: events[i].cancels is not None or seen(events[i]) or sent_again(events[i])
    burst, last = [], head
    for i in range(len(events)):  # a re-emission within REPLAY_WINDOW of the one before it still counts
        if owed(i) and (not timed or arrivals[i] - last <= REPLAY_WINDOW):
            burst.append(i)
            last = arrivals[i] if timed else last
    return burst




def _version_of_no_revision(record: Record) -> bool:
    """The request carried an ``MCP-Protocol-Version`` no server can support (C40)."""
    version = record.exchange.request_headers.get("mcp-protocol-version")
    return version is not None and names_no_revision(version)


def _oversized_refused(x) -> bool:
    """An oversized header value refused with a 4xx that names no session: acceptable whatever the 4xx."""
    values = (x.request_headers.get("mcp-session-id") or "", x.request_headers.get("last-event-id") or "")
    oversized = any(len(value) > OVERSIZED_HEADER_CHARS for value in values)
    return oversized and x.status is not None and 400 <= x.status < 500 and _named(x) is None


def _named(x) -> str | None:
    """The ``Mcp-Session-Id`` an answer carries when it is not the one its request sent
    (an echo of a well-formed id names nothing new): what ``refusal_names_no_session``
    and ``session_identity_stable`` judge."""
    named = x.response_headers.get("mcp-session-id")
    sent = x.request_headers.get("mcp-session-id")
    return None if named is None or named == sent and is_well_formed(sent) else named


def _primed(x) -> bool | None:
    """Whether a POST's SSE answer opened with a priming event (an id, empty data: MCP D8);
    ``None`` for a JSON answer or one whose first event the log does not hold."""
    if x.content_type != "text/event-stream" or not x.events:
        return None
    first = x.events[0]
    return first.id is not None and first.is_priming


def _opens_with_priming(record: Record) -> bool:
    """A new GET stream whose first event is a priming event (an id and empty data, MCP D8),
    arrived within ``REPLAY_WINDOW`` of the head: the stream's first event, before what the
    session resumption re-emits (``spec.transitions.planned``'s ``primed``)."""
    x = record.exchange
    if not x.events or x.events[0].id is None or not x.events[0].is_priming:
        return False
    if not record.timed or not record.arrivals:
        return True
    head = record.head if record.head is not None else record.started
    return record.arrivals[0] - head <= REPLAY_WINDOW


def _session_of(record: Record) -> str | None:
    """The session id an exchange carried, or the one its answer minted (``initialize``)."""
    x = record.exchange
    return x.request_headers.get("mcp-session-id") or x.response_headers.get("mcp-session-id")


def _silent_get(record: Record) -> bool:
    """A GET the server took but never answered: no response head within the client's own bound
    (``ErrorKind.FIRST_BYTE``). MCP B15 wants an SSE stream or 405 for every GET, so with
    ``bounded_waits`` that silence is the server's answer (``status`` ``None``), judged as one."""
    x = record.exchange
    return x.method == "GET" and x.status is None and x.error_kind == ErrorKind.FIRST_BYTE


def _unanswered(record: Record) -> bool:
    """No response from the server: none recorded, or one the proxy made itself (no head came)."""
    x = record.exchange
    return x.status is None or (record.timed and record.head is None and x.end is End.ERROR)


def _answered_in_body(record: Record) -> bool:
    """A POSTed request answered with a JSON body that is its response (MCP B7: one JSON object)."""
    body, answer = record.exchange.request_body, record.exchange.body
    return isinstance(body, dict) and isinstance(answer, dict) and "id" in body and answer.get("id") == body["id"] \
        and ("result" in answer or "error" in answer)


def _is_response(event: SseEvent, record: Record) -> bool:
    body = record.exchange.request_body
    return isinstance(body, dict) and "id" in body and event.is_response_to(body["id"])
