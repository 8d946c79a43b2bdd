"""What a CI job demands of a verify run beyond "no FAIL" (``verify --require``, ``--fail-on``).

``parse_required`` and ``parse_fail_on`` read the options (``UsageError``, exit 2, on a name
that is not a rule id or a verdict); ``unmet(report, gate)`` lists, one line each, what the
report does not give: a required rule not PASS, a WARN under ``--fail-on warn``, a SKIP of a rule
that applies under the profile under ``--fail-on skip``. ``verify`` exits 1 when a WARN or a
required rule's FAIL or WARN is among them, else 3 (something was never checked)."""

from __future__ import annotations

from dataclasses import dataclass

from mcp_resume.jobs.targets import UsageError
from mcp_resume.model.verify.report import Report
from mcp_resume.spec.catalog import RULES, level
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.verdicts import Verdict

FAIL_ON = ("warn", "skip")
"""The verdicts ``--fail-on`` can make fail a run, besides FAIL."""


@dataclass(frozen=True)
class Gate:
    required: tuple[str, ...] = ()
    fail_on: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Unmet:
    """One thing the run did not give: ``broken`` when a verdict says the server is wrong (exit 1),
    else it was never checked (exit 3)."""

    line: str
    broken: bool


def parse_required(values: list[str] | None) -> tuple[str, ...]:
    """The rule ids of ``--require RULE[,RULE...]`` (repeatable), in order, once each."""
    known = {rule.id for rule in RULES}
    named = [name.strip().lower() for value in values or () for name in value.split(",")]
    if values is not None and not any(named):
        raise UsageError("--require: no rule named; give rule ids, e.g. --require replay-suffix,no-cross-session")
    named = [name for name in named if name]
    unknown = [name for name in named if name not in known]
    if unknown:
        raise UsageError(f"--require {', '.join(unknown)}: not a rule id; the rules are {', '.join(r.id for r in RULES)}")
    return tuple(dict.fromkeys(named))


def applying_profiles(rule: str) -> list[str]:
    """The profiles under which ``rule`` applies (its level is not n/a), in profile order."""
    return [p.value for p in Profile if level(rule, p) is not Level.NOT_APPLICABLE]


def not_applicable_line(rule: str, profile: Profile) -> str:
    """Why a required ``rule`` cannot be judged under ``profile``, and the profiles that judge it."""
    where = " or ".join(f"--profile {name}" for name in applying_profiles(rule))
    return f"required rule {rule} does not apply under {profile.value}: it applies under {where}; require it there, or drop it"


def check_required(required: tuple[str, ...], profile: Profile | None) -> None:
    """``UsageError`` (exit 2, before any request) when ``profile`` was named (not auto) and a
    required rule does not apply under it."""
    if profile is None:
        return
    for rule in required:
        if level(rule, profile) is Level.NOT_APPLICABLE:
            raise UsageError("--require: " + not_applicable_line(rule, profile))


def parse_fail_on(values: list[str] | None) -> frozenset[str]:
    """The verdicts of ``--fail-on VERDICT[,VERDICT]`` (repeatable): ``warn``, ``skip``."""
    named = {name.strip().lower() for value in values or () for name in value.split(",") if name.strip()}
    unknown = sorted(named - set(FAIL_ON))
    if unknown:
        raise UsageError(f"--fail-on {', '.join(unknown)}: expected {' or '.join(FAIL_ON)}")
    return frozenset(named)


def outcome(gate: Gate, demanded: list[Unmet]) -> dict | None:
    """The gate as the reports carry it (``Report.gate``), ``None`` when no option asked for one."""
    if not (gate.required or gate.fail_on):
        return None
    return {"required": list(gate.required), "fail_on": sorted(gate.fail_on),
            "unmet": [item.line for item in demanded], "met": not demanded}


def unmet(report: Report, gate: Gate) -> list[Unmet]:
    """What ``report`` does not give that ``gate`` demands, in catalog order."""
    found = []
    for verdict in report.verdicts:
        applies = level(verdict.rule, report.profile) is not Level.NOT_APPLICABLE
        if verdict.rule in gate.required and not applies:
            found.append(Unmet(not_applicable_line(verdict.rule, report.profile), False))
        elif verdict.rule in gate.required and verdict.verdict is not Verdict.PASS:
            found.append(Unmet(f"required rule {verdict.rule} is {verdict.verdict.value}: {verdict.reason}"
                               + (f"; to check it: {verdict.unlock}" if verdict.unlock else ""),
                               verdict.verdict in (Verdict.FAIL, Verdict.WARN)))
        elif verdict.verdict is Verdict.WARN and "warn" in gate.fail_on:
            found.append(Unmet(f"{verdict.rule} is WARN (--fail-on warn): {verdict.reason}", True))
        elif verdict.verdict is Verdict.SKIP and "skip" in gate.fail_on and applies:
            found.append(Unmet(f"{verdict.rule} is SKIP (--fail-on skip): {verdict.reason}"
                               + (f"; to check it: {verdict.unlock}" if verdict.unlock else ""), False))
    return found
