"""Verdicts of ``mcp-resume verify`` as data: checks, one verdict per rule, the report.

A scenario produces ``Check`` values (what was expected, what was observed,
whether it held); ``judge`` turns them into a ``RuleVerdict`` with the catalog's
level of the rule under the chosen profile (``spec.verdicts.verdict_for_broken``).
Nothing here prints or does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_resume.spec.catalog import level
from mcp_resume.spec.decision import CLIENT_ERRORS, RESUMPTION_ERRORS, ClassDecision
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Level, Profile
from mcp_resume.spec.verdicts import SEVERITY_ORDER, Verdict, verdict_for_broken

from mcp_resume.model.http.evidence import Exchange


@dataclass
class Check:
    """One fact a scenario checked.

    ``branch`` names the spec's decision branch when the expectation came from
    ``spec.decision.decide_class``.
    """

    what: str
    expected: str
    observed: str
    held: bool
    branch: str | None = None

    def to_json(self) -> dict[str, Any]:
        item = {"what": self.what, "expected": self.expected, "observed": self.observed, "held": self.held}
        if self.branch:
            item["branch"] = self.branch
        return item


@dataclass
class RuleVerdict:
    """The verdict on one rule, with its evidence (checks and exchanges)."""

    rule: str
    verdict: Verdict
    reason: str
    level: Level
    checks: list[Check] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    unlock: str | None = None
    """For a rule not judged: what would let verify judge it (one phrase)."""

    def to_json(self) -> dict[str, Any]:
        item = {
            "rule": self.rule,
            "verdict": self.verdict.value,
            "level": self.level.value,
            "evidence": {
                "reason": self.reason,
                "checks": [c.to_json() for c in self.checks],
                "exchanges": [e.to_json() for e in self.exchanges],
            },
        }
        if self.unlock:
            item["unlock"] = self.unlock
        return item


@dataclass
class Report:
    """What ``verify`` found about one target under one profile."""

    target: str
    url: str
    profile: Profile
    capabilities: dict[str, Any]
    verdicts: list[RuleVerdict]
    note: str | None = None
    unreachable: str | None = None
    """Why no rule was judged: the target could not be reached or started (then ``verdicts`` is empty)."""

    @property
    def failed(self) -> bool:
        return any(v.verdict is Verdict.FAIL for v in self.verdicts)

    def unlocks(self) -> list[tuple[str, list[str]]]:
        """``(what would unlock them, [rule ids])`` for the rules not judged, in catalog order."""
        grouped: dict[str, list[str]] = {}
        for verdict in self.verdicts:
            if verdict.unlock and verdict.verdict in (Verdict.SKIP, Verdict.INCONCLUSIVE):
                grouped.setdefault(verdict.unlock, []).append(verdict.rule)
        return list(grouped.items())

    def summary(self) -> dict[str, int]:
        """How many rules got each verdict, worst first."""
        return {v.value: sum(1 for r in self.verdicts if r.verdict is v) for v in SEVERITY_ORDER}

    def to_json(self) -> dict[str, Any]:
        item: dict[str, Any] = {
            "target": self.target,
            "url": self.url,
            "profile": self.profile.value,
            "summary": self.summary(),
            "capabilities": self.capabilities,
            "verdicts": [v.to_json() for v in self.verdicts],
        }
        if self.note:
            item["note"] = self.note
        if self.unreachable:
            item["unreachable"] = {"reason": self.unreachable}
        unlocks = self.unlocks()
        if unlocks:
            item["unlock"] = [{"to_check": rules, "needs": hint} for hint, rules in unlocks]
        return item


def unreachable_report(target: str, url: str | None, profile: Profile | None, reason: str) -> Report:
    """The report of a run that judged nothing: ``reason`` says why the target could not be reached."""
    note = "profile auto: never chosen, the target did not answer" if profile is None else None
    return Report(target, url or target, profile or DEFAULT_PROFILE, {}, [], note, unreachable=reason)


def judge(rule: str, profile: Profile, checks: list[Check], exchanges: list[Exchange]) -> RuleVerdict:
    """PASS when every check held; otherwise the catalog's verdict for a broken
    ``rule`` under ``profile`` (FAIL for a MUST, WARN for a SHOULD, PASS with the
    finding kept for a MAY or a rule the profile does not apply)."""
    rule_level = level(rule, profile)
    broken = [c for c in checks if not c.held]
    if not checks:
        return RuleVerdict(rule, Verdict.INCONCLUSIVE, "the scenario checked nothing", rule_level, checks, exchanges)
    if not broken:
        return RuleVerdict(
            rule, Verdict.PASS, f"{len(checks)} of {len(checks)} checks held", rule_level, checks, exchanges
        )
    verdict = verdict_for_broken(rule, profile)
    first = broken[0]
    reason = f"{first.what}: expected {first.expected}, observed {first.observed}"
    if len(broken) > 1:
        reason += f" (+{len(broken) - 1} more)"
    if verdict is Verdict.PASS:
        reason = f"not required ({rule_level.value} under {profile.value}): {reason}"
    return RuleVerdict(rule, verdict, reason, rule_level, checks, exchanges)


def skip(
    rule: str, profile: Profile, reason: str, exchanges: list[Exchange] | None = None, unlock: str | None = None
) -> RuleVerdict:
    """SKIP: the server does not offer what the rule needs; ``unlock`` says what would."""
    return RuleVerdict(rule, Verdict.SKIP, reason, level(rule, profile), [], exchanges or [], unlock)


def inconclusive(
    rule: str, profile: Profile, reason: str, checks: list[Check], exchanges: list[Exchange]
) -> RuleVerdict:
    """INCONCLUSIVE: the scenario could not be driven to the point of judging."""
    return RuleVerdict(rule, Verdict.INCONCLUSIVE, reason, level(rule, profile), checks, exchanges)


def describe_statuses(statuses: frozenset[int]) -> str:
    """``4xx except 404``, ``200 or 4xx``, ``400 or 404`` ..."""
    if statuses == RESUMPTION_ERRORS:
        return "4xx except 404"
    if statuses == CLIENT_ERRORS:
        return "4xx"
    if statuses >= CLIENT_ERRORS:
        rest = sorted(statuses - CLIENT_ERRORS)
        return " or ".join([str(s) for s in rest] + ["4xx"])
    return " or ".join(str(s) for s in sorted(statuses))


def status_check(what: str, exchange: Exchange, decision: ClassDecision) -> Check:
    """Whether ``exchange``'s status is one ``decision`` (from ``decide_class``) accepts."""
    return Check(
        what,
        describe_statuses(decision.statuses),
        str(exchange.status),
        exchange.status in decision.statuses,
        decision.branch.value,
    )
