"""Agreement of the Z3 encoding with the executable spec.

The encoding (``ts_transitions``, ``ts_invariants``) is a second statement of
``spec.transitions``; this module checks the two against each other on every
step a small breadth-first exploration of ``spec.transitions.step`` reaches:

- the step satisfies every conjunct of its action's transition formula, read
  on the finite structure built from the Python ``before`` and ``after`` states,
  the action and the observation (``structure``);
- both states satisfy every state and strengthening invariant, and the step
  every step property.

A failure names the conjunct or invariant and the step, so a disagreement points
at the line of the encoding (or of the spec) to read.

``agreement_both_ways`` adds the converse (``converse``): every successor the
formulas allow from a reached state is a step the spec takes. ``prove_agreement``
is what ``mcp-resume prove`` runs: both ways twice, wide (two sessions, depth 4)
and deep (one session, depth 5, where a session resumption first re-emits a
server request; the converse also from every state that owes two, whose
successors re-emit both).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from mcp_resume.spec.actions import Action, EvictEvent, ExpireSession, Reconnect, RestartClient, describe
from mcp_resume.spec.space import Bounds, within
from mcp_resume.spec.space import candidate_actions
from mcp_resume.spec.headers import is_well_formed
from mcp_resume.spec.catalog import level
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.state import INITIAL_STATE, RequestStatus, State, StreamKind
from mcp_resume.spec.transitions import Observation, Transition, alternatives, enabled, exact_after_eviction, step
from mcp_resume.spec.walk import breadth_first

from mcp_resume.proofs.system.converse import ConverseReport, check_converse, state_values
from mcp_resume.proofs.system.invariants import INDUCTIVE, STEP_PROPERTIES
from mcp_resume.proofs.system.logic import EVENT, REQUEST, SESSION, STREAM, PyLogic
from mcp_resume.proofs.system.transitions import Semantics, Step, axioms, initial, status_allowed, transition
from mcp_resume.proofs.system.vocabulary import ActionKind, observation, params, rigid, state

SPARE = {SESSION: "S?", STREAM: "T?", EVENT: "E?", REQUEST: "R?"}
"""One element per sort that the state never issues: what an unknown id names."""

AGREEMENT_BOUNDS = Bounds(sessions=2, streams=2, events=3, requests=2, depth=5)
"""Where ``check_agreement`` looks: every step within 5 of the initial state, with
up to two sessions, each holding up to two streams and two server requests (the
spec's ``Bounds``)."""

PROVE_BOUNDS = Bounds(sessions=2, streams=2, events=2, requests=2, depth=4)
"""The wide run of ``mcp-resume prove``, both ways: every spec step within 4
of the initial state (a second server request takes 4 steps), and the converse
from every state within ``PROVE_CONVERSE_DEPTH``, whose successors reach depth 4."""

PROVE_CONVERSE_DEPTH = 3

PROVE_DEEP_BOUNDS = Bounds(sessions=1, streams=2, events=2, requests=2, depth=5)
"""The deep run of ``mcp-resume prove``: one session, every spec step within 5 of the
initial state, up to two server requests. Depth 5 is the first at which a session
resumption re-emits (initialize, call_tool, issue_server_request, drop_connection,
reconnect); the converse runs from the states that owe a re-emission
(``reemission_states``)."""

PROVE_DEEP_CONVERSE_DEPTH = 4
"""The deep run's converse starts from the states within this depth that owe a re-emission
(their successors reach depth 5), and from the states at any depth that owe two."""

STATUS_PROBES = (200, 202, 204, 400, 403, 404, 405, 409, 422, 500)
"""The statuses each client step's accepted set is compared on: every code a branch or a
refinement of ``spec.decision`` names, two other 4xx (a second connection may be refused
with any 4xx but 404) and a 5xx."""


@dataclass(frozen=True)
class AgreementFigures:
    """Both directions of one agreement run, as ``results.json`` and ``REPORT.md`` carry them."""

    bounds: Bounds
    converse_depth: int
    forward: "AgreementReport"
    converse: ConverseReport
    converse_from: str | None = None
    """Which reached states the converse started from, when not all those within ``converse_depth``."""

    @property
    def agrees(self) -> bool:
        return self.forward.agrees and self.converse.agrees

    def problems(self) -> list[str]:
        """Every disagreement, each prefixed with its direction."""
        return ([f"agreement (spec -> formulas): {p}" for p in self.forward.problems]
                + [f"agreement (formulas -> spec): {p}" for p in self.converse.problems])

    def to_json(self) -> dict:
        start = self.converse_from or f"the states within depth {self.converse_depth}"
        return {
            "bounds": f"{self.bounds.describe()}; converse from {start}",
            "spec_to_formulas": {"transitions": self.forward.transitions, "alternatives": self.forward.alternatives,
                                 "states": self.forward.states, "reemissions": self.forward.reemissions,
                                 "problems": list(self.forward.problems)},
            "formulas_to_spec": {"states": self.converse.states, "successors": self.converse.successors,
                                 "problems": list(self.converse.problems)},
        }

    def describe(self) -> str:
        return (f"agreement: {self.forward.transitions} spec steps ({self.forward.reemissions} re-emitting) and "
                f"{self.forward.alternatives} alternatives satisfy the formulas "
                f"({len(self.forward.problems)} disagreements); from {self.converse.states} states the formulas "
                f"allow only the spec's {self.converse.successors} steps ({len(self.converse.problems)} disagreements)")


@dataclass
class AgreementReport:
    """How many steps and states were checked (``reemissions``: steps that deliver a server
    request sent before, under a new event id), which actions and decision branches they
    took, and every disagreement found."""

    transitions: int = 0
    alternatives: int = 0
    states: int = 0
    reemissions: int = 0
    problems: list[str] = field(default_factory=list)
    actions: Counter = field(default_factory=Counter)
    branches: Counter = field(default_factory=Counter)
    reached: list[State] = field(default_factory=list, repr=False)
    depths: dict = field(default_factory=dict, repr=False)

    @property
    def agrees(self) -> bool:
        return not self.problems


def structure(before: State, action: Action, observed, after: State) -> PyLogic:
    """The finite structure of one step: elements are the spec's handles plus one
    spare, never issued, element per sort; ``observed`` is a ``transitions.Observation``."""
    domain = {
        SESSION: [s.id for s in after.sessions] + [SPARE[SESSION]],
        STREAM: [t.id for t in after.streams] + [SPARE[STREAM]],
        EVENT: [e.id for e in after.events] + [SPARE[EVENT]],
        REQUEST: [r.id for r in after.requests] + [SPARE[REQUEST]],
    }
    values: dict[str, object] = {}
    values.update(state_values("pre", before))
    values.update(state_values("post", after))
    values.update(_rigid_values(after))
    values.update(_param_values("step", before, action, after))
    values.update(_observation_values("obs", observed))
    return PyLogic(domain, values)


def check_step(transition_: Transition, profile: Profile, canonical: bool = True) -> list[str]:
    """Every conjunct, invariant and step property that the spec's step violates
    (``canonical=False`` for an alternative of ``spec.transitions.alternatives``:
    then only the formulas of any accepted behaviour are read, and only the step
    properties of the rules ``profile`` makes a MUST)."""
    L = structure(transition_.before, transition_.action, transition_.observation, transition_.after)
    R, X, Y = rigid(L), state(L, "pre"), state(L, "post")
    the_step = Step(L, R, X, params(L, "step"), observation(L, "obs"), Y)
    kind = ActionKind(transition_.action.kind)
    where = describe(transition_.action)
    problems = [f"{where}: {c.name} does not hold" for c in axioms(L, R) if not c.formula]
    if canonical:
        problems += [f"{where}: {c.name} does not hold" for c in transition(the_step, kind, Semantics(profile, canonical=True)) if not c.formula]
    problems += [f"{where}: {c.name} (any accepted status) does not hold" for c in transition(the_step, kind, Semantics(profile)) if not c.formula]
    for invariant in INDUCTIVE:
        for label, frame in (("before", X), ("after", Y)):
            if not invariant.formula(L, R, frame):
                problems.append(f"{where}: invariant {invariant.id} does not hold {label}")
    properties = STEP_PROPERTIES if canonical else [p for p in STEP_PROPERTIES if level(p.rule, profile) is Level.MUST]
    problems += [f"{where}: step property {p.id} does not hold" for p in properties if not p.formula(the_step, profile)]
    if canonical:
        problems += status_problems(transition_, the_step, profile)
    return problems


def status_problems(transition_: Transition, the_step: Step, profile: Profile) -> list[str]:
    """Each status of ``STATUS_PROBES`` that the encoding (``transitions.status_allowed``)
    and the spec's outcome (``Outcome.statuses``) judge differently for a client step."""
    outcome = transition_.outcome
    if outcome is None:
        return []
    kind, where = ActionKind(transition_.action.kind), describe(transition_.action)
    problems = []
    for code in STATUS_PROBES:
        encoded, spec = bool(status_allowed(the_step, kind, profile, code)), code in outcome.statuses
        if encoded is not spec:
            problems.append(f"{where}: status {code} is {'accepted' if encoded else 'refused'} by the encoding, "
                            f"{'refused' if encoded else 'accepted'} by the spec")
    return problems


def check_initial_state() -> list[str]:
    """The spec's initial state satisfies the encoding's initial-state formula."""
    L = structure(INITIAL_STATE, RestartClient(), Observation(), INITIAL_STATE)
    return [f"initial state: {c.name} does not hold" for c in initial(L, state(L, "pre")) if not c.formula]


def check_agreement(bounds: Bounds = AGREEMENT_BOUNDS, profile: Profile = Profile.BOUNDARY, limit: int = 20) -> AgreementReport:
    """Explore the spec within ``bounds`` (``spec.walk`` over ``spec.space.candidate_actions``,
    states as their own keys) and check every step; keep the first ``limit`` problems.

    Raises ``NotModelled`` (from ``step``) for a sessionless profile.
    """
    report = AgreementReport(problems=check_initial_state())

    def successors(_key: State, current: State):
        for action in candidate_actions(current):
            if not enabled(current, action, profile):
                continue
            taken = step(current, action, profile)
            if not within(taken.after, bounds):
                continue
            report.transitions += 1
            report.reemissions += _reemits(taken)
            report.actions[action.kind] += 1
            if taken.outcome is not None:
                report.branches[taken.outcome.branch.value] += 1
            if len(report.problems) < limit:
                report.problems += check_step(taken, profile)[: limit - len(report.problems)]
            for variant in _alternatives(current, action, profile):
                report.alternatives += 1
                if len(report.problems) < limit:
                    found = [f"(alternative) {p}" for p in check_step(variant, profile, canonical=False)]
                    report.problems += found[: limit - len(report.problems)]
            yield action, taken.after, taken.after

    walk = breadth_first(INITIAL_STATE, INITIAL_STATE, successors, bounds.depth)
    report.states = len(walk.parents)
    report.reached = list(walk.parents)
    for key in walk.parents:
        report.depths[key] = _walk_depth(walk.parents, key)
    return report


def _alternatives(current: State, action: Action, profile: Profile) -> list[Transition]:
    """The accepted transitions of ``action`` besides the reference's: a session resumption's
    other choices, and the exact replay after an evicted cursor."""
    found = list(alternatives(current, action, profile)[1:])
    exact = exact_after_eviction(current, action, profile) if isinstance(action, Reconnect) else None
    return found + ([exact] if exact is not None else [])


@dataclass(frozen=True)
class ProveAgreement:
    """The agreement runs of ``mcp-resume prove`` (``prove_agreement``): ``wide`` (two
    sessions, ``PROVE_BOUNDS``) and ``deep`` (one session, ``PROVE_DEEP_BOUNDS``; ``None``
    where only the wide run was asked for, as ``mcp-resume check`` does)."""

    wide: AgreementFigures
    deep: AgreementFigures | None = None

    @property
    def named_runs(self) -> dict[str, AgreementFigures]:
        return {"wide": self.wide} if self.deep is None else {"wide": self.wide, "deep": self.deep}

    @property
    def runs(self) -> tuple[AgreementFigures, ...]:
        return tuple(self.named_runs.values())

    @property
    def agrees(self) -> bool:
        return all(run.agrees for run in self.runs)

    def problems(self) -> list[str]:
        return [f"{name} run: {p}" for name, run in self.named_runs.items() for p in run.problems()]

    def to_json(self) -> dict:
        """``{"wide": ..., "deep": ...}`` (no ``deep`` when it did not run), each as
        ``AgreementFigures.to_json``."""
        return {name: run.to_json() for name, run in self.named_runs.items()}

    def describe(self) -> str:
        deep = "deep not run (mcp-resume prove runs it)" if self.deep is None else f"deep {self.deep.describe()}"
        return f"wide {self.wide.describe()}; {deep}"


def owed(state: State) -> int:
    """How many pending server requests of ``state`` no open connection carries: the
    requests a session resumption from it must re-emit or cancel."""
    return sum(1 for r in state.requests
               if r.status is RequestStatus.PENDING and not state.stream(r.stream).connected)


def reemission_states(report: AgreementReport, depth: int) -> list[State]:
    """The states ``report`` reached from which a session resumption re-emits: those within
    ``depth`` that owe one request or more, and those at any depth that owe two or more."""
    return [s for s in report.reached if (owed(s) and report.depths[s] <= depth) or owed(s) >= 2]


def prove_agreement(profile: Profile = Profile.BOUNDARY, limit: int = 20, deep: bool = True) -> ProveAgreement:
    """Both ways, wide and deep, as ``mcp-resume prove`` runs them: ``agreement_both_ways``
    within ``PROVE_BOUNDS`` (converse from depth ``PROVE_CONVERSE_DEPTH``), then, unless
    ``deep`` is false, ``check_agreement`` within ``PROVE_DEEP_BOUNDS`` with the converse
    from its ``reemission_states`` (``PROVE_DEEP_CONVERSE_DEPTH``). Raises ``NotModelled``
    for a sessionless profile."""
    wide = agreement_both_ways(PROVE_BOUNDS, profile, PROVE_CONVERSE_DEPTH, limit)
    if not deep:
        return ProveAgreement(wide)
    forward = check_agreement(PROVE_DEEP_BOUNDS, profile, limit)
    start = reemission_states(forward, PROVE_DEEP_CONVERSE_DEPTH)
    where = (f"the states that owe a re-emission (within depth {PROVE_DEEP_CONVERSE_DEPTH}, "
             "or owing two at any depth)")
    deep = AgreementFigures(PROVE_DEEP_BOUNDS, PROVE_DEEP_CONVERSE_DEPTH, forward,
                            check_converse(start, profile, limit), where)
    return ProveAgreement(wide, deep)


def _reemits(taken: Transition) -> bool:
    """The step delivers, under a new event id, a server request issued before it."""
    return any(d.request is not None and taken.before.request(d.request) is not None
               and taken.before.event(d.event) is None for d in taken.observation.events)


def _walk_depth(parents: dict, key) -> int:
    depth = 0
    while parents[key] is not None:
        key, depth = parents[key][0], depth + 1
    return depth


def agreement_both_ways(bounds: Bounds = PROVE_BOUNDS, profile: Profile = Profile.BOUNDARY,
                        converse_depth: int | None = PROVE_CONVERSE_DEPTH, limit: int = 20) -> AgreementFigures:
    """``check_agreement`` within ``bounds``, then ``check_converse`` from every state it
    reached within ``converse_depth`` steps (all of them for ``None``)."""
    forward = check_agreement(bounds, profile, limit)
    depth = bounds.depth if converse_depth is None else converse_depth
    near = [s for s in forward.reached if depth is None or forward.depths[s] <= depth]
    return AgreementFigures(bounds, depth, forward, check_converse(near, profile, limit))


# -- the structure's parts ---------------------------------------------------------------


def _rigid_values(s: State) -> dict[str, object]:
    order = [e.id for e in s.events] + [SPARE[EVENT]]
    return {
        "owner": {**{t.id: t.session for t in s.streams}, SPARE[STREAM]: SPARE[SESSION]},
        "stream_of": {**{e.id: e.stream for e in s.events}, SPARE[EVENT]: SPARE[STREAM]},
        "r_session": {**{r.id: r.session for r in s.requests}, SPARE[REQUEST]: SPARE[SESSION]},
        "r_stream": {**{r.id: r.origin for r in s.requests}, SPARE[REQUEST]: SPARE[STREAM]},
        "t_get": {t.id for t in s.streams if t.kind is StreamKind.GET},
        "carries": {(e.id, e.request) for e in s.events if e.request is not None},
        "cancels": {(e.id, e.cancels) for e in s.events if e.cancels is not None},
        "lt": {(a, b) for i, a in enumerate(order) for b in order[i + 1:]},
    }


def _header(value: str | None, issued: set[str], spare: str) -> tuple[bool, bool, str]:
    """(present, malformed, element) for one header value."""
    if value is None:
        return False, False, spare
    if not is_well_formed(value):
        return True, True, spare
    return True, False, value if value in issued else spare


def _target_stream(before: State, action: Action) -> str | None:
    """The stream an action acts on: its own, or for a cancellation the stream that carries
    the request (where ``notifications/cancelled`` goes)."""
    request = before.request(getattr(action, "request", None)) if action.kind == "cancel_request" else None
    return request.stream if request is not None else getattr(action, "stream", None)


def _param_values(tag: str, before: State, action: Action, after: State) -> dict[str, object]:
    sessions, events = {s.id for s in after.sessions}, {e.id for e in after.events}
    sh = _header(getattr(action, "session", None) if not isinstance(action, ExpireSession) else None, sessions, SPARE[SESSION])
    eh = _header(getattr(action, "last_event_id", None), events, SPARE[EVENT])
    new = lambda items, old: next((x.id for x in items if x.id not in {y.id for y in old}), None)
    new_events = [e for e in after.events if before.event(e.id) is None]
    requests = {r.id for r in after.requests}
    target_request = getattr(action, "request", None)
    return {
        f"{tag}.kind": ActionKind(action.kind),
        f"{tag}.sh_present": sh[0], f"{tag}.sh_malformed": sh[1], f"{tag}.sh": sh[2],
        f"{tag}.eh_present": eh[0], f"{tag}.eh_malformed": eh[1], f"{tag}.eh": eh[2],
        f"{tag}.target_stream": _target_stream(before, action) or SPARE[STREAM],
        f"{tag}.target_request": target_request if target_request in requests else SPARE[REQUEST],
        f"{tag}.target_session": action.session if isinstance(action, ExpireSession) else SPARE[SESSION],
        f"{tag}.new_session": new(after.sessions, before.sessions) or SPARE[SESSION],
        f"{tag}.new_stream": new(after.streams, before.streams) or SPARE[STREAM],
        f"{tag}.new_event": new_events[0].id if len(new_events) == 1 else SPARE[EVENT],
        f"{tag}.new_request": new(after.requests, before.requests) or SPARE[REQUEST],
        f"{tag}.reemit": {e.request or e.cancels: e.id for e in new_events if e.request or e.cancels},
        f"{tag}.cancel": {e.cancels for e in new_events if e.cancels is not None},
        f"{tag}.stranded": _stranded(before, after),
        f"{tag}.leave": _left(before, action, after),
        f"{tag}.target_event": _evicted_now(before, action, after),
    }


def _stranded(before: State, after: State) -> set[str]:
    """Every request element no open connection carries before the step (the spare one too)."""
    connected = {r.id for r in before.requests if before.stream(r.stream).connected}
    return {r.id for r in after.requests if r.id not in connected} | {SPARE[REQUEST]}


def _left(before: State, action: Action, after: State) -> set[str]:
    """The requests a session resumption left pending: pending, not connected, neither re-emitted nor cancelled."""
    if not isinstance(action, Reconnect) or len(after.streams) == len(before.streams):
        return set()  # not a session resumption that opened its stream
    dealt = {e.request or e.cancels for e in after.events if before.event(e.id) is None}
    return {r.id for r in before.requests if r.status is RequestStatus.PENDING and r.session == action.session
            and not before.stream(r.stream).connected and r.id not in dealt}


def _evicted_now(before: State, action: Action, after: State) -> str:
    if not isinstance(action, EvictEvent):
        return SPARE[EVENT]
    stream = before.stream(action.stream)
    return before.events_of(stream.id)[stream.evicted].id


def _observation_values(tag: str, observed) -> dict[str, object]:
    delivered = [d.event for d in observed.events]
    return {
        f"{tag}.status": observed.status or 0,
        f"{tag}.delivered": set(delivered),
        f"{tag}.on": {(d.event, d.stream) for d in observed.events},
        f"{tag}.requests": {d.request for d in observed.events if d.request is not None},
        f"{tag}.closed": set(observed.closed),
        f"{tag}.any": bool(delivered),
        f"{tag}.last": delivered[-1] if delivered else SPARE[EVENT],
        f"{tag}.stream": observed.stream or SPARE[STREAM],
    }
