"""The converse agreement: every successor the formulas allow is a step the spec takes.

``agreement.check_agreement`` reads the formulas on the spec's own steps (the
spec is no more permissive than the formulas). Here, from every state a bounded
exploration of the spec reaches, Z3 looks for a successor that the transition
formulas allow, with the reference's statuses (``Semantics(canonical=True)``),
and that differs from every step ``spec.transitions.step`` takes from that
state (the formulas are no more permissive than the spec). One ground query per
state in a finite scope (``FiniteLogic``); unsat means every successor the
formulas allow is one of the spec's.

Successors are compared on what an action is and shows: its kind and the
parameters it uses (headers as absent, malformed, unknown or the element named;
targets), the status, the events delivered, the connections closed, the state
after (every relation over the whole scope) and the attributes of what the step
minted. Fresh ids are minted lowest first and events are sent in element order
(as in bounded model checking), so a spec step has one image; the request each
re-emitted event carries is compared as a set (the order in which one
resumption re-emits several requests is not part of the semantics).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import z3

from mcp_resume.spec.actions import Action
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import candidate_actions
from mcp_resume.spec.state import RequestStatus, SessionStatus, State, StreamStatus, _handle_order
from mcp_resume.spec.transitions import Transition, enabled, step

from mcp_resume.proofs.solving import GROUND_RELEVANCY, SatResult, check, new_solver
from mcp_resume.proofs.system.logic import EVENT, REQUEST, SESSION, SORTS, STREAM, VARIABLE_PREFIX, FiniteLogic
from mcp_resume.proofs.system.transitions import Semantics, Step, axioms, transition
from mcp_resume.proofs.system.vocabulary import STATE_RELATIONS, ActionKind, observation, params, rigid, state

USED: dict[ActionKind, tuple[str, ...]] = {
    ActionKind.INITIALIZE: (),
    ActionKind.CALL_TOOL: ("sh",),
    ActionKind.RECONNECT: ("sh", "eh"),
    ActionKind.ANSWER_REQUEST: ("sh", "target_request"),
    ActionKind.DELETE_SESSION: ("sh",),
    ActionKind.RESTART_CLIENT: (),
    ActionKind.CANCEL_REQUEST: ("target_request",),
    ActionKind.EXPIRE_SESSION: ("target_session",),
}
"""The parameters an action uses; every other action uses only ``target_stream``."""

HEADERS = {"sh": (SESSION, "s_issued"), "eh": (EVENT, "e_issued")}
TARGETS = {"target_stream": STREAM, "target_request": REQUEST, "target_session": SESSION}
ISSUED = {SESSION: "s_issued", STREAM: "t_issued", EVENT: "e_issued", REQUEST: "r_issued"}


@dataclass
class ConverseReport:
    """``states`` checked, ``successors`` (spec steps) they have, disagreements found."""

    states: int = 0
    successors: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return not self.problems


def scope_for(states: list[State]) -> dict[str, int]:
    """Elements per sort: the most any state issues, room for what one step mints
    (a session, a stream, one event per server request, a request) and one id
    that is never issued."""
    most = lambda items: max((len(items(s)) for s in states), default=0)  # noqa: E731
    requests = most(lambda s: s.requests)
    return {SESSION: most(lambda s: s.sessions) + 2, STREAM: most(lambda s: s.streams) + 2,
            EVENT: most(lambda s: s.events) + max(requests, 1) + 2, REQUEST: requests + 2}


class Converse:
    """The formulas of every action from one symbolic state, in one finite scope."""

    def __init__(self, scope: dict[str, int], profile: Profile) -> None:
        self.profile, self.scope = profile, scope
        self.L = L = FiniteLogic(scope)
        self.R, self.X, self.Y = rigid(L), state(L, "pre"), state(L, "post")
        self.A, self.O = params(L, "step"), observation(L, "obs")
        self.step = Step(L, self.R, self.X, self.A, self.O, self.Y)
        semantics = Semantics(profile, canonical=True)
        by_kind = [L.implies(L.eq(self.A.kind, L.enum(k)), L.and_(*(c.formula for c in transition(self.step, k, semantics))))
                   for k in ActionKind]
        self._atoms = {frame.tag: self._atoms_of(frame) for frame in (self.X, self.Y)}
        self._shown = {name: {str(x): (rel(x), L.not_(rel(x))) for x in L.elements[sort]}
                       for name, rel, sort in (("delivered", self.O.delivered, EVENT), ("closed", self.O.closed, STREAM))}
        self.solver = new_solver(L.ctx, relevancy=GROUND_RELEVANCY)
        facts = [c.formula for c in axioms(L, self.R) if not c.name.startswith("axiom.lt-")]  # lt: the send order
        self.solver.add(*facts, *by_kind, self._send_order(), self._minted_in_order(self.Y))
        self._literals = [z3.Bool(f"converse.{i}", L.ctx) for i in range(200)]

    def _atoms_of(self, frame) -> dict[str, dict[tuple, tuple]]:
        """Per relation, each tuple of elements -> (its atom, its negation), made once."""
        L, atoms = self.L, {}
        for name, sorts in STATE_RELATIONS.items():
            rel = getattr(frame, name)
            if rel is not None:
                atoms[name] = {tuple(str(x) for x in combo): (rel(*combo), L.not_(rel(*combo)))
                               for combo in itertools.product(*(L.elements[s] for s in sorts))}
        return atoms

    def _send_order(self):
        L, events = self.L, self.L.elements[EVENT]
        return L.and_(*(self.R.lt(a, b) if i < j else L.not_(self.R.lt(a, b))
                        for i, a in enumerate(events) for j, b in enumerate(events)))

    def _minted_in_order(self, frame):
        L = self.L
        return L.and_(*(L.implies(getattr(frame, ISSUED[sort])(later), getattr(frame, ISSUED[sort])(earlier))
                        for sort in SORTS for earlier, later in zip(L.elements[sort], L.elements[sort][1:])))

    def check(self, before: State, report: ConverseReport) -> None:
        """Look for a successor of ``before`` the formulas allow and the spec does not take."""
        taken = [step(before, action, self.profile) for action in candidate_actions(before) if enabled(before, action, self.profile)]
        names = Names(self.L, before, [t.after for t in taken])
        if names.overflow:
            report.problems.append(f"state with {len(before.events)} events does not fit the scope {self.scope}")
            return
        report.states += 1
        report.successors += len(taken)
        L, solver = self.L, self.solver
        solver.push()
        solver.add(self._facts(names, before))
        cases = []
        for t in taken:
            chosen = L.and_(L.eq(self.A.kind, L.enum(ActionKind(t.action.kind))),
                            self._parameters(names, ActionKind(t.action.kind), t.action))
            cases.append((chosen, L.not_(self._image(names, t))))
        cases.append((L.not_(L.or_(*(chosen for chosen, _ in cases))), L.true()))
        for literal, (chosen, differs) in zip(self._literals, cases):
            solver.add(L.implies(literal, L.and_(chosen, differs)))
            answer = check(solver, literal)
            if answer is SatResult.SAT:
                report.problems.append(self._describe(names, before, solver.model()))
                break
            if answer is SatResult.UNKNOWN:
                report.problems.append(f"{_state_text(before)}: unknown ({solver.reason_unknown()})")
                break
        solver.pop()

    def _pre_values(self, names: "Names", before: State) -> list[tuple]:
        """Every atom of the state before, paired with its truth value in ``before``."""
        L, values = self.L, state_values("v", before)
        pairs = []
        for name, atoms in self._atoms[self.X.tag].items():
            sorts = STATE_RELATIONS[name]
            held = {(t,) if not isinstance(t, tuple) else t for t in values[f"v.{name}"]}
            held = {tuple(names.name(sort, h) for sort, h in zip(sorts, item)) for item in held}
            pairs += [(pair[0], L.true() if combo in held else L.false()) for combo, pair in atoms.items()]
        return pairs

    # -- the state before, and the image of one spec step ------------------------------

    def _facts(self, names: "Names", before: State):
        L, R = self.L, self.R
        parts = [self._relations(names, self.X, before)]  # for the atoms on symbolic ids (step.sh ...)
        for t in before.streams:
            parts += [L.eq(R.owner(names.of(STREAM, t.id)), names.of(SESSION, t.session)),
                      _truth(L, R.t_get(names.of(STREAM, t.id)), t.kind.value == "get")]
        for e in before.events:
            parts.append(L.eq(R.stream_of(names.of(EVENT, e.id)), names.of(STREAM, e.stream)))
            parts += [_truth(L, R.carries(names.of(EVENT, e.id), r), e.request is not None and str(names.of(REQUEST, e.request)) == str(r))
                      for r in L.elements[REQUEST]]
        for r in before.requests:
            parts += [L.eq(R.r_session(names.of(REQUEST, r.id)), names.of(SESSION, r.session)),
                      L.eq(R.r_stream(names.of(REQUEST, r.id)), names.of(STREAM, r.stream))]
        return L.and_(*parts)

    def _relations(self, names: "Names", frame, s: State):
        values = state_values("v", s)
        parts = []
        for name, atoms in self._atoms[frame.tag].items():
            sorts = STATE_RELATIONS[name]
            held = {(t,) if not isinstance(t, tuple) else t for t in values[f"v.{name}"]}
            held = {tuple(names.name(sort, h) for sort, h in zip(sorts, item)) for item in held}
            parts += [pair[0] if combo in held else pair[1] for combo, pair in atoms.items()]
        return self.L.and_(*parts)

    def _image(self, names: "Names", taken: Transition):
        L, O = self.L, self.O
        parts = [L.eq(O.status, L.int_(taken.observation.status or 0))]
        delivered = {names.name(EVENT, d.event) for d in taken.observation.events}
        parts += [pair[0] if e in delivered else pair[1] for e, pair in self._shown["delivered"].items()]
        closed = {names.name(STREAM, t) for t in taken.observation.closed}
        parts += [pair[0] if t in closed else pair[1] for t, pair in self._shown["closed"].items()]
        parts.append(self._relations(names, self.Y, taken.after))
        parts += self._minted(names, taken)
        return L.and_(*parts)

    def _parameters(self, names: "Names", kind: ActionKind, action: Action):
        L, A, X = self.L, self.A, self.X
        parts = []
        for used in USED.get(kind, ("target_stream",)):
            if used in HEADERS:
                sort, issued = HEADERS[used]
                value = getattr(action, "session" if used == "sh" else "last_event_id", None)
                present, malformed, element = getattr(A, f"{used}_present"), getattr(A, f"{used}_malformed"), getattr(A, used)
                if value is None:
                    parts.append(L.not_(present))
                elif not _well_formed(value):
                    parts += [present, malformed]
                elif names.known(sort, value):
                    parts += [present, L.not_(malformed), L.eq(element, names.of(sort, value))]
                else:
                    parts += [present, L.not_(malformed), L.not_(getattr(X, issued)(element))]
            else:
                sort = TARGETS[used]
                value = getattr(action, {"target_stream": "stream", "target_request": "request",
                                         "target_session": "session"}[used])
                target = getattr(A, used)
                parts.append(L.eq(target, names.of(sort, value)) if names.known(sort, value)
                             else L.not_(getattr(X, ISSUED[sort])(target)))
        return L.and_(*parts)

    def _minted(self, names: "Names", taken: Transition) -> list:
        L, R, after, before = self.L, self.R, taken.after, taken.before
        parts = []
        for t in after.streams:
            if before.stream(t.id) is None:
                parts += [L.eq(R.owner(names.of(STREAM, t.id)), names.of(SESSION, t.session)),
                          _truth(L, R.t_get(names.of(STREAM, t.id)), t.kind.value == "get")]
        new_events = [e for e in after.events if before.event(e.id) is None]
        for e in new_events:
            parts.append(L.eq(R.stream_of(names.of(EVENT, e.id)), names.of(STREAM, e.stream)))
        carried = {names.of(REQUEST, e.request) for e in new_events if e.request is not None}
        fresh = [names.of(EVENT, e.id) for e in new_events]
        for r in L.elements[REQUEST]:
            parts.append(_truth(L, L.or_(*(R.carries(e, r) for e in fresh)) if fresh else L.false(), r in carried))
        for r in after.requests:
            if before.request(r.id) is None:
                parts += [L.eq(R.r_session(names.of(REQUEST, r.id)), names.of(SESSION, r.session)),
                          L.eq(R.r_stream(names.of(REQUEST, r.id)), names.of(STREAM, r.stream))]
        return parts

    def _describe(self, names: "Names", before: State, model: z3.ModelRef) -> str:
        L, A, O = self.L, self.A, self.O
        kind = L.decode_enum(model.eval(A.kind, model_completion=True), ActionKind)
        value = lambda term: names.handle(model.eval(term, model_completion=True))  # noqa: E731
        shown = [f"{p}={value(getattr(A, p))}" for p in USED.get(kind, ("target_stream",))]
        delivered = [names.handle(e) for e in L.elements[EVENT] if z3.is_true(model.eval(O.delivered(e), model_completion=True))]
        status = model.eval(O.status, model_completion=True)
        return (f"{_state_text(before)}: the formulas allow {kind.value}({', '.join(shown)}) answered {status}, "
                f"delivering {delivered or 'nothing'}, which no spec step takes")


class Names:
    """The spec's handles of a state and of its successors as elements of the scope,
    in issue order; ``overflow`` when they do not fit."""

    def __init__(self, L: FiniteLogic, before: State, afters: list[State]) -> None:
        self.L = L
        self._element: dict[tuple[str, str], z3.ExprRef] = {}
        self._name: dict[tuple[str, str], str] = {}
        self._handle: dict[str, str] = {}
        self.overflow = False
        for sort, items in ((SESSION, "sessions"), (STREAM, "streams"), (EVENT, "events"), (REQUEST, "requests")):
            known = [x.id for x in getattr(before, items)]
            self._place(sort, known)
            minted = {x.id for after in afters for x in getattr(after, items)} - set(known)
            self._place(sort, known + sorted(minted, key=_handle_order))
        self._before = {(sort, x.id) for sort, items in ((SESSION, "sessions"), (STREAM, "streams"), (EVENT, "events"),
                                                         (REQUEST, "requests")) for x in getattr(before, items)}

    def _place(self, sort: str, handles: list[str]) -> None:
        elements = self.L.elements[sort]
        if len(handles) >= len(elements):
            self.overflow = True
            return
        for index, handle in enumerate(handles):
            if (sort, handle) not in self._element:
                self._element[(sort, handle)] = elements[index]
                self._name[(sort, handle)] = name = f"{VARIABLE_PREFIX[sort]}!{index}"
                self._handle.setdefault(name, handle)

    def of(self, sort: str, handle: str):
        return self._element[(sort, handle)]

    def name(self, sort: str, handle: str) -> str:
        """The element's name, as ``str`` of the element prints it."""
        return self._name[(sort, handle)]

    def known(self, sort: str, handle: str | None) -> bool:
        return (sort, handle) in self._before

    def handle(self, element) -> str:
        return self._handle.get(str(element), f"{element} (not issued)")


def state_values(tag: str, s: State) -> dict[str, object]:
    """The state relations of ``s`` as ``PyLogic`` values (``<tag>.<relation>``: a set of handles or tuples)."""
    live = {x.id for x in s.sessions if x.status is SessionStatus.LIVE}
    cursors, seen = set(), set()
    for entry in s.client:
        cursors |= {(entry.session, stream, event) for stream, event in entry.cursors}
        seen |= {(entry.session, request) for request in entry.seen}
    return {
        f"{tag}.s_issued": {x.id for x in s.sessions},
        f"{tag}.s_live": live,
        f"{tag}.t_issued": {t.id for t in s.streams},
        f"{tag}.t_open": {t.id for t in s.streams if t.status is StreamStatus.OPEN},
        f"{tag}.t_expired": {t.id for t in s.streams if t.status is StreamStatus.EXPIRED},
        f"{tag}.t_connected": {t.id for t in s.streams if t.connected},
        f"{tag}.e_issued": {e.id for e in s.events},
        f"{tag}.e_evicted": {e.id for t in s.streams for e in s.events_of(t.id)[: t.evicted]},
        f"{tag}.r_issued": {r.id for r in s.requests},
        f"{tag}.r_pending": {r.id for r in s.requests if r.status is RequestStatus.PENDING},
        f"{tag}.r_carrier": {(r.id, r.stream) for r in s.requests},
        f"{tag}.cursor": cursors,
        f"{tag}.seen": seen,
    }


def _truth(L, formula, value: bool):
    return formula if value else L.not_(formula)


def _well_formed(value: str) -> bool:
    from mcp_resume.spec.headers import is_well_formed
    return is_well_formed(value)


def _state_text(s: State) -> str:
    parts = [f"{x.id}:{x.status.value}" for x in s.sessions]
    parts += [f"{t.id}({t.session},{t.kind.value},{t.status.value}{',connected' if t.connected else ''})" for t in s.streams]
    parts += [f"{e.id}@{e.stream}{'[' + e.request + ']' if e.request else ''}" for e in s.events]
    parts += [f"{r.id}({r.session},{r.stream},{r.status.value})" for r in s.requests]
    return "from {" + ", ".join(parts) + "}"


def check_converse(states: list[State], profile: Profile = Profile.BOUNDARY, limit: int = 20) -> ConverseReport:
    """Check every state of ``states`` (reached by the spec); keep the first ``limit`` problems."""
    report = ConverseReport()
    converse = Converse(scope_for(states), profile)
    for before in states:
        if len(report.problems) >= limit:
            break
        converse.check(before, report)
    return report
