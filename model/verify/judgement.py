"""Verdicts of ``mcp-resume verify`` from the spec's judgement of what the scenarios saw.

A scenario only drives the server; what it sent and saw (its exchanges, timed) is
laid on one time line and judged by the same mapping and the same spec checks as a
recording (``model.traffic.trace_validation``, with ``complete=True``: verify knows every
session it made). A rule's verdict comes from those judgements alone:

- a finding of the rule in the traffic of *any* scenario: the catalog's verdict of
  a broken rule under the profile (FAIL for a MUST, WARN for a SHOULD or an answer
  outside everything the profile accepts; PASS with a note for what a MAY allows),
  with the step that broke it; a finding once seen stays, whatever the scenario did
  after (it may have stopped on a network error);
- else, when the rule's own scenario stopped: its SKIP (the server lacks what the
  scenario needs) or INCONCLUSIVE (it could not be driven); a SKIP becomes a PASS when
  another scenario's traffic judged the rule;
- else PASS when some step of any scenario's traffic could have broken the rule and
  did not (``spec.invariants.judged_rules``); when none could, SKIP (the server offered
  nothing the rule is about), or INCONCLUSIVE when the traffic left something open.

Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mcp_resume.spec.actions import describe
from mcp_resume.spec.catalog import level
from mcp_resume.spec.profiles import Level, Profile
from mcp_resume.spec.verdicts import Verdict, verdict_for_finding, worst

from mcp_resume.model.http.evidence import Exchange
from mcp_resume.model.traffic.trace_validation import Placed, Validation
from mcp_resume.model.verify.report import Check, RuleVerdict

BROKEN = (Verdict.FAIL, Verdict.WARN)


@dataclass
class Driven:
    """One scenario as driven: the rule it was written for, what it sent and saw, the
    spec's judgement of that traffic, and how it stopped early (its SKIP or INCONCLUSIVE
    verdict), if it did."""

    rule: str
    exchanges: list[Exchange]
    validation: Validation
    stopped: RuleVerdict | None = None
    beside: Validation | None = None  # the same traffic judged under the other profile

    def under_beside(self) -> "Driven":
        """This run with its judgement under the other profile in place of the chosen one's."""
        return Driven(self.rule, self.exchanges, self.beside, self.stopped)


def with_beside(verdict: RuleVerdict, profile: Profile | None, own: Driven | None, runs: list[Driven]) -> RuleVerdict:
    """``verdict`` with the verdict the same traffic gets under ``profile`` beside it."""
    if profile is None or not any(run.beside is not None for run in runs):
        return verdict
    if level(verdict.rule, profile) is Level.NOT_APPLICABLE:
        return replace(verdict, beside=(profile.value, Verdict.SKIP))
    other_runs = [run.under_beside() for run in runs if run.beside is not None]
    other_own = next((r for r in other_runs if own is not None and r.exchanges is own.exchanges), None)
    before = verdict if own is None and verdict.verdict in (Verdict.SKIP, Verdict.INCONCLUSIVE) else None
    other = verdict_of(verdict.rule, profile, other_own, other_runs, before=before)
    differs = other.verdict is not verdict.verdict
    return replace(verdict, beside=(profile.value, other.verdict), beside_reason=other.reason if differs else None)


def verdict_of(rule: str, profile: Profile, own: Driven | None, runs: list[Driven],
               before: RuleVerdict | None = None) -> RuleVerdict:
    """The verdict on ``rule`` from its own scenario's run ``own`` and every run so far
    (``runs``, ``own`` among them). ``before``: the verdict made without a run (a SKIP for
    a need the server lacks), which a judgement in another scenario's traffic replaces."""
    broken = [run for run in runs if run.validation.result(rule).verdict in BROKEN]
    if broken:
        return _broken(rule, profile, own, broken)
    judged = [run for run in runs if run.validation.result(rule).verdict is Verdict.PASS]
    stopped = own.stopped if own is not None else before
    if stopped is not None and (stopped.verdict is not Verdict.SKIP or not judged):
        return stopped
    if judged:
        return _held(rule, profile, own, judged)
    exchanges = own.exchanges if own is not None else []
    left_open = own.validation.open if own is not None else []
    if left_open:
        reason = f"no judged step could break it, and the traffic left something open: {left_open[0]}"
        return RuleVerdict(rule, Verdict.INCONCLUSIVE, reason, level(rule, profile), [], exchanges)
    reason = ("no step of the traffic could break it: the server offered nothing the rule is about "
              "(a past event to replay, a pending request, ...)")
    return RuleVerdict(rule, Verdict.SKIP, reason, level(rule, profile), [], exchanges)


def _broken(rule: str, profile: Profile, own: Driven | None, broken: list[Driven]) -> RuleVerdict:
    verdict = worst(run.validation.result(rule).verdict for run in broken)
    first = next(run for run in broken if run.validation.result(rule).verdict is verdict)
    steps = [s for s in first.validation.result(rule).steps if _finding(rule, s) is not None]
    step = next((s for s in steps if verdict_for_finding(_found(rule, s), profile) is verdict), steps[0])
    label = _exchange(first, step).label
    reason = f"{label}: {_finding(rule, step)}"
    more = sum(len([s for s in run.validation.result(rule).steps if _finding(rule, s)]) for run in broken) - 1
    if more:
        reason += f" (+{more} more)"
    if own is None or first is not own:
        reason += f" (seen in the traffic of the {first.rule} scenario)"
    rule_level = level(rule, profile, _found(rule, step).case)  # a case's own level where it has one
    if verdict is Verdict.WARN and rule_level is Level.MAY:
        reason = f"an answer outside what {profile.value} accepts for this MAY: {reason}"
    checks = [c for run in broken for c in checks_of(rule, run)]
    exchanges = _evidence(own, broken, rule)
    return RuleVerdict(rule, verdict, reason, rule_level, checks, exchanges)


def _held(rule: str, profile: Profile, own: Driven | None, judged: list[Driven]) -> RuleVerdict:
    checks = [c for run in judged for c in checks_of(rule, run)]
    reason = f"{len(checks)} step{'' if len(checks) == 1 else 's'} where the spec's check could fail held it"
    others = [c for c in checks if c.other_status]
    if others:  # a status the profile accepts besides the reference's: said, as a MAY taken is (docs/profiles.md)
        example, rule_level = others[0], level(rule, profile)
        prefix = (f"accepted under {profile.value}" if rule_level is Level.MUST
                  else f"allowed under {profile.value} ({rule_level.value})")
        reason = (f"{prefix}: {len(others)} of the {len(checks)} steps held it with another status than the "
                  f"reference's, e.g. {example.what}: observed {example.observed}, {example.expected}")
    allowed = next((run for run in judged if run.validation.result(rule).allowed), None)
    if allowed is not None:  # what the profile allows, said (docs/profiles.md: one grading rule)
        reason = allowed.validation.result(rule).reason
        if allowed is not own:
            reason += f" (seen in the traffic of the {allowed.rule} scenario)"
        return RuleVerdict(rule, Verdict.PASS, reason, level(rule, profile), checks, _evidence(own, [allowed], rule))
    if own is None or own not in judged:
        reason += f" (in the traffic of the {', '.join(run.rule for run in judged)} scenario{'s' if len(judged) > 1 else ''})"
    exchanges = own.exchanges if own is not None and own in judged else judged[0].exchanges
    return RuleVerdict(rule, Verdict.PASS, reason, level(rule, profile), checks, exchanges)


def checks_of(rule: str, run: Driven) -> list[Check]:
    """One ``Check`` per step of ``run`` that judged ``rule``: the exchange, the spec's
    step, what the reference answers and what the server did (its finding, if any)."""
    return [_check(rule, run, step) for step in run.validation.result(rule).steps]


def _check(rule: str, run: Driven, step: Placed) -> Check:
    report = step.report
    finding = _finding(rule, step)
    observed = finding if finding is not None else _observed(report.observed)
    branch = report.branch.value if report.branch is not None else None
    what = f"{_exchange(run, step).label}: {describe(step.action)}"
    statuses = (report.expected.status, report.observed.status)
    if getattr(report.observed, "version_unsupported", False):  # refused before anything else (C40); 2026 has its own
        return Check(what, "HTTP 400 (an MCP-Protocol-Version no server supports, C40)", observed, finding is None,
                     branch, False)
    other = finding is None and None not in statuses and statuses[0] != statuses[1]
    expected = _observed(report.expected, reference=True)
    if other:
        expected += f" (HTTP {statuses[1]} is accepted too under {run.validation.profile.value})"
    return Check(what, expected, observed, finding is None, branch, other)


def _observed(observation, reference: bool = False) -> str:
    """An observation in words: ``HTTP 200, events [E2, E3]``, ``event E4 (request R1)``;
    a 2026-07-28 one (``spec.sessionless.machine.Observation``) with its messages."""
    parts = []
    if observation.status is not None:
        parts.append(f"HTTP {observation.status}")
    event, request = getattr(observation, "event", None), getattr(observation, "request", None)
    if event is not None:
        parts.append(f"event {event}" + (f" (request {request})" if request else ""))
    if getattr(observation, "events", ()):
        parts.append("events [" + ", ".join(_delivered(d) for d in observation.events) + "]")
    if getattr(observation, "messages", ()):
        parts.append("messages [" + ", ".join(f"{m.kind.value} about {m.about}" for m in observation.messages) + "]")
    if observation.session is not None and not hasattr(observation, "event"):
        parts.append(f"Mcp-Session-Id {observation.session}")
    if observation.closed:
        parts.append("closes [" + ", ".join(observation.closed) + "]")
    text = ", ".join(parts) or "nothing"
    return f"the reference's answer: {text}" if reference else text


def _delivered(item) -> str:
    """``E3``, ``E3 (request R1)`` or ``E3 (cancels R1)``."""
    if item.cancels:
        return f"{item.event} (cancels {item.cancels})"
    return f"{item.event} (request {item.request})" if item.request else item.event


def _found(rule: str, step: Placed):
    """The first finding of ``rule`` at ``step`` (a ``spec.invariants.Finding``), or ``None``."""
    return next((f for f in step.report.findings if f.rule == rule), None)


def _finding(rule: str, step: Placed) -> str | None:
    found = _found(rule, step)
    return None if found is None else found.message


def _exchange(run: Driven, step: Placed) -> Exchange:
    return run.exchanges[step.records[0] - 1]


def _evidence(own: Driven | None, broken: list[Driven], rule: str) -> list[Exchange]:
    """The own scenario's exchanges, then, of every other scenario with a step that broke
    ``rule``, its exchanges from its start up to the last such step: the sessions, event ids
    and server requests those steps use are handed out in them, so a reproducer made of the
    evidence (``outputs.curl_script``) takes them from the server's answers, never from this run."""
    exchanges = list(own.exchanges) if own is not None else []
    for run in broken:
        if run is own:
            continue
        records = [n for step in run.validation.result(rule).steps if _finding(rule, step) is not None
                   for n in step.records]
        if records:
            exchanges += run.exchanges[:max(records)]
    return list({id(x): x for x in exchanges}.values())
