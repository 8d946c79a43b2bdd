"""The Python decision table (``spec.decision.decide_class``) as a Z3 lookup table.

``decide_class`` is enumerated over its whole finite domain and each entry
becomes a ground fact about an uninterpreted function:

- ``py_branch(method, session, event, profile)``: the branch;
- ``py_status(...)``: the canonical status (an ``Int``);
- ``py_statuses(...)``: which of the distinct acceptable-status sets the entry has,
  as a constant of an enumeration sort ``StatusSet``; ``accepts`` turns a set
  into a membership predicate over ``Int`` built from closed ranges.

Because the facts cover every element of the (finite) domain, these functions
*are* the Python table inside the solver: a query over free inputs ranges over
every entry at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import z3

from mcp_resume.spec import decision as spec_decision
from mcp_resume.spec.decision import ClassDecision

from mcp_resume.proofs.decision.encoding import Codes, member
from mcp_resume.proofs.decision.domain import Domain, Inputs, class_domain

Combo = tuple  # (Method, SessionClass, EventClass, Profile)
DecideClass = Callable[..., ClassDecision]


def python_table(decide: DecideClass | None = None) -> dict[Combo, ClassDecision]:
    """``decide`` (default: the spec's ``decide_class``, looked up at call time) on every combination.

    Raises ``TypeError`` naming the combination when an entry is not a ``ClassDecision``.
    """
    decide = decide or spec_decision.decide_class
    table = {}
    for combo in class_domain():
        entry = decide(*combo)
        if not isinstance(entry, ClassDecision):
            raise TypeError(f"decide_class{tuple(m.value for m in combo)} returned {entry!r}, not a ClassDecision")
        table[combo] = entry
    return table


def ranges(statuses: frozenset[int]) -> Codes:
    """``statuses`` as sorted single codes and closed ranges, e.g. ``(200, (400, 403), (405, 499))``."""
    runs: list[list[int]] = []
    for code in sorted(statuses):
        if runs and code == runs[-1][1] + 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return tuple(low if low == high else (low, high) for low, high in runs)


def set_name(codes: Codes) -> str:
    """``statuses.200+405`` or ``statuses.400-403+405-499``."""
    parts = [f"{i[0]}-{i[1]}" if isinstance(i, tuple) else str(i) for i in codes]
    return "statuses." + ("+".join(parts) or "none")


@dataclass(frozen=True)
class Lookup:
    """The Z3 functions of one Python table and the facts that define them."""

    branch: z3.FuncDeclRef
    status: z3.FuncDeclRef
    statuses: z3.FuncDeclRef
    status_sets: dict[Codes, z3.ExprRef]
    branch_facts: list[z3.BoolRef]
    status_facts: list[z3.BoolRef]
    statuses_facts: list[z3.BoolRef]

    def accepts(self, x: Inputs, code: z3.ArithRef) -> z3.BoolRef:
        """The Python table accepts ``code`` for the request ``x``."""
        chosen = self.statuses(*x.as_tuple())
        return z3.Or(*(z3.And(chosen == const, member(code, codes)) for codes, const in self.status_sets.items()))


def lookup(dom: Domain, table: dict[Combo, ClassDecision]) -> Lookup:
    args = [dom.sorts[name] for name in ("method", "session", "event", "profile")]
    py_branch = z3.Function("py_branch", *args, dom.sorts["branch"])
    py_status = z3.Function("py_status", *args, z3.IntSort(dom.ctx))
    distinct = sorted({ranges(e.statuses) for e in table.values()}, key=set_name)
    set_sort, set_consts = z3.EnumSort("StatusSet", [set_name(c) for c in distinct], ctx=dom.ctx)
    status_sets = dict(zip(distinct, set_consts))
    py_statuses = z3.Function("py_statuses", *args, set_sort)
    branch_facts, status_facts, statuses_facts = [], [], []
    for combo, entry in table.items():
        key = [dom.value(m) for m in combo]
        branch_facts.append(py_branch(*key) == dom.value(entry.branch))
        status_facts.append(py_status(*key) == entry.status)
        statuses_facts.append(py_statuses(*key) == status_sets[ranges(entry.statuses)])
    return Lookup(py_branch, py_status, py_statuses, status_sets, branch_facts, status_facts, statuses_facts)
