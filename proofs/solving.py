"""Solving one Z3 query repeatably: the one solver wrapper of ``proofs``.

Both the decision queries (``proofs.decision.queries``, a fresh context each)
and the transition-system queries (``proofs.system.proofs`` and
``proofs.system.bmc``, one shared context per encoding) solve through here:

- ``new_solver(ctx, rlimit, random_seed)``: a solver with a fixed random seed,
  a resource limit and Z3's relevancy filtering set explicitly;
- ``solve(conjuncts, ctx=..., track=...)``: one check, optionally with every
  conjunct tracked (asserted as ``(=> name formula)``, the names passed as
  assumptions) so that an ``unsat`` answer names the conjuncts it used (its
  unsat core);
- ``smt2_text(conjuncts, header, ...)``: the same problem as an SMT-LIB2 script,
  only when asked for, and after the solving (printing adds terms to a context,
  so a query printed before the next one of a shared context would change it).

Z3 is bounded by ``rlimit``, its deterministic resource counter, never by a
wall clock, so a query gives the same answer, core and model on every run with
the same inputs in the same order. Running out of the limit answers
``UNKNOWN``, which never counts as a proof. Z3 does not catch Ctrl-C
(``ctrl_c`` off: its own handler would cancel the query and answer unknown,
"canceled", like a resource limit): the check ends and Python raises
``KeyboardInterrupt``, so an interrupt stops the run and is never a result.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterable

import z3

DEFAULT_RLIMIT = 20_000_000
"""Z3 resource units per query (per check); the queries use a few hundred thousand at most."""

DEFAULT_SEED = 0

RELEVANCY = 2
"""Z3's relevancy filtering: its default, set explicitly on every solver because an
SMT-LIB2 ``set-option`` run in the same process (replaying a script, say) changes
Z3's global default."""

GROUND_RELEVANCY = 0
"""Relevancy filtering off, for the ground (quantifier-free) bounded-model-checking
problems: there it halves the solving time."""


INTERRUPTED = "interrupted from keyboard"
"""Z3's ``reason_unknown`` for a check it stopped on SIGINT itself (only when its ``ctrl_c`` option is on;
``new_solver`` turns it off, so that Python sees the signal once the check ends)."""


def check(solver: z3.Solver, *assumptions: z3.BoolRef) -> "SatResult":
    """``solver.check(*assumptions)`` as a ``SatResult``. Raises ``KeyboardInterrupt`` when Z3 answered
    unknown because it was interrupted: a canceled check is no result, the run must stop."""
    answer = SatResult.of(solver.check(*assumptions))
    if answer is SatResult.UNKNOWN and solver.reason_unknown() == INTERRUPTED:
        raise KeyboardInterrupt
    return answer


class SatResult(str, Enum):
    """Z3's answer to one check. A ``str`` enum: ``SatResult.SAT == "sat"``, and it is
    written to JSON as its value."""

    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"

    @classmethod
    def of(cls, answer: z3.CheckSatResult) -> "SatResult":
        """The member for a ``z3.sat`` / ``z3.unsat`` / ``z3.unknown`` answer."""
        return cls(str(answer))

    def __str__(self) -> str:
        return self.value


class ProofStatus(str, Enum):
    """What an answer says about an obligation with an expected answer: ``PROVEN``
    when it is the expected one, ``REFUTED`` when it is the other definite answer
    (a counterexample for an expected ``unsat``, no witness for an expected ``sat``),
    ``UNKNOWN`` when Z3 ran out of its resource limit. ``NOT_APPLICABLE``: no
    query was asked, the obligation cannot apply (``proofs.system.vacuity``); never
    a proof. ``TRIVIAL``: the expected ``unsat``, but it follows from the action's
    effect equations alone (``proofs.system.triviality``); true, never counted as
    proven."""

    PROVEN = "proven"
    REFUTED = "refuted"
    UNKNOWN = "unknown"
    NOT_APPLICABLE = "not applicable"
    TRIVIAL = "trivial"

    def __str__(self) -> str:
        return self.value


def verdict(expected: SatResult | None, result: SatResult) -> ProofStatus | None:
    """The verdict of ``result`` against ``expected``; ``None`` for an informative
    query (``expected`` is ``None``)."""
    if expected is None:
        return None
    if result is SatResult.UNKNOWN:
        return ProofStatus.UNKNOWN
    return ProofStatus.PROVEN if result is expected else ProofStatus.REFUTED


@dataclass(frozen=True)
class Conjunct:
    """One named part of a formula; ``name`` is its label in unsat cores and SMT-LIB2.
    ``formula`` is a ``z3.BoolRef`` in the Z3 backends (a Python ``bool`` in ``PyLogic``)."""

    name: str
    formula: object


def check_rlimit(rlimit: int) -> None:
    """Raise ``ValueError`` for a non-positive ``rlimit`` (Z3 reads 0 as "no limit")."""
    if rlimit <= 0:
        raise ValueError(f"rlimit must be positive, got {rlimit}")


def new_solver(ctx: z3.Context, rlimit: int = DEFAULT_RLIMIT, random_seed: int = DEFAULT_SEED,
               relevancy: int = RELEVANCY) -> z3.Solver:
    """A solver of ``ctx`` with the seed, the resource limit (units per check, Z3
    counts from where each check starts) and the relevancy level set, and Z3's own
    Ctrl-C handler off (SIGINT reaches Python once the check ends). Raises
    ``ValueError`` for a non-positive ``rlimit``."""
    check_rlimit(rlimit)
    solver = z3.Solver(ctx=ctx)
    solver.set("random_seed", random_seed)
    solver.set("rlimit", rlimit)
    solver.set("smt.relevancy", relevancy)
    solver.set("ctrl_c", False)
    return solver


def options_smt2(rlimit: int, random_seed: int, cores: bool = False, relevancy: int = RELEVANCY) -> list[str]:
    """The ``set-option`` lines that make an SMT-LIB2 replay run as ``new_solver`` does."""
    lines = ["(set-option :produce-unsat-cores true)"] if cores else []
    return lines + [f"(set-option :random-seed {random_seed})", f"(set-option :rlimit {rlimit})",
                    f"(set-option :smt.relevancy {relevancy})"]


class Meter:
    """Z3's resource count (``rlimit count``) of one context, read after each check.

    Z3 counts per context, so with a shared context the units one query used are
    the growth of the count during it.
    """

    def __init__(self, ctx: z3.Context) -> None:
        self.ctx = ctx
        probe = z3.Solver(ctx=ctx)
        probe.check()
        self.last = resource_count(probe) or 0
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
        """Units spent since the last reading (``None`` if this Z3 does not count)."""
        count = resource_count(solver)
        if count is None:
            return None
        used, self.last = count - self.last, count
        return used


@dataclass(frozen=True)
class Solved:
    """One check's outcome: ``core`` the sorted conjunct names an ``unsat`` answer
    used (tracked queries only, else empty); ``model`` that of a ``sat`` answer;
    ``rlimit_used`` Z3 resource units (``None`` if this Z3 does not count)."""

    result: SatResult
    core: tuple[str, ...]
    model: z3.ModelRef | None
    reason_unknown: str | None
    rlimit_used: int | None


def solve(conjuncts: Iterable[Conjunct], ctx: z3.Context | None = None, *, meter: Meter | None = None,
          rlimit: int = DEFAULT_RLIMIT, random_seed: int = DEFAULT_SEED, track: bool = True) -> Solved:
    """Check the conjunction of ``conjuncts`` (``z3.BoolRef`` formulas of one context).

    ``ctx``: the context the formulas live in (a shared one, or the fresh one
    they were built in; default that of ``meter``, else of the first formula);
    ``meter`` (of that context) measures the units used and keeps the tracking
    implications, made once per conjunct, for the next query. ``track``: assert
    each conjunct under its name and report the unsat core. Raises ``ValueError``
    for a non-positive ``rlimit`` or two conjuncts with one name.

    No SMT-LIB2 text is made here (``smt2_text`` makes it on request): printing
    creates terms in the context, which would change the answers of the queries
    that share it afterwards.
    """
    conjuncts = list(conjuncts)
    names = _unique_names(conjuncts)
    ctx = ctx or (meter.ctx if meter is not None else conjuncts[0].formula.ctx)
    meter = meter or Meter(ctx)
    solver = new_solver(ctx, rlimit, random_seed)
    literals = [meter.literal(name) for name in names] if track else []
    for assertion in _assertions(conjuncts, meter, track):
        z3.Z3_solver_assert(ctx.ref(), solver.solver, assertion.as_ast())
    answer = check(solver, *literals)
    used = meter.used(solver)
    core = tuple(sorted(str(p) for p in solver.unsat_core())) if answer is SatResult.UNSAT and track else ()
    return Solved(
        result=answer,
        core=core,
        model=solver.model() if answer is SatResult.SAT else None,
        reason_unknown=solver.reason_unknown() if answer is SatResult.UNKNOWN else None,
        rlimit_used=used,
    )


def smt2_text(conjuncts: Iterable[Conjunct], header: list[str], ctx: z3.Context | None = None, *,
              meter: Meter | None = None, rlimit: int = DEFAULT_RLIMIT, random_seed: int = DEFAULT_SEED,
              track: bool = True, expected: SatResult | None = None) -> str:
    """The query ``solve`` would check, as a self-contained SMT-LIB2 script.

    ``header`` lines open it as comments; then the ``set-option`` lines of
    ``new_solver``, the declarations and assertions (each conjunct as
    ``(=> name formula)`` when ``track``), ``check-sat-assuming`` the names
    (``check-sat`` untracked) and ``get-unsat-core`` (an ``expected`` unsat, tracked)
    or ``get-model``. Make it after the queries sharing the context are solved.
    """
    conjuncts = list(conjuncts)
    names = _unique_names(conjuncts)
    ctx = ctx or (meter.ctx if meter is not None else conjuncts[0].formula.ctx)
    meter = meter or Meter(ctx)
    printer = z3.Solver(ctx=ctx)
    for assertion in _assertions(conjuncts, meter, track):
        z3.Z3_solver_assert(ctx.ref(), printer.solver, assertion.as_ast())
    body = [line for line in printer.to_smt2().splitlines() if not line.startswith("; benchmark generated")]
    body = [line for line in body if not line.startswith("(set-info :status")]
    while body and body[-1].strip() in ("(check-sat)", ""):
        body.pop()
    names = names if track else []
    lines = [f"; {line}" for line in header] + options_smt2(rlimit, random_seed, cores=bool(names)) + body
    lines.append("(check-sat-assuming (" + " ".join(names) + "))" if names else "(check-sat)")
    if expected is not None:
        lines.append("(get-unsat-core)" if expected is SatResult.UNSAT and names else "(get-model)")
    return "\n".join(lines) + "\n"


def _unique_names(conjuncts: list[Conjunct]) -> list[str]:
    names = [c.name for c in conjuncts]
    if len(set(names)) != len(names):
        duplicates = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"conjunct names must be unique in a query: {', '.join(duplicates)}")
    return names


def _assertions(conjuncts: list[Conjunct], meter: Meter, track: bool) -> list[z3.BoolRef]:
    return [meter.tracked(c) for c in conjuncts] if track else [c.formula for c in conjuncts]


def resource_count(solver: z3.Solver) -> int | None:
    """Z3's ``rlimit count`` statistic of ``solver``'s context, or ``None``."""
    stats = solver.statistics()
    if "rlimit count" not in stats.keys():
        return None
    return int(stats.get_key_value("rlimit count"))
