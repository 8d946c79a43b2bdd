"""Running one SMT query repeatably: a fresh context, a fixed seed, a resource limit.

Z3 is bounded by ``rlimit`` (its deterministic resource counter), never by a
wall-clock timeout, so a query gives the same answer, the same witness and the
same ``rlimit_used`` on every run with the same inputs. When the limit is hit
the result is ``unknown`` and the query does not hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import z3

from mcp_resume.proofs.decision.domain import Domain, make_domain

DEFAULT_RLIMIT = 5_000_000
"""Z3 resource units per query; the decision queries use far less (see DECISION.md)."""

DEFAULT_SEED = 0


@dataclass(frozen=True)
class Problem:
    """The assertions of one query and the terms a witness is read from (name -> term)."""

    assertions: list[z3.BoolRef]
    witness: dict[str, z3.ExprRef] = field(default_factory=dict)


@dataclass(frozen=True)
class Query:
    """An SMT query: ``build(domain, table)`` makes the problem, ``expected`` is ``"sat"`` or ``"unsat"``.

    ``table`` is the Python decision table (``decision_table.python_table``);
    queries about the design alone ignore it. ``sources`` are MCP rule ids and
    design sections the property comes from.
    """

    id: str
    description: str
    expected: str
    sources: tuple[str, ...]
    build: Callable[[Domain, dict], Problem]


@dataclass(frozen=True)
class QueryResult:
    """The outcome of one query.

    - ``result``: ``"sat"``, ``"unsat"`` or ``"unknown"`` (resource limit hit);
    - ``holds``: ``result == expected``;
    - ``witness``: for ``sat``, the model's value of every witness term (enum
      members by their spec value, statuses as ints); ``None`` otherwise. For an
      expected ``sat`` it is the example, for an expected ``unsat`` the counterexample;
    - ``rlimit`` / ``rlimit_used``: the limit given and the units spent (Z3's
      ``rlimit count`` statistic; ``None`` if this Z3 does not report it);
    - ``smt2``: the exact problem in SMT-LIB2, replayable with ``z3 FILE``.
    """

    query: str
    description: str
    expected: str
    result: str
    holds: bool
    witness: dict[str, str | int | bool] | None
    reason_unknown: str | None
    sources: tuple[str, ...]
    rlimit: int
    rlimit_used: int | None
    random_seed: int
    z3_version: str
    smt2: str


def run_query(query: Query, table: dict, rlimit: int = DEFAULT_RLIMIT, random_seed: int = DEFAULT_SEED) -> QueryResult:
    """Solve ``query`` in a fresh Z3 context.

    Raises ``ValueError`` for a non-positive ``rlimit`` (0 would mean "no limit").
    """
    if rlimit <= 0:
        raise ValueError(f"rlimit must be positive, got {rlimit}")
    ctx = z3.Context()
    dom = make_domain(ctx)
    problem = query.build(dom, table)
    solver = z3.Solver(ctx=ctx)
    solver.set("random_seed", random_seed)
    solver.set("rlimit", rlimit)
    solver.add(*problem.assertions)
    smt2 = _smt2(query, solver, rlimit, random_seed)
    answer = solver.check()
    result = str(answer)
    witness = _witness(dom, solver.model(), problem.witness) if answer == z3.sat else None
    reason = solver.reason_unknown() if answer == z3.unknown else None
    return QueryResult(
        query=query.id,
        description=query.description,
        expected=query.expected,
        result=result,
        holds=result == query.expected,
        witness=witness,
        reason_unknown=reason,
        sources=query.sources,
        rlimit=rlimit,
        rlimit_used=_rlimit_used(solver),
        random_seed=random_seed,
        z3_version=z3.get_version_string(),
        smt2=smt2,
    )


def _smt2(query: Query, solver: z3.Solver, rlimit: int, random_seed: int) -> str:
    body = solver.to_smt2().splitlines()
    body = [line for line in body if not line.startswith("; benchmark generated")]
    body = [f"(set-info :status {query.expected})" if line.startswith("(set-info :status") else line for line in body]
    header = [
        f"; mcp-resume decision query: {query.id}",
        f"; {query.description}",
        f"; expected: {query.expected}",
        f"; sources: {', '.join(query.sources)}",
        f"(set-option :random-seed {random_seed})",
        f"(set-option :rlimit {rlimit})",
    ]
    return "\n".join(header + body).rstrip() + "\n"


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


def _rlimit_used(solver: z3.Solver) -> int | None:
    stats = solver.statistics()
    if "rlimit count" not in stats.keys():
        return None
    return int(stats.get_key_value("rlimit count"))
