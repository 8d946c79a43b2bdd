"""The invariants of docs/design.md §4, as predicates the checkers share.

Two kinds, kept apart (docs/design.md §4: a rule's check must be able to fail for a
server):

- *server checks* ``f(transition) -> list[str]`` judge what a server sent. They
  read the spec's ``before`` state (what both sides agreed on so far), the
  action, the spec's ``outcome`` and the ``observation``, which may come from a
  server under test (translated to the spec's handles); never the spec's
  ``after``, which a server cannot influence. ``SERVER_CHECKS`` maps each to the
  catalog rule it judges; every rule of the session era has at least one.
- *sanity checks* of the spec against its own bookkeeping: the state invariants
  ``f(state) -> list[str]`` (``STATE_INVARIANTS``) and the transition checks of
  ``SANITY_CHECKS``, which compare the spec's ``before`` and ``after``. They hold
  in every reachable state of the spec (the explorer, the Hypothesis machine and
  Z3 check them) and are reported as sanity checks, never as a server's finding.

Every predicate returns the list of violations it found, each a sentence in the
vocabulary of docs/design.md §1; an empty list means the invariant holds.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence, TypeVar

from .actions import CallTool, CancelRequest, CloseConnection, EndStream, ExpireStream, Initialize, Reconnect, Respond
from .catalog import AGREEMENT, ENDED_SESSION_ID, EXTRA_EVENTS, MALFORMED_ID, NO_ANSWER, RESPONSE_ELSEWHERE, STRANDED
from .decision import Branch, Outcome
from .headers import SessionClass, is_well_formed
from .state import RequestStatus, SessionStatus, State, Stream, StreamKind, StreamStatus
from .transitions import Delivered, Observation, Transition


@dataclass(frozen=True, slots=True)
class Finding:
    """One violation: the rule broken, what was seen, the rule's case (a situation the
    catalog may level otherwise than the rule, e.g. ``never-issued``), and whether the
    answer was outside everything a profile accepts (a 5xx, or none: ``verdicts``)."""

    rule: str
    message: str
    case: str | None = None
    outside: bool = False


# -- state invariants (sanity checks of the spec) ----------------------------------


def event_id_unique(state: State) -> list[str]:
    problems = [f"event id {eid} is used {n} times" for eid, n in _repeated(e.id for e in state.events)]
    for event in state.events:
        stream = state.stream(event.stream)
        if stream is None or state.session(stream.session) is None:
            problems.append(f"event {event.id} resolves to no (session, stream)")
    return problems


def no_cross_session_state(state: State) -> list[str]:
    problems = []
    for entry in state.client:
        for stream_id, event_id in entry.cursors:
            event = state.event(event_id)
            if event is None or event.stream != stream_id or state.session_of_event(event_id) != entry.session:
                problems.append(f"client cursor {event_id} of stream {stream_id} is not an event of session {entry.session}")
    return problems


def server_request_ownership_state(state: State) -> list[str]:
    problems = []
    for request in state.requests:
        stream = state.stream(request.stream)
        if stream is None or stream.session != request.session:
            problems.append(f"server request {request.id} of {request.session} is carried by a stream of another session")
    for event in state.events:
        carried = event.request or event.cancels
        carried_request = state.request(carried)
        if carried is not None and (carried_request is None or carried_request.session != state.session_of_event(event.id)):
            problems.append(f"event {event.id} carries server request {carried} of another session")
    for entry in state.client:
        for request_id in entry.seen:
            held = state.request(request_id)
            if held is None or held.session != entry.session:
                problems.append(f"client holds server request {request_id} under {entry.session}, which did not issue it")
    return problems


def expiry_independent_state(state: State) -> list[str]:
    problems = []
    for session in state.sessions:
        if session.status is SessionStatus.LIVE:
            continue
        for stream in state.streams_of(session.id):
            if stream.retained or stream.connected:
                problems.append(f"stream {stream.id} of ended session {session.id} is still {stream.status.value}")
    return problems


def session_identity_stable_state(state: State) -> list[str]:
    return [f"session id {sid} names {n} sessions" for sid, n in _repeated(s.id for s in state.sessions)]


def _repeated(ids: Iterable[str]) -> list[tuple[str, int]]:
    """The ids used more than once, with how often (none, the usual case, is told by a set's size)."""
    ids = tuple(ids)
    if len(set(ids)) == len(ids):
        return []
    return [(i, n) for i, n in Counter(ids).items() if n > 1]


def no_broadcast_state(state: State) -> list[str]:
    """Every pending server request has one carrying stream, of its own session."""
    problems = []
    for request in state.requests:
        if request.status is not RequestStatus.PENDING:
            continue
        carriers = {e.stream for e in state.events if e.request == request.id}
        if request.stream not in carriers or request.origin not in carriers:
            problems.append(f"server request {request.id} is carried by {request.stream}, a stream it was never sent on")
    return problems


STATE_INVARIANTS: dict[str, Callable[[State], list[str]]] = {
    "event-id-unique": event_id_unique,
    "no-cross-session": no_cross_session_state,
    "server-request-ownership": server_request_ownership_state,
    "expiry-independent": expiry_independent_state,
    "session-identity-stable": session_identity_stable_state,
    "no-broadcast": no_broadcast_state,
}


# -- server checks --------------------------------------------------------------------


Problem = str | tuple[str, str | None]
"""What a server check reports per violation: its message, or its message and the rule's case
(``catalog``) it is about, which the catalog may level otherwise."""

CURSOR_BRANCHES = (Branch.STREAM_RESUMPTION, Branch.REJECT_FOREIGN_EVENT_ID)
"""The branches of a GET with ``Last-Event-ID`` in a live session: a cursor resumed or refused."""


def status_check(t: Transition) -> Sequence[Problem]:
    """The status is one the profile accepts for the branch; a refusal delivers nothing. A GET with
    ``Last-Event-ID`` in a live session (branches 1 and 3) left with no answer at all is the case
    ``NO_ANSWER`` (B15: a GET gets an SSE stream or 405); a new session named by a malformed id,
    the case ``MALFORMED_ID`` (B30)."""
    if t.outcome is None or t.observation.version_refused or t.observation.version_unsupported:
        return []  # an answer to the version header is protocol-version-accepted's or unsupported-version-400's
    problems: list[Problem] = []
    status = t.observation.status
    minted = t.observation.session
    if isinstance(t.action, Initialize) and minted is not None and not is_well_formed(minted):
        problems.append((f"initialize answered with session id {minted!r}, not visible ASCII 0x21-0x7E", MALFORMED_ID))
    if status not in t.outcome.statuses:
        accepted = _describe_statuses(t.outcome.statuses)
        answer = "gave no answer" if status is None else f"answered {status}"
        problem = f"{t.outcome.branch.value}: {answer}, expected {accepted}"
        unanswered = status is None and t.outcome.branch in CURSOR_BRANCHES
        problems.append((problem, NO_ANSWER) if unanswered else problem)
    elif _is_refusal(status) and t.observation.events:
        problems.append(f"{t.outcome.branch.value}: refused with {status} yet delivered {len(t.observation.events)} event(s)")
    return problems


def replay_suffix(t: Transition) -> Sequence[Problem]:
    """Branch 1: the replay is the exact suffix of the resumed stream after the
    cursor, on the resumed stream (B25, D29-D30); branch 3 answered 200 replays
    nothing of the session's own stream the cursor names, since its suffix is not
    known exactly (an evicted or expired cursor). Another session's events in a replay are
    ``no-cross-session``'s finding alone (they are no part of this stream's suffix); another
    stream's of the same session break both."""
    cursor = _cursor(t)
    refused = _success(t, Branch.REJECT_FOREIGN_EVENT_ID)
    if refused is not None:
        named = t.before.event(cursor)
        own = named is not None and t.before.held_stream(named.stream).session == _named_session(t)
        same = tuple(d.event for d in _replayed(t)
                     if named is not None and own and t.before.held_event(d.event).stream == named.stream)
        if refused.stream is not None and same != refused.replay:
            return [(f"resumed stream {refused.stream} after its evicted cursor {cursor}: replayed "
                     f"{_ids(same)}, expected {_ids(refused.replay)} (or a refusal){_suffix_defect(same, refused.replay, t)}",
                     _replay_case(same, refused.replay))]
        if same and named is not None and refused.stream is None:
            return [f"answered a cursor it cannot resume ({refused.event_class.value}) with a replay {_ids(same)} of {named.stream}: not an exact suffix"]
        return []
    outcome = _success(t, Branch.STREAM_RESUMPTION)
    if outcome is None:
        return []
    problems: list[Problem] = []
    if t.observation.stream not in (None, outcome.stream):
        problems.append((f"resumed {t.observation.stream} for a cursor of stream {outcome.stream}: its later events "
                         "reach no connection", STRANDED))
    session = t.before.held_stream(outcome.stream).session
    replayed = tuple(d.event for d in _replayed(t) if t.before.session_of_event(d.event) == session)
    expected = outcome.replay
    if replayed != expected:
        problems.append((f"resumed stream {outcome.stream} after {cursor}: replayed {_ids(replayed)}, "
                         f"expected {_ids(expected)}{_suffix_defect(replayed, expected, t)}", _replay_case(replayed, expected)))
    return problems


def _replay_case(replayed: tuple[str, ...], expected: tuple[str, ...]) -> str | None:
    """``None`` for a replay that only leaves events out (in order, each once: B25 lets a server
    replay less), ``EXTRA_EVENTS`` for one that sends anything else."""
    rest = iter(expected)
    return None if all(event in rest for event in replayed) else EXTRA_EVENTS


def live_delivery(t: Transition) -> Sequence[Problem]:
    """A stream goes on live on its open connection (branch 1: replay, *then continue the
    stream live*; B25, D30): an event the server sends on a stream whose connection is open
    reaches that connection."""
    if t.outcome is not None or t.observation.event is None:
        return []
    stream = t.before.stream(getattr(t.action, "stream", None))
    if stream is None or not stream.connected or any(d.event == t.observation.event for d in t.observation.events):
        return []
    return [(f"sent event {t.observation.event} on {stream.id} while its connection was open, which never delivered it",
             STRANDED)]


def no_cross_session(t: Transition) -> Sequence[Problem]:
    """Nothing delivered on a connection of session S belongs to another session
    (B23, D50), and nothing replayed belongs to another stream (B26): on a stream
    resumption only the resumed stream's events, on any other reconnect none."""
    problems: list[Problem] = []
    for item in t.observation.events:
        event = t.before.event(item.event)
        connection = _connection_session(t, item)
        owner = _event_session(t, item)
        if owner is None or connection is None:
            continue
        if owner != connection:
            problems.append(f"delivered event {item.event} of session {owner} on a connection of session {connection}")
        elif event is not None and t.outcome is not None and isinstance(t.action, Reconnect) and t.action.last_event_id is not None:
            resumed = t.outcome.stream if t.outcome.branch is Branch.STREAM_RESUMPTION else _named_stream(t)
            if event.stream != resumed:
                problems.append(f"replayed event {item.event} of stream {event.stream} on a resumption of {resumed or 'no stream'}")
    return problems


def no_replay_on_session_resume(t: Transition) -> Sequence[Problem]:
    if not _succeeded(t, Branch.SESSION_RESUMPTION):
        return []
    reused = _reused_for_reemission(t) + _reused_priming(t)
    replayed = [d.event for d in _replayed(t) if d not in reused]
    return [f"session resumption of {_named_session(t)} replayed past events {_ids(replayed)}"] if replayed else []


def _reused_priming(t: Transition) -> list[Delivered]:
    """A session resumption's priming event (the new stream's first, MCP D8) sent under an event
    id the session already used: an id reused (every priming event ``0``, say), not a replay."""
    if not _succeeded(t, Branch.SESSION_RESUMPTION) or not t.observation.primed or not t.observation.events:
        return []
    first = t.observation.events[0]
    if t.before.event(first.event) is None or first.request is not None or first.cancels is not None:
        return []
    return [first]


def _reused_for_reemission(t: Transition) -> list[Delivered]:
    """A session resumption's re-emissions (or cancellations) sent under an event id the
    session already used on another stream, and under no new one: an id reused, not a
    replay (a server whose ids repeat, e.g. every priming event ``0``)."""
    outcome = _success(t, Branch.SESSION_RESUMPTION)
    if outcome is None:
        return []
    owed = set(outcome.reemit)
    fresh = {d.request or d.cancels for d in t.observation.events if t.before.event(d.event) is None}
    reused = []
    for item in t.observation.events:
        old = t.before.event(item.event)
        dealt = item.request or item.cancels
        if old is not None and old.stream != item.stream and dealt in owed and dealt not in fresh:
            reused.append(item)
    return reused


def no_reemit_on_stream_resume(t: Transition) -> Sequence[Problem]:
    """Stream resumption re-sends no server request under a new event id (B21, B26): after
    the replay the stream goes on with its own new events (a ``ping``, a notification, a new
    server request), but a request it already sent comes again only as its event's replay."""
    outcome = _success(t, Branch.STREAM_RESUMPTION)
    if outcome is None:
        return []
    again = [d.request for d in t.observation.events
             if t.before.event(d.event) is None and t.before.request(d.request) is not None]
    if not again:
        return []
    return [f"stream resumption of {outcome.stream} sent server requests {_ids(again)} again under new event ids"]


def reemit_pending(t: Transition) -> Sequence[Problem]:
    return [message for rule, message in _reemit_misses(t) if rule == "reemit-pending"]


def reemit_keeps_pending(t: Transition) -> Sequence[Problem]:
    return [message for rule, message in _reemit_misses(t) if rule == "reemit-keeps-pending"]


def no_broadcast(t: Transition) -> Sequence[Problem]:
    """A server request is sent on one connected stream at a time (B21): one
    whose carrying stream still has an open connection is not sent on another,
    under a new event id or under its old one."""
    problems: list[Problem] = []
    for item in t.observation.events:
        request = t.before.request(item.request)
        sent = t.before.event(item.event)
        if request is None or request.status is not RequestStatus.PENDING or sent is not None and sent.stream == item.stream:
            continue  # a replay of a stream's own event is that stream's history, not a second sending
        carrier = t.before.stream(request.stream)
        if carrier is not None and carrier.connected and item.stream != carrier.id:
            problems.append(f"sent server request {request.id} on {item.stream or 'a new stream'} while its stream {carrier.id} is still connected")
    return [*problems, *_sent_on_several_streams(t)]


def _sent_on_several_streams(t: Transition) -> Sequence[Problem]:
    """One message of this step delivered on more than one stream (B21: each message on one
    stream): the same event id, or the same server request under new event ids."""
    by_event: dict[str, set[str | None]] = {}
    by_request: dict[str, set[tuple[str, str | None]]] = {}
    for item in t.observation.events:
        by_event.setdefault(item.event, set()).add(item.stream)
        if item.request is not None and t.before.event(item.event) is None:
            by_request.setdefault(item.request, set()).add((item.event, item.stream))
    problems = [f"delivered event {event} on {_ids(sorted(s or '?' for s in on))} at once"
                for event, on in by_event.items() if len(on) > 1]
    for request, sent in by_request.items():
        if len({e for e, _ in sent}) > 1 and len({s for _, s in sent}) > 1:
            problems.append(f"sent server request {request} on {_ids(sorted(s or '?' for _, s in sent))} at once")
    return problems


def _which_stream(stream: Stream | None) -> str:
    """How a finding names a stream a message about another request's went to."""
    return "the standalone GET stream" if stream is not None and stream.kind is StreamKind.GET else "another request's stream"


def standalone_stream_scope(t: Transition) -> Sequence[Problem]:
    """A message a server sends about a client request goes on that request's stream, not on the
    session's standalone GET stream (B17, B9) nor on another request's stream: seen as a POST
    stream's new message delivered on the GET stream, or as a message the traffic mapping found to
    be about another stream's request (``Observation.about``). A response elsewhere is the case
    ``RESPONSE_ELSEWHERE`` (B18: MUST NOT on the GET stream)."""
    if t.outcome is not None or t.observation.event is None:
        return []
    stream = t.before.stream(getattr(t.action, "stream", None))
    about = t.before.stream(t.observation.about)
    if stream is not None and about is not None and about.id != stream.id and about.session == stream.session:
        where = _which_stream(stream)
        if t.observation.response:
            return [(f"sent the response to the request on {about.id} on {where} {stream.id}", RESPONSE_ELSEWHERE)]
        if stream.kind is StreamKind.GET or about.kind is StreamKind.POST:
            what = "server request" if t.observation.request is not None else "notification"
            return [f"sent the {what} of the call on {about.id} on {where} {stream.id} instead"]
    if stream is None or stream.kind is not StreamKind.POST:
        return []
    on = {d.stream for d in t.observation.events if d.event == t.observation.event}
    if t.observation.response and on and stream.id not in on:
        other = min(s or "?" for s in on)
        where = _which_stream(t.before.stream(other))
        return [(f"sent the response to the request on {stream.id} on {where} {other}", RESPONSE_ELSEWHERE)]
    gets = sorted(s for s in on if s is not None and _get_stream_of(t.before, s, stream.session))
    if not gets or stream.id in on:
        return []
    what = "server request" if t.observation.request is not None else "notification"
    return [f"sent the {what} of the call on {stream.id} on the standalone GET stream {gets[0]} instead"]


def _get_stream_of(state: State, stream_id: str | None, session: str) -> bool:
    stream = state.stream(stream_id)
    return stream is not None and stream.kind is StreamKind.GET and stream.session == session


def server_request_ownership(t: Transition) -> Sequence[Problem]:
    """Every server request delivered on a connection of session S is one S issued (B26, B41):
    one issued before, or the one a server action of S's stream issues in this step."""
    problems = []
    for item in t.observation.events:
        carried = item.request or item.cancels
        request = t.before.request(carried)
        connection = _connection_session(t, item)
        issued_now = carried is not None and carried == t.observation.request and t.outcome is None
        if carried is None or connection is None or t.before.event(item.event) is None and request is None and not issued_now:
            continue
        owner = request.session if request else (t.before.session_of_event(item.event) or _issuing_session(t)) \
            if issued_now else None  # a copy of a known event is that event's session's
        if owner != connection:
            owner = owner or t.before.session_of_event(item.event) or "no session"
            problems.append(f"delivered server request {carried} of {owner} on a connection of session {connection}")
    return problems


def event_id_fresh(t: Transition) -> Sequence[Problem]:
    """A new event gets an id never used before in its session (B23, D27): the event of a
    server action, or a session resumption's re-emission."""
    reused = [f"re-emitted {d.request or d.cancels} under event id {d.event}, already used on {t.before.held_event(d.event).stream}"
              for d in _reused_for_reemission(t)]
    reused += [f"opened the new stream with a priming event under event id {d.event}, already used on "
               f"{t.before.held_event(d.event).stream}" for d in _reused_priming(t)]
    if t.outcome is not None or t.observation.event is None:
        return reused
    if t.before.event(t.observation.event) is not None:
        return [f"the new event reuses event id {t.observation.event}"]
    return []


def event_id_resolves(t: Transition) -> list[str]:
    unknown = [d.event for d in t.observation.events if t.before.event(d.event) is None and not _new(t, d)]
    return [f"delivered event id {eid} resolves to no event of any stream" for eid in unknown]


def session_identity_stable(t: Transition) -> Sequence[Problem]:
    """A response within a live session names that session, if any (B31); a new
    session gets an id no session of the server had (B29)."""
    named = t.observation.session
    if named is None or t.outcome is None:
        return []
    if isinstance(t.action, Initialize):
        return [f"initialize answered with session id {named}, which already names a session"] if t.before.session(named) else []
    session = _named_session(t)
    if t.outcome.session_class is SessionClass.LIVE and named != session:
        return [f"a request of session {session} was answered under session id {named}"]
    return []


def refusal_names_no_session(t: Transition) -> Sequence[Problem]:
    """A request outside a live session that is not ``initialize`` creates no session
    and names none: an answer that serves it carries no ``Mcp-Session-Id`` but the one it
    sent, and no answer carries a malformed one back (B28-B30, B32). A refusal that carries
    a new id names a session only if that id then answers: a request using it is judged
    as any unknown id's. Filed under the branch's rule."""
    named = t.observation.session
    if named is None or t.outcome is None or isinstance(t.action, Initialize):
        return []
    session_class = t.outcome.session_class
    if session_class is SessionClass.LIVE:
        return []
    sent = _named_session(t)
    if session_class is SessionClass.MALFORMED:
        return [f"{t.outcome.branch.value}: the answer carries an Mcp-Session-Id back to a malformed one, which names no session"]
    if named != sent and t.observation.status is not None and 200 <= t.observation.status < 300:
        return [f"{t.outcome.branch.value}: the answer carries Mcp-Session-Id {named}, a session the request did not name (nothing may be created)"]
    return []


def priming_event(t: Transition) -> Sequence[Problem]:
    """A POST SSE stream opens with a priming event: an event id and empty data (D8)."""
    if isinstance(t.action, CallTool) and t.observation.status == 200 and t.observation.primed is False:
        return ["the POST SSE stream did not open with a priming event (an event id and empty data)"]
    return []


def protocol_version_accepted(t: Transition) -> Sequence[Problem]:
    """A request carrying the negotiated ``MCP-Protocol-Version`` is not refused for it:
    400 is for an invalid or unsupported version (C40, D42-D45)."""
    if t.observation.version_refused:
        return [f"refused with {t.observation.status} for carrying the negotiated MCP-Protocol-Version: the same "
                "request without the header was served"]
    return []


def unsupported_version_400(t: Transition) -> list[str]:
    """A request of a live session that carried an ``MCP-Protocol-Version`` no server can support
    is refused with 400 (C40, D45). In a session that is not live, whether the session's refusal or
    the version's comes first is MCP's silence (rules §4 row 7): either answer is accepted."""
    if not _judges_version(t) or t.observation.status == 400:
        return []
    answer = "gave no answer" if t.observation.status is None else f"answered {t.observation.status}"
    return [f"a request ({t.action.kind}) carried an MCP-Protocol-Version no MCP revision has and {answer}: such a "
            "request gets 400 (C40)"]


def retry_before_close(t: Transition) -> Sequence[Problem]:
    """A server that closes a stream's connection without ending the stream (for the client to
    poll, D9) has sent the SSE ``retry`` field on that stream first (D10; D23 for a GET stream),
    and, on a call's POST stream, an event with an id: only once it has may it close (D9), else
    its client has no ``Last-Event-ID`` to resume the call from. (A GET stream closed before any
    event is a GET stream ended, which a server may do: B19, D22.)"""
    if not isinstance(t.action, CloseConnection):
        return []
    problems = []
    stream = t.before.stream(t.action.stream)
    if t.observation.cursor is False and stream is not None and stream.kind is StreamKind.POST:
        problems.append(f"closed the connection of {t.action.stream} before any event of the stream had an id: its "
                        "client has no Last-Event-ID to resume the call from (D9)")
    if t.observation.retry is False:
        problems.append(f"closed the connection of {t.action.stream} without ending the stream, and no event of the "
                        "stream carried the SSE retry field first: the client has no reconnection delay to wait")
    return problems


def _judges_version(t: Transition) -> bool:
    """``t`` is a request of a live session that carried an unsupported ``MCP-Protocol-Version``."""
    if t.outcome is None or not t.observation.version_unsupported:
        return False
    session = t.before.session(_named_session(t))
    return session is not None and session.status is SessionStatus.LIVE


def expiry_independent(t: Transition) -> Sequence[Problem]:
    if not isinstance(t.action, ExpireStream):
        return []
    stream = t.before.held_stream(t.action.stream)
    others = [s for s in t.observation.closed if s != stream.id]
    if others:
        return [f"expiring stream {stream.id} also closed the connections of {_ids(others)}"]
    return []


def _response_lost(t: Transition) -> bool:
    """A server step that sent a call's response (``Observation.response``) on a stream whose
    connection is open, and did not deliver it there."""
    if t.outcome is not None or not t.observation.response or t.observation.event is None:
        return False
    stream = t.before.stream(getattr(t.action, "stream", None))
    return stream is not None and stream.connected and all(d.event != t.observation.event for d in t.observation.events)


def call_answered(t: Transition) -> Sequence[Problem]:
    """A call's POST stream ends with the call's response (B8, B10, C8, C10, D11): a ``Respond``
    step sends it, delivered on an open connection or stored for a resumption; ``EndStream`` of a
    POST stream (never enabled in the spec: a transition built by hand) ends the call without one.
    A server that took a dropped connection for the call's cancellation (B12, C12, D15) has no
    response left to send when the call ends."""
    action = t.action
    if isinstance(action, Respond) and (t.observation.event is None or not t.observation.response):
        return [f"the call on {action.stream} ended without its response: it was neither sent nor stored (a "
                "dropped connection taken for a cancellation?)"]
    if _ends_a_call(t) and isinstance(action, EndStream) and not t.before.answered(action.stream):
        return [f"ended the stream of the call on {action.stream} without its response"]
    return []


def cancel_notifies(t: Transition) -> Sequence[Problem]:
    """A server that gives up on a pending server request sends ``notifications/cancelled`` for it
    (B39, C42, D51), on the stream that carries it: delivered on an open connection, stored for a
    resumption otherwise. Cancelled in silence, the request stays with a client that waits on it."""
    if not isinstance(t.action, CancelRequest) or t.observation.event is not None:
        return []
    return [f"cancelled server request {t.action.request} without notifications/cancelled: its client still waits on it"]


def ended_session_ids_dead(t: Transition) -> Sequence[Problem]:
    """Session end invalidates every event id of it (D13, D27): a live session that presents an
    event id of an ended session (deleted, expired) gets none of that session's events. (An empty
    answer in 2xx is branch 3's matter: ``reject-foreign-event-id``.)"""
    ended = _ended_session_named(t)
    if ended is None:
        return []
    replayed = [d.event for d in t.observation.events if t.before.session_of_event(d.event) == ended]
    if not replayed:
        return []
    return [(f"session {ended} ended, yet its event id {_cursor(t)} replayed its events {_ids(replayed)}",
             ENDED_SESSION_ID)]


def _ended_session_named(t: Transition) -> str | None:
    """The ended session whose event a live session's ``Last-Event-ID`` names, if it names one."""
    if not isinstance(t.action, Reconnect) or t.action.last_event_id is None:
        return None
    owner = t.before.session_of_event(t.action.last_event_id)
    presenter = t.before.session(t.action.session)
    ended = t.before.session(owner) if owner is not None else None
    if ended is None or ended.status is SessionStatus.LIVE or presenter is None or presenter.status is not SessionStatus.LIVE:
        return None
    return owner


def no_duplicate_tool_call(t: Transition) -> Sequence[Problem]:
    """A 404 tells an MCP client its session is gone (B34): it re-initializes and
    re-sends every tools/call whose result it has not seen. Answered for a live
    session with an unfinished call, that call runs twice. So does a call whose response
    the server sent on its open connection but never delivered: its client, never seeing the
    result, sends it again (F21 makes that a MUST)."""
    if _response_lost(t):
        return [f"the response to the request on {t.observation.about} never reached its open connection: its "
                "client sends the call again"]
    session = _named_session(t)
    if t.outcome is None or t.observation.status != 404 or t.outcome.session_class is not SessionClass.LIVE:
        return []
    unfinished = [s.id for s in t.before.streams_of(session) if s.kind is StreamKind.POST and s.status is StreamStatus.OPEN]
    if not unfinished:
        return []
    return [f"404 for live session {session}: its client re-initializes and calls the tools of {_ids(unfinished)} again"]


Check = Callable[[Transition], Sequence[Problem]]
"""A server check: a transition's violations of one rule."""

_C = TypeVar("_C", bound=Check)

SERVER_CHECKS: tuple[tuple[str, Check], ...] = (
    ("no-cross-session", no_cross_session),
    ("server-request-ownership", server_request_ownership),
    ("replay-suffix", replay_suffix),
    ("replay-suffix", live_delivery),
    ("no-reemit-on-stream-resume", no_reemit_on_stream_resume),
    ("no-replay-on-session-resume", no_replay_on_session_resume),
    ("no-broadcast", no_broadcast),
    ("standalone-stream-scope", standalone_stream_scope),
    ("reemit-pending", reemit_pending),
    ("reemit-keeps-pending", reemit_keeps_pending),
    ("session-identity-stable", session_identity_stable),
    ("expiry-independent", expiry_independent),
    ("expiry-independent", ended_session_ids_dead),
    ("event-id-unique", event_id_fresh),
    ("status", status_check),
    ("status", refusal_names_no_session),
    ("no-duplicate-tool-call", no_duplicate_tool_call),
    ("call-answered", call_answered),
    ("cancel-notifies", cancel_notifies),
    ("priming-event", priming_event),
    ("protocol-version-accepted", protocol_version_accepted),
    ("unsupported-version-400", unsupported_version_400),
    ("retry-before-close", retry_before_close),
)
"""Server checks in the order their findings are reported; ``status`` findings
are filed under the rule that judges the outcome's branch."""

GENERIC_CHECKS: tuple[tuple[str, Callable[[Transition], list[str]]], ...] = (
    ("event-id-unique", event_id_resolves),
)
"""Server checks whose findings are only reported when no specific check explains the step."""


# -- where a check can fail --------------------------------------------------------------


def judged_rules(t: Transition) -> frozenset[str]:
    """The catalog rules whose server check could have failed on ``t``: a server that
    did otherwise here would have broken them. A rule is PASS only where a step judged
    it this way and no finding broke it (docs/design.md §3: a PASS has a check that held
    and could have failed); a step that merely passes by is no evidence."""
    if t.observation.version_unsupported:  # the answer is the version's, whatever the branch would be
        return frozenset({"unsupported-version-400"}) if _judges_version(t) else frozenset()
    judged = set()
    outcome = t.outcome
    if outcome is not None:
        judged.add(outcome.rule)
        judged |= _judged_by_branch(t)
        if _unfinished_call(t):
            judged.add("no-duplicate-tool-call")
        if _expired_stream(t) or _ended_session_named(t) is not None or _after_a_stream_ended(t):
            judged.add("expiry-independent")
    elif isinstance(t.action, ExpireStream):
        judged.add("expiry-independent")
    if t.outcome is None and t.observation.response:
        judged.add("no-duplicate-tool-call")
    if _ends_a_call(t):
        judged.add("call-answered")
    if isinstance(t.action, CancelRequest):
        judged.add("cancel-notifies")
    if t.observation.event is not None and t.outcome is None:
        judged.add("event-id-unique")
        judged |= _judged_by_sending(t)
    if isinstance(t.action, CallTool) and t.observation.primed is not None:
        judged.add("priming-event")
    if t.observation.version_refused is not None:
        judged.add("protocol-version-accepted")
    if isinstance(t.action, CloseConnection) and (t.observation.retry is not None or t.observation.cursor is not None):
        judged.add("retry-before-close")
    if _strangers_reachable(t):
        judged.add("no-cross-session")
    if t.observation.events and _other_sessions_requests(t):
        judged.add("server-request-ownership")
    return frozenset(judged)


def _ends_a_call(t: Transition) -> bool:
    """A server step that ends a call's POST stream: its response, or an end without one."""
    if isinstance(t.action, Respond):
        return True
    stream = t.before.stream(t.action.stream) if isinstance(t.action, EndStream) else None
    return stream is not None and stream.kind is StreamKind.POST


def _judged_by_branch(t: Transition) -> set[str]:
    outcome = _outcome(t)
    branch, session = outcome.branch, _named_session(t)
    if t.observation.status != 200:
        return set()  # a refusal delivers nothing: only its status is judged, under the branch's rule
    if branch is Branch.STREAM_RESUMPTION:
        pending = t.before.pending_requests(session)
        return {"replay-suffix", "session-identity-stable"} | ({"no-reemit-on-stream-resume"} if pending else set())
    if branch is Branch.REJECT_FOREIGN_EVENT_ID and outcome.stream is not None:
        return {"replay-suffix"}
    if branch is not Branch.SESSION_RESUMPTION:
        return set()
    judged = {"session-identity-stable"} | ({"event-id-unique"} if t.observation.events else set())
    if any(s.session == session for s in t.before.streams if t.before.events_of(s.id)):
        judged.add("no-replay-on-session-resume")
    for request_id in outcome.reemit:
        judged.add("reemit-keeps-pending" if t.before.held_request(request_id).reemitted else "reemit-pending")
    if any(t.before.held_stream(r.stream).connected for r in t.before.pending_requests(session)):
        judged.add("no-broadcast")
    return judged


def _judged_by_sending(t: Transition) -> set[str]:
    """A server's new message, with other connections open it could also (or instead) have
    gone to: ``no-broadcast``, and for a POST stream's message with the session's GET stream
    connected, ``standalone-stream-scope``."""
    stream = t.before.stream(getattr(t.action, "stream", None))
    if stream is None:
        return set()
    others = [s for s in t.before.streams if s.connected and s.id != stream.id]
    judged = {"no-broadcast"} if others else set()
    if stream.kind is StreamKind.POST and any(_get_stream_of(t.before, s.id, stream.session) for s in others):
        judged.add("standalone-stream-scope")
    if t.observation.about is not None:
        judged.add("standalone-stream-scope")
    return judged


def _unfinished_call(t: Transition) -> bool:
    session = _named_session(t)
    return _outcome(t).session_class is SessionClass.LIVE and any(
        s.kind is StreamKind.POST and s.status is StreamStatus.OPEN for s in t.before.streams_of(session))


def _after_a_stream_ended(t: Transition) -> bool:
    """A request of a live session one of whose streams with events has lost its connection or
    ended: a server that ends a session with a stream would answer it 404 (``_status_rule``)."""
    session = _named_session(t)
    return _outcome(t).session_class is SessionClass.LIVE and any(
        (not s.connected or s.status is not StreamStatus.OPEN) and t.before.events_of(s.id)
        for s in t.before.streams_of(session))


def _expired_stream(t: Transition) -> bool:
    session = _named_session(t)
    return _outcome(t).session_class is SessionClass.LIVE and any(
        s.status is StreamStatus.EXPIRED for s in t.before.streams_of(session))


def _strangers_reachable(t: Transition) -> bool:
    """Events of another session (or, on a stream resumption, of another stream) exist
    that the server could have delivered on this step's connection."""
    cursor = _cursor(t)
    if not t.observation.events and t.before.event(cursor) is None:
        return False
    all_streams = t.before.streams
    if all(s.session == all_streams[0].session for s in all_streams) and (cursor is None or len(all_streams) < 2):
        return False  # one session and, on a resumption, one stream: no stranger, whatever the events
    session_of: dict[str, str | None] = {}  # of the streams met so far (a long log has many)
    streams, sessions = set(), set()
    for event in t.before.events:  # stops at the first stranger: a long log is not walked whole each step
        if event.stream not in session_of:
            stream = t.before.stream(event.stream)
            session_of[event.stream] = stream.session if stream is not None else None
        streams.add(event.stream)
        if session_of[event.stream] is not None:
            sessions.add(session_of[event.stream])
        if len(sessions) > 1 or cursor is not None and len(streams) > 1:
            return True
    return False


def _other_sessions_requests(t: Transition) -> bool:
    owners = {r.session for r in t.before.requests}
    return len(owners) > 1 or bool(owners) and len(t.before.sessions) > 1


# -- sanity checks of transitions (the spec against itself) ------------------------------


def session_unchanged_by_resumption(t: Transition) -> list[str]:
    if t.outcome is None or t.outcome.branch not in (Branch.STREAM_RESUMPTION, Branch.SESSION_RESUMPTION):
        return []
    session = _named_session(t)
    if t.before.session(session) != t.after.session(session):
        return [f"resumption changed session {session}"]
    return []


def reemission_resolves_nothing(t: Transition) -> list[str]:
    if t.outcome is None or t.outcome.branch is not Branch.SESSION_RESUMPTION:
        return []
    cancelled = {d.cancels for d in t.observation.events}
    changed = [r.id for r in t.before.requests if t.after.held_request(r.id).status is not r.status and r.id not in cancelled]
    return [f"session resumption resolved server requests {_ids(changed)}"] if changed else []


def stream_expiry_keeps_session(t: Transition) -> list[str]:
    if not isinstance(t.action, ExpireStream):
        return []
    session = t.before.held_stream(t.action.stream).session
    if t.before.session(session) != t.after.session(session):
        return [f"expiring stream {t.action.stream} ended session {session}"]
    return []


SANITY_CHECKS: tuple[tuple[str, Callable[[Transition], list[str]]], ...] = (
    ("session-identity-stable", session_unchanged_by_resumption),
    ("reemit-keeps-pending", reemission_resolves_nothing),
    ("expiry-independent", stream_expiry_keeps_session),
)
"""Transition checks of the spec's own bookkeeping (they read ``after``)."""


def check_state(state: State) -> list[Finding]:
    """Every state invariant's violations in ``state`` (a sanity check of the spec)."""
    return [Finding(rule, m) for rule, check in STATE_INVARIANTS.items() for m in check(state)]


def check_sanity(t: Transition) -> list[Finding]:
    """Every sanity check's violations on the spec's own transition ``t``."""
    return [Finding(rule, m) for rule, check in SANITY_CHECKS for m in check(t)]


def check_spec_step(t: Transition) -> list[Finding]:
    """Every server check and every sanity check on one of the spec's own steps
    (what the explorers of the spec judge)."""
    return check_transition(t) + check_sanity(t)


def check_transition(t: Transition, expected: Observation | None = None) -> list[Finding]:
    """Every server check's violation on ``t``, filed under catalog rule ids.

    Specific checks first; the generic ones (an event id that resolves to
    nothing, and, when the spec's ``expected`` observation is given, any other
    difference from it, filed under ``agreement``) only when no specific check
    explains the step. A check is not called on a step outside its scope
    (``DELIVERY_ONLY``, ``RESUMPTION_ONLY``): it would find nothing there.
    """
    outcome = t.outcome
    delivered = bool(t.observation.events)
    resumed = outcome is not None and outcome.branch in _RESUMPTIONS and t.observation.status == 200
    findings = []
    for rule, check in _in_scope(SERVER_CHECKS, delivered, resumed):
        for problem in check(t):
            message, case = problem if isinstance(problem, tuple) else (problem, None)
            if rule == "status":
                status = t.observation.status
                outside = status is None or not 100 <= status < 500
                findings.append(Finding(_status_rule(t), message, case or (outcome.case if outcome is not None else None), outside))
            else:
                findings.append(Finding(rule, message, case))
    if findings:
        return findings
    for rule, check in _in_scope(GENERIC_CHECKS, delivered, resumed):
        findings += [Finding(rule, message) for message in check(t)]
    if not findings and expected is not None:
        findings += _disagreement(t, expected)
    return findings


DELIVERY_ONLY = frozenset({no_cross_session, server_request_ownership, no_reemit_on_stream_resume,
                           no_replay_on_session_resume, no_broadcast, standalone_stream_scope, event_id_resolves})
"""Server checks that read only the events a step delivered: on a step that delivers
none they find nothing, and ``check_transition`` does not call them."""

RESUMPTION_ONLY = frozenset({replay_suffix, no_reemit_on_stream_resume, no_replay_on_session_resume,
                             reemit_pending, reemit_keeps_pending})
"""Server checks that judge only a reconnect answered 200 in branches 1-3 (``_RESUMPTIONS``):
elsewhere they find nothing, and ``check_transition`` does not call them."""

_RESUMPTIONS = (Branch.STREAM_RESUMPTION, Branch.SESSION_RESUMPTION, Branch.REJECT_FOREIGN_EVENT_ID)

def _in_scope(checks: tuple[tuple[str, _C], ...], delivered: bool, resumed: bool) -> list[tuple[str, _C]]:
    """``checks`` without those whose scope excludes the step."""
    return [(rule, check) for rule, check in checks
            if (delivered or check not in DELIVERY_ONLY) and (resumed or check not in RESUMPTION_ONLY)]


def distinct_rejections(foreign: tuple[int, int | None], missing: tuple[int, int | None]) -> list[str]:
    """Branch 3's rejection (status, JSON-RPC error code) must differ from the
    missing-session one, so a client can tell "bad event id" from "no session"
    (docs/design.md §2 row 3)."""
    if foreign == missing:
        status, error = foreign
        return [f"a Last-Event-ID the session cannot resume is refused exactly like a missing session ({status}, error {error})"]
    return []


def comparable(observation: Observation) -> Observation:
    """``observation`` without what the agreement comparison ignores: the error
    code (judged by ``distinct_rejections`` alone) and ``primed`` (by ``priming_event``)."""
    return Observation(observation.status, observation.session, observation.stream, observation.event,
                       observation.request, observation.events, observation.closed)


def _disagreement(t: Transition, expected: Observation) -> list[Finding]:
    observed = t.observation
    if comparable(observed) == comparable(expected) or observed.version_unsupported and _is_refusal(observed.status):
        return []  # the second: a refusal for the version header, judged by unsupported-version-400 alone
    if t.outcome is not None and observed.status != expected.status and observed.status in t.outcome.statuses:
        return []  # an accepted alternative (a refusal): judged by status_check
    return [Finding(AGREEMENT, f"observed {observed}, the spec expects {expected}")]


# -- helpers ------------------------------------------------------------------------


def _succeeded(t: Transition, branch: Branch) -> bool:
    return _success(t, branch) is not None


def _outcome(t: Transition) -> Outcome:
    """The outcome of a client request's step: the callers judge no other step."""
    assert t.outcome is not None, "a server or network action has no outcome"
    return t.outcome


def _success(t: Transition, branch: Branch) -> Outcome | None:
    """The step's outcome when the server answered ``branch`` with 200 (``_succeeded``), else ``None``."""
    outcome = t.outcome
    return outcome if outcome is not None and outcome.branch is branch and t.observation.status == 200 else None


def _cursor(t: Transition) -> str | None:
    """The ``Last-Event-ID`` the step's request sent; ``None`` for none, or a step that is no GET."""
    return t.action.last_event_id if isinstance(t.action, Reconnect) else None


def _named_session(t: Transition) -> str | None:
    """The ``Mcp-Session-Id`` the step's request sent; ``None`` for none, or a step that names no session."""
    session = getattr(t.action, "session", None)
    return session if isinstance(session, str) else None


def _replayed(t: Transition) -> list[Delivered]:
    """The delivered events that existed before the step: a replay."""
    return [d for d in t.observation.events if t.before.event(d.event) is not None]


def _new(t: Transition, item: Delivered) -> bool:
    """True for an event this step created: on the new stream of the response, the event a
    server action reports, or one the stream a resumption answered goes on with after its
    replay (docs/design.md §2: new events on a resumed stream)."""
    if item.event == t.observation.event:
        return True
    if item.stream is None or item.stream != t.observation.stream:
        return False
    resumed = t.outcome is not None and t.outcome.branch in (Branch.STREAM_RESUMPTION, Branch.SESSION_RESUMPTION)
    return t.before.stream(item.stream) is None or resumed and t.observation.status == 200


def _connection_session(t: Transition, item: Delivered) -> str | None:
    """The session of the connection that delivered ``item``: for a response, the
    session its request named; for a server action, the session the stream's
    connection was opened under."""
    if t.outcome is not None:
        return _named_session(t)
    stream = t.before.stream(item.stream)
    return stream.session if stream is not None else None


def _event_session(t: Transition, item: Delivered) -> str | None:
    """The session an event belongs to: a past event's, or for the new event of a
    server action, the session of the stream it was sent on."""
    owner = t.before.session_of_event(item.event)
    if owner is None and t.outcome is None and item.event == t.observation.event:
        stream = t.before.stream(getattr(t.action, "stream", None))
        owner = stream.session if stream is not None else None
    return owner


def _issuing_session(t: Transition) -> str | None:
    """The session of the stream a server action sent its new message on."""
    stream = t.before.stream(getattr(t.action, "stream", None))
    return stream.session if stream is not None else None


def _named_stream(t: Transition) -> str | None:
    event = t.before.event(_cursor(t))
    return event.stream if event is not None else None


def _is_refusal(status: int | None) -> bool:
    return status is not None and status >= 300


def _status_rule(t: Transition) -> str:
    """The rule a wrong status breaks: the branch's, with three exceptions.

    - A refused session resumption that leaves pending requests stranded where the profile
      requires re-emission (``Outcome.strands``): ``reemit-pending``.
    - A live session answered 404, as if it had ended: ``expiry-independent`` when one of
      its streams expired or lost its connection before (a server that ends a session with
      a stream, MCP B33); else ``no-duplicate-tool-call`` while a call of it is unfinished
      (MCP B33 lets the server end it, but its client will send the call again); else
      ``session-identity-stable`` (a live session keeps answering). Under the MCP
      revisions the checkers read a 404 with no call unfinished as the session ended at
      will (``transitions.ended_at_will``) before judging.
    - A refused ``Last-Event-ID`` (branch 3) keeps its branch's rule: an expired stream's
      event id answered 404 is the case ``reject-foreign-event-id`` names (catalog); so is a
      resumable one answered 404 (the cursor refused with the missing-session status: a
      checker cannot always see a stream expire).
    """
    outcome, status = _outcome(t), t.observation.status
    if outcome.branch is Branch.REJECT_FOREIGN_EVENT_ID:
        return outcome.rule
    if outcome.strands and _is_refusal(status) and status != 404:
        return "reemit-pending"
    if status == 404 and outcome.session_class is SessionClass.LIVE and _cursor(t):
        return "reject-foreign-event-id"  # a cursor refused as if the session were gone (404 is for sessions)
    if status == 404 and outcome.session_class is SessionClass.LIVE:
        session = _named_session(t)
        lost = any(not s.connected or s.status is not StreamStatus.OPEN for s in t.before.streams_of(session))
        if lost:
            return "expiry-independent"
        return "no-duplicate-tool-call" if _unfinished_call(t) else "session-identity-stable"
    return outcome.rule


def _reemit_misses(t: Transition) -> list[tuple[str, str]]:
    """Requests a session resumption had to re-emit or cancel and did neither:
    ``reemit-keeps-pending`` for one re-emitted before, ``reemit-pending`` otherwise."""
    outcome = _success(t, Branch.SESSION_RESUMPTION)
    if outcome is None:
        return []
    dealt = {d.request for d in t.observation.events} | {d.cancels for d in t.observation.events}
    misses = []
    for request_id in outcome.reemit:
        if request_id in dealt:
            continue
        reemitted_before = t.before.held_request(request_id).reemitted
        rule = "reemit-keeps-pending" if reemitted_before else "reemit-pending"
        why = "was re-emitted earlier and is still pending" if reemitted_before else "is pending"
        misses.append((rule, f"server request {request_id} {why} but was neither re-emitted nor cancelled on the new stream of {_named_session(t)}"))
    return misses


def _suffix_defect(replayed: Sequence[str], expected: Sequence[str], t: Transition) -> str:
    if _cursor(t) in replayed:
        return " (includes the cursor's own event)"
    if len(replayed) < len(expected) and tuple(replayed) == tuple(expected[1:]):
        return " (skips the event right after the cursor)"
    if len(set(replayed)) < len(replayed):
        return " (duplicates)"
    if sorted(replayed) == sorted(expected):
        return " (reordered)"
    return ""


def _ids(items: Iterable[object]) -> str:
    return "[" + ", ".join(str(item) for item in items) + "]"


def _describe_statuses(statuses: frozenset[int]) -> str:
    successes = frozenset(range(200, 300))
    if successes <= statuses:
        rest = statuses - successes
        return " or ".join(["2xx"] + ([_describe_statuses(rest)] if rest else []))
    if len(statuses) > 20:
        missing = sorted(set(range(400, 500)) - statuses)
        extra = sorted(s for s in statuses if not 400 <= s < 500)
        text = "any 4xx"
        if missing:
            text += " except " + ", ".join(map(str, missing))
        if extra:
            text += " or " + ", ".join(map(str, extra))
        return text
    return " or ".join(map(str, sorted(statuses)))
