"""Which decidable fragment a query is in, read off its assertions.

A query is in *many-sorted EPR with stratified functions* (the fragment Ivy and
mypyvy keep to, which Z3's model-based quantifier instantiation decides) when
the sort graph is acyclic. The graph has an edge A -> B for

- every function symbol with an argument of sort A and a result of sort B, and
- every quantified variable of sort B that is existential where it occurs
  (∃ under an even number of negations, ∀ under an odd one, either under ``=``
  or ``if``) and lies in the scope of a universal variable of sort A: Skolemizing
  it makes a function from A to B.

Only uninterpreted sorts count: Booleans, integers and the decision's finite
enumeration sorts are interpreted, and no quantifier ranges over them; integer
terms (statuses) are ground.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

QUANTIFIER_FREE = "QF"
EPR = "EPR"
OUTSIDE = "outside EPR"


@dataclass(frozen=True)
class Fragment:
    """``name`` is ``QF``, ``EPR`` or ``outside EPR``; ``edges`` the sort graph;
    ``cycle`` one cycle when outside; ``arithmetic``: ground integer terms occur."""

    name: str
    edges: tuple[tuple[str, str], ...]
    cycle: tuple[str, ...] = ()
    arithmetic: bool = False

    def describe(self) -> str:
        if self.name == QUANTIFIER_FREE:
            text = "quantifier-free (finite scope)"
        elif self.name == EPR:
            text = "EPR: many-sorted, stratified (sort graph acyclic)"
        else:
            text = "outside EPR: sort cycle " + " -> ".join(self.cycle)
        return text + (", ground integer statuses" if self.arithmetic else "")


class Classifier:
    """Classifies formulas, remembering what it learnt about each subterm."""

    def __init__(self, uninterpreted: set[str]) -> None:
        self.uninterpreted = uninterpreted
        # keyed by AST id; each entry keeps its AST alive so that its id is never reused
        self._memo: dict[tuple[int, int, frozenset], tuple[z3.ExprRef, tuple[frozenset, bool, bool]]] = {}

    def classify(self, formulas) -> Fragment:
        edges: set[tuple[str, str]] = set()
        quantified = arithmetic = False
        for formula in formulas:
            found, has_quantifier, has_int = self._walk(formula, 1, frozenset())
            edges |= found
            quantified |= has_quantifier
            arithmetic |= has_int
        ordered = tuple(sorted(edges))
        if not quantified:
            return Fragment(QUANTIFIER_FREE, ordered, arithmetic=arithmetic)
        cycle = _find_cycle(edges)
        return Fragment(OUTSIDE if cycle else EPR, ordered, cycle, arithmetic)

    def _walk(self, e: z3.ExprRef, polarity: int, universals: frozenset):
        key = (e.get_id(), polarity, universals)
        if key not in self._memo:
            self._memo[key] = (e, self._visit(e, polarity, universals))
        return self._memo[key][1]

    def _visit(self, e, polarity, universals):
        edges: set = set()
        quantified = False
        arithmetic = z3.is_int(e) and not z3.is_quantifier(e)
        if z3.is_quantifier(e):
            sorts = [e.var_sort(i).name() for i in range(e.num_vars())]
            sorts = [s for s in sorts if s in self.uninterpreted]
            universal = polarity == 0 or (polarity > 0) == e.is_forall()
            existential = polarity == 0 or (polarity > 0) != e.is_forall()
            if existential:
                edges |= {(a, b) for a in universals for b in sorts}
            inner = universals | frozenset(sorts) if universal else universals
            found, _, has_int = self._walk(e.body(), polarity, inner)
            return frozenset(edges | found), True, arithmetic or has_int
        if z3.is_app(e):
            decl = e.decl()
            kind = decl.kind()
            if kind == z3.Z3_OP_UNINTERPRETED and decl.arity() > 0:
                result = decl.range().name()
                for i in range(decl.arity()):
                    arg = decl.domain(i).name()
                    if arg in self.uninterpreted and result in self.uninterpreted:
                        edges.add((arg, result))
            for index, child in enumerate(e.children()):
                found, has_quantifier, has_int = self._walk(child, _child_polarity(e, kind, index, polarity), universals)
                edges |= found
                quantified |= has_quantifier
                arithmetic |= has_int
        return frozenset(edges), quantified, arithmetic


def _child_polarity(e, kind, index: int, polarity: int) -> int:
    if kind == z3.Z3_OP_NOT:
        return -polarity
    if kind == z3.Z3_OP_IMPLIES:
        return -polarity if index == 0 else polarity
    if kind in (z3.Z3_OP_AND, z3.Z3_OP_OR):
        return polarity
    if kind == z3.Z3_OP_ITE:
        return 0 if index == 0 else polarity
    return 0  # =, distinct, and anything else: both polarities


def _find_cycle(edges: set[tuple[str, str]]) -> tuple[str, ...]:
    graph: dict[str, list[str]] = {}
    for a, b in sorted(edges):
        graph.setdefault(a, []).append(b)
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> tuple[str, ...]:
        state[node] = 1
        path.append(node)
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1:
                return tuple(path[path.index(nxt):] + [nxt])
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return ()

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return ()
