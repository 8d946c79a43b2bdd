"""The Z3 queries over the decision of docs/design.md §2-§3, and how to run them.

Each query is one SMT problem with an expected answer:

- ``decision-total`` (unsat): some input satisfies no branch guard;
- ``decision-exclusive`` (unsat): some input satisfies two branch guards;
- ``reachable-<branch>`` (sat, one per ``Branch``): some input, in some profile,
  lands in the branch; the model is the witness;
- ``boundary-branch-<n>-<branch>`` (sat): under ``boundary``, each numbered
  branch of docs/design.md §2 is reachable;
- ``canonical-acceptable`` (unsat): the reference status is not one the design accepts;
- ``boundary-404-only-unknown-session`` (unsat): under ``boundary`` a request
  whose session is not gone may be answered 404 (B34: 404 means "session gone");
- ``agreement-branch``, ``agreement-statuses``, ``agreement-status`` (unsat):
  the Python ``decide_class``, enumerated into a Z3 lookup table, differs from
  the Z3 encoding in the branch, in the set of acceptable statuses (for some
  integer status) or in the canonical status, for some input.

The design side is ``decision.encoding``; the Python side ``decision.table``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable

import z3

from mcp_resume.spec.decision import Branch
from mcp_resume.spec.profiles import Profile

from mcp_resume.proofs.decision.encoding import accepts, canonical, guard, numbered_branches, rule
from mcp_resume.proofs.decision.table import DecideClass, lookup, python_table
from mcp_resume.proofs.decision.domain import Domain, Inputs, free_inputs, make_domain
from mcp_resume.proofs.solving import DEFAULT_RLIMIT, DEFAULT_SEED, Conjunct, SatResult, ProofStatus, smt2_text, solve, verdict

SAT, UNSAT = SatResult.SAT, SatResult.UNSAT


@dataclass(frozen=True)
class Problem:
    """The assertions of one query and the terms a witness is read from (name -> term)."""

    assertions: list[z3.BoolRef]
    witness: dict[str, z3.ExprRef] = field(default_factory=dict)


@dataclass(frozen=True)
class Query:
    """An SMT query: ``build(domain, table)`` makes the problem; ``expected`` its answer
    when the property holds.

    ``table`` is the Python decision table (``table.python_table``); queries about
    the design alone ignore it. ``sources`` are MCP rule ids and design sections
    the property comes from.
    """

    id: str
    description: str
    expected: SatResult
    sources: tuple[str, ...]
    build: Callable[[Domain, dict], Problem]


@dataclass(frozen=True)
class QueryResult:
    """The outcome of one decision query.

    - ``result``: Z3's answer (``UNKNOWN`` when the resource limit was hit);
    - ``verdict``: ``PROVEN`` when ``result`` is ``expected``; ``holds`` says the same as a bool;
    - ``witness``: for ``sat``, the model's value of every witness term (enum
      members by their spec value, statuses as ints); ``None`` otherwise. For an
      expected ``sat`` it is the example, for an expected ``unsat`` the counterexample;
    - ``rlimit`` / ``rlimit_used``: the limit given and the units spent (Z3's
      ``rlimit count``; ``None`` if this Z3 does not report it); not written to
      the committed results, as they change with Z3's internals;
    - ``smt2``: the exact problem in SMT-LIB2, replayable with ``z3 FILE``, when
      asked for (``run_decision_queries(smt2=True)``), else ``None``.
    """

    query: str
    description: str
    expected: SatResult
    result: SatResult
    verdict: ProofStatus
    witness: dict[str, str | int | bool] | None
    reason_unknown: str | None
    sources: tuple[str, ...]
    rlimit: int
    rlimit_used: int | None
    random_seed: int
    z3_version: str
    smt2: str | None = field(default=None, repr=False)

    @property
    def holds(self) -> bool:
        return self.verdict is ProofStatus.PROVEN


def run_query(query: Query, table: dict, rlimit: int = DEFAULT_RLIMIT, random_seed: int = DEFAULT_SEED,
              smt2: bool = False) -> QueryResult:
    """Solve ``query`` in a fresh Z3 context (``solving.solve``, untracked).

    Raises ``ValueError`` for a non-positive ``rlimit`` (0 would mean "no limit").
    """
    ctx = z3.Context()
    dom = make_domain(ctx)
    problem = query.build(dom, table)
    conjuncts = [Conjunct(f"a{i}", a) for i, a in enumerate(problem.assertions)]
    solved = solve(conjuncts, ctx, rlimit=rlimit, random_seed=random_seed, track=False)
    text = None
    if smt2:
        header = [f"mcp-resume decision query: {query.id}", query.description, f"expected: {query.expected.value}",
                  f"sources: {', '.join(query.sources)}"]
        text = smt2_text(conjuncts, header, ctx, rlimit=rlimit, random_seed=random_seed, track=False,
                         expected=query.expected)
    return QueryResult(
        query=query.id,
        description=query.description,
        expected=query.expected,
        result=solved.result,
        verdict=verdict(query.expected, solved.result),
        witness=_witness(dom, solved.model, problem.witness) if solved.model is not None else None,
        reason_unknown=solved.reason_unknown,
        sources=query.sources,
        rlimit=rlimit,
        rlimit_used=solved.rlimit_used,
        random_seed=random_seed,
        z3_version=z3.get_version_string(),
        smt2=text,
    )


def _witness(dom: Domain, model: z3.ModelRef, terms: dict[str, z3.ExprRef]) -> dict[str, str | int | bool]:
    values: dict[str, str | int | bool] = {}
    for name, term in terms.items():
        value = model.eval(term, model_completion=True)
        if z3.is_int_value(value):
            values[name] = value.as_long()
        elif z3.is_true(value) or z3.is_false(value):
            values[name] = z3.is_true(value)
        else:
            values[name] = dom.decode(value).value
    return values


def _inputs(x: Inputs) -> dict[str, z3.ExprRef]:
    return {"method": x.method, "session": x.session, "event": x.event, "profile": x.profile}


def _guards(dom: Domain, x: Inputs) -> dict[Branch, z3.BoolRef]:
    return {b: guard(dom, x, b) for b in Branch}


def _design_branch(dom: Domain, x: Inputs) -> z3.ExprRef:
    """The first branch whose guard holds (a witness term; exclusivity makes it the only one)."""
    *rest, last = list(Branch)
    result = dom.value(last)
    for branch in reversed(rest):
        result = z3.If(guard(dom, x, branch), dom.value(branch), result)
    return result


# -- the design alone ------------------------------------------------------------


def _total(dom: Domain, table: dict) -> Problem:
    x = free_inputs(dom)
    return Problem([z3.Not(z3.Or(*_guards(dom, x).values()))], _inputs(x))


def _exclusive(dom: Domain, table: dict) -> Problem:
    x = free_inputs(dom)
    guards = _guards(dom, x)
    overlaps = [z3.And(guards[a], guards[b]) for a, b in combinations(Branch, 2)]
    witness = {**_inputs(x), **{f"guard {b.value}": g for b, g in guards.items()}}
    return Problem([z3.Or(*overlaps)], witness)


def _reachable(branch: Branch, profile: Profile | None):
    def build(dom: Domain, table: dict) -> Problem:
        x = free_inputs(dom)
        assertions = [guard(dom, x, branch)]
        if profile is not None:
            assertions.append(x.profile == dom.value(profile))
        return Problem(assertions, _inputs(x))

    return build


def _canonical_acceptable(dom: Domain, table: dict) -> Problem:
    x = free_inputs(dom)
    status = canonical(dom, x)
    return Problem([z3.Not(accepts(dom, x, status))], {**_inputs(x), "canonical status": status})


def _boundary_404(dom: Domain, table: dict) -> Problem:
    x = free_inputs(dom)
    assertions = [
        x.profile == dom.value(Profile.BOUNDARY),
        accepts(dom, x, z3.IntVal(404, dom.ctx)),
        z3.Not(guard(dom, x, Branch.UNKNOWN_SESSION)),
    ]
    return Problem(assertions, {**_inputs(x), "design branch": _design_branch(dom, x)})


# -- the design against the Python table -------------------------------------------


def _agreement_branch(dom: Domain, table: dict) -> Problem:
    x = free_inputs(dom)
    table_z3 = lookup(dom, table)
    python = table_z3.branch(*x.as_tuple())
    lands = z3.Or(*(z3.And(python == dom.value(b), g) for b, g in _guards(dom, x).items()))
    witness = {**_inputs(x), "python branch": python, "design branch": _design_branch(dom, x)}
    return Problem(table_z3.branch_facts + [z3.Not(lands)], witness)


def _agreement_statuses(dom: Domain, table: dict) -> Problem:
    x = free_inputs(dom)
    code = z3.Int("status", dom.ctx)
    table_z3 = lookup(dom, table)
    design, python = accepts(dom, x, code), table_z3.accepts(x, code)
    witness = {**_inputs(x), "status": code, "design accepts": design, "python accepts": python}
    return Problem(table_z3.statuses_facts + [design != python], witness)


def _agreement_status(dom: Domain, table: dict) -> Problem:
    x = free_inputs(dom)
    table_z3 = lookup(dom, table)
    design, python = canonical(dom, x), table_z3.status(*x.as_tuple())
    witness = {**_inputs(x), "design status": design, "python status": python}
    return Problem(table_z3.status_facts + [design != python], witness)


# -- the catalogue of queries ----------------------------------------------------------


def decision_queries() -> list[Query]:
    """Every decision query, in a fixed order."""
    queries = [
        Query("decision-total", "every (method, session class, event class, profile) lands in some branch",
              UNSAT, ("decision table",), _total),
        Query("decision-exclusive", "no (method, session class, event class, profile) lands in two branches",
              UNSAT, ("decision table",), _exclusive),
    ]
    for branch in Branch:
        queries.append(Query(
            f"reachable-{branch.value}", f"some request lands in {branch.value}, in some profile",
            SAT, rule(branch).sources, _reachable(branch, None),
        ))
    for branch, number in sorted(numbered_branches().items(), key=lambda item: (item[1], list(Branch).index(item[0]))):
        queries.append(Query(
            f"boundary-branch-{number}-{branch.value}",
            f"under boundary, some request lands in branch {number} ({branch.value})",
            SAT, ("decision table", "profiles"), _reachable(branch, Profile.BOUNDARY),
        ))
    queries += [
        Query("canonical-acceptable", "the reference status of every request is one the profile accepts",
              UNSAT, ("decision table", "profiles"), _canonical_acceptable),
        Query("boundary-404-only-unknown-session",
              "under boundary, 404 is acceptable only when the session is unknown or ended",
              UNSAT, ("B33", "B34", "decision branch 3", "rules §3.2"), _boundary_404),
        Query("agreement-branch", "decide_class puts every request in the branch the Z3 encoding does",
              UNSAT, ("decision table", "profiles"), _agreement_branch),
        Query("agreement-statuses",
              "decide_class accepts exactly the statuses the Z3 encoding accepts, for every request and integer status",
              UNSAT, ("decision table", "profiles"), _agreement_statuses),
        Query("agreement-status", "decide_class's canonical status is the Z3 encoding's, for every request",
              UNSAT, ("decision table", "profiles"), _agreement_status),
    ]
    return queries


def run_decision_queries(
    rlimit: int = DEFAULT_RLIMIT,
    random_seed: int = DEFAULT_SEED,
    decide: DecideClass | None = None,
    smt2: bool = False,
) -> list[QueryResult]:
    """Run every decision query; one ``QueryResult`` per query, in ``decision_queries()`` order.

    - ``rlimit``: Z3 resource units per query (deterministic, not seconds); a
      query that runs out answers ``unknown`` and does not hold;
    - ``random_seed``: Z3's seed, fixed so runs repeat exactly;
    - ``decide``: the decision under test, default the spec's
      ``mcp_resume.spec.decision.decide_class`` (looked up at call time);
    - ``smt2``: also keep each problem's SMT-LIB2 text (``QueryResult.smt2``).

    Never raises because a property fails: a failure is a result whose
    ``holds`` is false, with the counterexample in ``witness``. Raises
    ``ValueError`` for a non-positive ``rlimit``, ``TypeError`` when ``decide``
    returns something other than a ``ClassDecision``, and ``KeyError`` when the
    spec has a branch that the Z3 encoding does not know.
    """
    table = python_table(decide)
    return [run_query(q, table, rlimit, random_seed, smt2) for q in decision_queries()]
