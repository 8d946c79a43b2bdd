"""Drive a server of the 2026-07-28 revision and ``spec/sessionless/machine.py`` side by side.

For every action the checker takes the machine's step, applies the action to the
server (request ids are the client's, so no id map is needed) and judges what it
sent with ``spec.sessionless.checks``. A finding whose verdict under
``mcp-2026-07-28`` is in ``fail_on`` raises ``SessionlessCounterexample`` with
the actions so far.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_resume.spec.catalog import AGREEMENT
from mcp_resume.spec.invariants import Finding
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.sessionless.machine import INITIAL, Observation, SessionlessAction, describe, enabled, step
from mcp_resume.spec.sessionless.checks import check_step
from mcp_resume.spec.verdicts import Verdict, verdict_for_finding

PROFILE = Profile.MCP_2026_07_28
STRICT = frozenset({Verdict.FAIL, Verdict.WARN})
"""Stop on a broken SHOULD too (F17's 405 and ignored headers are SHOULDs)."""


class SessionlessCounterexample(AssertionError):
    """The server broke a rule; ``actions`` reproduce it from a fresh server."""

    def __init__(self, actions: tuple[SessionlessAction, ...], findings: tuple[Finding, ...]) -> None:
        self.actions = actions
        self.findings = findings
        lines = [f"counterexample ({len(actions)} steps, profile {PROFILE.value}):"]
        lines += [f"  {n}. {describe(action)}" for n, action in enumerate(actions, start=1)]
        lines += [f"  [{f.rule}] {f.message}" for f in findings]
        super().__init__("\n".join(lines))

    @property
    def rules(self) -> set[str]:
        return {f.rule for f in self.findings}


@dataclass(frozen=True)
class SessionlessReport:
    action: SessionlessAction
    expected: Observation
    observed: Observation | None
    findings: tuple[Finding, ...]


class SessionlessChecker:
    """Side-by-side driver; ``diverged`` is the first step with findings that did not fail."""

    def __init__(self, server, fail_on: frozenset[Verdict] = frozenset({Verdict.FAIL})) -> None:
        self.server = server
        self.fail_on = fail_on
        self.state = INITIAL
        self.actions: list[SessionlessAction] = []
        self.diverged: SessionlessReport | None = None

    def enabled(self, action: SessionlessAction) -> bool:
        return enabled(self.state, action)

    def apply(self, action: SessionlessAction) -> SessionlessReport:
        """Apply ``action`` to both sides; raises ``SessionlessCounterexample`` on a
        failing finding, ``ValueError`` when the machine does not enable ``action``."""
        spec = step(self.state, action)
        self.actions.append(action)
        try:
            observed = self.server.apply(action)
        except Exception as error:  # a crash of the server under test is a finding
            observed, findings = None, [Finding(AGREEMENT, f"the server raised {error!r}")]
        else:
            findings = check_step(self.state, action, observed, spec.observation)
        report = SessionlessReport(action, spec.observation, observed, tuple(findings))
        failing = tuple(f for f in findings if verdict_for_finding(f, PROFILE) in self.fail_on)
        if failing:
            raise SessionlessCounterexample(tuple(self.actions), failing)
        if findings and self.diverged is None:
            self.diverged = report
        self.state = spec.after
        return report


def replay(actions, server, fail_on: frozenset[Verdict] = STRICT) -> list[SessionlessReport]:
    """Every step's report of ``actions`` against ``server``; raises at the first failing one."""
    checker = SessionlessChecker(server, fail_on)
    return [checker.apply(action) for action in actions]
