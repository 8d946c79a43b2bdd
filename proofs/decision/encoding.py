"""The decision of docs/design.md §2-§3, encoded in Z3 independently of ``spec.decision``.

Written from the design's semantics, not from the Python table: one guard per
branch (a Z3 predicate over method, session class, event class and profile),
and per branch the statuses a server may answer and the one the reference
answers. Nothing here calls ``decide_class``; ``decision_queries`` checks the
two against each other.

Statuses are Z3 integers, unrestricted: a set of statuses is a predicate over
``Int`` built from single codes and closed ranges, so membership is exact for
every integer and no "relevant statuses" domain has to be chosen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import z3

from mcp_resume.spec.decision import Branch, Method
from mcp_resume.spec.headers import EventClass, SessionClass
from mcp_resume.spec.profiles import Profile

from mcp_resume.proofs.decision.domain import Domain, Inputs

Codes = tuple[int | tuple[int, int], ...]
"""A set of HTTP statuses: single codes and closed ranges ``(low, high)``."""


@dataclass(frozen=True)
class BranchRule:
    """What the design says about one branch.

    - ``guard(dom, x)``: the requests that land in the branch;
    - ``accepted(profile_kind, method)``: the statuses a server may answer, where
      ``profile_kind`` is ``"boundary"`` or ``"mcp"`` (the MCP revisions and the
      sessionless one, which never share a branch with each other);
    - ``canonical(method)``: the reference server's status;
    - ``number``: the row of docs/design.md §2's table, if any;
    - ``sources``: MCP rule ids (reference/mcp-transport-rules.md) and design sections.
    """

    guard: Callable[[Domain, Inputs], z3.BoolRef]
    accepted: Callable[[str, Method], Codes]
    canonical: Callable[[Method], int]
    number: int | None
    sources: tuple[str, ...]


def _is(dom: Domain, term: z3.ExprRef, *members) -> z3.BoolRef:
    return z3.Or(*(term == dom.value(m) for m in members))


def _sessionless(dom: Domain, x: Inputs) -> z3.BoolRef:
    """The revision without sessions (docs/design.md §3, MCP F17)."""
    return x.profile == dom.value(Profile.MCP_2026_07_28)


def _era(dom: Domain, x: Inputs, *sessions: SessionClass) -> z3.BoolRef:
    """A session-era profile, and the session header in one of ``sessions``."""
    return z3.And(z3.Not(_sessionless(dom, x)), _is(dom, x.session, *sessions))


def _live_get(dom: Domain, x: Inputs, *events: EventClass) -> z3.BoolRef:
    return z3.And(_era(dom, x, SessionClass.LIVE), x.method == dom.value(Method.GET), _is(dom, x.event, *events))


def _fixed(*codes) -> Callable[[str, Method], Codes]:
    return lambda kind, method: codes


def _always(code: int) -> Callable[[Method], int]:
    return lambda method: code


_BAD_EVENT_IDS = (EventClass.MALFORMED, EventClass.UNKNOWN, EventClass.EXPIRED, EventClass.EVICTED, EventClass.FOREIGN)
_POSTS_IN_SESSION = (Method.POST_REQUEST, Method.POST_RESPONSE)
_CLIENT_ERRORS = (400, 499)


def _stream_resumption_codes(kind, method):
    # B15: a GET gets an SSE stream or 405 (no GET stream offered); boundary: the replay.
    return (200,) if kind == "boundary" else (200, 405)


def _session_resumption_codes(kind, method):
    # B15 again; 409 is the SDKs' refusal of a second GET stream (rules §3.3).
    return (200,) if kind == "boundary" else (200, 405, 409)


def _foreign_event_codes(kind, method):
    # Boundary: a 4xx but never 404 (B34 would make the client drop a live session).
    # MCP is silent (rules §3.2, #1939): any 4xx, or an (empty) SSE stream.
    return ((400, 403), (405, 499)) if kind == "boundary" else (200, _CLIENT_ERRORS)


def _malformed_session_codes(kind, method):
    # B30 bounds the charset but names no status: MCP lets a server treat it as unknown (404).
    return (400,) if kind == "boundary" else (400, 404)


def _missing_session_codes(kind, method):
    # B32: 400; a GET or DELETE may get 405 from a server that offers no GET stream (B15) or no DELETE (B35).
    return (400, 405) if method in (Method.GET, Method.DELETE) else (400,)


def _in_session_post_codes(kind, method):
    # B6/B7: a response or notification accepted is 202; a request gets 200 (SSE or JSON).
    return (202,) if method is Method.POST_RESPONSE else (200,)


def _in_session_post_canonical(method):
    return 202 if method is Method.POST_RESPONSE else 200


def _sessionless_post_codes(kind, method):
    # F3/F4: a client may not send responses any more; the server rejects one (400) or
    # accepts and drops it (202). Requests, initialize included, get 200.
    return (202, 400) if method is Method.POST_RESPONSE else (200,)


def _sessionless_post_canonical(method):
    return 400 if method is Method.POST_RESPONSE else 200


RULES: dict[Branch, BranchRule] = {
    # -- guards: the session header decides before anything else (B30, B33, B34) ------
    Branch.MALFORMED_SESSION: BranchRule(
        lambda dom, x: _era(dom, x, SessionClass.MALFORMED),
        _malformed_session_codes, _always(400), None, ("B30", "D35", "decision guards"),
    ),
    Branch.UNKNOWN_SESSION: BranchRule(
        lambda dom, x: _era(dom, x, SessionClass.UNKNOWN, SessionClass.ENDED),
        _fixed(404), _always(404), None, ("B33", "B34", "D38", "decision guards"),
    ),
    # -- a live session -----------------------------------------------------------------
    Branch.STREAM_RESUMPTION: BranchRule(
        lambda dom, x: _live_get(dom, x, EventClass.RETAINED),
        _stream_resumption_codes, _always(200), 1, ("B24", "B25", "B26", "D29", "D30", "D31"),
    ),
    Branch.SESSION_RESUMPTION: BranchRule(
        lambda dom, x: _live_get(dom, x, EventClass.ABSENT),
        _session_resumption_codes, _always(200), 2, ("B15", "B21", "rules §3.7"),
    ),
    Branch.REJECT_FOREIGN_EVENT_ID: BranchRule(
        lambda dom, x: _live_get(dom, x, *_BAD_EVENT_IDS),
        _foreign_event_codes, _always(400), 3, ("B26", "B34", "rules §3.2"),
    ),
    Branch.REINITIALIZE: BranchRule(
        lambda dom, x: z3.And(_era(dom, x, SessionClass.LIVE), x.method == dom.value(Method.POST_INITIALIZE)),
        _fixed(200, 400), _always(400), None, ("B28", "B31"),
    ),
    Branch.SESSION_REQUEST: BranchRule(
        lambda dom, x: z3.And(_era(dom, x, SessionClass.LIVE), _is(dom, x.method, *_POSTS_IN_SESSION)),
        _in_session_post_codes, _in_session_post_canonical, None, ("B6", "B7", "D31"),
    ),
    Branch.SESSION_TERMINATION: BranchRule(
        lambda dom, x: z3.And(_era(dom, x, SessionClass.LIVE), x.method == dom.value(Method.DELETE)),
        # B36 leaves the success status open: any 2xx ends the session; 405 refuses.
        _fixed((200, 299), 405), _always(200), None, ("B35", "B36", "rules §3.9"),
    ),
    # -- no session header --------------------------------------------------------------
    Branch.REJECT_ORPHAN_EVENT_ID: BranchRule(
        lambda dom, x: z3.And(
            _era(dom, x, SessionClass.ABSENT),
            x.method == dom.value(Method.GET),
            z3.Not(x.event == dom.value(EventClass.ABSENT)),
        ),
        _fixed(400, 405), _always(400), 4, ("B23", "B32", "B15"),
    ),
    Branch.NEW_SESSION: BranchRule(
        lambda dom, x: z3.And(_era(dom, x, SessionClass.ABSENT), x.method == dom.value(Method.POST_INITIALIZE)),
        _fixed(200), _always(200), 5, ("B28",),
    ),
    Branch.MISSING_SESSION: BranchRule(
        lambda dom, x: z3.And(
            _era(dom, x, SessionClass.ABSENT),
            z3.Or(
                _is(dom, x.method, Method.POST_REQUEST, Method.POST_RESPONSE, Method.DELETE),
                z3.And(x.method == dom.value(Method.GET), x.event == dom.value(EventClass.ABSENT)),
            ),
        ),
        _missing_session_codes, _always(400), 5, ("B31", "B32", "B15", "B35"),
    ),
    # -- the sessionless revision: both headers ignored (F17) ------------------------------
    Branch.METHOD_NOT_ALLOWED: BranchRule(
        lambda dom, x: z3.And(_sessionless(dom, x), _is(dom, x.method, Method.GET, Method.DELETE)),
        _fixed(405), _always(405), None, ("F1", "F17"),
    ),
    Branch.SESSIONLESS_REQUEST: BranchRule(
        lambda dom, x: z3.And(
            _sessionless(dom, x),
            _is(dom, x.method, Method.POST_INITIALIZE, Method.POST_REQUEST, Method.POST_RESPONSE),
        ),
        _sessionless_post_codes, _sessionless_post_canonical, None, ("F3", "F4", "F17"),
    ),
}
"""The design's rule for every branch. A branch of the spec missing here is a bug
that the ``reachable-*`` queries report (``KeyError`` names it)."""


def rule(branch: Branch) -> BranchRule:
    try:
        return RULES[branch]
    except KeyError:
        raise KeyError(f"branch {branch.value!r} has no guard in the Z3 encoding") from None


def guard(dom: Domain, x: Inputs, branch: Branch) -> z3.BoolRef:
    """True exactly for the inputs that land in ``branch``."""
    return rule(branch).guard(dom, x)


def member(code: z3.ArithRef, codes: Codes) -> z3.BoolRef:
    """``code`` is one of ``codes`` (single statuses and closed ranges)."""
    parts = [
        z3.And(code >= item[0], code <= item[1]) if isinstance(item, tuple) else code == item
        for item in codes
    ]
    return z3.Or(*parts) if parts else z3.BoolVal(False, code.ctx)


def accepts(dom: Domain, x: Inputs, code: z3.ArithRef) -> z3.BoolRef:
    """The design accepts status ``code`` for the request ``x``."""
    boundary = x.profile == dom.value(Profile.BOUNDARY)
    cases = []
    for branch in Branch:
        spec = rule(branch)
        by_method = [
            z3.And(
                x.method == dom.value(method),
                z3.If(boundary, member(code, spec.accepted("boundary", method)), member(code, spec.accepted("mcp", method))),
            )
            for method in Method
        ]
        cases.append(z3.And(guard(dom, x, branch), z3.Or(*by_method)))
    return z3.Or(*cases)


def canonical(dom: Domain, x: Inputs) -> z3.ArithRef:
    """The reference status for the request ``x`` (an If-chain over the guards)."""
    result: z3.ArithRef = z3.IntVal(0, dom.ctx)  # reached by no input when the guards are total
    for branch in reversed(list(Branch)):
        result = z3.If(guard(dom, x, branch), _canonical_by_method(dom, x, rule(branch)), result)
    return result


def _canonical_by_method(dom: Domain, x: Inputs, spec: BranchRule) -> z3.ArithRef:
    *first, last = list(Method)
    result = z3.IntVal(spec.canonical(last), dom.ctx)
    for method in reversed(first):
        result = z3.If(x.method == dom.value(method), z3.IntVal(spec.canonical(method), dom.ctx), result)
    return result


def numbered_branches() -> dict[Branch, int]:
    """docs/design.md §2's row number of each numbered branch, per this encoding."""
    return {b: r.number for b, r in RULES.items() if r.number is not None}
