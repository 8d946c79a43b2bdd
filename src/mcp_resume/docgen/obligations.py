"""Proof obligations per rule: the Z3 decision queries, and those an optional hook adds.

A query over the decision covers the rule that judges the branch it is about
(``BRANCH_RULE``): ``reachable-<branch>`` and ``boundary-branch-<n>-<branch>``.
``DECISION_WIDE`` queries hold the whole table to the design and back every rule
that judges a branch; ``EXTRA_RULES`` names the rules of the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcp_resume.proofs.decision.queries import decision_queries
from mcp_resume.spec.decision import BRANCH_RULE, Branch


@dataclass(frozen=True)
class Obligation:
    name: str
    statement: str
    source: str  # what discharges it, e.g. "Z3, mcp-resume check"


DECISION_WIDE = (
    "decision-total", "decision-exclusive", "canonical-acceptable",
    "agreement-branch", "agreement-statuses", "agreement-status",
)

EXTRA_RULES = {
    "boundary-404-only-unknown-session": ("unknown-session-404", "reject-foreign-event-id"),
}

_BRANCH_QUERY = re.compile(r"(?:reachable|boundary-branch-\d+)-(?P<branch>[a-z0-9-]+)")
_BRANCHES = {branch.value: branch for branch in Branch}

_SOURCE = "Z3, `mcp-resume check`"


def decision_obligations() -> tuple[list[Obligation], dict[str, list[Obligation]]]:
    """(the decision-wide queries, the other queries by the rule they cover)."""
    wide: list[Obligation] = []
    by_rule: dict[str, list[Obligation]] = {}
    for query in decision_queries():
        obligation = Obligation(query.id, query.description, _SOURCE)
        if query.id in DECISION_WIDE:
            wide.append(obligation)
            continue
        for rule in _rules_of(query.id):
            by_rule.setdefault(rule, []).append(obligation)
    return wide, by_rule


def rules_judging_branches() -> set[str]:
    return set(BRANCH_RULE.values())


def _rules_of(query_id: str) -> tuple[str, ...]:
    if query_id in EXTRA_RULES:
        return EXTRA_RULES[query_id]
    match = _BRANCH_QUERY.fullmatch(query_id)
    if match and match["branch"] in _BRANCHES:
        return (BRANCH_RULE[_BRANCHES[match["branch"]]],)
    raise ValueError(f"decision query {query_id!r} covers no known rule; add it to DECISION_WIDE or EXTRA_RULES")
