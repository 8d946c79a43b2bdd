"""The invariants of docs/design.md §4 as first-order formulas over the transition system.

Three kinds, all named:

- *state invariants* ``f(L, R, X)``: hold in every reachable state; the rule ids
  of ``spec.invariants.STATE_INVARIANTS`` (``event-id-unique``,
  ``no-cross-session``, ``server-request-ownership``, ``expiry-independent``);
- *strengthening invariants* (``wf.*``): well-formedness facts the state
  invariants need to be inductive (a live session was issued, a connected
  stream is open ...), proven like the others;
- *step properties* ``f(step, profile)``: hold on every step from a state
  satisfying the invariants (``spec.invariants.SERVER_CHECKS`` and the
  rules that judge statuses). A step property P is the state invariant
  "no step has broken P yet" of the system composed with a monitor that
  latches a flag when a step breaks P; it holds initially (no step yet), and its
  consecution for one action is exactly ``Inv ∧ TR_a ⊨ P``.

``no-duplicate-tool-call`` is end to end (a client that follows MCP re-sends a
``tools/call`` only after it was told its session is gone, B34): it is proven
in the form the state machine can state, "a request naming a live session is
never answered 404".

Every formula is universal (∀) at the top, with ∃ only under ∀ of sorts that
do not close a cycle (see ``ts_fragment``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from mcp_resume.spec.decision import Branch
from mcp_resume.spec.profiles import Profile

from mcp_resume.proofs.system.decision import Request
from mcp_resume.proofs.system.logic import EVENT, REQUEST, SESSION, STREAM, Logic
from mcp_resume.proofs.system.transitions import Step, exactable, owed
from mcp_resume.proofs.system.vocabulary import CLIENT_REQUESTS, METHOD_OF, STATE_RELATIONS, ActionKind, Rigid, State

STATE, STRENGTHENING, STEP = "state", "strengthening", "step"


@dataclass(frozen=True)
class Invariant:
    """One invariant: ``id`` (``<rule>.<aspect>`` or ``wf.<fact>``), the catalog
    ``rule`` it proves (``None`` for strengthening), its ``kind``, a sentence,
    the formula, and ``needs``: the other invariants the consecution of a state
    invariant assumes besides itself (its strengthening)."""

    id: str
    rule: str | None
    kind: str
    statement: str
    formula: Callable
    needs: tuple[str, ...] = ()


# -- state invariants -------------------------------------------------------------------


def _event_resolves(L: Logic, R: Rigid, X: State):
    return L.forall((EVENT,), lambda e: L.implies(X.e_issued(e), L.and_(X.t_issued(R.stream_of(e)), X.s_issued(R.owner(R.stream_of(e))))))


def _cursors_own(L: Logic, R: Rigid, X: State):
    return L.forall((SESSION, STREAM, EVENT), lambda s, t, e: L.implies(
        X.cursor(s, t, e), L.and_(X.e_issued(e), L.eq(R.stream_of(e), t), L.eq(R.owner(t), s))))


def _issued_on_own_stream(L: Logic, R: Rigid, X: State):
    return L.forall((REQUEST,), lambda r: L.implies(X.r_issued(r), L.and_(
        X.t_issued(R.r_stream(r)), L.eq(R.owner(R.r_stream(r)), R.r_session(r)))))


def _carried_by_own_events(L: Logic, R: Rigid, X: State):
    names = lambda e, r: L.or_(R.carries(e, r), R.cancels(e, r))
    return L.forall((EVENT, REQUEST), lambda e, r: L.implies(L.and_(X.e_issued(e), names(e, r)), L.and_(
        X.r_issued(r), L.eq(R.r_session(r), R.owner(R.stream_of(e))))))


def _carrier_own(L: Logic, R: Rigid, X: State):
    return L.forall((REQUEST, STREAM), lambda r, t: L.implies(X.r_carrier(r, t), L.and_(
        X.r_issued(r), X.t_issued(t), L.eq(R.owner(t), R.r_session(r)))))


def _carrier_one(L: Logic, R: Rigid, X: State):
    return L.forall((REQUEST, STREAM, STREAM), lambda r, t, u: L.implies(
        L.and_(X.r_carrier(r, t), X.r_carrier(r, u)), L.eq(t, u)))


def _held_by_own_session(L: Logic, R: Rigid, X: State):
    return L.forall((SESSION, REQUEST), lambda s, r: L.implies(X.seen(s, r), L.and_(X.r_issued(r), L.eq(R.r_session(r), s))))


def _ended_sessions_streams_expired(L: Logic, R: Rigid, X: State):
    return L.forall((STREAM,), lambda t: L.implies(L.and_(X.t_issued(t), L.not_(X.s_live(R.owner(t)))), L.and_(
        X.t_expired(t), L.not_(X.t_connected(t)))))


STATE_INVARIANTS: tuple[Invariant, ...] = (
    Invariant("event-id-unique.resolves", "event-id-unique", STATE,
              "every issued event id resolves to one issued stream and, through it, one issued session",
              _event_resolves, ("wf.stream-session-issued",)),
    Invariant("no-cross-session.cursors", "no-cross-session", STATE,
              "every event id the client holds for a stream under a session is an event of that stream, "
              "and the stream belongs to that session", _cursors_own),
    Invariant("server-request-ownership.issued", "server-request-ownership", STATE,
              "every server request was first sent on an issued stream of its own session", _issued_on_own_stream),
    Invariant("server-request-ownership.carried", "server-request-ownership", STATE,
              "every event that carries or cancels a server request is an event of that request's session",
              _carried_by_own_events, ("no-broadcast.carrier",)),
    Invariant("no-broadcast.carrier", "no-broadcast", STATE,
              "a server request has at most one carrying stream, an issued stream of its own session",
              (lambda L, R, X: L.and_(_carrier_own(L, R, X), _carrier_one(L, R, X)))),
    Invariant("server-request-ownership.held", "server-request-ownership", STATE,
              "every server request the client holds under a session was issued by that session", _held_by_own_session,
              ("server-request-ownership.carried", "wf.pending-issued")),
    Invariant("expiry-independent.ended-sessions", "expiry-independent", STATE,
              "every stream of an ended session is expired and has no connection: session end invalidates "
              "all its event ids", _ended_sessions_streams_expired, ("wf.open-retained",)),
)

STRENGTHENING_INVARIANTS: tuple[Invariant, ...] = (
    Invariant("wf.live-issued", None, STRENGTHENING, "a live session was issued",
              (lambda L, R, X: L.forall((SESSION,), lambda s: L.implies(X.s_live(s), X.s_issued(s))))),
    Invariant("wf.stream-session-issued", None, STRENGTHENING, "every issued stream belongs to an issued session",
              (lambda L, R, X: L.forall((STREAM,), lambda t: L.implies(X.t_issued(t), X.s_issued(R.owner(t)))))),
    Invariant("wf.open-retained", None, STRENGTHENING, "an open stream is issued and not expired",
              (lambda L, R, X: L.forall((STREAM,), lambda t: L.implies(X.t_open(t), L.and_(X.t_issued(t), L.not_(X.t_expired(t)))))),
              ("wf.expired-issued",)),
    Invariant("wf.expired-issued", None, STRENGTHENING, "an expired stream was issued",
              (lambda L, R, X: L.forall((STREAM,), lambda t: L.implies(X.t_expired(t), X.t_issued(t))))),
    Invariant("wf.connected-open", None, STRENGTHENING, "a stream with a connection is open",
              (lambda L, R, X: L.forall((STREAM,), lambda t: L.implies(X.t_connected(t), X.t_open(t))))),
    Invariant("wf.evicted-issued", None, STRENGTHENING, "an evicted event was issued",
              (lambda L, R, X: L.forall((EVENT,), lambda e: L.implies(X.e_evicted(e), X.e_issued(e))))),
    Invariant("wf.pending-issued", None, STRENGTHENING, "a pending server request was issued",
              (lambda L, R, X: L.forall((REQUEST,), lambda r: L.implies(X.r_pending(r), X.r_issued(r))))),
)


# -- step properties ----------------------------------------------------------------------


def _is(step: Step, *kinds: ActionKind):
    L = step.L
    return L.or_(*(L.eq(step.A.kind, L.enum(k)) for k in kinds))


def _get(step: Step, profile: Profile) -> Request:
    return Request(step.L, METHOD_OF[ActionKind.RECONNECT], step.X, step.R, step.A, profile)


def reconnect_lands(step: Step, profile: Profile, branch: Branch):
    """The formula: ``step`` is a reconnect (a GET) that lands in ``branch`` under ``profile``."""
    return step.L.and_(_is(step, ActionKind.RECONNECT), _get(step, profile).lands(branch))


def _evicted_last(step: Step, profile: Profile):
    """A reconnect in branch 3 whose cursor its ring buffer evicted last (``transitions.exactable``)."""
    return step.L.and_(reconnect_lands(step, profile, Branch.REJECT_FOREIGN_EVENT_ID), exactable(step, _get(step, profile)))


def _sends(step: Step):
    """A server action that sends one new event (``emit_event``, ``issue_server_request``,
    ``respond``, ``cancel_request``)."""
    return _is(step, ActionKind.EMIT_EVENT, ActionKind.ISSUE_SERVER_REQUEST, ActionKind.RESPOND, ActionKind.CANCEL_REQUEST)


def _names(step: Step, e, r):
    """Event ``e`` carries or cancels server request ``r``."""
    return step.L.or_(step.R.carries(e, r), step.R.cancels(e, r))


def _reused(step: Step):
    """``e``, an event sent before, delivered by a session resumption for a request it owes that
    no new event of the step deals with: an old event id reused for that re-emission or
    cancellation, not a replay (``spec.invariants._reused_for_reemission``)."""
    L, X, O = step.L, step.X, step.O
    fresh_for = lambda r: L.exists((EVENT,), lambda x: L.and_(O.delivered(x), L.not_(X.e_issued(x)), _names(step, x, r)))
    return lambda e: L.exists((REQUEST,), lambda r: L.and_(owed(step, r), _names(step, e, r), L.not_(fresh_for(r))))


def _names_session(step: Step):
    """A client request carrying a session header."""
    return step.L.and_(_is(step, *CLIENT_REQUESTS), step.A.sh_present)


def _nothing_delivered(step: Step):
    L = step.L
    return L.forall((EVENT,), lambda e: L.not_(step.O.delivered(e)))


def unchanged(L: Logic, X: State, Y: State):
    """Every state relation is the same after as before."""
    parts = []
    for name, sorts in STATE_RELATIONS.items():
        before, after = getattr(X, name), getattr(Y, name)
        if before is not None:
            parts.append(L.forall(sorts, lambda *a, before=before, after=after: L.iff(after(*a), before(*a))))
    return L.and_(*parts)


def _reemitted_before(step: Step):
    """``r`` is carried by another stream than its first: a resumption re-emitted it."""
    L, R, X = step.L, step.R, step.X
    return lambda r: L.exists((STREAM,), lambda t: L.and_(X.r_carrier(r, t), L.not_(L.eq(t, R.r_stream(r)))))


def _dealt_by_delivery(step: Step):
    """Some delivered event re-emits or cancels ``r``."""
    L, R, O = step.L, step.R, step.O
    return lambda r: L.exists((EVENT,), lambda e: L.and_(O.delivered(e), L.or_(R.carries(e, r), R.cancels(e, r))))


def _cancelled_by_delivery(step: Step):
    L, R, O = step.L, step.R, step.O
    return lambda r: L.exists((EVENT,), lambda e: L.and_(O.delivered(e), R.cancels(e, r)))


def _ok(step: Step):
    return step.L.eq(step.O.status, step.L.int_(200))


def replay_suffix(step: Step, profile: Profile):
    """Branch 1 answered 200 names the resumed stream and replays exactly its events
    after the cursor (B25, D29-D30), and so does branch 3 answered 200 for a cursor its
    ring buffer evicted last (D28: every later event is kept); branch 3 answered 200 for
    any other issued cursor of the session's own stream (an expired one, an older evicted
    one) replays nothing of that stream, whose exact suffix it cannot give (another
    session's stream: ``no-cross-session``)."""
    L, R, X, A, O = step.L, step.R, step.X, step.A, step.O
    resumed = R.stream_of(A.eh)
    suffix = lambda e: L.and_(X.e_issued(e), L.eq(R.stream_of(e), resumed), R.lt(A.eh, e))
    evicted_last = _evicted_last(step, profile)
    replayed = lambda: L.forall((EVENT,), lambda e: L.iff(L.and_(O.delivered(e), X.e_issued(e)), suffix(e)))
    exact = L.implies(
        L.and_(reconnect_lands(step, profile, Branch.STREAM_RESUMPTION), _ok(step)),
        L.and_(L.eq(O.stream, resumed), replayed()),
    )
    exact_after_eviction = L.implies(L.and_(evicted_last, _ok(step)), replayed())
    refused = L.implies(
        L.and_(reconnect_lands(step, profile, Branch.REJECT_FOREIGN_EVENT_ID), L.not_(evicted_last), _ok(step),
               X.e_issued(A.eh), L.not_(A.sh_malformed), L.eq(R.owner(resumed), A.sh)),
        L.forall((EVENT,), lambda e: L.not_(L.and_(O.delivered(e), X.e_issued(e), L.eq(R.stream_of(e), resumed)))),
    )
    return L.and_(exact, exact_after_eviction, refused)


def no_cross_session(step: Step, profile: Profile):
    L, R, X, A, O, Y = step.L, step.R, step.X, step.A, step.O, step.Y
    of_session = lambda e: L.and_(L.not_(A.sh_malformed), L.eq(R.owner(R.stream_of(e)), A.sh))
    of_stream = lambda e: L.eq(R.stream_of(e), R.stream_of(A.eh))
    own_session = L.implies(_names_session(step), L.forall((EVENT,), lambda e: L.implies(
        L.and_(O.delivered(e), Y.e_issued(e)), of_session(e))))
    own_stream = L.implies(reconnect_lands(step, profile, Branch.STREAM_RESUMPTION), L.forall((EVENT,), lambda e: L.implies(
        L.and_(O.delivered(e), X.e_issued(e)), of_stream(e))))
    own_connections = L.forall((EVENT, STREAM), lambda e, t: L.implies(
        O.on(e, t), L.eq(R.owner(t), R.owner(R.stream_of(e)))))
    return L.and_(own_session, own_stream, own_connections)


def no_replay_on_session_resume(step: Step, profile: Profile):
    """A session resumption answered 200 delivers no event sent before, but for an old id
    reused for an owed request (``_reused``: ``event-id-unique.fresh`` judges that)."""
    L, X, O = step.L, step.X, step.O
    reused = _reused(step)
    return L.implies(
        L.and_(reconnect_lands(step, profile, Branch.SESSION_RESUMPTION), _ok(step)),
        L.forall((EVENT,), lambda e: L.implies(O.delivered(e), L.or_(L.not_(X.e_issued(e)), reused(e)))),
    )


def no_reemit_on_stream_resume(step: Step, profile: Profile):
    """A stream resumption answered 200 sends no server request of before under a new event id
    (B21, B26); after its replay the stream may go on with new events of its own (a new
    server request, a notification: docs/design.md §2)."""
    L, R, X, O = step.L, step.R, step.X, step.O
    known = lambda e: L.exists((REQUEST,), lambda r: L.and_(R.carries(e, r), X.r_issued(r)))
    return L.implies(
        L.and_(reconnect_lands(step, profile, Branch.STREAM_RESUMPTION), _ok(step)),
        L.forall((EVENT,), lambda e: L.implies(O.delivered(e), L.or_(X.e_issued(e), L.not_(known(e))))),
    )


def _reemits(step: Step, profile: Profile, earlier: bool):
    L = step.L
    before, dealt = _reemitted_before(step), _dealt_by_delivery(step)
    which = (lambda r: before(r)) if earlier else (lambda r: L.not_(before(r)))
    return L.implies(
        L.and_(reconnect_lands(step, profile, Branch.SESSION_RESUMPTION), _ok(step)),
        L.forall((REQUEST,), lambda r: L.implies(L.and_(owed(step, r), which(r)), dealt(r))),
    )


def no_broadcast(step: Step, profile: Profile):
    """MCP B21, on every server request a step sends anew (a new event carrying it: one
    issued in this very step, one re-emitted, or a server's own new message): it goes out
    on one stream only, and not on another stream than the one whose open connection
    carried it, pending, before the step. A replay (an event sent before) is its stream's
    history, not a new sending (``spec.invariants.no_broadcast``). And any event a step
    delivers goes out on one stream's connection (``on``), not on several at once."""
    L, R, X, O = step.L, step.R, step.X, step.O
    sent = lambda e, r: L.and_(O.delivered(e), L.not_(X.e_issued(e)), R.carries(e, r))
    one_stream = lambda e, r: L.forall((EVENT,), lambda x: L.implies(sent(x, r), L.eq(R.stream_of(x), R.stream_of(e))))
    not_elsewhere = lambda e, r: L.forall((STREAM, STREAM), lambda t, u: L.implies(
        L.and_(X.r_pending(r), X.r_carrier(r, t), X.t_connected(t), O.on(e, u)), L.eq(u, t)))
    one_connection = L.forall((EVENT, STREAM, STREAM), lambda e, t, u: L.implies(
        L.and_(O.on(e, t), O.on(e, u)), L.eq(t, u)))
    return L.and_(one_connection, L.forall((EVENT, REQUEST), lambda e, r: L.implies(
        sent(e, r), L.and_(one_stream(e, r), not_elsewhere(e, r)))))


def reemit_pending(step: Step, profile: Profile):
    return _reemits(step, profile, earlier=False)


def reemit_keeps_pending(step: Step, profile: Profile):
    L, X, A, Y = step.L, step.X, step.A, step.Y
    cancelled = _cancelled_by_delivery(step)
    resolved_only_by_answer_or_cancel = L.forall((REQUEST,), lambda r: L.implies(
        L.and_(X.r_pending(r), L.not_(Y.r_pending(r))), L.or_(
            L.and_(_is(step, ActionKind.ANSWER_REQUEST, ActionKind.CANCEL_REQUEST), L.eq(A.target_request, r)),
            L.and_(_is(step, ActionKind.RECONNECT), cancelled(r)))))
    resumption_resolves_nothing = L.implies(
        L.and_(reconnect_lands(step, profile, Branch.SESSION_RESUMPTION), _ok(step)),
        L.forall((REQUEST,), lambda r: L.iff(X.r_pending(r), L.or_(Y.r_pending(r), cancelled(r)))))
    return L.and_(_reemits(step, profile, earlier=True), resumption_resolves_nothing, resolved_only_by_answer_or_cancel)


def reject_orphan_event_id(step: Step, profile: Profile):
    L = step.L
    return L.implies(
        reconnect_lands(step, profile, Branch.REJECT_ORPHAN_EVENT_ID),
        L.and_(L.or_(L.eq(step.O.status, L.int_(400)), L.eq(step.O.status, L.int_(405))),
               _nothing_delivered(step), unchanged(L, step.X, step.Y)),
    )


def reject_foreign_event_id(step: Step, profile: Profile):
    """Branch 3 is refused with a 4xx other than 404, delivers nothing and changes nothing;
    but a cursor its ring buffer evicted last may get 200 and the exact replay (``replay-suffix``)."""
    L, status = step.L, step.O.status
    exact = L.and_(_evicted_last(step, profile), _ok(step))
    return L.implies(
        L.and_(reconnect_lands(step, profile, Branch.REJECT_FOREIGN_EVENT_ID), L.not_(exact)),
        L.and_(L.between(status, 400, 499), L.not_(L.eq(status, L.int_(404))), _nothing_delivered(step), unchanged(L, step.X, step.Y)),
    )


def unknown_session_404(step: Step, profile: Profile):
    L, X, A = step.L, step.X, step.A
    return L.implies(
        L.and_(_names_session(step), L.not_(A.sh_malformed), L.not_(X.s_live(A.sh))),
        L.and_(L.eq(step.O.status, L.int_(404)), _nothing_delivered(step), unchanged(L, X, step.Y)),
    )


def session_identity_stable(step: Step, profile: Profile):
    L, R, X, A, Y = step.L, step.R, step.X, step.A, step.Y
    resumption = L.or_(reconnect_lands(step, profile, Branch.STREAM_RESUMPTION), reconnect_lands(step, profile, Branch.SESSION_RESUMPTION))
    kept = L.and_(
        Y.s_live(A.sh),
        L.forall((STREAM,), lambda t: L.implies(L.and_(X.t_issued(t), L.eq(R.owner(t), A.sh)), L.and_(Y.t_issued(t), L.iff(X.t_expired(t), Y.t_expired(t))))),
        L.forall((REQUEST,), lambda r: L.implies(Y.r_pending(r), X.r_pending(r))),
    )
    never_forgotten = L.forall((SESSION,), lambda s: L.implies(X.s_issued(s), Y.s_issued(s)))
    ended_only_on_purpose = L.forall((SESSION,), lambda s: L.implies(L.and_(X.s_live(s), L.not_(Y.s_live(s))), L.or_(
        L.and_(_is(step, ActionKind.DELETE_SESSION), A.sh_present, L.not_(A.sh_malformed), L.eq(A.sh, s)),
        L.and_(_is(step, ActionKind.EXPIRE_SESSION), L.eq(A.target_session, s)))))
    return L.and_(L.implies(resumption, kept), never_forgotten, ended_only_on_purpose)


def expiry_independent(step: Step, profile: Profile):
    L, X, A, O, Y = step.L, step.X, step.A, step.O, step.Y
    return L.implies(_is(step, ActionKind.EXPIRE_STREAM), L.and_(
        L.forall((SESSION,), lambda s: L.iff(X.s_live(s), Y.s_live(s))),
        L.forall((STREAM,), lambda t: L.implies(O.closed(t), L.eq(t, A.target_stream)))))


def event_id_resolves(step: Step, profile: Profile):
    """Every event delivered resolves to an issued event, or is a new event of the stream a
    resumption answered 200 goes on with (``spec.invariants._new``)."""
    L, R, X, O = step.L, step.R, step.X, step.O
    resumed = L.or_(reconnect_lands(step, profile, Branch.STREAM_RESUMPTION),
                    reconnect_lands(step, profile, Branch.SESSION_RESUMPTION))
    going_on = lambda e: L.and_(resumed, _ok(step), L.not_(X.e_issued(e)), L.eq(R.stream_of(e), O.stream))
    return L.forall((EVENT,), lambda e: L.implies(O.delivered(e), L.or_(step.Y.e_issued(e), going_on(e))))


def event_id_fresh(step: Step, profile: Profile):
    """A new event goes out under an id never used before (B23, D27): a server action delivers
    no event sent before, and a session resumption no old event in place of an owed request's
    re-emission or cancellation (``_reused``)."""
    L, X, O = step.L, step.X, step.O
    reused = _reused(step)
    sends = L.forall((EVENT,), lambda e: L.implies(L.and_(_sends(step), O.delivered(e)), L.not_(X.e_issued(e))))
    resumed = L.and_(reconnect_lands(step, profile, Branch.SESSION_RESUMPTION), _ok(step))
    resumes = L.forall((EVENT,), lambda e: L.implies(L.and_(resumed, O.delivered(e)), L.or_(
        L.not_(X.e_issued(e)), L.not_(reused(e)))))
    return L.and_(sends, resumes)


def standalone_stream_scope(step: Step, profile: Profile):
    """A server action on a POST stream (a message of its call, or its response) sends its own
    event on that stream's connection only, and one that delivers a new event on a GET stream
    of the same session delivers its own event too: a call's message goes on the call's
    stream, not on the standalone one or another call's instead (B17, B9, B18/D21)."""
    L, R, X, A, O = step.L, step.R, step.X, step.A, step.O
    t = A.target_stream
    on_get = lambda e: L.and_(R.t_get(R.stream_of(e)), L.eq(R.owner(R.stream_of(e)), R.owner(t)), L.not_(L.eq(R.stream_of(e), t)))
    own_event_here = L.forall((STREAM,), lambda u: L.implies(
        L.and_(_sends(step), L.not_(R.t_get(t)), O.on(A.new_event, u)), L.eq(u, t)))
    return L.and_(own_event_here, L.forall((EVENT,), lambda e: L.implies(
        L.and_(_sends(step), L.not_(R.t_get(t)), O.delivered(e), L.not_(X.e_issued(e))),
        L.or_(L.not_(on_get(e)), O.delivered(A.new_event)))))


def server_request_ownership(step: Step, profile: Profile):
    """Every server request delivered under a session header is one that session issued: a
    request issued by now, or carried by an event sent before (a new event carrying a request
    no one issued is a new message of the stream, ``spec.invariants.server_request_ownership``)."""
    L, R, X, A, O, Y = step.L, step.R, step.X, step.A, step.O, step.Y
    return L.implies(_names_session(step), L.forall((EVENT, REQUEST), lambda e, r: L.implies(
        L.and_(O.delivered(e), _names(step, e, r), L.or_(X.e_issued(e), Y.r_issued(r))),
        L.and_(Y.r_issued(r), L.not_(A.sh_malformed), L.eq(R.r_session(r), A.sh)))))


def no_404_for_live_session(step: Step, profile: Profile):
    L, X, A = step.L, step.X, step.A
    return L.implies(
        L.and_(_names_session(step), L.not_(A.sh_malformed), X.s_live(A.sh)),
        L.not_(L.eq(step.O.status, L.int_(404))),
    )


STEP_PROPERTIES: tuple[Invariant, ...] = (
    Invariant("replay-suffix.step", "replay-suffix", STEP,
              "a stream resumption answered 200, or a cursor the ring buffer evicted last answered 200, names "
              "the resumed stream and delivers, of the events sent before, exactly those of that stream after "
              "the cursor; any other refused cursor of the session's own stream answered 200 replays nothing "
              "of that stream", replay_suffix),
    Invariant("no-cross-session.step", "no-cross-session", STEP,
              "every event delivered under a session header belongs to that session, a stream "
              "resumption replays only the resumed stream's events, and no event goes out on a connection "
              "of another session", no_cross_session),
    Invariant("no-replay-on-session-resume.step", "no-replay-on-session-resume", STEP,
              "a session resumption answered 200 delivers no event sent before (an old id reused for an owed "
              "request is event-id-unique's)", no_replay_on_session_resume),
    Invariant("no-reemit-on-stream-resume.step", "no-reemit-on-stream-resume", STEP,
              "a stream resumption answered 200 sends no server request of before under a new event id; "
              "new events of the stream's own may follow the replay", no_reemit_on_stream_resume),
    Invariant("no-broadcast.step", "no-broadcast", STEP,
              "a server request sent anew (issued in the step, or re-emitted) goes out on one stream only, "
              "and not while an open connection of another stream carries it pending; no event goes out on "
              "two streams' connections at once", no_broadcast),
    Invariant("standalone-stream-scope.step", "standalone-stream-scope", STEP,
              "a server action on a POST stream sends its own event on that stream's connection only, and "
              "one that delivers a new event on a GET stream of its session delivers its own event too",
              standalone_stream_scope),
    Invariant("reemit-pending.step", "reemit-pending", STEP,
              "a session resumption answered 200 re-emits or cancels every pending server request of the session "
              "whose carrying stream has no open connection", reemit_pending),
    Invariant("reemit-keeps-pending.step", "reemit-keeps-pending", STEP,
              "a request re-emitted before is re-emitted or cancelled again while pending and not connected; "
              "a session resumption ends only the requests it cancels; only an answer, a cancellation or a "
              "resumption's cancel event ends a pending request", reemit_keeps_pending),
    Invariant("reject-orphan-event-id.step", "reject-orphan-event-id", STEP,
              "an event id without a session id gets 400 (or 405 from a server without GET streams), "
              "delivers nothing and changes nothing", reject_orphan_event_id),
    Invariant("reject-foreign-event-id.step", "reject-foreign-event-id", STEP,
              "an event id not valid for the live session named gets a 4xx other than 404, delivers nothing "
              "and changes nothing, unless its ring buffer evicted it last and the answer is 200 with the "
              "exact replay", reject_foreign_event_id),
    Invariant("unknown-session-404.step", "unknown-session-404", STEP,
              "a well-formed session id naming no live session gets 404, delivers nothing and changes nothing",
              unknown_session_404),
    Invariant("session-identity-stable.step", "session-identity-stable", STEP,
              "a resumption keeps the session live with its streams and pending requests; no session is ever "
              "forgotten; only DELETE or server expiry ends a live session", session_identity_stable),
    Invariant("expiry-independent.step", "expiry-independent", STEP,
              "expiring a stream ends no session and closes no other connection", expiry_independent),
    Invariant("event-id-unique.step", "event-id-unique", STEP,
              "every event delivered resolves to an issued event, or is a new event of the stream a "
              "resumption goes on with", event_id_resolves),
    Invariant("event-id-unique.fresh", "event-id-unique", STEP,
              "a server action delivers no event sent before, and a session resumption no old event id in "
              "place of an owed request's re-emission", event_id_fresh),
    Invariant("server-request-ownership.step", "server-request-ownership", STEP,
              "every server request delivered under a session header is one that session issued", server_request_ownership),
    Invariant("no-duplicate-tool-call.step", "no-duplicate-tool-call", STEP,
              "a request naming a live session is never answered 404 (so a client following B34 never "
              "re-runs a tools/call in a new session)", no_404_for_live_session),
)

ALL_INVARIANTS: tuple[Invariant, ...] = STATE_INVARIANTS + STRENGTHENING_INVARIANTS + STEP_PROPERTIES
INDUCTIVE: tuple[Invariant, ...] = STATE_INVARIANTS + STRENGTHENING_INVARIANTS
"""The inductive invariant is the conjunction of these. Each one's consecution
assumes itself and its ``needs`` (a part of the conjunction), so proving them all
proves the conjunction inductive."""


_DECISION_RULE = ("a rule of one request's answer by its header classes: the decision queries (proofs/decision) "
                  "prove the decision table total, exclusive and equal to the spec's, for every input; the "
                  "machine's steps add nothing to it")
_SESSIONLESS_RULE = ("a rule of the 2026-07-28 revision, which has no sessions: the transition system models "
                     "the session era only; the explorer and the Hypothesis machine of the sessionless spec check it")

NOT_ENCODED: dict[str, str] = {
    "missing-session-400": _DECISION_RULE,
    "malformed-session-400": _DECISION_RULE,
    "new-session-on-initialize": _DECISION_RULE,
    "session-delete": _DECISION_RULE,
    "priming-event": ("priming events carry no message, and the Z3 vocabulary has only events that are messages "
                      "on a stream; the explorer, the Hypothesis machine and verify check it"),
    "protocol-version-accepted": ("the Z3 vocabulary has no MCP-Protocol-Version header: requests there are "
                                  "classified by session and event id only; the explorer and verify check it"),
    "unsupported-version-400": ("the Z3 vocabulary has no MCP-Protocol-Version header: requests there are "
                                "classified by session and event id only; the judge reads the header off "
                                "traffic (verify, validate)"),
    "retry-before-close": ("a property of a stream's bytes (the SSE retry field, D10): events in the Z3 vocabulary "
                           "carry no payload; the judge reads it off traffic (verify, validate)"),
    "call-answered": ("the Z3 vocabulary tells no response from another event that carries no request: a "
                      "respond step there is an event and the stream's end; the explorer and the Hypothesis machine "
                      "check it"),
    "cancel-notifies": ("a property of the cancel step alone, which its own encoding states (a proof would use no "
                        "invariant); the explorer and the Hypothesis machine check it"),
    "sessionless-get-405": _SESSIONLESS_RULE,
    "sessionless-ignores-headers": _SESSIONLESS_RULE,
    "sessionless-request-scope": _SESSIONLESS_RULE,
    "sessionless-no-server-requests": _SESSIONLESS_RULE,
    "sessionless-close-cancels": _SESSIONLESS_RULE,
    "sessionless-input-required-retry": _SESSIONLESS_RULE,
    "sessionless-request-validated": _SESSIONLESS_RULE,
    "sessionless-notification-202": _SESSIONLESS_RULE,
}
"""Why a catalog rule has no invariant in the transition system (every other rule has one)."""


def assumptions(invariant: Invariant) -> tuple[Invariant, ...]:
    """What the consecution of ``invariant`` assumes before the step, in ``INDUCTIVE``
    order: a state or strengthening invariant, itself and its ``needs``; a step
    property, the whole inductive invariant (its unsat cores show what it used), so
    that a counterexample is a step from a state the invariants allow."""
    if invariant.kind == STEP:
        return INDUCTIVE
    wanted = set(invariant.needs) | {invariant.id}
    unknown = wanted - {i.id for i in INDUCTIVE}
    if unknown:
        raise KeyError(f"{invariant.id} needs unknown invariants: {', '.join(sorted(unknown))}")
    return tuple(i for i in INDUCTIVE if i.id in wanted)


def by_id(invariant_id: str) -> Invariant:
    for invariant in ALL_INVARIANTS:
        if invariant.id == invariant_id:
            return invariant
    raise KeyError(f"unknown invariant {invariant_id!r}; known: {', '.join(i.id for i in ALL_INVARIANTS)}")
