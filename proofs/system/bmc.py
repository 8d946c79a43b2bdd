"""Bounded model checking of the faulty designs: the shortest run that shows the fault.

``bmc_design(number, profile, max_depth)`` unrolls the spec's transition system
(reference statuses, finite scopes) side by side with faulty design ``number``
(``system.faulty_systems``, built from ``spec.designs``) for 1, 2, ... steps and asks
Z3 for a run whose last step shows the client something that breaks a rule the profile makes a MUST: a step
property of ``ts_invariants`` judged on the faulty server's observation, or a
status the profile does not accept for the request's branch (the rule that
judges the branch, as ``model.harness.checker`` files it); the first MUST broken, the
one the checker reports, must be one of the design's rules (any, for a correct
variation). The first depth with a model is the length of a shortest such run;
every smaller depth was proven to have none (within the scope).

The model is decoded into a ``spec.trace.Trace`` (source ``"z3"``): the actions,
with the spec's handles, found by replaying them through ``spec.transitions.step``
and pairing the entities each step mints with the model's elements. Replaying the
trace against ``model/servers/faulty.py`` and the correct servers happens outside this
package (tests and ``mcp-resume prove``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import z3

from mcp_resume.spec import actions as a
from mcp_resume.spec.catalog import NO_ANSWER, RESPONSE_ELSEWHERE, level
from mcp_resume.spec.decision import BRANCH_RULE, NEVER_ISSUED, Branch
from mcp_resume.spec.headers import MALFORMED_EVENT, MALFORMED_SESSION, UNKNOWN_EVENT, UNKNOWN_REQUEST, UNKNOWN_SESSION
from mcp_resume.spec.invariants import CURSOR_BRANCHES
from mcp_resume.spec.profiles import MCP_SESSION_REVISIONS, SESSION_ERA, Level, Profile
from mcp_resume.spec.state import INITIAL_STATE
from mcp_resume.spec.trace import Failure, Trace
from mcp_resume.spec.transitions import enabled, step as spec_step

from mcp_resume.proofs.solving import (
    DEFAULT_RLIMIT, DEFAULT_SEED, GROUND_RELEVANCY, Meter, SatResult, ProofStatus, check, check_rlimit, new_solver, options_smt2,
)

from mcp_resume.proofs.system.decision import Request
from mcp_resume.proofs.system.faulty_systems import CORRECT, DESIGNS, Design, DesignStep, departs, observation_of
from mcp_resume.proofs.system.fragment import QUANTIFIER_FREE, Fragment
from mcp_resume.proofs.system.invariants import by_id, reconnect_lands
from mcp_resume.proofs.system.logic import EVENT, REQUEST, SESSION, SORTS, STREAM, Conjunct, FiniteLogic
from mcp_resume.proofs.system.picture import ModelView, Picture, render_step
from mcp_resume.proofs.system.transitions import Semantics, Step, axioms, initial, status_allowed, strands, transition
from mcp_resume.proofs.system.vocabulary import (
    CLIENT_REQUESTS, METHOD_OF, NO_ANSWER_STATUS, ActionKind, Observation, observation, params, rigid, state,
)

DEFAULT_MAX_DEPTH = 8

DEFAULT_SCOPE: dict[str, int] = {SESSION: 2, STREAM: 3, EVENT: 4, REQUEST: 2}
"""Elements per sort (ids issued or not). The shortest runs of the designs use at most
2 sessions, 2 streams, 3 events (design 16: a gap needs two evictions) and 2 requests
(design 27: the second takes the single slot), plus an unknown or server-only id
(design 13's broadcast event, design 15's misrouted key, design 25's event on the GET
stream); a larger scope finds runs of the same lengths, more slowly."""

UNKNOWN = {SESSION: UNKNOWN_SESSION, EVENT: UNKNOWN_EVENT, REQUEST: UNKNOWN_REQUEST}
MALFORMED = {SESSION: MALFORMED_SESSION, EVENT: MALFORMED_EVENT}

CHECK_ORDER: tuple[str, ...] = (
    "no-cross-session.step", "server-request-ownership.step", "replay-suffix.step",
    "no-reemit-on-stream-resume.step", "no-replay-on-session-resume.step", "no-broadcast.step",
    "standalone-stream-scope.step", "reemit-pending.step", "reemit-keeps-pending.step", "session-identity-stable.step",
    "expiry-independent.step", "event-id-unique.fresh", "status",
    "reject-orphan-event-id.step", "reject-foreign-event-id.step", "unknown-session-404.step",
    "no-duplicate-tool-call.step", "event-id-unique.step",
)
"""The order ``spec.invariants.check_transition`` reports findings in: the rule of
the first one broken is the rule that caught the design."""

GENERIC = ("event-id-unique.step",)
"""Checks reported only when no other check explains the step."""


@dataclass(frozen=True)
class Replay:
    """How a design's Z3 trace fared when replayed (done outside ``proofs``):
    ``on_design`` it raised a counterexample (and ``rule`` is the rule it reported,
    ``step`` the step), ``on_spec`` / ``on_reference`` it passed on the correct servers."""

    on_design: bool
    on_spec: bool
    on_reference: bool
    rule: str | None = None
    step: int | None = None

    @property
    def confirmed(self) -> bool:
        return self.on_design and self.on_spec and self.on_reference


@dataclass(frozen=True)
class BmcQuery:
    """One depth of one design's search: ``result`` is ``SAT`` (a run of this length
    shows the fault), ``UNSAT`` (none does, within the scope) or ``UNKNOWN``
    (resource limit); ``rlimit_used`` in Z3 resource units."""

    depth: int
    result: SatResult
    reason_unknown: str | None
    rlimit_used: int | None


@dataclass(frozen=True)
class BmcResult:
    """One design's bounded search, one query: ``caught`` when a run of at most
    ``max_depth`` steps shows the fault; ``depth`` the length of a shortest one;
    ``trace`` that run as a spec trace; ``rule`` the first rule its last step
    breaks; ``run`` the run drawn step by step; ``depths`` each depth tried;
    ``smt2`` the solver script that was run (one ``check-sat-assuming`` per depth)
    when asked for (``smt2=True``), else ``None``. ``result`` is the last depth's
    answer and ``verdict`` is ``PROVEN`` when the design is caught (a violating run
    is what the search expects to find), ``REFUTED`` when no run of at most
    ``max_depth`` steps shows the fault, ``UNKNOWN`` when the limit cut the search."""

    query: str
    design: int
    profile: Profile
    summary: str
    caught: bool
    depth: int | None
    trace: Trace | None
    rule: str | None
    max_depth: int
    scope: dict[str, int]
    depths: tuple[BmcQuery, ...]
    fragment: str
    rlimit: int
    random_seed: int
    z3_version: str
    smt2: str | None = field(default=None, repr=False)
    run: str | None = None

    @property
    def rlimit_used(self) -> int:
        return sum(q.rlimit_used or 0 for q in self.depths)

    @property
    def result(self) -> SatResult:
        return self.depths[-1].result if self.depths else SatResult.UNKNOWN

    @property
    def verdict(self) -> ProofStatus:
        return {SatResult.SAT: ProofStatus.PROVEN, SatResult.UNSAT: ProofStatus.REFUTED}.get(self.result, ProofStatus.UNKNOWN)


def bmc_design(number: int | str, profile: Profile = Profile.BOUNDARY, max_depth: int = DEFAULT_MAX_DEPTH,
               rlimit: int = DEFAULT_RLIMIT, random_seed: int = DEFAULT_SEED,
               scope: dict[str, int] | None = None, spec: "SpecUnrolling | None" = None,
               smt2: bool = False) -> BmcResult:
    """Search a shortest run, of at most ``max_depth`` steps, in which design ``number``
    (docs/design.md §5) shows a client something ``profile`` forbids. ``number`` may also
    be a correct variation's target (``variation-<slug>``), for which no run must exist.

    ``spec`` may be an unrolling shared by several designs (``bmc_designs``).
    Depths are tried in order on one incremental solver (``solving.new_solver``,
    relevancy off); each depth is one check. ``smt2`` keeps the run as one
    self-contained SMT-LIB2 script. Raises ``KeyError`` for an unknown
    design, ``ValueError`` for a sessionless profile, a depth below 1, or a
    non-positive ``rlimit``.
    """
    result, text = _search(number, profile, max_depth, rlimit, random_seed, scope, spec)
    return replace(result, smt2=text()) if smt2 else result


def _search(number: int | str, profile: Profile, max_depth: int, rlimit: int, random_seed: int,
            scope: dict[str, int] | None, spec: "SpecUnrolling | None") -> tuple[BmcResult, Callable[[], str]]:
    """``bmc_design`` without its SMT-LIB2 text, and the function that prints it."""
    found_design = DESIGNS.get(number) if isinstance(number, int) else CORRECT.get(number)
    if found_design is None:
        raise KeyError(f"unknown design {number}; designs are {', '.join(map(str, DESIGNS))}, "
                       f"variations {', '.join(CORRECT)}")
    label = f"design-{number}" if isinstance(number, int) else number
    if max_depth < 1:
        raise ValueError(f"max_depth must be at least 1, got {max_depth}")
    check_rlimit(rlimit)
    spec = spec or SpecUnrolling(profile, scope or DEFAULT_SCOPE)
    if spec.profile is not profile:
        raise ValueError(f"the shared unrolling is for {spec.profile.value}, not {profile.value}")
    unrolling = DesignUnrolling(spec, found_design)
    L = spec.L
    solver = new_solver(L.ctx, rlimit, random_seed, relevancy=GROUND_RELEVANCY)
    script = Script()
    for conjunct in unrolling.base():
        solver.add(conjunct.formula)
        script.assert_(conjunct.formula)
    depths, found = [], None
    for depth in range(1, max_depth + 1):
        for conjunct in unrolling.step(depth):
            solver.add(conjunct.formula)
            script.assert_(conjunct.formula)
        literal = z3.Bool(f"bmc.violation-{depth}", L.ctx)
        violation = z3.Implies(literal, unrolling.violation(depth))
        solver.add(violation)
        script.assert_(violation)
        script.check(literal)
        answer = check(solver, literal)
        reason = solver.reason_unknown() if answer is SatResult.UNKNOWN else None
        depths.append(BmcQuery(depth, answer, reason, spec.meter.used(solver)))
        if answer is SatResult.SAT:
            found = solver.model()
            break
        if answer is not SatResult.UNSAT:
            break
    header = [f"mcp-resume bounded model checking: {label} ({found_design.summary})",
              f"profile: {profile.value}; scope {_scope_text(spec.scope)}; depths 1 to {len(depths)}, one check each:",
              "sat: a run of that many steps shows the fault; unsat: none does (within the scope)"]
    common = dict(query=f"bmc.{label}", design=number, profile=profile, summary=found_design.summary,
                  max_depth=max_depth, scope=dict(spec.scope), depths=tuple(depths),
                  fragment=Fragment(QUANTIFIER_FREE, (), arithmetic=True).describe(), rlimit=rlimit,
                  random_seed=random_seed, z3_version=z3.get_version_string())
    text = lambda: script.text(L.ctx, header, rlimit, random_seed)  # noqa: E731
    if found is None:
        return BmcResult(caught=False, depth=None, trace=None, rule=None, **common), text
    depth = len(depths)
    view = ModelView(L, found)
    rule = unrolling.first_rule(view, depth)
    actions = decode_actions(spec, depth, view, profile)
    message = (f"bounded model checking (Z3): {label} breaks {rule} at step {depth}, "
               f"the shortest such run within scope {_scope_text(spec.scope)}")
    meta = {"design": number, "depth": depth, "scope": _scope_text(spec.scope), "query": f"bmc.{label}"}
    trace = Trace(tuple(actions), profile, Failure(depth, rule, message), "z3", meta)
    return BmcResult(caught=True, depth=depth, trace=trace, rule=rule, run=unrolling.render(view, depth), **common), text


def bmc_designs(profile: Profile = Profile.BOUNDARY, max_depth: int = DEFAULT_MAX_DEPTH, rlimit: int = DEFAULT_RLIMIT,
                random_seed: int = DEFAULT_SEED, numbers=None, progress: Callable[[str], None] | None = None,
                smt2: bool = False) -> list[BmcResult]:
    """``bmc_design`` for every design (or those in ``numbers``), sharing one unrolling of the spec.

    With ``smt2`` the scripts are printed once every design is searched (printing adds
    terms to the shared context), so the results are the same with and without it.
    """
    spec = SpecUnrolling(profile, DEFAULT_SCOPE)
    searched = []
    for number in numbers or DESIGNS:
        if progress:
            progress(f"bmc.design-{number}")
        searched.append(_search(number, profile, max_depth, rlimit, random_seed, None, spec))
    return [replace(result, smt2=text()) if smt2 else result for result, text in searched]


class Script:
    """The assertions and checks of an incremental run, printable as one SMT-LIB2 script."""

    def __init__(self) -> None:
        self.assertions: list[z3.BoolRef] = []
        self.checks: dict[int, z3.BoolRef] = {}  # after assertion i: check assuming this literal

    def assert_(self, formula: z3.BoolRef) -> None:
        self.assertions.append(formula)

    def check(self, literal: z3.BoolRef) -> None:
        self.checks[len(self.assertions) - 1] = literal

    def text(self, ctx: z3.Context, header: list[str], rlimit: int, random_seed: int) -> str:
        printer = z3.Solver(ctx=ctx)
        for formula in self.assertions:
            z3.Z3_solver_assert(ctx.ref(), printer.solver, formula.as_ast())
        commands = _commands(printer.to_smt2())
        if sum(c.startswith("(assert") for c in commands) != len(self.assertions):
            raise AssertionError("the SMT-LIB2 printer merged or split assertions; the checks would be misplaced")
        lines = [f"; {line}" for line in header]
        lines += options_smt2(rlimit, random_seed, relevancy=GROUND_RELEVANCY)
        index = -1
        for command in commands:
            if command.startswith("(check-sat") or command.startswith("(set-info"):
                continue
            lines.append(command)
            if command.startswith("(assert"):
                index += 1
                if index in self.checks:
                    lines.append(f"(check-sat-assuming ({self.checks[index]}))")
        return "\n".join(lines) + "\n"


def _commands(text: str) -> list[str]:
    """The top-level commands of an SMT-LIB2 text (its comment lines dropped)."""
    commands, depth, current = [], 0, []
    for line in text.splitlines():
        if depth == 0 and (line.startswith(";") or not line.strip()):
            continue
        current.append(line)
        depth += line.count("(") - line.count(")")
        if depth == 0:
            commands.append("\n".join(current))
            current = []
    return commands


class SpecUnrolling:
    """The spec's transition system unrolled in finite scopes, step by step, with the
    reference's statuses; shared by every design checked under one profile."""

    def __init__(self, profile: Profile, scope: dict[str, int]) -> None:
        if profile not in SESSION_ERA:
            raise ValueError(f"the state machine is not modelled for {profile.value}; only its decision is")
        self.profile, self.scope = profile, dict(scope)
        self.L = L = FiniteLogic(scope)
        self.R = rigid(L)
        self.frames = [state(L, "x0", client=False)]
        self.steps: list[Step] = []
        self.conjuncts: list[Conjunct] = []
        self.base = axioms(L, self.R) + initial(L, self.frames[0]) + [self._send_order()]
        self._checks: dict[int, list] = {}
        self.meter = Meter(L.ctx)

    def _send_order(self) -> Conjunct:
        """Symmetry breaking: events are sent in the order of the scope's elements, so
        the event order is fixed (ids are minted lowest first, ``_minted_in_order``)."""
        L, events = self.L, self.L.elements[EVENT]
        facts = [L.iff(self.R.lt(a, b), L.true() if i < j else L.false())
                 for i, a in enumerate(events) for j, b in enumerate(events)]
        return Conjunct("bmc.send-order", L.and_(*facts))

    def _minted_in_order(self, X) -> Conjunct:
        """Symmetry breaking: the ids issued in a frame are the lowest of their scope.
        Every run is a renaming of one that mints this way, and the spec never names an
        id by more than whether it is issued, so no shortest run is lost."""
        L = self.L
        issued = {SESSION: X.s_issued, STREAM: X.t_issued, EVENT: X.e_issued, REQUEST: X.r_issued}
        parts = [L.implies(rel(later), rel(earlier))
                 for sort, rel in issued.items()
                 for earlier, later in zip(L.elements[sort], L.elements[sort][1:])]
        return Conjunct(f"bmc.minted-in-order-{X.tag}", L.and_(*parts))

    def ensure(self, depth: int) -> None:
        while len(self.steps) < depth:
            self._extend()

    def _extend(self) -> None:
        L, R, i = self.L, self.R, len(self.steps) + 1
        X, Y = self.frames[-1], state(L, f"x{i}", client=False)
        step = Step(L, R, X, params(L, f"a{i}"), observation(L, f"o{i}"), Y)
        semantics = Semantics(self.profile, canonical=True, cancel=True)
        by_kind = [L.implies(L.eq(step.A.kind, L.enum(k)), L.and_(*(c.formula for c in transition(step, k, semantics))))
                   for k in ActionKind]
        self.conjuncts.append(Conjunct(f"bmc.step-{i}.spec", L.and_(*by_kind, self._minted_in_order(Y).formula)))
        self.frames.append(Y)
        self.steps.append(step)

    def server_observation(self, depth: int) -> Observation:
        """What the server under check shows at step ``depth`` (one set of symbols for
        every design: each design's solver constrains them its own way)."""
        return observation(self.L, f"f{depth}")

    def checks(self, depth: int) -> list[tuple[str, object]]:
        """``(rule, broken)`` for every MUST of the profile at step ``depth``, judged on
        the server's observation, in ``CHECK_ORDER``; built once per depth."""
        if depth not in self._checks:
            self._checks[depth] = self._make_checks(depth)
        return self._checks[depth]

    def violation(self, depth: int):
        return self.L.or_(*(broken for _, broken in self.checks(depth)))

    def _make_checks(self, depth: int) -> list[tuple[str, object]]:
        """Every check broken on the step, at any level; then only the MUSTs are kept. A
        generic check (``GENERIC``) counts only when no specific one is broken, at any
        level, as in ``spec.invariants.check_transition``."""
        L = self.L
        spec, F = self.steps[depth - 1], self.server_observation(depth)
        judged = Step(L, self.R, spec.X, spec.A, F, spec.Y)
        broken: list[tuple[str, object]] = []
        for name in CHECK_ORDER:
            if name == "status":
                broken += self._status_checks(judged)
            elif name in GENERIC:
                specific = L.or_(*(b for _, b in broken))
                broken.append((by_id(name).rule, L.and_(L.not_(by_id(name).formula(judged, self.profile)), L.not_(specific))))
            else:
                broken.append((by_id(name).rule, L.not_(by_id(name).formula(judged, self.profile))))
        kept = [(rule, self._of_must_case(judged, rule, b)) for rule, b in broken if level(rule, self.profile) is Level.MUST]
        kept += [(rule, elsewhere) for rule, b in broken if (elsewhere := self._response_elsewhere(judged, rule, b)) is not None]
        return kept + [(rule, unanswered) for rule, b in broken if (unanswered := self._unanswered(judged, rule, b)) is not None]

    def _response_elsewhere(self, s: Step, rule: str, broken):
        """``broken`` as far as it is a response sent on another stream's connection than its call's,
        when the profile levels ``rule`` below MUST but that case (``RESPONSE_ELSEWHERE``) a MUST (MCP
        B18, D21: MUST NOT); ``None`` for the rules without that case or a MUST already."""
        if level(rule, self.profile) is Level.MUST or level(rule, self.profile, RESPONSE_ELSEWHERE) is not Level.MUST:
            return None
        L, A, O = s.L, s.A, s.O
        moved = L.exists((STREAM,), lambda t: L.and_(O.on(A.new_event, t), L.not_(L.eq(t, A.target_stream))))
        return L.and_(broken, L.eq(A.kind, L.enum(ActionKind.RESPOND)), moved)

    def _unanswered(self, s: Step, rule: str, broken):
        """``broken`` as far as it is a GET with a cursor (branch 1 or 3) left with no answer, when the
        profile levels the branch's rule below MUST but its case ``no-answer`` a MUST (MCP B15: a GET
        gets an SSE stream or 405); ``None`` otherwise."""
        branch = next((b for b in CURSOR_BRANCHES if BRANCH_RULE[b] == rule), None)
        if branch is None or level(rule, self.profile) is Level.MUST or level(rule, self.profile, NO_ANSWER) is not Level.MUST:
            return None
        return s.L.and_(broken, reconnect_lands(s, self.profile, branch), s.L.eq(s.O.status, s.L.int_(NO_ANSWER_STATUS)))

    def _of_must_case(self, s: Step, rule: str, broken):
        """``broken`` without the case of ``rule`` the profile levels below MUST: a session id
        never issued, for ``unknown-session-404`` (``Outcome.case``; SHOULD under the MCP
        revisions, where MCP B33 speaks of ended sessions only)."""
        L, X, A = s.L, s.X, s.A
        if rule != BRANCH_RULE[Branch.UNKNOWN_SESSION] or level(rule, self.profile, NEVER_ISSUED) is Level.MUST:
            return broken
        never_issued = L.and_(A.sh_present, L.not_(A.sh_malformed), L.not_(X.s_issued(A.sh)))
        return L.and_(broken, L.not_(never_issued))

    def _status_checks(self, s: Step) -> list[tuple[str, object]]:
        """A status the profile does not accept, or a refusal that delivered events, filed as
        ``spec.invariants._status_rule`` files it: branch 3 under its rule; a refused session
        resumption that strands a request (``transitions.strands``) under ``reemit-pending``;
        a live session answered 404 under ``expiry-independent`` when one of its streams
        expired, ended or lost its connection before, else under ``no-duplicate-tool-call``
        while a call of it is unfinished, else ``session-identity-stable``; the
        rest under the branch's rule. Under the MCP revisions a 404 the checkers read as the
        session ended at will (``spec.transitions.ended_at_will``, MCP B33) is no finding."""
        L, F = s.L, s.O
        live_404 = L.and_(L.eq(F.status, L.int_(404)), self._live_session(s))
        refused = L.and_(F.status >= 300, L.not_(L.eq(F.status, L.int_(404))), strands(s, self.profile))
        cursor_404 = L.and_(live_404, s.A.eh_present)  # a cursor refused with 404: reject-foreign-event-id
        live_404 = L.and_(live_404, L.not_(s.A.eh_present))
        lost, unfinished = self._lost_stream(s), self._unfinished_call(s)
        filed = {"reject-foreign-event-id": cursor_404, "expiry-independent": L.and_(live_404, lost),
                 "no-duplicate-tool-call": L.and_(live_404, L.not_(lost), unfinished),
                 "session-identity-stable": L.and_(live_404, L.not_(lost), L.not_(unfinished))}
        found: dict[str, list] = {}
        for kind in CLIENT_REQUESTS:
            request = Request(L, METHOD_OF[kind], s.X, s.R, s.A, self.profile)
            wrong = L.and_(self._wrong_status(s, kind, request), L.not_(self._ended_at_will(s)))
            for branch in Branch:
                rule = BRANCH_RULE[branch]
                case = L.and_(L.eq(s.A.kind, L.enum(kind)), request.lands(branch), wrong)
                if branch is Branch.REJECT_FOREIGN_EVENT_ID:  # a refused cursor keeps its rule
                    found.setdefault(rule, []).append(case)
                    continue
                stranding = refused if branch is Branch.SESSION_RESUMPTION else L.false()
                found.setdefault("reemit-pending", []).append(L.and_(case, stranding))
                case = L.and_(case, L.not_(stranding))
                for other, when in filed.items():
                    found.setdefault(other, []).append(L.and_(case, when))
                found.setdefault(rule, []).append(L.and_(case, L.not_(live_404), L.not_(cursor_404)))
        return [(rule, L.or_(*cases)) for rule, cases in found.items()]

    def _wrong_status(self, s: Step, kind: ActionKind, request: Request):
        """The status of client request ``kind`` is one the profile does not accept, or a
        refusal other than the reference's that delivered events (``spec.invariants.status_check``)."""
        L, F = s.L, s.O
        delivered = L.exists((EVENT,), lambda e: F.delivered(e))
        return L.or_(L.not_(status_allowed(s, kind, self.profile, F.status)),
                     L.and_(L.not_(L.eq(F.status, request.canonical())), F.status >= 300, delivered))

    def _live_session(self, s: Step):
        L, X, A = s.L, s.X, s.A
        return L.and_(A.sh_present, L.not_(A.sh_malformed), X.s_live(A.sh))

    def _lost_stream(self, s: Step):
        """A stream of the session named has no connection or is no longer open."""
        L, R, X, A = s.L, s.R, s.X, s.A
        return L.exists((STREAM,), lambda t: L.and_(X.t_issued(t), L.eq(R.owner(t), A.sh), L.or_(
            L.not_(X.t_connected(t)), L.not_(X.t_open(t)))))

    def _ended_at_will(self, s: Step):
        """Under an MCP revision, a 404 to a client request naming a live session with no
        ``Last-Event-ID`` and no unfinished call (``spec.transitions.ended_at_will``)."""
        L, A = s.L, s.A
        if self.profile not in MCP_SESSION_REVISIONS:
            return L.false()
        return L.and_(L.eq(s.O.status, L.int_(404)), self._live_session(s), L.not_(A.eh_present),
                      L.not_(self._unfinished_call(s)))

    def _unfinished_call(self, s: Step):
        """A POST stream of the session named is still open: its call has not answered."""
        L, R, X, A = s.L, s.R, s.X, s.A
        return L.exists((STREAM,), lambda t: L.and_(X.t_issued(t), L.eq(R.owner(t), A.sh), L.not_(R.t_get(t)),
                                                    X.t_open(t)))


class DesignUnrolling:
    """One faulty design next to a ``SpecUnrolling``: its hidden state and observation per step."""

    def __init__(self, spec: SpecUnrolling, design: Design) -> None:
        self.spec, self.design = spec, design
        self.L, self.R, self.profile = spec.L, spec.R, spec.profile
        self.hidden = [self._hidden(0)]
        self.servers: list[DesignStep] = []
        self.server_conjuncts: list[list[Conjunct]] = []

    def _hidden(self, i: int) -> dict[str, Callable]:
        return {name: self.L.relation(f"h{i}.{name}", sorts) for name, sorts in self.design.hidden.items()}

    def base(self) -> list[Conjunct]:
        L = self.L
        made = list(self.spec.base)
        for name, sorts in self.design.hidden.items():
            rel = self.hidden[0][name]
            made.append(Conjunct(f"server.init.{name}", L.forall(sorts, lambda *args, rel=rel: L.not_(rel(*args)))))
        return made

    def step(self, depth: int) -> list[Conjunct]:
        """The conjuncts that add step ``depth`` (spec and server); add steps in order. No
        run goes on past a step that departs from the spec's state (``designs.departs``):
        a run may end with one."""
        if depth != len(self.servers) + 1:
            raise ValueError(f"step {depth} added out of order")
        L, i = self.L, depth
        self.spec.ensure(depth)
        spec = self.spec.steps[depth - 1]
        F, H2 = self.spec.server_observation(i), self._hidden(i)
        aux = {name: L.relation(f"u{i}.{name}", sorts) for name, sorts in self.design.aux.items()}
        server = DesignStep(L, self.R, spec.X, spec.A, spec.O, spec.Y, F, self.hidden[-1], H2, aux, self.profile)
        parts = [Conjunct(f"bmc.step-{i}.server", L.and_(*(c.formula for c in observation_of(self.design, server))))]
        if self.servers:
            parts.append(Conjunct(f"bmc.step-{i - 1}.followed", L.not_(departs(self.design, self.servers[-1]))))
        if self.profile is not Profile.BOUNDARY:
            parts.append(Conjunct(f"bmc.step-{i}.reference-variant", self._reference_variant(server)))
        self.hidden.append(H2)
        self.servers.append(server)
        self.server_conjuncts.append(parts)
        return [self.spec.conjuncts[depth - 1]] + parts

    def conjuncts(self, depth: int) -> list[Conjunct]:
        """Everything up to step ``depth``: the standalone problem without its violation."""
        made = self.base()
        for i in range(depth):
            made += [self.spec.conjuncts[i]] + self.server_conjuncts[i]
        return made

    def _reference_variant(self, d: DesignStep):
        """Under the MCP revisions a session resumption may also re-emit nothing, and the
        checker then follows that variant; the unrolling follows the re-emitting one, so
        it keeps to runs where the server does not show the other."""
        L = self.L
        shows_nothing = L.and_(L.eq(d.F.status, L.int_(200)), L.forall((EVENT,), lambda e: L.not_(d.F.delivered(e))))
        pending = L.exists((REQUEST,), d.pending_of_session)
        return L.not_(L.and_(d.reconnect(Branch.SESSION_RESUMPTION), pending, shows_nothing))

    def checks(self, depth: int) -> list[tuple[str, object]]:
        return self.spec.checks(depth)

    def violation(self, depth: int):
        """Step ``depth`` breaks a MUST, and the first one broken (the rule the checker
        reports) is one of the design's rules (docs/design.md §5); for a correct variation,
        which has none, any MUST. A run caught by another rule first is a miss for the
        design (the kill matrix counts it so), never its shortest run."""
        rules = self.design.spec.rules
        if not rules:
            return self.spec.violation(depth)
        L, earlier, cases = self.L, [], []
        for rule, broken in self.checks(depth):
            if rule in rules:
                cases.append(L.and_(broken, L.not_(L.or_(*earlier))))
            earlier.append(broken)
        return L.or_(*cases)

    def first_rule(self, view: ModelView, depth: int) -> str:
        for rule, broken in self.checks(depth):
            if view.holds(broken):
                return rule
        raise AssertionError("the model breaks no check")  # the violation conjunct says otherwise

    def render(self, view: ModelView, depth: int) -> str:
        """The run drawn step by step, with what the faulty server showed."""
        picture = Picture(view, self.R, self.spec.frames[: depth + 1])
        parts = []
        for i in range(depth):
            spec, server = self.spec.steps[i], self.servers[i]
            parts.append(render_step(picture, spec.X, spec.A, server.F, spec.Y, f"step {i + 1}"))
        return "\n".join(parts)


def decode_actions(spec: SpecUnrolling, depth: int, view: ModelView, profile: Profile) -> list[a.Action]:
    """The model's run as spec actions, with the spec's handles.

    Raises ``ValueError`` when the run does not fit the executable spec (an action
    not enabled there): the encoding and the spec disagree.
    """
    handles: dict[str, str] = {}
    current = INITIAL_STATE
    actions = []
    for number, step in enumerate(spec.steps[:depth], start=1):
        action = _action(view, step.A, handles)
        if not enabled(current, action, profile):
            raise ValueError(f"step {number} ({a.describe(action)}) of the Z3 run is not enabled in the spec")
        taken = spec_step(current, action, profile)
        _pair(view, step.A, ActionKind(action.kind), current, taken.after, handles)
        actions.append(action)
        current = taken.after
    return actions


def _action(view: ModelView, A, handles: dict[str, str]) -> a.Action:
    kind = view.L.decode_enum(view.value(A.kind), ActionKind)

    def name(term, sort):
        return handles.get(str(view.value(term)), UNKNOWN.get(sort, "unknown"))

    def header(present, malformed, term, sort):
        if not view.holds(present):
            return None
        return MALFORMED[sort] if view.holds(malformed) else name(term, sort)

    session = header(A.sh_present, A.sh_malformed, A.sh, SESSION)
    makers = {
        ActionKind.INITIALIZE: lambda: a.Initialize(),
        ActionKind.CALL_TOOL: lambda: a.CallTool(session),
        ActionKind.RECONNECT: lambda: a.Reconnect(session, header(A.eh_present, A.eh_malformed, A.eh, EVENT)),
        ActionKind.ANSWER_REQUEST: lambda: a.AnswerRequest(session, name(A.target_request, REQUEST)),
        ActionKind.DELETE_SESSION: lambda: a.DeleteSession(session),
        ActionKind.DROP_CONNECTION: lambda: a.DropConnection(name(A.target_stream, STREAM)),
        ActionKind.RESTART_CLIENT: lambda: a.RestartClient(),
        ActionKind.CLOSE_CONNECTION: lambda: a.CloseConnection(name(A.target_stream, STREAM)),
        ActionKind.EVICT_EVENT: lambda: a.EvictEvent(name(A.target_stream, STREAM)),
        ActionKind.EMIT_EVENT: lambda: a.EmitEvent(name(A.target_stream, STREAM)),
        ActionKind.ISSUE_SERVER_REQUEST: lambda: a.IssueServerRequest(name(A.target_stream, STREAM)),
        ActionKind.CANCEL_REQUEST: lambda: a.CancelRequest(name(A.target_request, REQUEST)),
        ActionKind.RESPOND: lambda: a.Respond(name(A.target_stream, STREAM)),
        ActionKind.END_STREAM: lambda: a.EndStream(name(A.target_stream, STREAM)),
        ActionKind.EXPIRE_STREAM: lambda: a.ExpireStream(name(A.target_stream, STREAM)),
        ActionKind.EXPIRE_SESSION: lambda: a.ExpireSession(name(A.target_session, SESSION)),
    }
    return makers[kind]()


def _pair(view: ModelView, A, kind: ActionKind, before, after, handles: dict[str, str]) -> None:
    """Pair the entities the spec minted in this step with the model's elements: the
    new session, stream, request, the event an emit, issue, respond or cancel sends, and the event that
    re-emits each pending request on a session resumption."""
    key = lambda term: str(view.value(term))
    for made, element in (
        ([s.id for s in after.sessions if before.session(s.id) is None], A.new_session),
        ([t.id for t in after.streams if before.stream(t.id) is None], A.new_stream),
        ([r.id for r in after.requests if before.request(r.id) is None], A.new_request),
    ):
        if made:
            handles[key(element)] = made[0]
    new_events = [e for e in after.events if before.event(e.id) is None]
    if kind in (ActionKind.EMIT_EVENT, ActionKind.ISSUE_SERVER_REQUEST, ActionKind.RESPOND, ActionKind.CANCEL_REQUEST):
        handles[key(A.new_event)] = new_events[0].id
        return
    element_of = {handle: element for element, handle in handles.items()}
    for event in new_events:
        request = next(r for r in view.elements[REQUEST] if str(r) == element_of[event.request or event.cancels])
        handles[key(A.reemit(request))] = event.id


def _scope_text(scope: dict[str, int]) -> str:
    return ", ".join(f"{scope[s]} {s}" for s in SORTS)
