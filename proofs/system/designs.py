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
  own (the others stay replayable after their session ended).

Until the first observable difference the faulty server and the spec agree on
every entity, so the spec's state names the server's too; the first difference
is what ``model.harness.checker`` reports, and what bounded model checking looks for.

Each design (its number, summary, rules and deviations) is defined once, as data,
in ``spec.designs``; here each ``spec.designs.Deviation`` has its ``Variation``
(``VARIATIONS``), and ``design_for`` builds a design's variation from its
deviations and parameters. The variations are written from the behaviour of
``model/servers/faulty.py`` and ``model/servers/variations.py``; this package
imports neither. A deviation the formulas cannot express (``NEEDS_ENCODING``,
empty today) would leave its design without a variation, and say why.
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
from mcp_resume.proofs.system.transitions import owed
from mcp_resume.proofs.system.vocabulary import CLIENT_REQUESTS, ActionKind, Observation, Params, Rigid, State


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
    delivered events, closed connections and named stream it shows then (``None``: as
    the spec's)."""

    when: Callable[[DesignStep], object]
    status: Callable[[DesignStep], object] | None = None
    delivered: Callable[[DesignStep, object], object] | None = None
    closed: Callable[[DesignStep, object], object] | None = None
    stream: Callable[[DesignStep], object] | None = None


@dataclass(frozen=True)
class Variation:
    """What one deviation changes in the transition system: how the observation
    deviates (``overrides``, the first one applying wins), hidden relations
    (name -> sorts, empty initially) with their update, relations of one step
    (``aux``), constraints on them (``extra``), and whether a session resumption
    cancels the requests it must deal with instead of re-emitting them (``cancels``:
    the spec's cancel alternative, docs/design.md §2 branch 2)."""

    overrides: tuple[Override, ...]
    hidden: dict[str, tuple[str, ...]] = field(default_factory=dict)
    updates: dict[str, Callable] = field(default_factory=dict)
    aux: dict[str, tuple[str, ...]] = field(default_factory=dict)
    extra: Callable[[DesignStep], list] | None = None
    cancels: bool = False


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
    parts = [
        Conjunct("server.status", L.eq(F.status, status)),
        Conjunct("server.delivered", L.forall((EVENT,), lambda e: L.iff(F.delivered(e), delivered(e)))),
        Conjunct("server.closed", L.forall((STREAM,), lambda t: L.iff(F.closed(t), closed(t)))),
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


def _nothing(d: DesignStep, e):
    return d.L.false()


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
    L, R, X, Y, A = d.L, d.R, d.X, d.Y, d.A
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
    """``EXPIRY_ENDS_SESSION``: a client request naming a session the server ended when a stream expired."""
    L, A = d.L, d.A
    client = L.or_(*(L.eq(A.kind, L.enum(k)) for k in CLIENT_REQUESTS))
    return L.and_(client, d.live_session_header(), d.H["gone"](A.sh))


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
        (Override(_gap_replay, _status(200), _kept),))),
    Deviation.CANCEL_ON_SESSION_RESUME: _fixed(Variation(
        (Override(lambda d: d.reconnect(Branch.SESSION_RESUMPTION), None, _cancel_events),), cancels=True)),
    Deviation.RING_BUFFER_REJECTS: _fixed(Variation(
        (Override(_evicted_cursor, _status(400), _nothing),))),
    Deviation.RESERIALISED_REPLAY: _fixed(Variation(())),  # bytes on the wire only: the spec's observation
    Deviation.JSON_POST_RESPONSES: _fixed(Variation(())),
}
"""The variation of each deviation, made from the design (for its parameters)."""

NEEDS_ENCODING: dict[Deviation, str] = {
    deviation: "a deviation of the third round (docs/design.md §5, designs 19-29 and three variations): not encoded yet"
    for deviation in (
        Deviation.UNKNOWN_SESSION_400, Deviation.STALE_CONNECTION_COUNT, Deviation.BROADCAST_NEW_MESSAGES,
        Deviation.UNSTORED_WHILE_DISCONNECTED, Deviation.DROP_ENDS_SESSION, Deviation.CONSTANT_FIRST_EVENT_ID,
        Deviation.CALL_REQUEST_ON_GET_STREAM, Deviation.SILENT_DROP_ON_RESUME, Deviation.SINGLE_SLOT_PENDING,
        Deviation.RETAINED_CURSOR_EMPTY, Deviation.DELETE_ENDS_ALL_SESSIONS, Deviation.SECOND_GET_400,
        Deviation.PING_ON_RESUME, Deviation.EVICTED_CURSOR_EXACT,
    )
}
"""Deviations the transition formulas cannot express yet, with the reason: a design
that makes one has no Z3 variation (its bounded search is not available)."""


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
                  any(variation.cancels for variation in variations))


DESIGNS: dict[int, Design] = {design.number: design_for(design) for design in spec_designs.DESIGNS
                              if needs_encoding(design) is None}
"""Each design of ``spec.designs`` as a variation of the transition system, by number."""

CORRECT: dict[str, Design] = {variation.target: design_for(variation) for variation in spec_designs.VARIATIONS
                              if needs_encoding(variation) is None}
"""Each correct variation of ``spec.designs`` (``variation-<slug>``) as a variation of the transition system."""
