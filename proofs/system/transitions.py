"""The transition system of the spec: axioms, the initial state, one formula per action.

A second, independent statement of ``spec.transitions`` (``step`` and
``enabled``) in first-order logic, in the style of Ivy and mypyvy: entities are
elements of uninterpreted sorts, an action mints fresh elements (not issued
before) and updates relations; every conjunct is named so that an unsat core
says which parts of an action a proof used.

``transition(step, kind, semantics)`` relates the state before (``step.X``), the
action (``step.A``), the observation (``step.O``) and the state after
(``step.Y``). A client request's status is any the profile accepts (the
reference's, or an alternative such as 409 for a connected stream); a status
that is neither the reference's nor a success like it refuses the request and
changes nothing (``model.harness.checker`` judges servers the same way), but for
200 to a cursor its ring buffer evicted last, which resumes its stream with the
exact replay (``exactable``, ``spec.transitions.exact_after_eviction``). With
``Semantics(canonical=True)`` only the reference's status is allowed: that is
the spec side of bounded model checking.

One deliberate over-approximation in the unbounded encoding: the new stream of
a session resumption carries one fresh event per pending server request, and
possibly more events that carry no request (padding, e.g. the priming events of
MCP D8; the Python spec sends none). Saying "no other event" needs a function
from events back to requests, which would close a cycle in the sort graph and
leave EPR. Bounded model checking, whose scopes are finite, adds that
constraint (``reemit-exact``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from mcp_resume.spec.decision import Branch
from mcp_resume.spec.headers import EventClass
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.transitions import SERVER_CLOSES_POST_CONNECTIONS

from mcp_resume.proofs.system.decision import Request, class_definitions
from mcp_resume.proofs.system.logic import EVENT, REQUEST, SESSION, STREAM, Conjunct, Logic
from mcp_resume.proofs.system.vocabulary import (
    CLIENT_REQUESTS,
    METHOD_OF,
    STATE_RELATIONS,
    ActionKind,
    Observation,
    Params,
    Rigid,
    State,
)

OK, CONFLICT, NO_CONTENT, METHOD_NOT_ALLOWED = 200, 409, 204, 405


@dataclass(frozen=True)
class Step:
    """The symbols of one step: logic, rigid attributes, before, action, observation, after."""

    L: Logic
    R: Rigid
    X: State
    A: Params
    O: Observation
    Y: State


@dataclass(frozen=True)
class Semantics:
    """Which behaviours count as the spec's.

    - ``profile``: a session-era profile (statuses and re-emission depend on it);
    - ``canonical``: only the reference's status and, under the MCP revisions,
      only the re-emitting variant of a session resumption;
    - ``cancel``: with ``canonical``, a session resumption may still cancel a
      request it must deal with instead of re-emitting it (``A.cancel`` says
      which): the spec side of bounded model checking, where each design fixes
      that choice.
    """

    profile: Profile = Profile.BOUNDARY
    canonical: bool = False
    cancel: bool = False


def axioms(L: Logic, R: Rigid) -> list[Conjunct]:
    """Facts about the rigid attributes: events are strictly totally ordered
    (the order they were sent in); an event carries at most one server request, or
    cancels at most one, never both."""
    return [
        Conjunct("axiom.lt-irreflexive", L.forall((EVENT,), lambda x: L.not_(R.lt(x, x)))),
        Conjunct("axiom.lt-transitive", L.forall((EVENT, EVENT, EVENT), lambda x, y, z: L.implies(L.and_(R.lt(x, y), R.lt(y, z)), R.lt(x, z)))),
        Conjunct("axiom.lt-total", L.forall((EVENT, EVENT), lambda x, y: L.or_(L.eq(x, y), R.lt(x, y), R.lt(y, x)))),
        Conjunct("axiom.carries-one", L.forall((EVENT, REQUEST, REQUEST), lambda e, r1, r2: L.implies(L.and_(R.carries(e, r1), R.carries(e, r2)), L.eq(r1, r2)))),
        Conjunct("axiom.cancels-one", L.forall((EVENT, REQUEST, REQUEST), lambda e, r1, r2: L.implies(L.and_(R.cancels(e, r1), R.cancels(e, r2)), L.eq(r1, r2)))),
        Conjunct("axiom.cancel-carries-nothing", L.forall((EVENT, REQUEST, REQUEST), lambda e, r1, r2: L.not_(L.and_(R.cancels(e, r1), R.carries(e, r2))))),
    ]


def initial(L: Logic, X: State) -> list[Conjunct]:
    """The initial state: nothing issued, the client holds nothing (``spec.state.INITIAL_STATE``)."""
    return [
        Conjunct(f"init.{name}", L.forall(sorts, lambda *args, rel=rel: L.not_(rel(*args))))
        for name, sorts in STATE_RELATIONS.items()
        if (rel := getattr(X, name)) is not None
    ]


@dataclass
class _Effect:
    """What one action does, before the generic parts are added."""

    updates: dict[str, Callable] = field(default_factory=dict)
    conjuncts: list[Conjunct] = field(default_factory=list)
    delivered: Callable | None = None
    receiver: object = None
    forget: Callable | None = None
    headers: tuple[bool, bool] = (False, False)  # (session header used, event header used)
    events: list[Conjunct] | None = None  # e_issued given by conjuncts instead of an update
    status: list[Conjunct] = field(default_factory=list)
    closed: Callable | None = None  # connections closed besides those the step leaves unconnected


def transition(step: Step, kind: ActionKind, semantics: Semantics) -> list[Conjunct]:
    """The named conjuncts of action ``kind`` from ``step.X`` to ``step.Y``."""
    L, A = step.L, step.A
    effect = _EFFECTS[kind](step, semantics)
    name = f"tr.{kind.value}"
    parts = [Conjunct(f"{name}.kind", L.eq(A.kind, L.enum(kind)))]
    session_used, event_used = effect.headers
    unused = ([] if session_used else [A.sh_present, A.sh_malformed]) + ([] if event_used else [A.eh_present, A.eh_malformed])
    if unused:
        parts.append(Conjunct(f"{name}.no-headers", L.and_(*(L.not_(b) for b in unused))))
    parts += class_definitions(L, step.X, step.R, A)
    parts += effect.status or [Conjunct(f"{name}.status", L.eq(step.O.status, L.int_(0)))]
    parts += effect.conjuncts
    parts += _updates(step, kind, effect)
    parts += _observation(step, kind, effect)
    return parts


OBSERVATION_EQUATIONS = ("tr.obs.on", "tr.obs.requests", "tr.obs.any", "tr.obs.last")
"""The observation's definitions every action shares (``_observation``)."""

RECONNECT_EQUATIONS = ("tr.reconnect.stream", "tr.reconnect.events-kept", "tr.reconnect.new-events")
"""A reconnect's own effect equations besides the updates: the stream it names, and its
``e_issued`` (every event kept, nothing new but the dealings); ``dealing-events``, which
mints the dealing events and fixes their attributes, is a guard like ``fresh-event``."""


def effect_equations(kind: ActionKind) -> frozenset[str]:
    """The names of the conjuncts of ``transition(step, kind, ...)`` that only say what a
    step of ``kind`` leaves behind: which action it is (``kind``, ``no-headers``), the state
    relations after it (each update or ``.frame``, and a reconnect's ``e_issued``) and what
    it shows (``delivered``, ``closed``, ``tr.obs.*``, a reconnect's ``stream``). Every other
    conjunct of the action (``enabled``, ``fresh-*``, ``status``, ``dealing-events``, the
    ``def.*`` definitions the decision and the guards read) is a guard: it restricts the
    state before or the choices of the step (``proofs.system.triviality``)."""
    name = f"tr.{kind.value}"
    names = {f"{name}.kind", f"{name}.no-headers", f"{name}.delivered", f"{name}.closed", *OBSERVATION_EQUATIONS}
    for relation in STATE_RELATIONS:
        names |= {f"{name}.{relation}", f"{name}.{relation}.frame"}
    if kind is ActionKind.RECONNECT:
        names |= set(RECONNECT_EQUATIONS)
    return frozenset(names)


@dataclass(frozen=True)
class Footprint:
    """What action ``kind`` can change, read off its effect without solving:
    ``framed`` the state relations it keeps as they were; ``delivers`` whether it
    may deliver events; ``client`` whether it is an HTTP request with a status;
    ``supersedes`` whether it may close a connection it leaves connected (a stream
    resumption of a connected stream)."""

    kind: ActionKind
    framed: frozenset[str]
    delivers: bool
    client: bool
    supersedes: bool = False


def footprint(step: Step, kind: ActionKind, semantics: Semantics) -> Footprint:
    """The ``Footprint`` of ``kind`` in ``step``'s symbols (``proofs.system.vacuity``
    uses it to decide, structurally, which properties an action cannot touch)."""
    effect = _EFFECTS[kind](step, semantics)
    client_memory = kind is not ActionKind.RESTART_CLIENT and effect.receiver is None
    framed = set()
    for name in STATE_RELATIONS:
        if name == "e_issued" and effect.events is not None:
            continue
        if name == "cursor":
            keeps = client_memory
        elif name == "seen":
            keeps = client_memory and effect.forget is None
        else:
            keeps = name not in effect.updates
        if keeps:
            framed.add(name)
    return Footprint(kind, frozenset(framed), effect.delivered is not None, kind in CLIENT_REQUESTS, effect.closed is not None)


# -- the generic parts ---------------------------------------------------------------


def _updates(step: Step, kind: ActionKind, effect: _Effect) -> list[Conjunct]:
    L, X, Y = step.L, step.X, step.Y
    parts = []
    for rel_name, sorts in STATE_RELATIONS.items():
        before, after = getattr(X, rel_name), getattr(Y, rel_name)
        if before is None:
            continue
        label = f"tr.{kind.value}.{rel_name}"
        if rel_name == "e_issued" and effect.events is not None:
            parts += effect.events
        elif rel_name == "cursor":
            parts.append(Conjunct(label, _cursor_update(step, kind, effect)))
        elif rel_name == "seen":
            parts.append(Conjunct(label, _seen_update(step, kind, effect)))
        elif rel_name in effect.updates:
            new = effect.updates[rel_name]
            parts.append(Conjunct(label, L.forall(sorts, lambda *a, after=after, new=new: L.iff(after(*a), new(*a)))))
        else:
            parts.append(Conjunct(label + ".frame", L.forall(sorts, lambda *a, after=after, before=before: L.iff(after(*a), before(*a)))))
    return parts


def _cursor_update(step: Step, kind: ActionKind, effect: _Effect):
    """The client's last event id per stream: the last event delivered on it (``spec.transitions.remember``)."""
    L, R, X, Y, O = step.L, step.R, step.X, step.Y, step.O
    if kind is ActionKind.RESTART_CLIENT:
        return L.forall((SESSION, STREAM, EVENT), lambda s, t, e: L.not_(Y.cursor(s, t, e)))
    if effect.receiver is None:
        return L.forall((SESSION, STREAM, EVENT), lambda s, t, e: L.iff(Y.cursor(s, t, e), X.cursor(s, t, e)))
    here = lambda s, t: L.and_(O.any, L.eq(s, effect.receiver), L.eq(t, R.stream_of(O.last)))
    return L.forall(
        (SESSION, STREAM, EVENT),
        lambda s, t, e: L.iff(Y.cursor(s, t, e), L.ite(here(s, t), L.eq(e, O.last), X.cursor(s, t, e))),
    )


def _seen_update(step: Step, kind: ActionKind, effect: _Effect):
    """The server requests the client holds: delivered pending ones added, answered or
    cancelled ones forgotten (``spec.transitions.remember``)."""
    L, X, Y, O = step.L, step.X, step.Y, step.O
    if kind is ActionKind.RESTART_CLIENT:
        return L.forall((SESSION, REQUEST), lambda s, r: L.not_(Y.seen(s, r)))
    kept = (lambda s, r: L.and_(X.seen(s, r), L.not_(effect.forget(s, r)))) if effect.forget else X.seen
    if effect.receiver is None:
        return L.forall((SESSION, REQUEST), lambda s, r: L.iff(Y.seen(s, r), kept(s, r)))
    added = lambda s, r: L.and_(L.eq(s, effect.receiver), Y.r_pending(r), O.requests(r))
    return L.forall((SESSION, REQUEST), lambda s, r: L.iff(Y.seen(s, r), L.or_(kept(s, r), added(s, r))))


def _observation(step: Step, kind: ActionKind, effect: _Effect) -> list[Conjunct]:
    """The observation's definitions: what was delivered and on which stream's connection (its
    own: a reference server sends each event once, on its stream, MCP B21), the requests it
    carries, the last event, the connections closed."""
    L, R, X, Y, O = step.L, step.R, step.X, step.Y, step.O
    delivered = effect.delivered or (lambda e: L.false())
    superseded = effect.closed or (lambda t: L.false())
    return [
        Conjunct(f"tr.{kind.value}.delivered", L.forall((EVENT,), lambda e: L.iff(O.delivered(e), delivered(e)))),
        Conjunct("tr.obs.on", L.forall((EVENT, STREAM), lambda e, t: L.iff(O.on(e, t), L.and_(O.delivered(e), L.eq(t, R.stream_of(e)))))),
        Conjunct("tr.obs.requests", L.forall((REQUEST,), lambda r: L.iff(O.requests(r), L.exists((EVENT,), lambda e: L.and_(O.delivered(e), R.carries(e, r)))))),
        Conjunct("tr.obs.any", L.iff(O.any, L.exists((EVENT,), lambda e: O.delivered(e)))),
        Conjunct("tr.obs.last", L.implies(O.any, L.and_(O.delivered(O.last), L.forall((EVENT,), lambda e: L.implies(O.delivered(e), L.or_(L.eq(e, O.last), R.lt(e, O.last))))))),
        Conjunct(f"tr.{kind.value}.closed", L.forall((STREAM,), lambda t: L.iff(O.closed(t), L.or_(
            L.and_(X.t_connected(t), L.not_(Y.t_connected(t))), superseded(t))))),
    ]


# -- client requests -------------------------------------------------------------------


class _Client:
    """A client request's decision and status, and whether it proceeds.

    ``status`` holds the conjuncts to assert: the definitions of the step's
    canonical status and of whether it proceeds, and the status constraint.
    """

    def __init__(self, step: Step, kind: ActionKind, semantics: Semantics, extra: Callable | None = None) -> None:
        L, O, tag = step.L, step.O, step.A.tag
        self.L = L
        self.request = Request(L, METHOD_OF[kind], step.X, step.R, step.A, semantics.profile)
        name = f"tr.{kind.value}.status"
        canonical, self.status = L.define(f"{tag}.canonical", self.request.canonical(), "int")
        if semantics.canonical:
            self.status.append(Conjunct(name, L.eq(O.status, canonical)))
            self.proceed = L.true()
            return
        allowed = self.request.accepts(O.status)
        if extra is not None:
            allowed = L.or_(allowed, extra(self.request, O.status))
        success = lambda code: L.between(code, 200, 299)
        proceeds = L.or_(L.eq(O.status, canonical), L.and_(success(O.status), success(canonical)))
        self.proceed, definition = L.define(f"{tag}.proceeds", proceeds)
        self.status += definition + [Conjunct(name, allowed)]

    def go(self, branch: Branch):
        return self.L.and_(self.proceed, self.request.lands(branch))


def _initialize(step: Step, semantics: Semantics) -> _Effect:
    L, X, A = step.L, step.X, step.A
    client = _Client(step, ActionKind.INITIALIZE, semantics)
    go = client.go(Branch.NEW_SESSION)
    minted = lambda s: L.and_(go, L.eq(s, A.new_session))
    return _Effect(
        updates={"s_issued": lambda s: L.or_(X.s_issued(s), minted(s)), "s_live": lambda s: L.or_(X.s_live(s), minted(s))},
        conjuncts=[Conjunct("tr.initialize.fresh-session", L.implies(go, L.not_(X.s_issued(A.new_session))))],
        status=client.status,
    )


def _call_tool(step: Step, semantics: Semantics) -> _Effect:
    L, R, X, A = step.L, step.R, step.X, step.A
    client = _Client(step, ActionKind.CALL_TOOL, semantics)
    go = client.go(Branch.SESSION_REQUEST)
    minted = lambda t: L.and_(go, L.eq(t, A.new_stream))
    fresh = L.implies(go, L.and_(L.not_(X.t_issued(A.new_stream)), L.eq(R.owner(A.new_stream), A.sh), L.not_(R.t_get(A.new_stream))))
    return _Effect(
        updates={rel: (lambda t, rel=rel: L.or_(getattr(X, rel)(t), minted(t))) for rel in ("t_issued", "t_open", "t_connected")},
        conjuncts=[Conjunct("tr.call_tool.fresh-post-stream", fresh)],
        headers=(True, False),
        status=client.status,
    )


def _reconnect_alternatives(step: Step) -> Callable:
    """Statuses the state allows beside the table's (``decision._refine_*``, docs/design.md §2):

    - branch 1: any 4xx but 404 for a second connection to a connected stream, 204 for an
      ended stream with nothing to replay;
    - branch 2: 405 (no GET stream offered, B15) or 409 for a GET stream, any 4xx but 404
      while the session holds a connected GET stream; under ``boundary`` none while a pending request of the session has
      lost its connection (a refusal would strand it: ``Outcome.strands``, MCP B21);
    - branch 3: 200 for a cursor that is the last event its ring buffer evicted
      (``exactable``: the exact replay of what follows it, MCP D28).
    """
    L, R, X, A = step.L, step.R, step.X, step.A
    resumed = R.stream_of(A.eh)
    after_cursor = lambda e: L.and_(X.e_issued(e), L.eq(R.stream_of(e), resumed), R.lt(A.eh, e))
    ended = L.and_(X.t_issued(resumed), L.not_(X.t_open(resumed)), L.not_(X.t_expired(resumed)))
    get_connected = L.exists((STREAM,), lambda t: L.and_(X.t_issued(t), R.t_get(t), L.eq(R.owner(t), A.sh), X.t_connected(t)))

    def alternatives(request: Request, code):
        refused = L.or_(L.eq(code, CONFLICT), L.eq(code, METHOD_NOT_ALLOWED),
                        L.and_(get_connected, second_connection_refusal(L, code)))
        return L.or_(
            L.and_(request.lands(Branch.STREAM_RESUMPTION), second_connection_refusal(L, code), X.t_connected(resumed)),
            L.and_(request.lands(Branch.STREAM_RESUMPTION), L.eq(code, NO_CONTENT), ended,
                   L.not_(L.exists((EVENT,), after_cursor))),
            L.and_(request.lands(Branch.SESSION_RESUMPTION), refused, L.not_(strands(step, request.profile))),
            L.and_(request.lands(Branch.REJECT_FOREIGN_EVENT_ID), L.eq(code, L.int_(OK)), exactable(step, request)),
        )

    return alternatives


def second_connection_refusal(L: Logic, code):
    """``code`` is a 4xx other than 404 (``decision.SECOND_CONNECTION_REFUSALS``: 404 would
    tell the client its session is gone, MCP B34; rules §3.3)."""
    return L.and_(L.between(code, 400, 499), L.not_(L.eq(code, L.int_(404))))


def strands(step: Step, profile: Profile):
    """A refused session resumption under ``step.A.sh`` would leave a request stranded that
    ``profile`` requires re-emitted (``Outcome.strands``: ``boundary`` only, MCP B21)."""
    L = step.L
    if profile is not Profile.BOUNDARY:
        return L.false()
    return L.exists((REQUEST,), lambda r: owed(step, r))


def exactable(step: Step, request: Request):
    """The cursor is an event its ring buffer evicted while it keeps every later event of the
    stream (``decision._exact_after_eviction``): branch 3 may answer it with 200 and the exact
    replay (docs/design.md §2, partial retention; MCP D28).
    In Z3 the constant ``<tag>.exactable``, which ``exactable_definition`` defines: its
    quantifier stays at the top level, never under the delivery's iff, so the queries stay
    in EPR."""
    return _exactable(step, request)[0]


def exactable_definition(step: Step, profile: Profile) -> list[Conjunct]:
    """The conjunct ``def.<tag>.exactable`` (none in ``PyLogic``)."""
    return _exactable(step, Request(step.L, METHOD_OF[ActionKind.RECONNECT], step.X, step.R, step.A, profile))[1]


def _exactable(step: Step, request: Request):
    L, R, X, A = step.L, step.R, step.X, step.A
    later = lambda e: L.and_(X.e_issued(e), L.eq(R.stream_of(e), R.stream_of(A.eh)), R.lt(A.eh, e))
    kept_after = L.forall((EVENT,), lambda e: L.implies(later(e), L.not_(X.e_evicted(e))))
    return L.define(f"{A.tag}.exactable", L.and_(L.eq(request.event, L.enum(EventClass.EVICTED)), kept_after))


def _answer_alternatives(step: Step) -> Callable:
    """A response to no pending request of the session may also be refused with 400."""
    L, R, X, A = step.L, step.R, step.X, step.A
    r = A.target_request
    valid = L.and_(X.r_issued(r), L.eq(R.r_session(r), A.sh), X.r_pending(r))
    return lambda request, code: L.and_(request.lands(Branch.SESSION_REQUEST), L.eq(code, 400), L.not_(valid))


def status_allowed(step: Step, kind: ActionKind, profile: Profile, code):
    """``code`` is a status ``profile`` accepts for client request ``kind`` in this step."""
    request = Request(step.L, METHOD_OF[kind], step.X, step.R, step.A, profile)
    extra = {ActionKind.RECONNECT: _reconnect_alternatives, ActionKind.ANSWER_REQUEST: _answer_alternatives}.get(kind)
    allowed = request.accepts(code)
    return step.L.or_(allowed, extra(step)(request, code)) if extra else allowed


def owed(step: Step, r):
    """``r`` is a request a session resumption under ``step.A.sh`` must deal with: pending,
    of that session, and carried by a stream with no open connection (MCP B21)."""
    L, R, X, A = step.L, step.R, step.X, step.A
    return L.and_(X.r_issued(r), X.r_pending(r), L.eq(R.r_session(r), A.sh), A.stranded(r))


def stranded_definition(step: Step) -> Conjunct:
    """``A.stranded(r)``: no open connection carries ``r`` in the state before."""
    L, X, A = step.L, step.X, step.A
    connected = lambda r: L.exists((STREAM,), lambda t: L.and_(X.r_carrier(r, t), X.t_connected(t)))
    return Conjunct("def.stranded", L.forall((REQUEST,), lambda r: L.iff(A.stranded(r), L.not_(connected(r)))))


def _reconnect(step: Step, semantics: Semantics) -> _Effect:
    L, R, X, Y, A = step.L, step.R, step.X, step.Y, step.A
    resumed = R.stream_of(A.eh)
    after_cursor = lambda e: L.and_(X.e_issued(e), L.eq(R.stream_of(e), resumed), R.lt(A.eh, e))

    client = _Client(step, ActionKind.RECONNECT, semantics, _reconnect_alternatives(step))
    stream_resume = L.or_(client.go(Branch.STREAM_RESUMPTION), _exact_replay(step, client, semantics))
    session_resume = client.go(Branch.SESSION_RESUMPTION)
    no_choice = lambda r: L.false()
    cancel = no_choice if semantics.canonical and not semantics.cancel else A.cancel
    leave = no_choice if semantics.canonical or semantics.profile is Profile.BOUNDARY else A.leave
    dealt = lambda r: L.and_(session_resume, owed(step, r), L.not_(leave(r)))
    reemitted = lambda r: L.and_(dealt(r), L.not_(cancel(r)))
    cancelled = lambda r: L.and_(dealt(r), cancel(r))
    new = lambda e: L.and_(Y.e_issued(e), L.not_(X.e_issued(e)))
    opened = lambda t: L.and_(session_resume, L.eq(t, A.new_stream))
    re = A.reemit

    conjuncts = [
        stranded_definition(step),
        *exactable_definition(step, semantics.profile),
        Conjunct("tr.reconnect.stream", L.and_(L.implies(stream_resume, L.eq(step.O.stream, resumed)),
                                               L.implies(session_resume, L.eq(step.O.stream, A.new_stream)))),
        Conjunct("tr.reconnect.fresh-get-stream", L.implies(session_resume, L.and_(
            L.not_(X.t_issued(A.new_stream)), L.eq(R.owner(A.new_stream), A.sh), R.t_get(A.new_stream)))),
    ]

    def sent_for(r):
        e = re(r)
        nothing = lambda rel: L.forall((REQUEST,), lambda x: L.not_(rel(e, x)))
        reemit = L.and_(R.carries(e, r), nothing(R.cancels))
        what = reemit if cancel is no_choice else L.ite(cancel(r), L.and_(R.cancels(e, r), nothing(R.carries)), reemit)
        return L.and_(L.not_(X.e_issued(e)), Y.e_issued(e), L.eq(R.stream_of(e), A.new_stream), what,
                      L.forall((EVENT,), lambda x: L.implies(X.e_issued(x), R.lt(x, e))))

    def only_dealings(e):
        carried = L.forall((REQUEST,), lambda r: L.implies(R.carries(e, r), L.and_(reemitted(r), L.eq(e, re(r)))))
        cancelling = L.forall((REQUEST,), lambda r: L.implies(R.cancels(e, r), L.and_(cancelled(r), L.eq(e, re(r)))))
        return L.and_(session_resume, L.eq(R.stream_of(e), A.new_stream), carried, cancelling)

    events = [
        Conjunct("tr.reconnect.events-kept", L.forall((EVENT,), lambda e: L.implies(X.e_issued(e), Y.e_issued(e)))),
        Conjunct("tr.reconnect.dealing-events", L.forall((REQUEST,), lambda r: L.implies(dealt(r), sent_for(r)))),
        Conjunct("tr.reconnect.new-events", L.forall((EVENT,), lambda e: L.implies(new(e), only_dealings(e)))),
    ]
    if L.finite:
        exact = lambda e: L.exists((REQUEST,), lambda r: L.and_(dealt(r), L.eq(e, re(r))))
        events.append(Conjunct("tr.reconnect.dealing-exact", L.forall((EVENT,), lambda e: L.implies(new(e), exact(e)))))
    moved = lambda r, t: L.ite(reemitted(r), L.eq(t, A.new_stream), X.r_carrier(r, t))
    return _Effect(
        updates={
            "t_issued": lambda t: L.or_(X.t_issued(t), opened(t)),
            "t_open": lambda t: L.or_(X.t_open(t), opened(t)),
            "t_connected": lambda t: L.ite(L.and_(stream_resume, L.eq(t, resumed)), X.t_open(t), L.or_(X.t_connected(t), opened(t))),
            "r_pending": lambda r: L.and_(X.r_pending(r), L.not_(cancelled(r))),
            "r_carrier": moved,
        },
        conjuncts=conjuncts,
        events=events,
        delivered=lambda e: L.or_(L.and_(stream_resume, after_cursor(e)), new(e)),
        receiver=A.sh,
        forget=lambda s, r: L.and_(L.eq(s, A.sh), cancelled(r)),
        headers=(True, True),
        status=client.status,
        closed=lambda t: L.and_(stream_resume, L.eq(t, resumed), X.t_connected(t)),
    )


def _exact_replay(step: Step, client: _Client, semantics: Semantics):
    """Branch 3 answered 200 for an ``exactable`` cursor: a stream resumption of the cursor's
    stream, the exact replay then the stream live (``spec.transitions.exact_after_eviction``);
    never the reference's answer, so never under ``canonical``."""
    L = step.L
    if semantics.canonical:
        return L.false()
    request = client.request
    return L.and_(request.lands(Branch.REJECT_FOREIGN_EVENT_ID), L.eq(step.O.status, L.int_(OK)), exactable(step, request))


def _answer_request(step: Step, semantics: Semantics) -> _Effect:
    L, R, X, A = step.L, step.R, step.X, step.A
    r = A.target_request
    client = _Client(step, ActionKind.ANSWER_REQUEST, semantics, _answer_alternatives(step))
    go = client.go(Branch.SESSION_REQUEST)
    return _Effect(
        updates={"r_pending": lambda x: L.and_(X.r_pending(x), L.not_(L.and_(go, L.eq(x, r), L.eq(R.r_session(x), A.sh))))},
        forget=lambda s, x: L.and_(go, L.eq(s, A.sh), L.eq(x, r)),
        headers=(True, False),
        status=client.status,
    )


def _end_session(step: Step, session, when) -> dict[str, Callable]:
    """A session ends with all its streams and their event ids (docs/design.md §2)."""
    L, R, X = step.L, step.R, step.X
    of_it = lambda t: L.and_(when, L.eq(R.owner(t), session))
    return {
        "s_live": lambda s: L.and_(X.s_live(s), L.not_(L.and_(when, L.eq(s, session)))),
        "t_open": lambda t: L.and_(X.t_open(t), L.not_(of_it(t))),
        "t_connected": lambda t: L.and_(X.t_connected(t), L.not_(of_it(t))),
        "t_expired": lambda t: L.or_(X.t_expired(t), L.and_(of_it(t), X.t_issued(t))),
    }


def _delete_session(step: Step, semantics: Semantics) -> _Effect:
    client = _Client(step, ActionKind.DELETE_SESSION, semantics)
    go = client.go(Branch.SESSION_TERMINATION)
    return _Effect(updates=_end_session(step, step.A.sh, go), headers=(True, False), status=client.status)


def _restart_client(step: Step, semantics: Semantics) -> _Effect:
    return _Effect()


# -- network and server actions ------------------------------------------------------------


def _open_in_live_session(step: Step, t):
    """``spec.state.State.open_streams``: open, in a live session."""
    L, R, X = step.L, step.R, step.X
    return L.and_(X.t_issued(t), X.t_open(t), X.s_live(R.owner(t)))


def _drop_connection(step: Step, semantics: Semantics) -> _Effect:
    L, X, t = step.L, step.X, step.A.target_stream
    return _Effect(
        updates={"t_connected": lambda u: L.and_(X.t_connected(u), L.not_(L.eq(u, t)))},
        conjuncts=[Conjunct("tr.drop_connection.enabled", L.and_(X.t_issued(t), X.t_connected(t)))],
    )


def _close_connection(step: Step, semantics: Semantics) -> _Effect:
    """The server closes a connection (SEP-1699, with ``retry``): only in a live
    session; the stream stays open for the client to resume. Before 2025-11-25 only a
    GET stream's (``spec.transitions.SERVER_CLOSES_POST_CONNECTIONS``; MCP B10, B19)."""
    L, R, X, t = step.L, step.R, step.X, step.A.target_stream
    kind = L.true() if semantics.profile in SERVER_CLOSES_POST_CONNECTIONS else R.t_get(t)
    return _Effect(
        updates={"t_connected": lambda u: L.and_(X.t_connected(u), L.not_(L.eq(u, t)))},
        conjuncts=[Conjunct("tr.close_connection.enabled",
                            L.and_(X.t_issued(t), X.t_connected(t), X.s_live(R.owner(t)), kind))],
    )


def _evict_event(step: Step, semantics: Semantics) -> _Effect:
    """A ring buffer discards the oldest retained event of the target stream."""
    L, R, X, A = step.L, step.R, step.X, step.A
    t, e = A.target_stream, A.target_event
    kept = lambda x: L.and_(X.e_issued(x), L.eq(R.stream_of(x), t), L.not_(X.e_evicted(x)))
    oldest = L.and_(kept(e), L.forall((EVENT,), lambda x: L.implies(kept(x), L.not_(R.lt(x, e)))))
    retained = L.and_(X.t_issued(t), L.not_(X.t_expired(t)), X.s_live(R.owner(t)))
    return _Effect(
        updates={"e_evicted": lambda x: L.or_(X.e_evicted(x), L.eq(x, e))},
        conjuncts=[Conjunct("tr.evict_event.enabled", L.and_(retained, oldest))],
    )


def _send(step: Step, kind: ActionKind, request, cancelled=None, where=None) -> _Effect:
    """A server sends one event on the target stream, carrying ``request`` or nothing, or
    cancelling ``cancelled``; ``where``: the guard on the stream (open in a live session)."""
    L, R, X, A = step.L, step.R, step.X, step.A
    t, e = A.target_stream, A.new_event
    carried = (lambda r: L.eq(r, request)) if request is not None else (lambda r: L.false())
    cancels = (lambda r: L.eq(r, cancelled)) if cancelled is not None else (lambda r: L.false())
    fresh = L.and_(
        L.not_(X.e_issued(e)), L.eq(R.stream_of(e), t),
        L.forall((REQUEST,), lambda r: L.iff(R.carries(e, r), carried(r))),
        L.forall((REQUEST,), lambda r: L.iff(R.cancels(e, r), cancels(r))),
        L.forall((EVENT,), lambda x: L.implies(X.e_issued(x), R.lt(x, e))),
    )
    return _Effect(
        updates={"e_issued": lambda x: L.or_(X.e_issued(x), L.eq(x, e))},
        conjuncts=[
            Conjunct(f"tr.{kind.value}.enabled", _open_in_live_session(step, t) if where is None else where),
            Conjunct(f"tr.{kind.value}.fresh-event", fresh),
        ],
        delivered=lambda x: L.and_(L.eq(x, e), X.t_connected(t)),
        receiver=R.owner(t),
    )


def _emit_event(step: Step, semantics: Semantics) -> _Effect:
    return _send(step, ActionKind.EMIT_EVENT, None)


def _issue_server_request(step: Step, semantics: Semantics) -> _Effect:
    L, R, X, A = step.L, step.R, step.X, step.A
    r, t = A.new_request, A.target_stream
    effect = _send(step, ActionKind.ISSUE_SERVER_REQUEST, r)
    effect.updates["r_issued"] = lambda x: L.or_(X.r_issued(x), L.eq(x, r))
    effect.updates["r_pending"] = lambda x: L.or_(X.r_pending(x), L.eq(x, r))
    effect.updates["r_carrier"] = lambda x, u: L.or_(X.r_carrier(x, u), L.and_(L.eq(x, r), L.eq(u, t)))
    effect.conjuncts.append(Conjunct("tr.issue_server_request.fresh-request", L.and_(
        L.not_(X.r_issued(r)), L.eq(R.r_session(r), R.owner(t)), L.eq(R.r_stream(r), t))))
    return effect


def _cancel_request(step: Step, semantics: Semantics) -> _Effect:
    """``notifications/cancelled`` for the target request on the stream that carries it, which
    must be open (``target_stream``); the request ends."""
    L, R, X, A = step.L, step.R, step.X, step.A
    r, t = A.target_request, A.target_stream
    where = L.and_(X.r_issued(r), X.r_pending(r), X.s_live(R.r_session(r)), X.r_carrier(r, t), _open_in_live_session(step, t))
    effect = _send(step, ActionKind.CANCEL_REQUEST, None, cancelled=r, where=where)
    effect.updates["r_pending"] = lambda x: L.and_(X.r_pending(x), L.not_(L.eq(x, r)))
    effect.forget = lambda s, x: L.and_(L.eq(s, R.r_session(r)), L.eq(x, r))
    return effect


def _respond(step: Step, semantics: Semantics) -> _Effect:
    """The call's response on its own POST stream, then the stream ends."""
    L, R, X, t = step.L, step.R, step.X, step.A.target_stream
    effect = _send(step, ActionKind.RESPOND, None, where=L.and_(_open_in_live_session(step, t), L.not_(R.t_get(t))))
    effect.updates["t_open"] = lambda u: L.and_(X.t_open(u), L.not_(L.eq(u, t)))
    effect.updates["t_connected"] = lambda u: L.and_(X.t_connected(u), L.not_(L.eq(u, t)))
    return effect


def _end_stream(step: Step, semantics: Semantics) -> _Effect:
    L, X, t = step.L, step.X, step.A.target_stream
    return _Effect(
        updates={
            "t_open": lambda u: L.and_(X.t_open(u), L.not_(L.eq(u, t))),
            "t_connected": lambda u: L.and_(X.t_connected(u), L.not_(L.eq(u, t))),
        },
        conjuncts=[Conjunct("tr.end_stream.enabled", L.and_(_open_in_live_session(step, t), step.R.t_get(t)))],
    )


def _expire_stream(step: Step, semantics: Semantics) -> _Effect:
    L, R, X, t = step.L, step.R, step.X, step.A.target_stream
    return _Effect(
        updates={
            "t_open": lambda u: L.and_(X.t_open(u), L.not_(L.eq(u, t))),
            "t_connected": lambda u: L.and_(X.t_connected(u), L.not_(L.eq(u, t))),
            "t_expired": lambda u: L.or_(X.t_expired(u), L.eq(u, t)),
        },
        conjuncts=[Conjunct("tr.expire_stream.enabled", L.and_(X.t_issued(t), L.not_(X.t_expired(t)), X.s_live(R.owner(t))))],
    )


def _expire_session(step: Step, semantics: Semantics) -> _Effect:
    L, X, s = step.L, step.X, step.A.target_session
    return _Effect(
        updates=_end_session(step, s, L.true()),
        conjuncts=[Conjunct("tr.expire_session.enabled", X.s_live(s))],
    )


_EFFECTS: dict[ActionKind, Callable[[Step, Semantics], _Effect]] = {
    ActionKind.INITIALIZE: _initialize,
    ActionKind.CALL_TOOL: _call_tool,
    ActionKind.RECONNECT: _reconnect,
    ActionKind.ANSWER_REQUEST: _answer_request,
    ActionKind.DELETE_SESSION: _delete_session,
    ActionKind.DROP_CONNECTION: _drop_connection,
    ActionKind.RESTART_CLIENT: _restart_client,
    ActionKind.CLOSE_CONNECTION: _close_connection,
    ActionKind.EVICT_EVENT: _evict_event,
    ActionKind.EMIT_EVENT: _emit_event,
    ActionKind.ISSUE_SERVER_REQUEST: _issue_server_request,
    ActionKind.CANCEL_REQUEST: _cancel_request,
    ActionKind.RESPOND: _respond,
    ActionKind.END_STREAM: _end_stream,
    ActionKind.EXPIRE_STREAM: _expire_stream,
    ActionKind.EXPIRE_SESSION: _expire_session,
}
assert set(_EFFECTS) == set(ActionKind) and set(CLIENT_REQUESTS) <= set(_EFFECTS)
