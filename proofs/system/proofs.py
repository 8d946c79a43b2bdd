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
  some state satisfying the invariant lets the action happen (sat expected);
- ``vacuity.<invariant>.<action>``: per applicable consecution, its antecedent
  (``vacuity.antecedent``) is satisfiable after the action from some state
  satisfying the whole inductive invariant (sat expected). Unsat means the
  consecution is *vacuous*: it proves nothing about any step.

An initiation or consecution answered unsat is then read once more, with the
action's effect equations alone (``triviality``): when its goal is still unsat
without the axioms, the invariants, the initial state and the action's guards,
the obligation is *trivial* (``ProofStatus.TRIVIAL``): true of every step, reachable
or not, so it is reported apart and never counted as proven. These readings are
made after every obligation is solved, so they leave the others' cores as they
were.

An obligation the action cannot touch (``vacuity.not_applicable``, decided
structurally from the action's footprint) is not solved and is reported as
``not applicable``, never as proven; so are the initiations of the step
properties (a step property constrains steps, and the initial state has taken
none).

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

from mcp_resume.proofs.solving import DEFAULT_RLIMIT, DEFAULT_SEED, Meter, SatResult, ProofStatus, smt2_text, solve, verdict

from mcp_resume.proofs.system.decision import Request
from mcp_resume.proofs.system.fragment import Classifier
from mcp_resume.proofs.system.invariants import INDUCTIVE, STEP, STEP_PROPERTIES, Invariant, assumptions
from mcp_resume.proofs.system.logic import EVENT, SORTS, Conjunct, Z3Logic
from mcp_resume.proofs.system.picture import ModelView, Picture, render_step
from mcp_resume.proofs.system.transitions import Footprint, Semantics, Step, axioms, footprint, initial, transition
from mcp_resume.proofs.system.triviality import effect_check
from mcp_resume.proofs.system.vacuity import antecedent, not_applicable
from mcp_resume.proofs.system.vocabulary import METHOD_OF, ActionKind, observation, params, rigid, state

INITIATION, CONSECUTION, ALONE, ENABLED, VACUITY = "initiation", "consecution", "inductive-alone", "enabled", "vacuity"
INDUCTION, INVARIANT_FREE, WITNESS = "induction", "invariant-free", "witness"
GROUNDS = (INDUCTION, INVARIANT_FREE, INITIATION, WITNESS)
"""What a proven obligation can rest on (``ProofResult.grounds``); only ``induction`` counts as a
proof of a rule about the steps of the machine."""


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
    of: str | None = None
    """For a vacuity query: the consecution it is about."""


@dataclass(frozen=True)
class ProofResult:
    """The outcome of one obligation.

    ``verdict`` is ``PROVEN`` when ``result`` is ``expected`` (``None`` for an
    informative query), ``NOT_APPLICABLE`` (and ``result`` ``None``, no query
    asked) when the obligation cannot apply, the reason in ``applicability``;
    ``holds`` is ``False`` only for ``REFUTED`` or ``UNKNOWN`` (``None`` when
    informative); ``vacuous`` is set on a consecution once its vacuity query
    answered (``True``: unsat, it proves nothing), else ``None``;
    ``effect_only`` is the answer of the effect-only reading of an unsat initiation
    or consecution (``triviality``; ``UNSAT`` or ``UNKNOWN`` make the verdict
    ``TRIVIAL``, ``SAT`` leaves it ``PROVEN``; ``None`` when not read),
    ``effect_core`` the effect equations a trivial proof used and ``triviality``
    that reading in one line;
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
    result: SatResult | None
    verdict: ProofStatus | None
    core: tuple[str, ...]
    counterexample: str | None
    reason_unknown: str | None
    fragment: str
    rlimit: int
    rlimit_used: int | None
    random_seed: int
    z3_version: str
    smt2: str | None = field(default=None, repr=False)
    applicability: str | None = None
    vacuous: bool | None = None
    of: str | None = None
    effect_only: SatResult | None = None
    effect_core: tuple[str, ...] = ()
    triviality: str | None = None

    @property
    def holds(self) -> bool | None:
        """Not refuted nor unknown (``None`` when informative): true, whether or not it
        is proven; the tally (``tally``) tells proven, trivial and not applicable apart."""
        if self.verdict is None:
            return None
        return self.verdict in (ProofStatus.PROVEN, ProofStatus.TRIVIAL, ProofStatus.NOT_APPLICABLE)

    @property
    def proven(self) -> bool:
        """Proven, applicable, not trivial, and not shown vacuous."""
        return self.verdict is ProofStatus.PROVEN and not self.vacuous

    @property
    def trivial(self) -> bool:
        """Unsat from the action's effect equations alone (``triviality``)."""
        return self.verdict is ProofStatus.TRIVIAL

    @property
    def grounds(self) -> str | None:
        """What a proven obligation shows (``GROUNDS``), ``None`` when it is not proven:
        ``induction`` for a consecution whose unsat core rests on an invariant assumed before the
        step; ``invariant-free`` for one whose core names none (the step's encoding meets the
        property's encoding: two hand encodings agreeing, no induction); ``initiation`` for the
        initial state; ``witness`` for a satisfiable ``enabled`` query."""
        if not self.proven:
            return None
        if self.kind == CONSECUTION:
            return INDUCTION if any(name.startswith("inv.") for name in self.core) else INVARIANT_FREE
        return {INITIATION: INITIATION, ENABLED: WITNESS}.get(self.kind, self.kind)


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
        self._applicability: dict[str, str | None] = {}
        self._footprints: dict[ActionKind, Footprint] = {}
        self._antecedents: dict[str, object] = {}
        self.semantics = semantics
        self.classifier = Classifier(set(L.sort(s).name() for s in SORTS))

    def goal(self, invariant: Invariant):
        """The invariant after the step (``post`` frame), or the step property."""
        if invariant.id not in self._goals:
            if invariant.kind == STEP:
                self._goals[invariant.id] = invariant.formula(self.step, self.profile)
            else:
                self._goals[invariant.id] = invariant.formula(self.L, self.R, self.Y)
        return self._goals[invariant.id]


    def footprint(self, kind: ActionKind) -> Footprint:
        if kind not in self._footprints:
            self._footprints[kind] = footprint(self.step, kind, self.semantics)
        return self._footprints[kind]

    def antecedent(self, invariant: Invariant):
        """The antecedent of ``invariant``'s goal (``vacuity.antecedent``), made once."""
        if invariant.id not in self._antecedents:
            self._antecedents[invariant.id] = antecedent(self.goal(invariant))
        return self._antecedents[invariant.id]

    def not_applicable(self, obligation: Obligation) -> str | None:
        """Why ``obligation`` cannot apply (structurally), or ``None`` when it can."""
        if obligation.id not in self._applicability:
            self._applicability[obligation.id] = _not_applicable(self, obligation)
        return self._applicability[obligation.id]


NO_QUERY = "none (not applicable: no query asked)"
STEP_INITIATION = "structural: a step property constrains steps, and the initial state has taken none"


def _not_applicable(e: Encoding, obligation: Obligation) -> str | None:
    invariant = obligation.invariant
    if obligation.kind == INITIATION and invariant.kind == STEP:
        return STEP_INITIATION
    if obligation.kind == VACUITY:
        return e.not_applicable(_consecution(invariant, obligation.action))
    if obligation.kind != CONSECUTION:
        return None
    structural = not_applicable(e.step, e.footprint(obligation.action), e.goal(invariant), e.antecedent(invariant),
                                invariant.kind != STEP)
    return structural or _not_applicable_by_query(e, invariant, obligation.action)


def _not_applicable_by_query(e: Encoding, invariant: Invariant, kind: ActionKind) -> str | None:
    """The action's transition formula alone (no axiom, no invariant) never meets the
    antecedent: the action cannot touch the property, whatever the state before."""
    trigger = Conjunct("antecedent", e.antecedent(invariant))
    solved = solve(e.transitions[kind] + [trigger], meter=e.meter, rlimit=DEFAULT_RLIMIT, random_seed=DEFAULT_SEED)
    if solved.result is not SatResult.UNSAT:
        return None
    used = ", ".join(n for n in solved.core if n != "antecedent") or "nothing"
    return f"query: the {kind.value} transition formula alone never meets its antecedent (unsat core: {used})"


def obligations(invariants: Iterable[Invariant] = INDUCTIVE, properties: Iterable[Invariant] = STEP_PROPERTIES) -> list[Obligation]:
    """Every obligation, in report order: initiations, enabled witnesses,
    inductive-alone, consecutions, then one vacuity query per consecution."""
    invariants, properties = tuple(invariants), tuple(properties)
    result = [_initiation(i) for i in invariants + properties]
    result += [_enabled(k) for k in ActionKind]
    result += [_enabled_branch(Branch.STREAM_RESUMPTION), _enabled_branch(Branch.SESSION_RESUMPTION)]
    result += [_alone(i) for i in invariants]
    result += [_consecution(i, k) for i in invariants + properties for k in ActionKind]
    result += [_vacuity(i, k) for i in invariants + properties for k in ActionKind]
    return result


def run_obligation(encoding: Encoding, obligation: Obligation, rlimit: int = DEFAULT_RLIMIT,
                   random_seed: int = DEFAULT_SEED, smt2: bool = False) -> ProofResult:
    """Solve one obligation in ``encoding``'s context, every conjunct tracked
    (``solving.solve``); ``smt2`` keeps the problem's SMT-LIB2 text, printed after
    the check (so later queries of the same encoding may answer otherwise than
    without it: ``run_proofs`` prints only once all are solved)."""
    reason = encoding.not_applicable(obligation)
    if reason is not None:
        return _not_applicable_result(encoding, obligation, reason, rlimit, random_seed)
    conjuncts = obligation.build(encoding)
    result = _result(encoding, obligation, conjuncts, rlimit, random_seed)
    result = _read_effects(encoding, obligation, conjuncts, result, rlimit, random_seed)
    return replace(result, smt2=_smt2(encoding, obligation, conjuncts, rlimit, random_seed)) if smt2 else result


def _read_effects(encoding: Encoding, obligation: Obligation, conjuncts: list[Conjunct], result: ProofResult,
                  rlimit: int, random_seed: int) -> ProofResult:
    """``result`` with its effect-only reading (``triviality``) when it is an initiation or
    consecution proven unsat; any other result unchanged."""
    if obligation.kind not in (INITIATION, CONSECUTION) or result.verdict is not ProofStatus.PROVEN:
        return result
    checked = effect_check(conjuncts, obligation.action, result.core, encoding.meter, rlimit, random_seed)
    return replace(result, verdict=ProofStatus.TRIVIAL if checked.trivial else ProofStatus.PROVEN,
                   effect_only=checked.result, effect_core=checked.core if checked.trivial else (),
                   triviality=checked.describe())


def _not_applicable_result(encoding: Encoding, obligation: Obligation, reason: str, rlimit: int,
                           random_seed: int) -> ProofResult:
    invariant = obligation.invariant
    return ProofResult(
        query=obligation.id, kind=obligation.kind, invariant=invariant.id if invariant else None,
        rule=invariant.rule if invariant else None, action=obligation.action.value if obligation.action else None,
        profile=encoding.profile.value, description=obligation.description, expected=obligation.expected,
        result=None, verdict=ProofStatus.NOT_APPLICABLE, core=(), counterexample=None, reason_unknown=None,
        fragment=NO_QUERY, rlimit=rlimit, rlimit_used=0, random_seed=random_seed, z3_version=z3.get_version_string(),
        applicability=reason, of=obligation.of,
    )


def _result(encoding: Encoding, obligation: Obligation, conjuncts: list[Conjunct], rlimit: int,
            random_seed: int) -> ProofResult:
    solved = solve(conjuncts, meter=encoding.meter, rlimit=rlimit, random_seed=random_seed)
    fragment = encoding.classifier.classify([c.formula for c in conjuncts]).describe()
    counterexample = None
    if solved.model is not None and obligation.kind != VACUITY:
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
        of=obligation.of,
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
    before it is solved; once every obligation is solved, each one proven unsat is
    read with its action's effect equations alone and filed ``TRIVIAL`` when they
    suffice (``triviality``); ``smt2`` keeps every problem's SMT-LIB2 text, printed
    after that, so the results are the same with and without it.

    Raises ``ValueError`` for a sessionless profile or a non-positive ``rlimit``.
    """
    encoding = Encoding(profile)
    solved = []
    for obligation in obligations():
        if progress:
            progress(obligation.id)
        reason = encoding.not_applicable(obligation)
        if reason is not None:
            solved.append((obligation, None, _not_applicable_result(encoding, obligation, reason, rlimit, random_seed)))
            continue
        conjuncts = obligation.build(encoding)
        solved.append((obligation, conjuncts, _result(encoding, obligation, conjuncts, rlimit, random_seed)))
    solved = [(o, c, r if c is None else _read_effects(encoding, o, c, r, rlimit, random_seed)) for o, c, r in solved]
    if smt2:
        solved = [(o, c, r if c is None else replace(r, smt2=_smt2(encoding, o, c, rlimit, random_seed)))
                  for o, c, r in solved]
    return _mark_vacuous([result for _, _, result in solved])


def _mark_vacuous(results: list[ProofResult]) -> list[ProofResult]:
    """Set ``vacuous`` on each consecution whose vacuity query answered."""
    answered = {r.of: r.result for r in results if r.kind == VACUITY and r.result in (SatResult.SAT, SatResult.UNSAT)}
    return [replace(r, vacuous=answered[r.query] is SatResult.UNSAT) if r.query in answered else r for r in results]


@dataclass(frozen=True)
class Tally:
    """The required obligations of one run (vacuity queries not among them), counted
    in nine classes that share none. Answered as expected, not trivial, not vacuous, by what
    they rest on (``ProofResult.grounds``): ``proven`` (consecutions whose unsat core uses an
    invariant: induction), ``invariant_free`` (consecutions proven without any invariant),
    ``initiations`` and ``witnesses`` (``enabled`` queries answered sat); then ``trivial``
    (unsat from the effect equations alone, ``triviality``; not vacuous),
    ``not_applicable`` (no query asked), ``vacuous`` (unsat, but the consecution's vacuity
    query is unsat too), ``refuted``, ``unknown`` (resource limit, never a proof); and
    ``witnessed`` (vacuity queries answered sat) of ``vacuity``. Only ``proven`` counts as a
    proof by induction."""

    required: int
    proven: int
    invariant_free: int
    initiations: int
    witnesses: int
    trivial: int
    not_applicable: int
    vacuous: int
    refuted: int
    unknown: int
    vacuity: int
    witnessed: int

    def describe(self) -> str:
        return (f"{self.proven} proven by induction, {self.invariant_free} invariant-free steps, "
                f"{self.initiations} initiations, {self.witnesses} enabled witnesses, "
                f"{self.trivial} trivial, {self.not_applicable} not applicable, "
                f"{self.vacuous} vacuous, {self.refuted} refuted, {self.unknown} unknown of {self.required} "
                f"required obligations; {self.witnessed} of {self.vacuity} vacuity queries witnessed")


def tally(results: list[ProofResult]) -> Tally:
    """Count the required obligations of ``results`` (``required``)."""
    held = [r for r in results if required(r)]
    main = [r for r in held if r.kind != VACUITY]
    vacuity = [r for r in held if r.kind == VACUITY and r.verdict is not ProofStatus.NOT_APPLICABLE]
    answered = (ProofStatus.PROVEN, ProofStatus.TRIVIAL)
    return Tally(
        required=len(main),
        proven=sum(1 for r in main if r.grounds == INDUCTION),
        invariant_free=sum(1 for r in main if r.grounds == INVARIANT_FREE),
        initiations=sum(1 for r in main if r.grounds == INITIATION),
        witnesses=sum(1 for r in main if r.grounds == WITNESS),
        trivial=sum(1 for r in main if r.trivial and not r.vacuous),
        not_applicable=sum(1 for r in main if r.verdict is ProofStatus.NOT_APPLICABLE),
        vacuous=sum(1 for r in main if r.vacuous and r.verdict in answered),
        refuted=sum(1 for r in main if r.verdict is ProofStatus.REFUTED),
        unknown=sum(1 for r in main if r.verdict is ProofStatus.UNKNOWN),
        vacuity=len(vacuity),
        witnessed=sum(1 for r in vacuity if r.verdict is ProofStatus.PROVEN),
    )


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
        return e.axioms + e.initial + [Conjunct("goal", e.L.not_(invariant.formula(e.L, e.R, e.X)))]

    what = ("a step property: the initial state has taken no step, so it has nothing to say"
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


def _vacuity(invariant: Invariant, kind: ActionKind) -> Obligation:
    def build(e: Encoding) -> list[Conjunct]:
        return e.axioms + e.hypotheses + e.transitions[kind] + [Conjunct("antecedent", e.antecedent(invariant))]

    of = f"{CONSECUTION}.{invariant.id}.{kind.value}"
    return Obligation(f"{VACUITY}.{invariant.id}.{kind.value}", VACUITY, invariant, kind, SatResult.SAT,
                      f"{invariant.id}: some {kind.value} step from a state satisfying the inductive invariant meets "
                      "its antecedent (unsat: the consecution is vacuous)", build, of)


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
