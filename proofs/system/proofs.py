"""The proof obligations of the transition system, for any number of entities.

For one session-era profile:

- ``initiation.<invariant>``: the initial state satisfies it (unsat expected);
- ``consecution.<invariant>.<action>``: from any state satisfying the invariant
  and the strengthening it needs (``invariants.assumptions``), the action
  leads to a state satisfying it again (state invariants), or takes a step
  satisfying it (step properties); unsat expected, and the unsat core names the
  axioms, invariants and transition conjuncts the proof rests on;
- ``inductive-alone.<invariant>``: is the invariant preserved by every action
  assuming only itself? Informative: when not, the model is a counterexample to
  induction and the consecution cores show the strengthening it needs;
- ``enabled.<action>`` (and the two resumptions with something delivered):
  some state satisfying the invariant lets the action happen (sat expected),
  so no consecution proof holds vacuously.

The sort graph of every query is checked for cycles (``fragment``): the
unbounded queries are all in many-sorted EPR.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import z3

from mcp_resume.spec.catalog import level
from mcp_resume.spec.decision import Branch
from mcp_resume.spec.profiles import SESSION_ERA, Level, Profile

from mcp_resume.proofs.solving import DEFAULT_RLIMIT, DEFAULT_SEED, Meter, SatResult, Verdict, smt2_text, solve, verdict

from mcp_resume.proofs.system.decision import Request
from mcp_resume.proofs.system.fragment import Classifier
from mcp_resume.proofs.system.invariants import INDUCTIVE, STEP, STEP_PROPERTIES, Invariant, assumptions
from mcp_resume.proofs.system.logic import EVENT, SORTS, Conjunct, Z3Logic
from mcp_resume.proofs.system.picture import ModelView, Picture, render_step
from mcp_resume.proofs.system.transitions import Semantics, Step, axioms, initial, transition
from mcp_resume.proofs.system.vocabulary import METHOD_OF, ActionKind, observation, params, rigid, state

INITIATION, CONSECUTION, ALONE, ENABLED = "initiation", "consecution", "inductive-alone", "enabled"


@dataclass(frozen=True)
class Obligation:
    """One query: ``expected`` is ``UNSAT``, ``SAT`` or ``None`` (informative)."""

    id: str
    kind: str
    invariant: Invariant | None
    action: ActionKind | None
    expected: SatResult | None
    description: str
    build: Callable[["Encoding"], list[Conjunct]]


@dataclass(frozen=True)
class ProofResult:
    """The outcome of one obligation.

    ``verdict`` is ``PROVEN`` when ``result`` is ``expected`` (``None`` for an
    informative query), ``holds`` the same as a bool (``None`` when informative);
    ``core`` the conjunct names an unsat answer used; ``counterexample`` the
    rendered model of a sat answer (a counterexample to induction for
    consecution, the witness for ``enabled``); ``fragment`` the decidable
    fragment; ``rlimit`` / ``rlimit_used`` in Z3 resource units; ``smt2`` the
    problem as SMT-LIB2 when asked for (``run_proofs(smt2=True)``), else ``None``.
    """

    query: str
    kind: str
    invariant: str | None
    rule: str | None
    action: str | None
    profile: str
    description: str
    expected: SatResult | None
    result: SatResult
    verdict: Verdict | None
    core: tuple[str, ...]
    counterexample: str | None
    reason_unknown: str | None
    fragment: str
    rlimit: int
    rlimit_used: int | None
    random_seed: int
    z3_version: str
    smt2: str | None = field(default=None, repr=False)

    @property
    def holds(self) -> bool | None:
        return None if self.verdict is None else self.verdict is Verdict.PROVEN


class Encoding:
    """The transition system for one profile, built once in one Z3 context.

    ``mutate(kind, conjuncts) -> conjuncts`` may replace an action's transition
    formula (tests use it to break the encoding on purpose).
    """

    def __init__(self, profile: Profile = Profile.BOUNDARY, invariants: Iterable[Invariant] = INDUCTIVE,
                 mutate: Callable | None = None) -> None:
        if profile not in SESSION_ERA:
            raise ValueError(f"the state machine is not modelled for {profile.value}; only its decision is")
        self.profile = profile
        self.L = L = Z3Logic()
        self.R = rigid(L)
        self.X, self.Y = state(L, "pre"), state(L, "post")
        self.A, self.O = params(L, "step"), observation(L, "obs")
        self.step = Step(L, self.R, self.X, self.A, self.O, self.Y)
        self.axioms = axioms(L, self.R)
        self.initial = initial(L, self.X)
        semantics = Semantics(profile)
        self.transitions = {k: transition(self.step, k, semantics) for k in ActionKind}
        if mutate is not None:
            self.transitions = {k: mutate(k, c) for k, c in self.transitions.items()}
        self.invariants = tuple(invariants)
        self.hypothesis = {i.id: Conjunct(f"inv.{i.id}", i.formula(L, self.R, self.X)) for i in self.invariants}
        self.hypotheses = list(self.hypothesis.values())
        self.meter = Meter(L.ctx)
        self._goals: dict[str, object] = {}
        self.classifier = Classifier(set(L.sort(s).name() for s in SORTS))

    def goal(self, invariant: Invariant):
        """The invariant after the step (``post`` frame), or the step property."""
        if invariant.id not in self._goals:
            if invariant.kind == STEP:
                self._goals[invariant.id] = invariant.formula(self.step, self.profile)
            else:
                self._goals[invariant.id] = invariant.formula(self.L, self.R, self.Y)
        return self._goals[invariant.id]


def obligations(invariants: Iterable[Invariant] = INDUCTIVE, properties: Iterable[Invariant] = STEP_PROPERTIES) -> list[Obligation]:
    """Every obligation, in report order."""
    invariants, properties = tuple(invariants), tuple(properties)
    result = [_initiation(i) for i in invariants + properties]
    result += [_enabled(k) for k in ActionKind]
    result += [_enabled_branch(Branch.STREAM_RESUMPTION), _enabled_branch(Branch.SESSION_RESUMPTION)]
    result += [_alone(i) for i in invariants]
    result += [_consecution(i, k) for i in invariants + properties for k in ActionKind]
    return result


def run_obligation(encoding: Encoding, obligation: Obligation, rlimit: int = DEFAULT_RLIMIT,
                   random_seed: int = DEFAULT_SEED, smt2: bool = False) -> ProofResult:
    """Solve one obligation in ``encoding``'s context, every conjunct tracked
    (``solving.solve``); ``smt2`` keeps the problem's SMT-LIB2 text, printed after
    the check (so later queries of the same encoding may answer otherwise than
    without it: ``run_proofs`` prints only once all are solved)."""
    conjuncts = obligation.build(encoding)
    result = _result(encoding, obligation, conjuncts, rlimit, random_seed)
    return replace(result, smt2=_smt2(encoding, obligation, conjuncts, rlimit, random_seed)) if smt2 else result


def _result(encoding: Encoding, obligation: Obligation, conjuncts: list[Conjunct], rlimit: int,
            random_seed: int) -> ProofResult:
    solved = solve(conjuncts, meter=encoding.meter, rlimit=rlimit, random_seed=random_seed)
    fragment = encoding.classifier.classify([c.formula for c in conjuncts]).describe()
    counterexample = None
    if solved.model is not None:
        counterexample = _render(encoding, solved.model, obligation)
    invariant = obligation.invariant
    return ProofResult(
        query=obligation.id,
        kind=obligation.kind,
        invariant=invariant.id if invariant else None,
        rule=invariant.rule if invariant else None,
        action=obligation.action.value if obligation.action else None,
        profile=encoding.profile.value,
        description=obligation.description,
        expected=obligation.expected,
        result=solved.result,
        verdict=verdict(obligation.expected, solved.result),
        core=solved.core,
        counterexample=counterexample,
        reason_unknown=solved.reason_unknown,
        fragment=fragment,
        rlimit=rlimit,
        rlimit_used=solved.rlimit_used,
        random_seed=random_seed,
        z3_version=z3.get_version_string(),
    )


def _smt2(encoding: Encoding, obligation: Obligation, conjuncts: list[Conjunct], rlimit: int, random_seed: int) -> str:
    expected = obligation.expected.value if obligation.expected else "informative"
    header = [f"mcp-resume transition-system query: {obligation.id}", obligation.description,
              f"profile: {encoding.profile.value}", f"expected: {expected}"]
    return smt2_text(conjuncts, header, meter=encoding.meter, rlimit=rlimit, random_seed=random_seed,
                     expected=obligation.expected)


def run_proofs(profile: Profile = Profile.BOUNDARY, rlimit: int = DEFAULT_RLIMIT, random_seed: int = DEFAULT_SEED,
               progress: Callable[[str], None] | None = None, smt2: bool = False) -> list[ProofResult]:
    """Every obligation for ``profile``, in ``obligations()`` order; never raises
    because one fails (see ``verdict``). ``progress`` is called with each query id
    before it is solved; ``smt2`` keeps every problem's SMT-LIB2 text, printed once
    every query is solved, so the results are the same with and without it.

    Raises ``ValueError`` for a sessionless profile or a non-positive ``rlimit``.
    """
    encoding = Encoding(profile)
    solved = []
    for obligation in obligations():
        if progress:
            progress(obligation.id)
        conjuncts = obligation.build(encoding)
        solved.append((obligation, conjuncts, _result(encoding, obligation, conjuncts, rlimit, random_seed)))
    if not smt2:
        return [result for _, _, result in solved]
    return [replace(result, smt2=_smt2(encoding, obligation, conjuncts, rlimit, random_seed))
            for obligation, conjuncts, result in solved]


def required(result: ProofResult) -> bool:
    """Whether the profile requires the obligation: every state and strengthening
    invariant, every ``enabled`` witness, and each step property whose rule is a MUST."""
    if result.kind == ALONE:
        return False
    if result.rule is None or result.invariant not in {p.id for p in STEP_PROPERTIES}:
        return True
    return level(result.rule, Profile.parse(result.profile)) is Level.MUST


# -- the obligations ---------------------------------------------------------------------


def _goal(encoding: Encoding, invariant: Invariant) -> Conjunct:
    key = "not:" + invariant.id
    if key not in encoding._goals:
        encoding._goals[key] = encoding.L.not_(encoding.goal(invariant))
    return Conjunct("goal", encoding._goals[key])


def _initiation(invariant: Invariant) -> Obligation:
    def build(e: Encoding) -> list[Conjunct]:
        if invariant.kind == STEP:
            flag = e.L.boolean(f"monitor.{invariant.id}")
            return [Conjunct("init.monitor", e.L.not_(flag)), Conjunct("goal", flag)]
        return e.axioms + e.initial + [Conjunct("goal", e.L.not_(invariant.formula(e.L, e.R, e.X)))]

    what = ("no step has been taken, so the monitor of this step property has seen no violation"
            if invariant.kind == STEP else "the initial state satisfies it")
    return Obligation(f"{INITIATION}.{invariant.id}", INITIATION, invariant, None, SatResult.UNSAT,
                      f"{invariant.id}: {what}", build)


def _consecution(invariant: Invariant, kind: ActionKind) -> Obligation:
    def build(e: Encoding) -> list[Conjunct]:
        assumed = [e.hypothesis[i.id] for i in assumptions(invariant)]
        return e.axioms + assumed + e.transitions[kind] + [_goal(e, invariant)]

    what = "the step satisfies it" if invariant.kind == STEP else "it holds again afterwards"
    return Obligation(f"{CONSECUTION}.{invariant.id}.{kind.value}", CONSECUTION, invariant, kind, SatResult.UNSAT,
                      f"{invariant.id}: from any state satisfying it and its strengthening, after {kind.value} {what}", build)


def _alone(invariant: Invariant) -> Obligation:
    def build(e: Encoding) -> list[Conjunct]:
        any_action = e.L.or_(*(e.L.and_(*(c.formula for c in e.transitions[k])) for k in ActionKind))
        return e.axioms + [Conjunct(f"inv.{invariant.id}", invariant.formula(e.L, e.R, e.X)),
                           Conjunct("tr.any-action", any_action), _goal(e, invariant)]

    return Obligation(f"{ALONE}.{invariant.id}", ALONE, invariant, None, None,
                      f"{invariant.id}: is it preserved by every action assuming only itself? (sat: no, see the "
                      "counterexample to induction)", build)


def _enabled(kind: ActionKind) -> Obligation:
    def build(e: Encoding) -> list[Conjunct]:
        return e.axioms + e.hypotheses + e.transitions[kind]

    return Obligation(f"{ENABLED}.{kind.value}", ENABLED, None, kind, SatResult.SAT,
                      f"some state satisfying the inductive invariant lets {kind.value} happen", build)


def _enabled_branch(branch: Branch) -> Obligation:
    kind = ActionKind.RECONNECT

    def build(e: Encoding) -> list[Conjunct]:
        L = e.L
        request = Request(L, METHOD_OF[kind], e.X, e.R, e.A, e.profile)
        witness = L.and_(request.lands(branch), L.eq(e.O.status, L.int_(200)), L.exists((EVENT,), lambda x: e.O.delivered(x)))
        return e.axioms + e.hypotheses + e.transitions[kind] + [Conjunct("witness", witness)]

    return Obligation(f"{ENABLED}.{kind.value}.{branch.value}", ENABLED, None, kind, SatResult.SAT,
                      f"some state satisfying the inductive invariant has a {branch.value} answered 200 that "
                      "delivers events", build)


def _render(e: Encoding, model: z3.ModelRef, obligation: Obligation) -> str:
    picture = Picture(ModelView(e.L, model), e.R, [e.X, e.Y])
    if obligation.kind == ENABLED:
        title = f"witness: {obligation.description}"
    else:
        title = f"counterexample to induction of {obligation.invariant.id}"
    return render_step(picture, e.X, e.A, e.O, e.Y, title)
