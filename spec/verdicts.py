"""Verdicts: how a profile judges a rule that was checked (docs/design.md §3).

- PASS: checked and held;
- FAIL: a MUST of the profile broken;
- WARN: a SHOULD of the profile broken;
- SKIP: the server does not offer what the rule needs (405 on GET, no event ids ...);
- INCONCLUSIVE: the scenario could not be driven (timeout, broken SSE ...).

A broken MAY is a WARN: the server may choose not to do what the rule says, but
what it did met none of the rule's expectations (a 5xx, say), and that is said,
never passed over. A rule the profile does not apply passes, with the
finding kept as evidence.
"""

from __future__ import annotations

from enum import Enum

from .catalog import level
from .profiles import Level, Profile


class Verdict(str, Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    WARN = "WARN"
    SKIP = "SKIP"
    INCONCLUSIVE = "INCONCLUSIVE"


SEVERITY_ORDER = (Verdict.FAIL, Verdict.INCONCLUSIVE, Verdict.WARN, Verdict.SKIP, Verdict.PASS)
"""From worst to best: the verdict of a rule checked several times is the worst one."""


BROKEN_VERDICT: dict[Level, Verdict] = {
    Level.MUST: Verdict.FAIL,
    Level.SHOULD: Verdict.WARN,
    Level.MAY: Verdict.WARN,
    Level.NOT_APPLICABLE: Verdict.PASS,
}
"""The verdict of a broken rule, by its level under the chosen profile."""


def verdict_for_broken(rule_id: str, profile: Profile, case: str | None = None) -> Verdict:
    """The verdict when ``rule_id`` was seen broken under ``profile``, in ``case`` when the
    finding names one (``catalog.level``); ``KeyError`` for an unknown rule."""
    return BROKEN_VERDICT[level(rule_id, profile, case)]


def verdict_for_finding(finding, profile: Profile) -> Verdict:
    """The verdict of one finding (anything with ``rule`` and, optionally, ``case``)."""
    return verdict_for_broken(finding.rule, profile, getattr(finding, "case", None))


def worst(verdicts) -> Verdict:
    """The worst of ``verdicts`` (PASS for none)."""
    found = set(verdicts)
    for verdict in SEVERITY_ORDER:
        if verdict in found:
            return verdict
    return Verdict.PASS
