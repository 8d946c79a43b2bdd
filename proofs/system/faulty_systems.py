"""The faulty designs of docs/design.md §5 as variations of the transition system.

A faulty server is the spec with one decision changed. Here it is the spec's
step (the reference behaviour) together with what the faulty server shows the
client instead (its *observation*, ``F``), and, where the fault first hides in
the server's tables, a little *hidden state* that the spec does not have:

- ``REEMIT_DRAINS_PENDING`` keeps its own pending table, which a session
  resumption empties;
- ``EXPIRY_ENDS_SESSION`` remembers the sessions it ended when one of their
  streams expired;
- ``ENDED_SESSION_EVENTS_REPLAY`` remembers which streams were expired on their
  own (the others stay replayable after their session ended);
- ``UNSTORED_WHILE_DISCONNECTED`` remembers the events it never stored;
- ``DROP_ENDS_SESSION`` and ``DELETE_ENDS_ALL_SESSIONS`` remember the sessions
  they ended on their own;
- ``SINGLE_SLOT_PENDING`` keeps its own one-slot pending table.

Until the first observable difference the faulty server and the spec agree on
every entity, so the spec's state names the server's too; the first difference
is what ``model.harness.checker`` reports, and what bounded model checking looks for.
A step after which the server's state is no longer the spec's even though nothing
it showed breaks a rule (a refusal the spec would have served, a new request the
spec does not know) *departs* (``departs``): a run may end there, never go on.

Each design (its number, summary, rules and deviations) is defined once, as data,
in ``spec.designs``; here each ``spec.designs.Deviation`` has its ``Variation``
(``VARIATIONS``), and ``design_for`` builds a design's variation from its
deviations and parameters. The variations are written from the behaviour of
``model/servers/faulty.py`` and ``model/servers/variations.py``; this package
imports neither. A deviation the formulas cannot express (``NEEDS_ENCODING``)
leaves its design without a variation, and says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from mcp_resume.spec import designs as spec_designs
from mcp_resume.spec.decision import Branch, Method
from mcp_resume.spec.designs import Deviation
from mcp_resume.spec.profiles import Profile

from mcp_resume.proofs.system.decision import Request
from mcp_resume.proofs.system.logic import EVENT, REQUEST, SESSION, STREAM, Conjunct, Logic
from mcp_resume.proofs.system.transitions import exactable, owed
from mcp_resume.proofs.system.vocabulary import (
    CLIENT_REQUESTS, NO_ANSWER_STATUS, ActionKind, Observation, Params, Rigid, State,
)


@dataclass(frozen=True)
class DesignStep:
    """One step of a faulty server: the spec's step (``X``, ``A``, ``O``, ``Y``),
    the server's observation ``F``, hidden state before (``H``) and after (``H2``),
    and relations of this step alone (``aux``)."""

    L: Logic
    R: Rigid
    X: State
    A: Params
    O: Observation
    Y: State
    F: Observation
    H: dict[str, Callable]
    H2: dict[str, Callable]
    aux: dict[str, Callable]
    profile: Profile

    def reconnect(self, branch: Branch | None = None):
        L = self.L
        is_reconnect = L.eq(self.A.kind, L.enum(ActionKind.RECONNECT))
        if branch is None:
            return is_reconnect
        request = Request(L, Method.GET, self.X, self.R, self.A, self.profile)
        return L.and_(is_reconnect, request.lands(branch))

    def named_event(self):
        """``Last-Event-ID`` names an issued event (of any session)."""
        A, L = self.A, self.L
        return L.and_(A.eh_present, L.not_(A.eh_malformed), self.X.e_issued(A.eh))

    def live_session_header(self):
        A, L = self.A, self.L
        return L.and_(A.sh_present, L.not_(A.sh_malformed), self.X.s_live(A.sh))

    def retained(self, t):
        return self.L.and_(self.X.t_issued(t), self.L.not_(self.X.t_expired(t)))

    def suffix(self, e):
        """Events sent before, on the stream of ``Last-Event-ID``, after it."""
        R, L = self.R, self.L
        return L.and_(self.X.e_issued(e), L.eq(R.stream_of(e), R.stream_of(self.A.eh)), R.lt(self.A.eh, e))

    def pending_of_session(self, r):
        L, R, X = self.L, self.R, self.X
        return L.and_(X.r_issued(r), X.r_pending(r), L.eq(R.r_session(r), self.A.sh))


@dataclass(frozen=True)
class Override:
    """Where the server's observation differs: ``when`` it happens, and the status,
    delivered events, closed connections, named stream and the streams whose connections
    carried each delivered event (``on``) it shows then (``None``: as the spec's; an event
    the server delivers goes on its own stream's connection unless ``on`` says otherwise)."""

    when: Callable[[DesignStep], object]
    status: Callable[[DesignStep], object] | None = None
    delivered: Callable[[DesignStep, object], object] | None = None
    closed: Callable[[DesignStep, object], object] | None = None
    stream: Callable[[DesignStep], object] | None = None
    on: Callable[[DesignStep, object, object], object] | None = None


@dataclass(frozen=True)
class Variation:
    """What one deviation changes in the transition system: how the observation
    deviates (``overrides``, the first one applying wins), hidden relations
    (name -> sorts, empty initially) with their update, relations of one step
    (``aux``), constraints on them (``extra``, which may also leave out runs the
    encoding does not follow, saying why), whether a session resumption cancels the
    requests it must deal with instead of re-emitting them (``cancels``: the spec's
    cancel alternative, docs/design.md §2 branch 2), and the steps after which the
    server's state is no longer the spec's (``departs``; the function ``departs`` adds
    the generic ones): a run may end with such a step, not go on past it."""

    overrides: tuple[Override, ...]
    hidden: dict[str, tuple[str, ...]] = field(default_factory=dict)
    updates: dict[str, Callable] = field(default_factory=dict)
    aux: dict[str, tuple[str, ...]] = field(default_factory=dict)
    extra: Callable[[DesignStep], list] | None = None
    cancels: bool = False
    departs: Callable[[DesignStep], object] | None = None


@dataclass(frozen=True)
class Design:
    """One faulty design of ``spec.designs`` as a variation of the transition system:
    its deviations' variations put together (``design_for``)."""

    spec: spec_designs.Design
    overrides: tuple[Override, ...]
    hidden: dict[str, tuple[str, ...]] = field(default_factory=dict)
    updates: dict[str, Callable] = field(default_factory=dict)
    aux: dict[str, tuple[str, ...]] = field(default_factory=dict)
    extras: tuple[Callable[[DesignStep], list], ...] = ()
    cancels: bool = False
    departures: tuple[Callable[[DesignStep], object], ...] = ()

    @property
    def number(self) -> int | None:
        return self.spec.number

    @property
    def summary(self) -> str:
        return self.spec.summary


def observation_of(design: Design, d: DesignStep) -> list[Conjunct]:
    """The server's observation ``F`` of one step, its hidden state after it, and its
    choice for the requests a session resumption deals with (``A.cancel``)."""
    L, O, F = d.L, d.O, d.F
    status, delivered, closed, stream = O.status, O.delivered, O.closed, O.stream
    on = lambda e, t: L.and_(F.delivered(e), L.eq(t, d.R.stream_of(e)))
    for dev in reversed(design.overrides):
        condition = dev.when(d)
        if dev.status is not None:
            status = L.ite(condition, dev.status(d), status)
        if dev.stream is not None:
            stream = L.ite(condition, dev.stream(d), stream)
        if dev.delivered is not None:
            delivered = (lambda c, f, rest: lambda e: L.ite(c, f(d, e), rest(e)))(condition, dev.delivered, delivered)
        if dev.closed is not None:
            closed = (lambda c, f, rest: lambda t: L.ite(c, f(d, t), rest(t)))(condition, dev.closed, closed)
        if dev.on is not None:
            on = (lambda c, f, rest: lambda e, t: L.ite(c, f(d, e, t), rest(e, t)))(condition, dev.on, on)
    parts = [
        Conjunct("server.status", L.eq(F.status, status)),
        Conjunct("server.delivered", L.forall((EVENT,), lambda e: L.iff(F.delivered(e), delivered(e)))),
        Conjunct("server.closed", L.forall((STREAM,), lambda t: L.iff(F.closed(t), closed(t)))),
        Conjunct("server.on", L.forall((EVENT, STREAM), lambda e, t: L.iff(F.on(e, t), on(e, t)))),
        Conjunct("server.stream", L.eq(F.stream, stream)),
        Conjunct("server.cancels", L.forall((REQUEST,), lambda r: d.A.cancel(r) if design.cancels else L.not_(d.A.cancel(r)))),
    ]
    for name, sorts in design.hidden.items():
        update, after = design.updates[name], d.H2[name]
        new = lambda *a, u=update: u(d, *a)
        parts.append(Conjunct(f"server.{name}", L.forall(sorts, lambda *a, after=after, new=new: L.iff(after(*a), new(*a)))))
    for extra in design.extras:
        parts += extra(d)
    return parts


def departs(design: Design, d: DesignStep):
    """The step leaves the spec's state behind: what the server shows makes the checker
    (``model.harness.checker``) go on from another state than the unrolling's ``Y``. A
    client request the spec serves that the server refuses (the checker stays where it
    was), a branch-3 cursor evicted last that the server resumes (the checker follows the
    exact replay, ``spec.transitions.exact_after_eviction``), and the design's own
    (``Variation.departs``). Bounded model checking lets a run end with such a step, never
    go on past it: what follows would be judged from a state the server is not in."""
    L, O, F = d.L, d.O, d.F
    success = lambda code: L.between(code, 200, 299)
    refused = L.and_(_client_request(d), success(O.status), L.not_(success(F.status)))
    request = Request(L, Method.GET, d.X, d.R, d.A, d.profile)
    resumed = L.and_(d.reconnect(Branch.REJECT_FOREIGN_EVENT_ID), success(F.status), exactable(d, request))
    return L.or_(refused, resumed, *(own(d) for own in design.departures))


def _nothing(d: DesignStep, e):
    return d.L.false()


def _client_request(d: DesignStep):
    L = d.L
    return L.or_(*(L.eq(d.A.kind, L.enum(k)) for k in CLIENT_REQUESTS))


def _is(d: DesignStep, *kinds: ActionKind):
    L = d.L
    return L.or_(*(L.eq(d.A.kind, L.enum(k)) for k in kinds))


def _sends(d: DesignStep):
    """A server action that sends one new event (``A.new_event``) on ``A.target_stream``."""
    return _is(d, ActionKind.EMIT_EVENT, ActionKind.ISSUE_SERVER_REQUEST)


def _status(code: int):
    return lambda d: d.L.int_(code)


# -- the deviations -------------------------------------------------------------------------


def _session_log_suffix(d: DesignStep, e):
    """``PER_SESSION_CURSOR``: the session's whole log (every retained stream) after the cursor."""
    L, R, X, A = d.L, d.R, d.X, d.A
    t = R.stream_of(e)
    return L.and_(X.e_issued(e), d.retained(t), L.eq(R.owner(t), A.sh), R.lt(A.eh, e))


def _foreign_retained(d: DesignStep):
    """``GLOBAL_EVENT_LOG``: an event of a retained stream of another session, named under a live session."""
    L, R, A = d.L, d.R, d.A
    t = R.stream_of(A.eh)
    return L.and_(d.reconnect(), d.live_session_header(), d.named_event(), d.retained(t), L.not_(L.eq(R.owner(t), A.sh)))


def _drained_pending(d: DesignStep, r):
    """``REEMIT_DRAINS_PENDING``: the server's pending table: requests issued and still pending in the spec,
    minus those a resumption of their session re-emitted (the ones no open connection carried)."""
    L, X, Y = d.L, d.X, d.Y
    kept = L.or_(d.H["pending"](r), L.and_(L.not_(X.r_issued(r)), Y.r_issued(r)))
    drained = L.and_(d.reconnect(Branch.SESSION_RESUMPTION), owed(d, r))
    return L.and_(kept, Y.r_pending(r), L.not_(drained))


def _reemit_from_table(d: DesignStep, e):
    L, R = d.L, d.R
    return L.and_(d.O.delivered(e), L.forall((REQUEST,), lambda r: L.implies(R.carries(e, r), d.H["pending"](r))))


def _history(d: DesignStep, e):
    """``SESSION_ID_AS_CURSOR``: every event of the session's retained streams, then the re-emissions."""
    L, R, X, A = d.L, d.R, d.X, d.A
    t = R.stream_of(e)
    return L.or_(d.O.delivered(e), L.and_(X.e_issued(e), d.retained(t), L.eq(R.owner(t), A.sh)))


def _orphan_resumes(d: DesignStep):
    """``EVENT_ID_AS_SESSION``: no session header, and the event id names an event of a retained stream of a live session."""
    L, R, X, A = d.L, d.R, d.X, d.A
    t = R.stream_of(A.eh)
    return L.and_(d.reconnect(), L.not_(A.sh_present), d.named_event(), X.s_live(R.owner(t)), d.retained(t))


def _stream_resume_reemits(d: DesignStep):
    """``STREAM_RESUME_REEMITS``: a stream resumption of an open stream also sends every pending request again."""
    L, R, X, A = d.L, d.R, d.X, d.A
    return L.and_(d.reconnect(Branch.STREAM_RESUMPTION), X.t_open(R.stream_of(A.eh)))


def _extra_events(d: DesignStep) -> list[Conjunct]:
    """``STREAM_RESUME_REEMITS``: the events the server adds, one per pending request, none of them the spec's."""
    L, R, Y = d.L, d.R, d.Y
    extra, when = d.aux["extra"], _stream_resume_reemits(d)
    one_per_request = L.forall((REQUEST,), lambda r: L.implies(L.and_(when, d.pending_of_session(r)), L.exists(
        (EVENT,), lambda e: L.and_(extra(e), R.carries(e, r)))))
    only_those = L.forall((EVENT,), lambda e: L.implies(extra(e), L.and_(when, L.not_(Y.e_issued(e)), L.exists(
        (REQUEST,), lambda r: L.and_(d.pending_of_session(r), R.carries(e, r))))))
    return [Conjunct("server.extra-per-request", one_per_request), Conjunct("server.extra-only", only_those)]


def _client_on_gone_session(d: DesignStep):
    """``EXPIRY_ENDS_SESSION``, ``DROP_ENDS_SESSION``, ``DELETE_ENDS_ALL_SESSIONS``: a client
    request naming a session the server ended on its own (hidden ``gone``)."""
    return d.L.and_(_client_request(d), d.live_session_header(), d.H["gone"](d.A.sh))


def _expiry_closes_session(d: DesignStep, t):
    L, R, X, A = d.L, d.R, d.X, d.A
    return L.or_(d.O.closed(t), L.and_(X.t_connected(t), L.eq(R.owner(t), R.owner(A.target_stream))))


def _is_expire_stream(d: DesignStep):
    return d.L.eq(d.A.kind, d.L.enum(ActionKind.EXPIRE_STREAM))


def _ended_session_event(d: DesignStep):
    """``ENDED_SESSION_EVENTS_REPLAY``: under a live session, an event id of an ended session's stream that
    was not expired on its own."""
    L, R, X, A = d.L, d.R, d.X, d.A
    t = R.stream_of(A.eh)
    return L.and_(d.reconnect(), d.live_session_header(), d.named_event(), L.not_(X.s_live(R.owner(t))), L.not_(d.H["expired"](t)))


def _shared_get_log(d: DesignStep):
    return d.L.and_(d.reconnect(Branch.STREAM_RESUMPTION), d.R.t_get(d.R.stream_of(d.A.eh)))


def _get_events_after(d: DesignStep, e):
    """``SHARED_GET_STREAM_KEY``: every event on any GET stream (all sessions share one key) after the cursor."""
    L, R, X, A = d.L, d.R, d.X, d.A
    return L.and_(X.e_issued(e), R.t_get(R.stream_of(e)), R.lt(A.eh, e))


def _orphan_event_id(d: DesignStep):
    """``ORPHAN_EVENT_ID_MINTS_SESSION``: a reconnect with ``Last-Event-ID`` and no session header."""
    return d.L.and_(d.reconnect(), d.L.not_(d.A.sh_present), d.A.eh_present)


def _get_stream_resumed(d: DesignStep):
    return d.L.and_(d.reconnect(Branch.STREAM_RESUMPTION), d.R.t_get(d.R.stream_of(d.A.eh)))


def _session_events_after(d: DesignStep, e):
    """``GET_STREAM_STORES_SESSION``: every event of the session sent after the cursor, on any stream."""
    L, R, X, A = d.L, d.R, d.X, d.A
    return L.and_(X.e_issued(e), L.eq(R.owner(R.stream_of(e)), A.sh), R.lt(A.eh, e))


def _on_open_connection(d: DesignStep, r):
    """``REEMIT_ON_OPEN_CONNECTION``: a pending request of the session whose carrying stream has an open connection."""
    return d.L.and_(d.pending_of_session(r), d.L.not_(d.A.stranded(r)))


def _broadcasts(d: DesignStep) -> list[Conjunct]:
    """``REEMIT_ON_OPEN_CONNECTION``: a session resumption also sends, on its new stream, one new event per
    pending request still on an open connection (the spec sends those none)."""
    L, R, Y, A = d.L, d.R, d.Y, d.A
    extra, when = d.aux["broadcast"], d.reconnect(Branch.SESSION_RESUMPTION)
    sent = lambda e, r: L.and_(extra(e), R.carries(e, r), L.eq(R.stream_of(e), A.new_stream))
    one_per_request = L.forall((REQUEST,), lambda r: L.implies(L.and_(when, _on_open_connection(d, r)), L.exists(
        (EVENT,), lambda e: sent(e, r))))
    only_those = L.forall((EVENT,), lambda e: L.implies(extra(e), L.and_(when, L.not_(Y.e_issued(e)), L.exists(
        (REQUEST,), lambda r: L.and_(_on_open_connection(d, r), sent(e, r))))))
    return [Conjunct("server.broadcast-per-request", one_per_request), Conjunct("server.broadcast-only", only_those)]


def _other_stream(d: DesignStep):
    """``RESUMED_STREAM_MISROUTED``: a stream that is not the resumed one (the key the store hands back
    names no stream of the resumption; which other element it is does not matter)."""
    L, resumed = d.L, d.R.stream_of(d.A.eh)
    first, second = L.elements[STREAM][:2]
    return L.ite(L.eq(resumed, first), second, first)


def _evicted_cursor(d: DesignStep):
    """``RING_BUFFER_*``: under a live session, a cursor of a retained stream of that session that its
    ring buffer evicted (branch 3 in the spec)."""
    L, R, X, A = d.L, d.R, d.X, d.A
    t = R.stream_of(A.eh)
    return L.and_(d.reconnect(Branch.REJECT_FOREIGN_EVENT_ID), d.live_session_header(), d.named_event(),
                  L.eq(R.owner(t), A.sh), d.retained(t), X.e_evicted(A.eh))


def _kept(d: DesignStep, e):
    """The events the ring buffer of the cursor's stream still holds."""
    L, R, X = d.L, d.R, d.X
    return L.and_(X.e_issued(e), L.eq(R.stream_of(e), R.stream_of(d.A.eh)), L.not_(X.e_evicted(e)))


def _gap_replay(d: DesignStep):
    """``RING_BUFFER_GAP``: an evicted cursor whose buffer still holds events is resumed (an empty one is refused)."""
    return d.L.and_(_evicted_cursor(d), d.L.exists((EVENT,), lambda e: _kept(d, e)))


def _cancel_events(d: DesignStep, e):
    """``CANCEL_ON_SESSION_RESUME``: the new events of a session resumption, each cancelling a request it owes."""
    L, R, X, Y = d.L, d.R, d.X, d.Y
    return L.and_(Y.e_issued(e), L.not_(X.e_issued(e)), L.exists((REQUEST,), lambda r: L.and_(owed(d, r), R.cancels(e, r))))


def _no_live_session(d: DesignStep):
    """``UNKNOWN_SESSION_400``: a client request whose well-formed session id names no live session."""
    L, A = d.L, d.A
    return L.and_(_client_request(d), A.sh_present, L.not_(A.sh_malformed), L.not_(d.X.s_live(A.sh)))


def _get_stream_ever(d: DesignStep):
    """``STALE_CONNECTION_COUNT``: a session resumption of a session that has opened a GET stream
    before, connected or not."""
    L, R, X, A = d.L, d.R, d.X, d.A
    had = L.exists((STREAM,), lambda t: L.and_(X.t_issued(t), R.t_get(t), L.eq(R.owner(t), A.sh)))
    return L.and_(d.reconnect(Branch.SESSION_RESUMPTION), had)


def _lost_now(d: DesignStep, e):
    """``UNSTORED_WHILE_DISCONNECTED``: the server's lost events: those sent while their stream had no
    connection (they got an id, the store never saw them)."""
    L, X, A = d.L, d.X, d.A
    return L.or_(d.H["lost"](e), L.and_(_sends(d), L.eq(e, A.new_event), L.not_(X.t_connected(A.target_stream))))


def _lost_cursor(d: DesignStep):
    """``UNSTORED_WHILE_DISCONNECTED``: a stream resumption from a lost event: the server cannot find it."""
    return d.L.and_(d.reconnect(Branch.STREAM_RESUMPTION), d.H["lost"](d.A.eh))


def _evicts_past_lost(d: DesignStep):
    """``UNSTORED_WHILE_DISCONNECTED``: the server's ring buffer counts evictions over the events it
    stored, the spec over every event sent: once a stream lost one, they evict different events."""
    L, R = d.L, d.R
    t = d.A.target_stream
    return L.and_(_is(d, ActionKind.EVICT_EVENT), L.exists((EVENT,), lambda e: L.and_(d.H["lost"](e), L.eq(R.stream_of(e), t))))


def _send_on_gone_session(d: DesignStep):
    """A server action on a stream of a session the server ended on its own: the stream is expired
    there, so nothing reaches a connection."""
    return d.L.and_(_sends(d), d.H["gone"](d.R.owner(d.A.target_stream)))


def _live_send_on_gone_session(d: DesignStep):
    """``_send_on_gone_session`` on a stream the spec holds connected: the checker files the
    undelivered event under ``replay-suffix`` (``spec.invariants.live_delivery``), which this
    encoding does not state; such a step leaves the spec's state."""
    return d.L.and_(_send_on_gone_session(d), d.X.t_connected(d.A.target_stream))


def _drop_ends(d: DesignStep, s):
    """``DROP_ENDS_SESSION``: the sessions the server ended, a dropped connection's among them."""
    L = d.L
    return L.or_(d.H["gone"](s), L.and_(_is(d, ActionKind.DROP_CONNECTION), L.eq(s, d.R.owner(d.A.target_stream))))


def _deletes(d: DesignStep):
    """``DELETE_ENDS_ALL_SESSIONS``: a DELETE the server serves (its session is live there)."""
    L, A = d.L, d.A
    request = Request(L, Method.DELETE, d.X, d.R, A, d.profile)
    return L.and_(_is(d, ActionKind.DELETE_SESSION), request.lands(Branch.SESSION_TERMINATION), L.not_(d.H["gone"](A.sh)))


def _delete_ends(d: DesignStep, s):
    """``DELETE_ENDS_ALL_SESSIONS``: every session live when a DELETE is served ends with it."""
    return d.L.or_(d.H["gone"](s), d.L.and_(_deletes(d), d.X.s_live(s)))


def _every_connection(d: DesignStep, t):
    """``DELETE_ENDS_ALL_SESSIONS``: a served DELETE closes every connection of a session the server held live."""
    L, X = d.L, d.X
    return L.or_(d.O.closed(t), L.and_(X.t_connected(t), L.not_(d.H["gone"](d.R.owner(t)))))


def _first_event(d: DesignStep, e):
    """``CONSTANT_FIRST_EVENT_ID``: the first event ever sent, the one the id ``0`` names for a client."""
    L, R, X = d.L, d.R, d.X
    return L.and_(X.e_issued(e), L.forall((EVENT,), lambda x: L.implies(X.e_issued(x), L.not_(R.lt(x, e)))))


def _opening(d: DesignStep, e):
    """An event of this step that is the first of its stream: the server gives it the id ``0``."""
    L, R, X, Y = d.L, d.R, d.X, d.Y
    earlier = lambda x: L.and_(Y.e_issued(x), L.eq(R.stream_of(x), R.stream_of(e)), R.lt(x, e))
    return L.and_(Y.e_issued(e), L.not_(X.e_issued(e)), L.not_(L.exists((EVENT,), earlier)))


def _zero_taken(d: DesignStep):
    return d.L.exists((EVENT,), lambda e: d.X.e_issued(e))


def _zero_again(d: DesignStep):
    """``CONSTANT_FIRST_EVENT_ID``: the step opens a stream with an event while ``0`` is taken."""
    L = d.L
    return L.and_(_zero_taken(d), L.exists((EVENT,), lambda e: L.and_(d.O.delivered(e), _opening(d, e))))


def _as_zero(d: DesignStep, e):
    """What the client sees of a step that opens a stream while ``0`` is taken: the spec's delivery
    without the opening event, and in its place the first event ever, whose id it got."""
    L = d.L
    return L.or_(L.and_(d.O.delivered(e), L.not_(_opening(d, e))), _first_event(d, e))


def _same_content(d: DesignStep, e, x):
    L, R = d.L, d.R
    return L.forall((REQUEST,), lambda r: L.and_(L.iff(R.carries(e, r), R.carries(x, r)), L.iff(R.cancels(e, r), R.cancels(x, r))))


def _zero_outside(d: DesignStep) -> list[Conjunct]:
    """``CONSTANT_FIRST_EVENT_ID``: runs the observation cannot follow are left out. The client reads
    the reused ``0`` as the first event with the message the server sent under it, which here is
    the first event's own: an opening event with other content, and a server action's ``0`` on a
    stream of another session (the checker files it under ``no-cross-session``, stated for client
    requests only) or on no connection (the checker reads the reused id off the answer, which
    delivers nothing here) would be judged otherwise than the checker does."""
    L, R, A, X = d.L, d.R, d.A, d.X
    first = lambda x: _first_event(d, x)
    sent = L.and_(_sends(d), _zero_taken(d), _opening(d, A.new_event))
    other_session = L.exists((EVENT,), lambda x: L.and_(first(x), L.not_(L.eq(R.owner(R.stream_of(x)), R.owner(A.target_stream)))))
    unlike = L.exists((EVENT, EVENT), lambda o, x: L.and_(d.O.delivered(o), _opening(d, o), first(x), L.not_(_same_content(d, o, x))))
    return [
        Conjunct("server.zero-sent-connected", L.not_(L.and_(sent, L.or_(other_session, L.not_(X.t_connected(A.target_stream)))))),
        Conjunct("server.zero-same-content", L.not_(L.and_(d.reconnect(Branch.SESSION_RESUMPTION), _zero_taken(d), unlike))),
    ]


def _live_get(d: DesignStep, g):
    """``CALL_REQUEST_ON_GET_STREAM``: an open GET stream with a connection, of the target's session."""
    L, R, X = d.L, d.R, d.X
    return L.and_(X.t_issued(g), R.t_get(g), L.eq(R.owner(g), R.owner(d.A.target_stream)), X.t_connected(g), X.t_open(g))


def _request_moved(d: DesignStep):
    """``CALL_REQUEST_ON_GET_STREAM``: a server request on a POST stream while its session's GET stream
    is connected: the server sends it there instead."""
    L, R = d.L, d.R
    return L.and_(_is(d, ActionKind.ISSUE_SERVER_REQUEST), L.not_(R.t_get(d.A.target_stream)),
                  L.exists((STREAM,), lambda g: _live_get(d, g)))


def _moved_event(d: DesignStep) -> list[Conjunct]:
    """``CALL_REQUEST_ON_GET_STREAM``: the event the server sends instead, one element no event of the
    spec is, of that GET stream (which one, when several, matters to no check), carrying the new
    request and nothing else."""
    L, R, Y, A = d.L, d.R, d.Y, d.A
    moved, when = d.aux["moved"], _request_moved(d)
    alone = lambda e: L.and_(L.forall((REQUEST,), lambda r: L.iff(R.carries(e, r), L.eq(r, A.new_request))),
                             L.forall((REQUEST,), lambda r: L.not_(R.cancels(e, r))))
    shape = L.forall((EVENT,), lambda e: L.implies(moved(e), L.and_(when, L.not_(Y.e_issued(e)), _live_get(d, R.stream_of(e)), alone(e))))
    one = L.forall((EVENT, EVENT), lambda e, x: L.implies(L.and_(moved(e), moved(x)), L.eq(e, x)))
    return [Conjunct("server.moved-shape", shape), Conjunct("server.moved-one", one),
            Conjunct("server.moved-sent", L.implies(when, L.exists((EVENT,), moved)))]


def _sends_any(d: DesignStep):
    """A server action that sends one new event (``A.new_event``) on ``A.target_stream``: a
    message, a server request, a response or a cancellation (what ``send`` serves concretely)."""
    return _is(d, ActionKind.EMIT_EVENT, ActionKind.ISSUE_SERVER_REQUEST, ActionKind.RESPOND, ActionKind.CANCEL_REQUEST)


def _connected_elsewhere(d: DesignStep, t, same_session: bool):
    """Stream ``t`` has an open connection in a live session and is not the step's own stream;
    of the step's session when ``same_session``."""
    L, R, X, A = d.L, d.R, d.X, d.A
    session = L.eq(R.owner(t), R.owner(A.target_stream)) if same_session else L.true()
    return L.and_(X.t_connected(t), L.not_(L.eq(t, A.target_stream)), X.s_live(R.owner(t)), session)


def _broadcast(d: DesignStep, e):
    """``BROADCAST_NEW_MESSAGES``: the new event also reaches every other connected stream."""
    L = d.L
    elsewhere = L.exists((STREAM,), lambda t: _connected_elsewhere(d, t, False))
    return L.or_(d.O.delivered(e), L.and_(L.eq(e, d.A.new_event), elsewhere))


def _broadcast_on(d: DesignStep, e, t):
    L = d.L
    return L.or_(L.and_(d.O.delivered(e), L.eq(t, d.R.stream_of(e))),
                 L.and_(L.eq(e, d.A.new_event), _connected_elsewhere(d, t, False)))


def _response_moves(d: DesignStep):
    """``RESPONSE_ON_ANOTHER_STREAM``: a response while another stream of the session is connected."""
    L = d.L
    return L.and_(_is(d, ActionKind.RESPOND), L.exists((STREAM,), lambda t: _connected_elsewhere(d, t, True)))


def _response_elsewhere(d: DesignStep) -> list[Conjunct]:
    """``RESPONSE_ON_ANOTHER_STREAM``: the one other connected stream of the session the response goes
    to (the newest, concretely; which one, when several, matters to no check)."""
    L, there = d.L, d.aux["elsewhere"]
    shape = L.forall((STREAM,), lambda t: L.implies(there(t), L.and_(_response_moves(d), _connected_elsewhere(d, t, True))))
    one = L.forall((STREAM, STREAM), lambda t, u: L.implies(L.and_(there(t), there(u)), L.eq(t, u)))
    return [Conjunct("server.elsewhere-shape", shape), Conjunct("server.elsewhere-one", one),
            Conjunct("server.elsewhere-chosen", L.implies(_response_moves(d), L.exists((STREAM,), there)))]


def _slot(d: DesignStep, r):
    """``SINGLE_SLOT_PENDING``: the server's pending table, one request per session: a new server request
    takes the slot of its session; answers and cancellations empty it as in the spec."""
    L, R, X, Y, A = d.L, d.R, d.X, d.Y, d.A
    new = L.and_(L.not_(X.r_issued(r)), Y.r_issued(r))
    overwritten = L.and_(_is(d, ActionKind.ISSUE_SERVER_REQUEST), L.eq(R.r_session(r), R.owner(A.target_stream)))
    return L.and_(Y.r_pending(r), L.or_(new, L.and_(d.H["pending"](r), L.not_(overwritten))))


def _get_connected_nothing_stranded(d: DesignStep):
    """``SECOND_GET_400``: a session resumption while the session holds a connected GET stream and
    no pending request of it has lost its connection."""
    L, R, X, A = d.L, d.R, d.X, d.A
    connected = L.exists((STREAM,), lambda t: L.and_(X.t_issued(t), R.t_get(t), L.eq(R.owner(t), A.sh), X.t_connected(t)))
    stranded = L.exists((REQUEST,), lambda r: owed(d, r))
    return L.and_(d.reconnect(Branch.SESSION_RESUMPTION), connected, L.not_(stranded))


def _pings(d: DesignStep):
    """``PING_ON_RESUME``: a stream resumption of an open stream, which goes on on its new connection."""
    return d.L.and_(d.reconnect(Branch.STREAM_RESUMPTION), d.X.t_open(d.R.stream_of(d.A.eh)))


def _ping_events(d: DesignStep) -> list[Conjunct]:
    """``PING_ON_RESUME``: after the replay, one new event carrying a new server request (``ping``) and
    one carrying nothing, on the resumed stream; elements the spec's step mints none of (a run
    with no room for them in the scope is left out)."""
    L, R, Y, A = d.L, d.R, d.Y, d.A
    when, ping, note, asked = _pings(d), d.aux["ping"], d.aux["note"], d.aux["asked"]
    resumed = R.stream_of(A.eh)
    fresh = lambda e: L.and_(when, L.not_(Y.e_issued(e)), L.eq(R.stream_of(e), resumed),
                             L.forall((REQUEST,), lambda r: L.not_(R.cancels(e, r))))
    single = lambda rel, sort: L.forall((sort, sort), lambda x, y: L.implies(L.and_(rel(x), rel(y)), L.eq(x, y)))
    return [
        Conjunct("server.ping-event", L.forall((EVENT,), lambda e: L.implies(ping(e), L.and_(
            fresh(e), L.forall((REQUEST,), lambda r: L.iff(R.carries(e, r), asked(r))))))),
        Conjunct("server.ping-note", L.forall((EVENT,), lambda e: L.implies(note(e), L.and_(
            fresh(e), L.forall((REQUEST,), lambda r: L.not_(R.carries(e, r))))))),
        Conjunct("server.ping-request", L.forall((REQUEST,), lambda r: L.implies(asked(r), L.and_(
            when, L.not_(Y.r_issued(r)), L.eq(R.r_session(r), A.sh))))),
        Conjunct("server.ping-single", L.and_(single(ping, EVENT), single(note, EVENT), single(asked, REQUEST))),
        Conjunct("server.ping-sent", L.implies(when, L.and_(L.exists((EVENT,), ping), L.exists((EVENT,), note),
                                                             L.exists((REQUEST,), asked)))),
    ]


def _evicted_last(d: DesignStep):
    """``EVICTED_CURSOR_EXACT``: an evicted cursor (``_evicted_cursor``) whose every later event is kept."""
    L, R, X, A = d.L, d.R, d.X, d.A
    later = lambda e: L.and_(X.e_issued(e), L.eq(R.stream_of(e), R.stream_of(A.eh)), R.lt(A.eh, e))
    return L.and_(_evicted_cursor(d), L.forall((EVENT,), lambda e: L.implies(later(e), L.not_(X.e_evicted(e)))))


def _cursor_stream(d: DesignStep):
    """The stream of the cursor, which a resumption from it names."""
    return d.R.stream_of(d.A.eh)


def _reattached(d: DesignStep, t):
    """The connection a resumption of the cursor's stream closes before it takes over."""
    L, X = d.L, d.X
    return L.or_(d.O.closed(t), L.and_(L.eq(t, d.R.stream_of(d.A.eh)), X.t_connected(t)))


def _unknown_cursor_accepted(d: DesignStep):
    """``UNKNOWN_CURSOR_PAST_END``: a live session presents a well-formed event id never issued,
    and it has a retained stream to take it as a position of."""
    L, R, X, A = d.L, d.R, d.X, d.A
    has_stream = L.exists((STREAM,), lambda t: L.and_(d.retained(t), L.eq(R.owner(t), A.sh)))
    return L.and_(d.reconnect(), d.live_session_header(), A.eh_present, L.not_(A.eh_malformed),
                  L.not_(X.e_issued(A.eh)), has_stream)


def _resumed_from_last(d: DesignStep):
    """``EMPTY_REPLAY_NEVER_ANSWERED``: a stream resumption with no event after the cursor."""
    return d.L.and_(d.reconnect(Branch.STREAM_RESUMPTION), d.L.not_(d.L.exists((EVENT,), d.suffix)))


def _ended_stream_resumed(d: DesignStep):
    """``ENDED_STREAM_EMPTY_200``: a stream resumption of a stream that has ended."""
    return d.L.and_(d.reconnect(Branch.STREAM_RESUMPTION), d.L.not_(d.X.t_open(d.R.stream_of(d.A.eh))))


def _foreign_event_id_status(design: spec_designs.Design) -> Variation:
    """The refusal of a foreign event id answered with the design's ``status``, nothing delivered."""
    return Variation((Override(lambda d: d.reconnect(Branch.REJECT_FOREIGN_EVENT_ID), _status(design.parameter("status")), _nothing),))


def _fixed(variation: Variation) -> Callable[[spec_designs.Design], Variation]:
    return lambda design: variation


VARIATIONS: dict[Deviation, Callable[[spec_designs.Design], Variation]] = {
    Deviation.PER_SESSION_CURSOR: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.SESSION_RESUMPTION), _status(200), _nothing),
         Override(lambda d: d.reconnect(Branch.STREAM_RESUMPTION), _status(200), _session_log_suffix)))),
    Deviation.GLOBAL_EVENT_LOG: _fixed(Variation(
        (Override(_foreign_retained, _status(200), lambda d, e: d.suffix(e)),))),
    Deviation.REEMIT_DRAINS_PENDING: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.SESSION_RESUMPTION), None, _reemit_from_table),),
        hidden={"pending": (REQUEST,)}, updates={"pending": _drained_pending})),
    Deviation.SESSION_ID_AS_CURSOR: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.SESSION_RESUMPTION), None, _history),))),
    Deviation.EVENT_ID_AS_SESSION: _fixed(Variation(
        (Override(_orphan_resumes, _status(200), lambda d, e: d.suffix(e)),))),
    Deviation.STREAM_RESUME_REEMITS: _fixed(Variation(
        (Override(_stream_resume_reemits, None, lambda d, e: d.L.or_(d.O.delivered(e), d.aux["extra"](e))),),
        aux={"extra": (EVENT,)}, extra=_extra_events)),
    Deviation.OFF_BY_ONE_REPLAY: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.STREAM_RESUMPTION), None,
                  lambda d, e: d.L.or_(d.O.delivered(e), d.L.eq(e, d.A.eh))),))),
    Deviation.EXPIRY_ENDS_SESSION: _fixed(Variation(
        (Override(_client_on_gone_session, _status(404), _nothing, lambda d, t: d.L.false()),
         Override(_is_expire_stream, None, None, _expiry_closes_session)),
        hidden={"gone": (SESSION,)},
        updates={"gone": lambda d, s: d.L.or_(d.H["gone"](s), d.L.and_(_is_expire_stream(d), d.L.eq(s, d.R.owner(d.A.target_stream))))})),
    Deviation.ENDED_SESSION_EVENTS_REPLAY: _fixed(Variation(
        (Override(_ended_session_event, _status(200), lambda d, e: d.suffix(e)),),
        hidden={"expired": (STREAM,)},
        updates={"expired": lambda d, t: d.L.or_(d.H["expired"](t), d.L.and_(_is_expire_stream(d), d.L.eq(t, d.A.target_stream)))})),
    Deviation.FOREIGN_EVENT_ID_STATUS: _foreign_event_id_status,
    Deviation.SHARED_GET_STREAM_KEY: _fixed(Variation(
        (Override(_shared_get_log, None, _get_events_after),))),
    Deviation.SESSION_LOG_REPLAY: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.STREAM_RESUMPTION), _status(200), _session_log_suffix),))),
    Deviation.ORPHAN_EVENT_ID_MINTS_SESSION: _fixed(Variation(
        (Override(_orphan_event_id, _status(200), _nothing),))),
    Deviation.GET_STREAM_STORES_SESSION: _fixed(Variation(
        (Override(_get_stream_resumed, None, _session_events_after),))),
    Deviation.REEMIT_ON_OPEN_CONNECTION: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.SESSION_RESUMPTION), None,
                  lambda d, e: d.L.or_(d.O.delivered(e), d.aux["broadcast"](e))),),
        aux={"broadcast": (EVENT,)}, extra=_broadcasts)),
    Deviation.RESUMED_STREAM_MISROUTED: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.STREAM_RESUMPTION), stream=_other_stream),))),
    Deviation.RING_BUFFER_GAP: _fixed(Variation(
        (Override(_gap_replay, _status(200), _kept, _reattached, _cursor_stream),))),
    Deviation.CANCEL_ON_SESSION_RESUME: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.SESSION_RESUMPTION), None, _cancel_events),), cancels=True)),
    Deviation.RING_BUFFER_REJECTS: _fixed(Variation(
        (Override(_evicted_cursor, _status(400), _nothing),))),
    Deviation.RESERIALISED_REPLAY: _fixed(Variation(())),  # bytes on the wire only: the spec's observation
    Deviation.JSON_POST_RESPONSES: _fixed(Variation(())),
    Deviation.UNKNOWN_SESSION_400: _fixed(Variation(
        (Override(_no_live_session, _status(400), _nothing),))),
    Deviation.STALE_CONNECTION_COUNT: _fixed(Variation(
        (Override(_get_stream_ever, _status(409), _nothing),))),
    Deviation.UNSTORED_WHILE_DISCONNECTED: _fixed(Variation(
        (Override(_lost_cursor, _status(400), _nothing, lambda d, t: d.L.false()),
         Override(lambda d: d.reconnect(Branch.STREAM_RESUMPTION), None,
                  lambda d, e: d.L.and_(d.O.delivered(e), d.L.not_(d.H["lost"](e))))),
        hidden={"lost": (EVENT,)}, updates={"lost": _lost_now}, departs=_evicts_past_lost)),
    Deviation.DROP_ENDS_SESSION: _fixed(Variation(
        (Override(_client_on_gone_session, _status(404), _nothing, lambda d, t: d.L.false()),
         Override(_send_on_gone_session, None, _nothing),
         Override(lambda d: _is(d, ActionKind.DROP_CONNECTION), None, None, _expiry_closes_session)),
        hidden={"gone": (SESSION,)}, updates={"gone": _drop_ends}, departs=_live_send_on_gone_session)),
    Deviation.CONSTANT_FIRST_EVENT_ID: _fixed(Variation(
        (Override(_zero_again, None, _as_zero),), extra=_zero_outside)),
    Deviation.CALL_REQUEST_ON_GET_STREAM: _fixed(Variation(
        (Override(_request_moved, None, lambda d, e: d.aux["moved"](e)),),
        aux={"moved": (EVENT,)}, extra=_moved_event)),
    Deviation.SILENT_DROP_ON_RESUME: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.SESSION_RESUMPTION), None, _nothing),))),
    Deviation.SINGLE_SLOT_PENDING: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.SESSION_RESUMPTION), None, _reemit_from_table),),
        hidden={"pending": (REQUEST,)}, updates={"pending": _slot})),
    Deviation.RETAINED_CURSOR_EMPTY: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.STREAM_RESUMPTION), None, _nothing),))),
    Deviation.UNKNOWN_CURSOR_PAST_END: _fixed(Variation(
        (Override(_unknown_cursor_accepted, _status(200), _nothing),), departs=_unknown_cursor_accepted)),
    Deviation.EMPTY_REPLAY_NEVER_ANSWERED: _fixed(Variation(
        (Override(_resumed_from_last, _status(NO_ANSWER_STATUS), _nothing, lambda d, t: d.L.false()),),
        departs=_resumed_from_last)),
    Deviation.CURSOR_REFUSAL_NEVER_ANSWERED: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.REJECT_FOREIGN_EVENT_ID), _status(NO_ANSWER_STATUS), _nothing),))),
    Deviation.ENDED_STREAM_EMPTY_200: _fixed(Variation(
        (Override(_ended_stream_resumed, None, _nothing),), departs=_ended_stream_resumed)),
    Deviation.DELETE_ENDS_ALL_SESSIONS: _fixed(Variation(
        (Override(_client_on_gone_session, _status(404), _nothing, lambda d, t: d.L.false()),
         Override(_send_on_gone_session, None, _nothing),
         Override(_deletes, None, None, _every_connection)),
        hidden={"gone": (SESSION,)}, updates={"gone": _delete_ends}, departs=_live_send_on_gone_session)),
    Deviation.SECOND_GET_400: _fixed(Variation(
        (Override(_get_connected_nothing_stranded, _status(400), _nothing),))),
    Deviation.PING_ON_RESUME: _fixed(Variation(
        (Override(_pings, None, lambda d, e: d.L.or_(d.O.delivered(e), d.aux["ping"](e), d.aux["note"](e))),),
        aux={"ping": (EVENT,), "note": (EVENT,), "asked": (REQUEST,)}, extra=_ping_events, departs=_pings)),
    Deviation.EVICTED_CURSOR_EXACT: _fixed(Variation(
        (Override(_evicted_last, _status(200), _kept, _reattached, _cursor_stream),))),
    Deviation.BROADCAST_NEW_MESSAGES: _fixed(Variation(
        (Override(_sends_any, None, _broadcast, on=_broadcast_on),))),
    Deviation.RESPONSE_ON_ANOTHER_STREAM: _fixed(Variation(
        (Override(_response_moves, None, lambda d, e: d.L.eq(e, d.A.new_event),
                  on=lambda d, e, t: d.L.and_(d.L.eq(e, d.A.new_event), d.aux["elsewhere"](t))),),
        aux={"elsewhere": (STREAM,)}, extra=_response_elsewhere)),
}
"""The variation of each deviation, made from the design (for its parameters)."""

NEEDS_ENCODING: dict[Deviation, str] = {
    Deviation.REPLAY_OUT_OF_ORDER: (
        "the observation's delivered events are a set: the order in which one step delivers them cannot be "
        "stated"),
    Deviation.DUPLICATE_AFTER_REPLAY: (
        "the observation's delivered events are a set: an event delivered twice in one step is the same fact as "
        "once, so a duplicate cannot be stated"),
    Deviation.DISCONNECT_CANCELS: (
        "the Z3 vocabulary tells no response from another event, and a respond step that sends nothing is "
        "what call-answered judges, a rule with no invariant there"),
    Deviation.RESPONSE_UNSTORED: (
        "the Z3 vocabulary tells no response from another event, and a respond step that sends nothing is "
        "what call-answered judges, a rule with no invariant there"),
}
"""Deviations the transition formulas cannot express, with the reason: a design that
makes one has no Z3 variation (its bounded search is not available)."""


def needs_encoding(design: spec_designs.Design) -> str | None:
    """Why ``design`` has no Z3 variation yet, or ``None`` when it has one."""
    reasons = [NEEDS_ENCODING[d] for d in design.deviations if d in NEEDS_ENCODING]
    return "; ".join(reasons) or None


def design_for(design: spec_designs.Design) -> Design:
    """The Z3 variation of ``design``: its deviations' variations, in order (an earlier
    deviation's override wins where two apply)."""
    variations = [VARIATIONS[deviation](design) for deviation in design.deviations]
    merged = lambda attribute: {k: v for variation in variations for k, v in getattr(variation, attribute).items()}
    return Design(design, tuple(o for variation in variations for o in variation.overrides),
                  merged("hidden"), merged("updates"), merged("aux"),
                  tuple(variation.extra for variation in variations if variation.extra is not None),
                  any(variation.cancels for variation in variations),
                  tuple(variation.departs for variation in variations if variation.departs is not None))


DESIGNS: dict[int, Design] = {design.number: design_for(design) for design in spec_designs.DESIGNS
                              if needs_encoding(design) is None}
"""Each design of ``spec.designs`` as a variation of the transition system, by number."""

LEFT_OUT: dict[int, str] = {design.number: needs_encoding(design) for design in spec_designs.DESIGNS
                            if needs_encoding(design) is not None}
"""The designs of ``spec.designs`` with no Z3 variation (not in ``DESIGNS``), by number: why (``needs_encoding``)."""

CORRECT: dict[str, Design] = {variation.target: design_for(variation) for variation in spec_designs.VARIATIONS
                              if needs_encoding(variation) is None}
"""Each correct variation of ``spec.designs`` (``variation-<slug>``) as a variation of the transition system."""
