"""Whether an obligation can apply, and what would make it vacuous.

A property of a step (or a state invariant after it) is a conjunction of
implications under universal quantifiers, ``∀x. guard(x) → claim(x)``. Its
*antecedent* is what must hold for it to say anything: ``∃x. guard(x)``, the
disjunction of the antecedents of a conjunction, ``a ∧ antecedent(b)`` for
``a → b``, and true for any other formula (it constrains every step).

- *Not applicable* (decided structurally, no solver): once the action's own
  footprint is put in (its kind, the relations it frames, no delivery for an
  action that delivers nothing, status 0 for a server action), the antecedent
  simplifies to false, or a state invariant reads no relation the action
  changes. The consecution holds for a reason that has nothing to do with the
  property, so it is reported as not applicable, never as proven.
- *Vacuous* (decided by a query): the antecedent is unsatisfiable together with
  the axioms, the inductive invariant and the action's transition formula. The
  consecution proof then holds only because no step from a state the
  invariants allow ever meets the property: an encoding or invariant that
  proves nothing. ``proofs`` asks it per applicable consecution.
"""

from __future__ import annotations

import itertools

import z3

from mcp_resume.proofs.system.transitions import Footprint, Step
from mcp_resume.proofs.system.vocabulary import STATE_RELATIONS

_fresh = itertools.count()


def antecedent(formula: z3.BoolRef) -> z3.BoolRef:
    """The antecedent of ``formula`` (a Z3 Boolean built by ``Z3Logic``)."""
    ctx = formula.ctx
    if z3.is_quantifier(formula):
        if not formula.is_forall():
            return z3.BoolVal(True, ctx)
        names = [z3.Const(f"ante!{next(_fresh)}", formula.var_sort(i)) for i in range(formula.num_vars())]
        body = z3.substitute_vars(formula.body(), *reversed(names))
        inner = antecedent(body)
        return inner if z3.is_true(inner) else z3.Exists(names, inner)
    if z3.is_implies(formula):
        guard, claim = formula.children()
        return z3.And(guard, antecedent(claim))
    if z3.is_and(formula):
        parts = [antecedent(part) for part in formula.children()]
        return z3.BoolVal(True, ctx) if any(z3.is_true(p) for p in parts) else z3.Or(*parts)
    return z3.BoolVal(True, ctx)


def restricted(step: Step, print_: Footprint, formula: z3.BoolRef) -> z3.BoolRef:
    """``formula`` with the action's footprint put in: its kind, ``post`` relations it
    frames read as ``pre``, no delivery and status 0 where the action has none; simplified."""
    L, X, Y, O, A = step.L, step.X, step.Y, step.O, step.A
    constants = [(A.kind, L.enum(print_.kind))]
    if not print_.client:
        constants.append((O.status, L.int_(0)))
    functions = []
    for name, sorts in STATE_RELATIONS.items():
        after, before = getattr(Y, name), getattr(X, name)
        if after is not None and name in print_.framed:
            functions.append((after, before(*(z3.Var(i, L.sort(s)) for i, s in enumerate(sorts)))))
    if not print_.delivers:
        constants.append((O.any, L.false()))
        functions += [(O.delivered, L.false()), (O.on, L.false()), (O.requests, L.false())]
    if "t_connected" in print_.framed and not print_.supersedes:
        functions.append((O.closed, L.false()))
    result = z3.substitute(formula, *constants)
    if functions:
        result = z3.substitute_funs(result, *functions)
    return z3.simplify(result)


def not_applicable(step: Step, print_: Footprint, goal: z3.BoolRef, trigger: z3.BoolRef,
                   state_invariant: bool) -> str | None:
    """Why the action of footprint ``print_`` cannot touch the property whose
    (un-negated) goal is ``goal`` and antecedent ``trigger``, or ``None`` when it can;
    decided structurally, from the footprint alone."""
    kind = print_.kind
    if z3.is_false(restricted(step, print_, trigger)):
        return f"structural: no {kind.value} step meets its antecedent (kind, frames and delivery of the action)"
    if state_invariant and not _reads_post(step, restricted(step, print_, goal)):
        return f"structural: {kind.value} frames every relation it reads"
    return None


def _reads_post(step: Step, formula: z3.ExprRef) -> bool:
    post = {getattr(step.Y, name).name() for name in STATE_RELATIONS if getattr(step.Y, name) is not None}
    seen: set[int] = set()
    todo = [formula]
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_quantifier(e):
            todo.append(e.body())
        elif z3.is_app(e):
            if e.decl().name() in post:
                return True
            todo.extend(e.children())
    return False
