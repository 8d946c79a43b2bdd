"""The finite domain of the decision as Z3 enumeration sorts.

One ``Domain`` per Z3 context: a sort for each of ``Method``, ``SessionClass``,
``EventClass``, ``Profile`` and ``Branch``, and a mapping from every member of
the spec's enums to its Z3 constant. Only the *vocabulary* comes from the spec;
what the decision does with it is encoded in ``decision_encoding``.

SMT names are ``<sort>.<member>``, e.g. ``session.absent`` and ``event.absent``,
because two enumeration sorts of one context may not share a constant name.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from itertools import product
from typing import Iterator

import z3

from mcp_resume.spec.decision import Branch, Method
from mcp_resume.spec.headers import EventClass, SessionClass
from mcp_resume.spec.profiles import Profile

ENUMS: tuple[tuple[str, type[Enum]], ...] = (
    ("method", Method),
    ("session", SessionClass),
    ("event", EventClass),
    ("profile", Profile),
    ("branch", Branch),
)
"""The prefix and the spec enum of every sort, in declaration order."""

INPUTS: tuple[str, ...] = ("method", "session", "event", "profile")
"""The inputs of the decision, in the order of ``decide_class``'s parameters."""


def smt_name(prefix: str, member: Enum) -> str:
    """``branch.stream-resumption`` for ``Branch.STREAM_RESUMPTION``."""
    return f"{prefix}.{member.name.lower().replace('_', '-')}"


@dataclass(frozen=True)
class Domain:
    """The sorts and constants of one Z3 context.

    ``sorts[prefix]`` is the sort; ``const[(enum type, member)]`` the Z3
    constant of a spec enum member (keyed by type too: the spec's enums are
    ``str`` enums, so ``SessionClass.ABSENT == EventClass.ABSENT``);
    ``member_of[smt name]`` the way back.
    """

    ctx: z3.Context
    sorts: dict[str, z3.SortRef]
    const: dict[tuple[type, Enum], z3.ExprRef]
    member_of: dict[str, Enum]

    def value(self, member: Enum) -> z3.ExprRef:
        return self.const[(type(member), member)]

    def decode(self, term: z3.ExprRef) -> Enum:
        """The spec enum member a model value denotes."""
        return self.member_of[str(term)]


def make_domain(ctx: z3.Context) -> Domain:
    sorts, const, member_of = {}, {}, {}
    for prefix, enum in ENUMS:
        names = [smt_name(prefix, m) for m in enum]
        sort, values = z3.EnumSort(prefix.capitalize(), names, ctx=ctx)
        sorts[prefix] = sort
        for member, name, value in zip(enum, names, values):
            const[(enum, member)] = value
            member_of[name] = member
    return Domain(ctx, sorts, const, member_of)


@dataclass(frozen=True)
class Inputs:
    """Free Z3 constants for one decision input: method, session, event, profile."""

    method: z3.ExprRef
    session: z3.ExprRef
    event: z3.ExprRef
    profile: z3.ExprRef

    def as_tuple(self) -> tuple[z3.ExprRef, ...]:
        return (self.method, self.session, self.event, self.profile)


def free_inputs(dom: Domain, suffix: str = "") -> Inputs:
    return Inputs(*(z3.Const(name + suffix, dom.sorts[name]) for name in INPUTS))


def class_domain() -> Iterator[tuple[Method, SessionClass, EventClass, Profile]]:
    """Every (method, session class, event class, profile), in enum order (750 of them)."""
    return product(Method, SessionClass, EventClass, Profile)
