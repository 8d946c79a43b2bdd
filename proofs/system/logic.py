"""One first-order vocabulary, three ways to read it.

The transition system (``system.transitions``) and its invariants (``system.invariants``)
are written once, against the small API of ``Logic``, and read by three backends:

- ``Z3Logic``: uninterpreted sorts and real quantifiers, for the unbounded proofs
  (initiation and consecution hold for any number of sessions, streams, events and
  server requests);
- ``FiniteLogic``: finite enumeration sorts of a given scope, every quantifier
  expanded into a conjunction or disjunction over the scope, for bounded model
  checking (quantifier-free problems);
- ``PyLogic``: plain Python evaluation on one finite structure, for checking that
  the executable spec's own steps satisfy the formulas (``system.agreement``).

Sorts are named by strings (``SESSION`` ...). The decision's enumerations
(method, header classes, profile, branch) come from ``decision.domain`` in the Z3
backends and are plain spec enum members in ``PyLogic``.
"""

from __future__ import annotations

import itertools
from enum import Enum
from typing import Callable, Iterable, Sequence

import z3

from mcp_resume.proofs.decision.domain import Domain, make_domain
from mcp_resume.proofs.solving import Conjunct  # noqa: F401  (re-exported: the encoding's named parts)

SESSION, STREAM, EVENT, REQUEST = "SessionId", "StreamId", "EventId", "RequestId"
SORTS: tuple[str, ...] = (SESSION, STREAM, EVENT, REQUEST)
"""The uninterpreted sorts: the ids of the four kinds of entity of the spec's state
(an entity is its id). Named ``...Id`` because the decision domain already has
enumeration sorts called ``Session`` and ``Event`` (header classes)."""

VARIABLE_PREFIX = {SESSION: "s", STREAM: "t", EVENT: "e", REQUEST: "r"}


class Logic:
    """The operations the encoding uses; every backend implements all of them."""

    finite: bool = False
    """True when every sort is a finite scope (bounded model checking)."""

    # -- symbols ---------------------------------------------------------------
    def relation(self, name: str, sorts: Sequence[str]) -> Callable: ...
    def function(self, name: str, sorts: Sequence[str], result: str) -> Callable: ...
    def constant(self, name: str, sort: str): ...
    def boolean(self, name: str): ...
    def integer(self, name: str): ...
    def enum_constant(self, name: str, enum: type[Enum]): ...

    def define(self, name: str, term, kind: str = "bool") -> tuple[object, list[Conjunct]]:
        """``term`` named: a constant ``name`` (``kind`` ``"bool"`` or ``"int"``) and
        the conjunct ``def.<name>`` that defines it; ``PyLogic`` returns the value itself."""
        constant = self.boolean(name) if kind == "bool" else self.integer(name)
        return constant, [Conjunct(f"def.{name}", self.eq(constant, term))]

    # -- terms -----------------------------------------------------------------
    def enum(self, member: Enum): ...
    def forall(self, sorts: Sequence[str], body: Callable): ...
    def exists(self, sorts: Sequence[str], body: Callable): ...
    def and_(self, *items): ...
    def or_(self, *items): ...
    def not_(self, item): ...
    def implies(self, a, b): ...
    def iff(self, a, b): ...
    def eq(self, a, b): ...
    def ite(self, c, a, b): ...
    def true(self): ...
    def false(self): ...
    def int_(self, value: int): ...
    def between(self, term, low: int, high: int): ...


class _Z3Common(Logic):
    """What both Z3 backends share: symbols, connectives, the decision domain."""

    def __init__(self, ctx: z3.Context | None = None) -> None:
        self.ctx = ctx or z3.Context()
        self.dom: Domain = make_domain(self.ctx)
        self._sorts: dict[str, z3.SortRef] = {}
        self._symbols: dict[str, object] = {}
        self._extra_sorts: dict[type, z3.SortRef] = {}
        self._enum_values: dict[tuple[type, Enum], z3.ExprRef] = {}  # keyed by type: str enums compare equal

    def sort(self, name: str) -> z3.SortRef:
        return self._sorts[name]

    def relation(self, name, sorts):
        return self._declare(name, [self.sort(s) for s in sorts] + [z3.BoolSort(self.ctx)])

    def function(self, name, sorts, result):
        return self._declare(name, [self.sort(s) for s in sorts] + [self.sort(result)])

    def constant(self, name, sort):
        return self._memo(name, lambda: z3.Const(name, self.sort(sort)))

    def boolean(self, name):
        return self._memo(name, lambda: z3.Bool(name, self.ctx))

    def integer(self, name):
        return self._memo(name, lambda: z3.Int(name, self.ctx))

    def enum_constant(self, name, enum):
        return self._memo(name, lambda: z3.Const(name, self._enum_sort(enum)))

    def enum(self, member):
        self._enum_sort(type(member))
        return self._enum_values[(type(member), member)]

    def decode_enum(self, value, enum: type[Enum]) -> Enum:
        """The member of ``enum`` that the model value ``value`` denotes."""
        self._enum_sort(enum)
        text = str(value)
        for member in enum:
            if str(self._enum_values[(enum, member)]) == text:
                return member
        raise ValueError(f"{text} is not a member of {enum.__name__}")

    def _enum_sort(self, enum: type[Enum]) -> z3.SortRef:
        """The sort of a spec enum: the decision domain's, or one made on first use."""
        if enum.__name__ in _DOMAIN_PREFIX:
            sort = self.dom.sorts[_DOMAIN_PREFIX[enum.__name__]]
            for member in enum:
                self._enum_values.setdefault((enum, member), self.dom.value(member))
            return sort
        if enum not in self._extra_sorts:
            prefix = enum.__name__.lower()
            names = [f"{prefix}.{m.value}" for m in enum]
            sort, values = z3.EnumSort(enum.__name__, names, ctx=self.ctx)
            self._extra_sorts[enum] = sort
            self._enum_values.update({(enum, m): v for m, v in zip(enum, values)})
        return self._extra_sorts[enum]

    def _declare(self, name, signature):
        return self._memo(name, lambda: z3.Function(name, *signature))

    def _memo(self, name, make):
        if name not in self._symbols:
            self._symbols[name] = make()
        return self._symbols[name]

    def and_(self, *items):
        items = _flatten(items)
        if not items:
            return z3.BoolVal(True, self.ctx)
        return items[0] if len(items) == 1 else self._nary(z3.Z3_mk_and, items)

    def or_(self, *items):
        items = _flatten(items)
        if not items:
            return z3.BoolVal(False, self.ctx)
        return items[0] if len(items) == 1 else self._nary(z3.Z3_mk_or, items)

    def not_(self, item):
        return z3.BoolRef(z3.Z3_mk_not(self.ctx.ref(), item.as_ast()), self.ctx)

    def implies(self, a, b):
        return z3.BoolRef(z3.Z3_mk_implies(self.ctx.ref(), a.as_ast(), b.as_ast()), self.ctx)

    def _nary(self, make, items):
        """``make`` (``Z3_mk_and``/``Z3_mk_or``) straight from the C API: z3py's wrappers
        re-check every argument, which dominates building the unrolled formulas."""
        arguments = (z3.Ast * len(items))(*(item.as_ast() for item in items))
        return z3.BoolRef(make(self.ctx.ref(), len(items), arguments), self.ctx)

    def iff(self, a, b):
        return a == b

    def eq(self, a, b):
        return a == b

    def ite(self, c, a, b):
        return z3.If(c, a, b)

    def true(self):
        return z3.BoolVal(True, self.ctx)

    def false(self):
        return z3.BoolVal(False, self.ctx)

    def int_(self, value):
        return z3.IntVal(value, self.ctx)

    def between(self, term, low, high):
        return z3.And(term >= low, term <= high)


_DOMAIN_PREFIX = {"Method": "method", "SessionClass": "session", "EventClass": "event", "Profile": "profile", "Branch": "branch"}


class Z3Logic(_Z3Common):
    """Uninterpreted sorts, real quantifiers: a formula is about every structure."""

    def __init__(self, ctx: z3.Context | None = None) -> None:
        super().__init__(ctx)
        for name in SORTS:
            self._sorts[name] = z3.DeclareSort(name, self.ctx)
        self._counter = itertools.count()

    def _bound(self, sorts):
        return [z3.Const(f"{VARIABLE_PREFIX[s]}{next(self._counter)}", self.sort(s)) for s in sorts]

    def forall(self, sorts, body):
        variables = self._bound(sorts)
        return z3.ForAll(variables, body(*variables))

    def exists(self, sorts, body):
        variables = self._bound(sorts)
        return z3.Exists(variables, body(*variables))


class FiniteLogic(_Z3Common):
    """Finite scopes: ``scope[sort]`` elements per sort, quantifiers expanded.

    Every formula built here is quantifier-free, so bounded model checking is a
    ground satisfiability problem over enumeration sorts and uninterpreted
    functions.
    """

    finite = True

    def __init__(self, scope: dict[str, int], ctx: z3.Context | None = None, expand: bool = True) -> None:
        super().__init__(ctx)
        self.expand = expand
        self._counter = itertools.count()
        self.scope = dict(scope)
        self.elements: dict[str, list[z3.ExprRef]] = {}
        for name in SORTS:
            names = [f"{VARIABLE_PREFIX[name]}!{i}" for i in range(scope[name])]
            sort, values = z3.EnumSort(name, names, ctx=self.ctx)
            self._sorts[name], self.elements[name] = sort, list(values)

    def forall(self, sorts, body):
        return self.and_(*self._instances(sorts, body)) if self.expand else z3.ForAll(*self._quantified(sorts, body))

    def exists(self, sorts, body):
        return self.or_(*self._instances(sorts, body)) if self.expand else z3.Exists(*self._quantified(sorts, body))

    def _quantified(self, sorts, body):
        variables = [z3.Const(f"{VARIABLE_PREFIX[s]}{next(self._counter)}", self.sort(s)) for s in sorts]
        return variables, body(*variables)

    def _instances(self, sorts, body):
        """The body once with placeholder constants, then one substitution per combination
        of elements (much cheaper than building every instance afresh)."""
        placeholders, template = self._quantified(sorts, body)
        return [
            z3.substitute(template, *zip(placeholders, combo))
            for combo in itertools.product(*(self.elements[s] for s in sorts))
        ]


class PyLogic(Logic):
    """Evaluation on one finite structure.

    ``domain[sort]`` lists the elements (any hashable values); ``values[name]``
    interprets each symbol: a set of tuples for a relation (a set of single
    values for a unary one), a dict from argument tuples (or single values) to
    a value for a function, a value for a constant. A relation missing from
    ``values`` is empty; a function missing an argument yields ``None``.
    """

    def __init__(self, domain: dict[str, Sequence], values: dict[str, object]) -> None:
        self.domain = {s: list(domain.get(s, ())) for s in SORTS}
        self.values = values

    def relation(self, name, sorts):
        table = self.values.get(name, set())
        if len(sorts) == 1:
            return lambda x: x in table
        return lambda *args: args in table

    def function(self, name, sorts, result):
        table = self.values.get(name, {})
        if len(sorts) == 1:
            return lambda x: table.get(x)
        return lambda *args: table.get(args)

    def constant(self, name, sort):
        return self.values.get(name)

    def boolean(self, name):
        return bool(self.values.get(name, False))

    def integer(self, name):
        return int(self.values.get(name, 0))

    def enum_constant(self, name, enum):
        return self.values.get(name)

    def define(self, name, term, kind="bool"):
        return term, []

    def enum(self, member):
        return member

    # Loops rather than all()/any() over generators: the same answers, short-circuited the
    # same way, and cheaper; the agreement stage of prove evaluates millions of these.

    def forall(self, sorts, body):
        for combo in itertools.product(*(self.domain[s] for s in sorts)):
            if not body(*combo):
                return False
        return True

    def exists(self, sorts, body):
        for combo in itertools.product(*(self.domain[s] for s in sorts)):
            if body(*combo):
                return True
        return False

    def and_(self, *items):
        for item in items:
            if not (self.and_(*item) if isinstance(item, (list, tuple)) else item):
                return False
        return True

    def or_(self, *items):
        for item in items:
            if self.or_(*item) if isinstance(item, (list, tuple)) else item:
                return True
        return False

    def not_(self, item):
        return not item

    def implies(self, a, b):
        return (not a) or bool(b)

    def iff(self, a, b):
        return bool(a) == bool(b)

    def eq(self, a, b):
        return a == b

    def ite(self, c, a, b):
        return a if c else b

    def true(self):
        return True

    def false(self):
        return False

    def int_(self, value):
        return value

    def between(self, term, low, high):
        return low <= term <= high


def _flatten(items: Iterable) -> list:
    flat = []
    for item in items:
        if isinstance(item, (list, tuple)):
            flat.extend(_flatten(item))
        else:
            flat.append(item)
    return flat
