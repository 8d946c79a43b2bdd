"""Trivial proofs: obligations the action's effect equations settle on their own.

An initiation or consecution query is the goal (the property, negated) and what
it assumes: the axioms on event order (``axiom.*``), the initial state
(``init.*``) or the invariant hypotheses (``inv.*``), and the action's
transition formula. The conjuncts of a transition formula are of two sorts
(``transitions.effect_equations``):

- *effect equations*: which action the step is (``kind``, ``no-headers``), the
  state relations after it as functions of those before (each update, or the
  frame condition of a relation the action keeps; a reconnect's ``e_issued``)
  and what the client is shown (``delivered``, ``closed``, ``tr.obs.*``, the
  stream a reconnect names);
- *guards*: whatever restricts the state before or the step's choices:
  ``enabled``, ``fresh-*``, the statuses a profile accepts (``status``), the
  dealing events a session resumption mints (``dealing-events``) and the
  ``def.*`` definitions that the decision and the guards read (header classes,
  the canonical status, whether a request proceeds, which server requests are
  stranded).

**Definition.** An obligation expected unsat, and answered unsat, is *trivial*
when its goal is unsat with the action's effect equations alone: no axiom, no
initial state, no invariant hypothesis, no guard (for an initiation, which has
no action: the goal alone). The property then holds of every step of that action
from every state, reachable or not, whatever the decision and the guards choose;
the encoding restates it (``no-replay-on-session-resume``: a reconnect delivers
events sent before only on a stream resumption) or the frame conditions carry it
(``session-identity-stable`` after ``call_tool``). A trivial obligation is true
but shows nothing about what the spec does, so ``proofs`` reports it as
``ProofStatus.TRIVIAL``, never as proven. *Proven* means the effect-only query is
sat: its model is a step that breaks the property once the assumptions are
dropped, so the proof rests on at least one of them.

How it is decided (``effect_check``): when the unsat core of the obligation
already lies within the effect equations (and ``goal``), that core is the proof
and no query is asked; otherwise one query, the goal and the effect equations,
each tracked, decides. An unknown answer (resource limit) does not show that
the proof needs more than the effect equations, so the obligation is filed
trivial, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from mcp_resume.proofs.solving import DEFAULT_RLIMIT, DEFAULT_SEED, Conjunct, Meter, SatResult, solve
from mcp_resume.proofs.system.transitions import effect_equations
from mcp_resume.proofs.system.vocabulary import ActionKind

GOAL = "goal"


@dataclass(frozen=True)
class EffectCheck:
    """The effect-only reading of one proof: ``result`` of the effect-only query (``UNSAT``
    also when the original core settled it without a query), ``core`` the conjuncts an
    unsat answer used, ``queried`` whether a query was asked, ``reason_unknown`` Z3's
    reason for an unknown answer."""

    result: SatResult
    core: tuple[str, ...]
    queried: bool
    reason_unknown: str | None = None

    @property
    def trivial(self) -> bool:
        """Not shown to need anything beyond the effect equations (not sat)."""
        return self.result is not SatResult.SAT

    def describe(self) -> str:
        """One line for the report: why the obligation is trivial, or that it is not."""
        if self.result is SatResult.SAT:
            return "needs more than the effect equations (the effect-only query is sat)"
        if self.result is SatResult.UNKNOWN:
            return f"not shown to need more than the effect equations (effect-only query unknown: {self.reason_unknown})"
        used = ", ".join(n for n in self.core if n != GOAL) or "nothing"
        how = "effect-only query" if self.queried else "its own unsat core"
        return f"unsat from the effect equations alone ({how}: {used})"


def allowed(action: ActionKind | None) -> frozenset[str]:
    """The conjunct names a trivial proof may use: ``goal`` and the effect equations of
    ``action`` (none for an initiation, ``action`` ``None``)."""
    return frozenset({GOAL}) | (effect_equations(action) if action is not None else frozenset())


def effect_only(conjuncts: Iterable[Conjunct], action: ActionKind | None) -> list[Conjunct]:
    """The conjuncts of an obligation's query that a trivial proof may use, in their order.
    Raises ``ValueError`` when there is no ``goal`` among them."""
    names = allowed(action)
    kept = [c for c in conjuncts if c.name in names]
    if not any(c.name == GOAL for c in kept):
        raise ValueError("an obligation without a goal has no effect-only reading")
    return kept


def effect_check(conjuncts: list[Conjunct], action: ActionKind | None, core: Iterable[str], meter: Meter,
                 rlimit: int = DEFAULT_RLIMIT, random_seed: int = DEFAULT_SEED) -> EffectCheck:
    """Whether an obligation proven unsat with ``conjuncts`` (its unsat core ``core``) is
    trivial: settled by the core when it uses only ``allowed(action)``, else by one
    query in ``meter``'s context. Raises ``ValueError`` for a non-positive ``rlimit``
    or conjuncts without a ``goal``."""
    core = tuple(core)
    if core and set(core) <= allowed(action):
        return EffectCheck(SatResult.UNSAT, core, queried=False)
    solved = solve(effect_only(conjuncts, action), meter=meter, rlimit=rlimit, random_seed=random_seed)
    return EffectCheck(solved.result, solved.core, queried=True, reason_unknown=solved.reason_unknown)
