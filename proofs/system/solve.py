"""Solving one transition-system query repeatably, with every conjunct tracked.

Each conjunct ``c`` of a query is asserted as ``(=> c.name c.formula)`` and the
names are passed as assumptions, so an ``unsat`` answer comes with the names
the proof used (its unsat core). Z3 runs with a fixed random seed and a
resource limit (``rlimit``, Z3's deterministic work counter), never a wall
clock, so the same query in the same run order gives the same answer, core,
model and resource count every time.

The queries of one run share a Z3 context (building the encoding once), and
Z3 counts resources per context: ``rlimit_used`` is the growth of that count
during the query.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from mcp_resume.proofs.system.logic import Conjunct

DEFAULT_RLIMIT = 20_000_000
"""Z3 resource units per query; the queries use a few hundred thousand at most."""

DEFAULT_SEED = 0

RELEVANCY = 2
"""Z3's relevancy filtering for the quantified proof queries: its default, set
explicitly because an SMT-LIB2 ``set-option`` run in the same process (replaying a
bounded-search script, say) changes Z3's global default."""


@dataclass(frozen=True)
class Solved:
    """``result`` is ``sat``, ``unsat`` or ``unknown``; ``core`` the sorted names an
    ``unsat`` answer used; ``model`` the model of a ``sat`` one."""

    result: str
    core: tuple[str, ...]
    model: z3.ModelRef | None
    reason_unknown: str | None
    rlimit_used: int | None
    smt2: str


class Meter:
    """Z3's resource count of one context, read after each query."""

    def __init__(self, ctx: z3.Context) -> None:
        self.ctx = ctx
        probe = z3.Solver(ctx=ctx)
        probe.check()
        self.last = _count(probe) or 0

        self._literals: dict[str, z3.BoolRef] = {}
        self._tracked: dict[tuple[str, int], tuple[z3.ExprRef, z3.BoolRef]] = {}

    def literal(self, name: str) -> z3.BoolRef:
        """The Boolean that tracks conjunct ``name``."""
        if name not in self._literals:
            self._literals[name] = z3.Bool(name, self.ctx)
        return self._literals[name]

    def tracked(self, conjunct: Conjunct) -> z3.BoolRef:
        """``(=> name formula)``, made once per conjunct (the formula is kept, so its id stays its own)."""
        key = (conjunct.name, conjunct.formula.get_id())
        if key not in self._tracked:
            self._tracked[key] = (conjunct.formula, z3.Implies(self.literal(conjunct.name), conjunct.formula))
        return self._tracked[key][1]

    def used(self, solver: z3.Solver) -> int | None:
        count = _count(solver)
        if count is None:
            return None
        used, self.last = count - self.last, count
        return used


def solve(meter: Meter, conjuncts: list[Conjunct], header: list[str], rlimit: int = DEFAULT_RLIMIT,
          random_seed: int = DEFAULT_SEED, track: bool = True, expected: str | None = "unsat") -> Solved:
    """Solve the conjunction of ``conjuncts`` in the meter's context.

    ``header`` lines (comments) open the SMT-LIB2 text, which ends by asking for
    the unsat core (``expected`` unsat) or the model (sat). Raises ``ValueError``
    for a non-positive ``rlimit`` or two conjuncts with one name.
    """
    ctx = meter.ctx
    if rlimit <= 0:
        raise ValueError(f"rlimit must be positive, got {rlimit}")
    names = [c.name for c in conjuncts]
    if len(set(names)) != len(names):
        duplicates = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"conjunct names must be unique in a query: {', '.join(duplicates)}")
    literals = [meter.literal(name) for name in names] if track else []
    assertions = [meter.tracked(c) for c in conjuncts] if track else [c.formula for c in conjuncts]
    solver = z3.Solver(ctx=ctx)
    solver.set("random_seed", random_seed)
    solver.set("rlimit", rlimit)
    solver.set("smt.relevancy", RELEVANCY)
    for assertion in assertions:
        z3.Z3_solver_assert(ctx.ref(), solver.solver, assertion.as_ast())
    smt2 = _smt2(solver, names if track else [], header, rlimit, random_seed, expected)
    answer = solver.check(*literals)
    used = meter.used(solver)
    core = tuple(sorted(str(p) for p in solver.unsat_core())) if answer == z3.unsat and track else ()
    return Solved(
        result=str(answer),
        core=core,
        model=solver.model() if answer == z3.sat else None,
        reason_unknown=solver.reason_unknown() if answer == z3.unknown else None,
        rlimit_used=used,
        smt2=smt2,
    )


def _smt2(solver: z3.Solver, names: list[str], header: list[str], rlimit: int, random_seed: int,
          expected: str | None) -> str:
    body = [line for line in solver.to_smt2().splitlines() if not line.startswith("; benchmark generated")]
    while body and body[-1].strip() in ("(check-sat)", ""):
        body.pop()
    lines = [f"; {line}" for line in header]
    lines += ["(set-option :produce-unsat-cores true)", f"(set-option :random-seed {random_seed})",
              f"(set-option :rlimit {rlimit})", f"(set-option :smt.relevancy {RELEVANCY})"]
    lines += body
    lines.append("(check-sat-assuming (" + " ".join(names) + "))" if names else "(check-sat)")
    if expected is not None:
        lines.append("(get-unsat-core)" if expected == "unsat" and names else "(get-model)")
    return "\n".join(lines) + "\n"


def _count(solver: z3.Solver) -> int | None:
    stats = solver.statistics()
    if "rlimit count" not in stats.keys():
        return None
    return int(stats.get_key_value("rlimit count"))
