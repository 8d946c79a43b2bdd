"""The Z3 queries over the decision of DESIGN.md §2-§3, and how to run them.

Each query is one SMT problem with an expected answer:

- ``decision-total`` (unsat): some input satisfies no branch guard;
- ``decision-exclusive`` (unsat): some input satisfies two branch guards;
- ``reachable-<branch>`` (sat, one per ``Branch``): some input, in some profile,
  lands in the branch; the model is the witness;
- ``boundary-branch-<n>-<branch>`` (sat): under ``boundary``, each numbered
  branch of DESIGN.md §2 is reachable;
- ``canonical-acceptable`` (unsat): the reference status is not one the design accepts;
- ``boundary-404-only-unknown-session`` (unsat): under ``boundary`` a request
  whose session is not gone may be answered 404 (B34: 404 means "session gone");
- ``agreement-branch``, ``agreement-statuses``, ``agreement-status`` (unsat):
  the Python ``decide_class``, enumerated into a Z3 lookup table, differs from
  the Z3 encoding in the branch, in the set of acceptable statuses (for some
  integer status) or in the canonical status, for some input.

The design side is ``decision_encoding``; the Python side ``decision_table``.
"""

from __future__ import annotations

from itertools import combinations

import z3

from mcp_resume.spec.decision import Branch
from mcp_resume.spec.profiles import Profile

from mcp_resume.proofs.decision.encoding import accepts, canonical, guard, numbered_branches, rule
from mcp_resume.proofs.decision.table import DecideClass, lookup, python_table
from mcp_resume.proofs.decision.domain import Domain, Inputs, free_inputs
from mcp_resume.proofs.solving import DEFAULT_RLIMIT, DEFAULT_SEED, Problem, Query, QueryResult, run_query


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
              "unsat", ("decision table",), _total),
        Query("decision-exclusive", "no (method, session class, event class, profile) lands in two branches",
              "unsat", ("decision table",), _exclusive),
    ]
    for branch in Branch:
        queries.append(Query(
            f"reachable-{branch.value}", f"some request lands in {branch.value}, in some profile",
            "sat", rule(branch).sources, _reachable(branch, None),
        ))
    for branch, number in sorted(numbered_branches().items(), key=lambda item: (item[1], list(Branch).index(item[0]))):
        queries.append(Query(
            f"boundary-branch-{number}-{branch.value}",
            f"under boundary, some request lands in branch {number} ({branch.value})",
            "sat", ("decision table", "profiles"), _reachable(branch, Profile.BOUNDARY),
        ))
    queries += [
        Query("canonical-acceptable", "the reference status of every request is one the profile accepts",
              "unsat", ("decision table", "profiles"), _canonical_acceptable),
        Query("boundary-404-only-unknown-session",
              "under boundary, 404 is acceptable only when the session is unknown or ended",
              "unsat", ("B33", "B34", "decision branch 3", "rules §3.2"), _boundary_404),
        Query("agreement-branch", "decide_class puts every request in the branch the Z3 encoding does",
              "unsat", ("decision table", "profiles"), _agreement_branch),
        Query("agreement-statuses",
              "decide_class accepts exactly the statuses the Z3 encoding accepts, for every request and integer status",
              "unsat", ("decision table", "profiles"), _agreement_statuses),
        Query("agreement-status", "decide_class's canonical status is the Z3 encoding's, for every request",
              "unsat", ("decision table", "profiles"), _agreement_status),
    ]
    return queries


def run_decision_queries(
    rlimit: int = DEFAULT_RLIMIT,
    random_seed: int = DEFAULT_SEED,
    decide: DecideClass | None = None,
) -> list[QueryResult]:
    """Run every decision query; one ``QueryResult`` per query, in ``decision_queries()`` order.

    - ``rlimit``: Z3 resource units per query (deterministic, not seconds); a
      query that runs out answers ``unknown`` and does not hold;
    - ``random_seed``: Z3's seed, fixed so runs repeat exactly;
    - ``decide``: the decision under test, default the spec's
      ``mcp_resume.spec.decision.decide_class`` (looked up at call time).

    Never raises because a property fails: a failure is a result whose
    ``holds`` is false, with the counterexample in ``witness``. Raises
    ``ValueError`` for a non-positive ``rlimit``, ``TypeError`` when ``decide``
    returns something other than a ``ClassDecision``, and ``KeyError`` when the
    spec has a branch that the Z3 encoding does not know.
    """
    table = python_table(decide)
    return [run_query(q, table, rlimit, random_seed) for q in decision_queries()]
