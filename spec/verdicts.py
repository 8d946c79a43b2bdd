"""Verdicts: how a profile judges a rule that was checked (docs/design.md §3, docs/profiles.md).

One grading rule for every catalog entry:

- PASS: checked and held, or what the server did is a behaviour the profile allows (a
  MAY not taken, a choice where MCP is silent): a note then says what the stricter
  profile wants;
- FAIL: a MUST of the profile broken;
- WARN: a SHOULD of the profile broken, or an answer outside everything the profile
  accepts (a 5xx, no answer at all) for a rule it applies, whatever its level: such an
  answer is never a PASS;
- SKIP: the profile does not apply the rule, or the server does not offer what the rule
  needs (405 on GET, no event ids ...);
- INCONCLUSIVE: the scenario could not be driven (timeout, broken SSE ...).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Protocol

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
    Level.MAY: Verdict.PASS,
    Level.NOT_APPLICABLE: Verdict.PASS,
}
"""The verdict of a rule seen broken, by its level under the chosen profile: a MAY (or a rule
the profile does not apply) lets the server do what it did."""


def verdict_for_broken(rule_id: str, profile: Profile, case: str | None = None, outside: bool = False) -> Verdict:
    """The verdict when ``rule_id`` was seen broken under ``profile``, in ``case`` when the
    finding names one (``catalog.level``); ``outside``: the answer was outside everything the
    profile accepts (a 5xx, none at all), at least a WARN under a profile that applies the
    rule. ``KeyError`` for an unknown rule."""
    rule_level = level(rule_id, profile, case)
    verdict = BROKEN_VERDICT[rule_level]
    if outside and verdict is Verdict.PASS and rule_level is not Level.NOT_APPLICABLE:
        return Verdict.WARN
    return verdict


class HasRule(Protocol):
    """A finding, as the verdicts read it: its ``rule`` (and, optionally, ``case`` and ``outside``)."""

    @property
    def rule(self) -> str: ...


def verdict_for_finding(finding: HasRule, profile: Profile) -> Verdict:
    """The verdict of one finding (anything with ``rule`` and, optionally, ``case`` and ``outside``)."""
    return verdict_for_broken(finding.rule, profile, getattr(finding, "case", None), getattr(finding, "outside", False))


def allowed(finding: HasRule, profile: Profile) -> bool:
    """Whether ``finding`` shows a behaviour ``profile`` allows (its verdict is PASS): reported
    as a note, never as a broken rule."""
    return verdict_for_finding(finding, profile) is Verdict.PASS


def worst(verdicts: Iterable[Verdict]) -> Verdict:
    """The worst of ``verdicts`` (PASS for none)."""
    found = set(verdicts)
    for verdict in SEVERITY_ORDER:
        if verdict in found:
            return verdict
    return Verdict.PASS
