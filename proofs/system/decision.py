"""The reconnect decision inside the transition system.

The headers of one action are classified against the state before the step
(docs/design.md §2: which session the id names, whether the event id names an event
of a retained stream of that session), and the classes are handed to the Z3
encoding of the decision (``decision_encoding``), whose totality, exclusivity
and agreement with ``spec.decision.decide_class`` the decision queries prove.
So the state machine and the decision table share one statement of the table.

In ``PyLogic`` the same encoding is evaluated on concrete classes.
"""

from __future__ import annotations

from functools import lru_cache

import z3

from mcp_resume.spec.decision import Branch, Method
from mcp_resume.spec.headers import EventClass, SessionClass
from mcp_resume.spec.profiles import Profile

from mcp_resume.proofs.decision import encoding as design
from mcp_resume.proofs.decision.domain import Inputs, make_domain
from mcp_resume.proofs.system.logic import Conjunct, Logic, PyLogic
from mcp_resume.proofs.system.vocabulary import Params, Rigid, State


def session_class(L: Logic, X: State, A: Params):
    """The class of ``Mcp-Session-Id`` in state ``X`` (``SessionClass``)."""
    return L.ite(
        L.not_(A.sh_present), L.enum(SessionClass.ABSENT),
        L.ite(A.sh_malformed, L.enum(SessionClass.MALFORMED),
              L.ite(L.not_(X.s_issued(A.sh)), L.enum(SessionClass.UNKNOWN),
                    L.ite(X.s_live(A.sh), L.enum(SessionClass.LIVE), L.enum(SessionClass.ENDED)))),
    )


def names_own_event(L: Logic, X: State, R: Rigid, A: Params):
    """``Last-Event-ID`` names an issued event of the session the session header names."""
    return L.and_(
        A.eh_present, L.not_(A.eh_malformed), X.e_issued(A.eh),
        A.sh_present, L.not_(A.sh_malformed), L.eq(R.owner(R.stream_of(A.eh)), A.sh),
    )


def event_class(L: Logic, X: State, R: Rigid, A: Params):
    """The class of ``Last-Event-ID`` relative to the session header (``EventClass``)."""
    own = names_own_event(L, X, R, A)
    return L.ite(
        L.not_(A.eh_present), L.enum(EventClass.ABSENT),
        L.ite(A.eh_malformed, L.enum(EventClass.MALFORMED),
              L.ite(L.not_(X.e_issued(A.eh)), L.enum(EventClass.UNKNOWN),
                    L.ite(L.not_(own), L.enum(EventClass.FOREIGN),
                          L.ite(X.t_expired(R.stream_of(A.eh)), L.enum(EventClass.EXPIRED),
                                L.ite(X.e_evicted(A.eh), L.enum(EventClass.EVICTED),
                                      L.enum(EventClass.RETAINED)))))),
    )


def class_definitions(L: Logic, X: State, R: Rigid, A: Params) -> list[Conjunct]:
    """The header classes of one step as named constants (``<tag>.session_class``,
    ``<tag>.event_class``) and their definitions; none in ``PyLogic``, which
    computes the classes directly."""
    if isinstance(L, PyLogic):
        return []
    session, event = _class_constants(L, A)
    return [
        Conjunct("def.session-class", L.eq(session, session_class(L, X, A))),
        Conjunct("def.event-class", L.eq(event, event_class(L, X, R, A))),
    ]


def _class_constants(L: Logic, A: Params):
    return L.enum_constant(f"{A.tag}.session_class", SessionClass), L.enum_constant(f"{A.tag}.event_class", EventClass)


class Request:
    """One client request's decision inputs and what the design says about them.

    In the Z3 backends the classes are the step's class constants, so a formula
    that uses them needs ``class_definitions`` among its assertions.
    """

    def __init__(self, L: Logic, method: Method, X: State, R: Rigid, A: Params, profile: Profile) -> None:
        self.L = L
        self.method = method
        self.profile = profile
        self._cache = L.__dict__.setdefault("_decision_cache", {})
        if isinstance(L, PyLogic):
            self.session, self.event = session_class(L, X, A), event_class(L, X, R, A)
        else:
            self.session, self.event = _class_constants(L, A)

    def lands(self, branch: Branch):
        """The request lands in ``branch``."""
        if isinstance(self.L, PyLogic):
            return _branch_of(self.method, self.session, self.event, self.profile) is branch
        key = ("lands", self.session.get_id(), self.method, self.profile, branch)
        if key not in self._cache:
            self._cache[key] = (self.session, z3.simplify(design.guard(self.L.dom, self._inputs(), branch)))
        return self._cache[key][1]

    def accepts(self, status):
        """The design accepts ``status`` (before the state's refinements): for the
        request's method and profile, ``decision_encoding``'s guard of some branch and
        that branch's acceptable statuses."""
        kind = "boundary" if self.profile is Profile.BOUNDARY else "mcp"
        if isinstance(self.L, PyLogic):
            branch = _branch_of(self.method, self.session, self.event, self.profile)
            return _member(status, design.rule(branch).accepted(kind, self.method))
        cases = [self.L.and_(self.lands(b), design.member(status, design.rule(b).accepted(kind, self.method))) for b in Branch]
        return z3.simplify(self.L.or_(*cases))

    def canonical(self):
        """The reference server's status: that of the branch the request lands in."""
        if isinstance(self.L, PyLogic):
            return design.rule(_branch_of(self.method, self.session, self.event, self.profile)).canonical(self.method)
        *rest, last = list(Branch)
        result = self.L.int_(design.rule(last).canonical(self.method))
        for branch in reversed(rest):
            result = self.L.ite(self.lands(branch), self.L.int_(design.rule(branch).canonical(self.method)), result)
        return z3.simplify(result)

    def _inputs(self) -> Inputs:
        L = self.L
        return Inputs(L.enum(self.method), self.session, self.event, L.enum(self.profile))


@lru_cache(maxsize=None)
def _branch_of(method: Method, session: SessionClass, event: EventClass, profile: Profile) -> Branch:
    """The branch whose Z3 guard holds for these concrete inputs."""
    dom = make_domain(z3.Context())
    x = Inputs(dom.value(method), dom.value(session), dom.value(event), dom.value(profile))
    for branch in Branch:
        if z3.is_true(z3.simplify(design.guard(dom, x, branch))):
            return branch
    raise ValueError(f"no branch of the decision encoding takes {method}, {session}, {event}, {profile}")


def _member(status: int, codes: design.Codes) -> bool:
    return any(c[0] <= status <= c[1] if isinstance(c, tuple) else status == c for c in codes)
