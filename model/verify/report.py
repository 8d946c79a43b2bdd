"""Verdicts of ``mcp-resume verify`` as data: checks, one verdict per rule, the report.

A ``Check`` is one step of the traffic where the spec's check of a rule could fail
(what the reference answers, what the server did, whether the rule held);
``model.verify.judgement`` makes them, and a ``RuleVerdict`` per rule, from the
spec's judgement of what the scenarios saw. Nothing here prints or does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_resume.spec.catalog import level
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Level, Profile
from mcp_resume.spec.verdicts import SEVERITY_ORDER, Verdict

from mcp_resume.model.http.evidence import Exchange
from mcp_resume.model.verify.fixture_tools import BY_NAME, Role
from mcp_resume.model.verify.roles import ToolUse, not_played
from mcp_resume.model.traffic.fixes import Fix, fix_for, identify

FINDINGS = (Verdict.FAIL, Verdict.WARN)
"""The verdicts that carry a fix."""


@dataclass
class Check:
    """One step where the spec's check of a rule could fail, and whether it held.

    ``branch`` names the spec's decision branch of a client request; ``other_status`` marks a
    check that held with an HTTP status other than the reference's (one the profile also accepts).
    """

    what: str
    expected: str
    observed: str
    held: bool
    branch: str | None = None
    other_status: bool = False

    def to_json(self) -> dict[str, Any]:
        item = {"what": self.what, "expected": self.expected, "observed": self.observed, "held": self.held}
        if self.branch:
            item["branch"] = self.branch
        if self.other_status:
            item["other_status"] = True
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
    beside: tuple[str, "Verdict"] | None = None
    """The same traffic's verdict under the other profile (the negotiated MCP revision
    beside ``boundary``, or ``boundary`` beside it): ``(profile, verdict)``."""
    beside_reason: str | None = None
    """The evidence of the ``beside`` verdict when it differs from ``verdict``."""

    @property
    def tools(self) -> list[str]:
        """The tools whose calls are in this verdict's evidence: those that drove the rule."""
        return tools_called(self.exchanges)

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
        if self.tools:
            item["tools"] = self.tools
        if self.beside:
            item["beside"] = {"profile": self.beside[0], "verdict": self.beside[1].value}
            if self.beside_reason:
                item["beside"]["reason"] = self.beside_reason
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
    partial: str | None = None
    """Why the run stopped before every rule was judged (Ctrl-C): the rules not judged are INCONCLUSIVE."""
    seconds: float | None = None
    """The run's wall-clock seconds, from the start of the probe to the report."""
    gate: dict[str, Any] | None = None
    """What ``--require``/``--fail-on`` demanded and what the run did not give, when they were given:
    ``{"required": [rule ids], "fail_on": [verdicts], "unmet": [one line each], "met": bool}``."""

    @property
    def failed(self) -> bool:
        return any(v.verdict is Verdict.FAIL for v in self.verdicts)

    @property
    def sdk(self) -> str | None:
        """The known SDK or framework (a target of ``model.traffic.fixes.SDKS``): the one ``verify --sdk``
        named (``capabilities["sdk"]``), else the one the server's ``serverInfo`` names
        (``model.traffic.fixes.identify``), else ``None``."""
        caps = self.capabilities or {}
        return caps.get("sdk") or identify(caps.get("server_info"))

    def fix(self, verdict: RuleVerdict) -> Fix | None:
        """What to do about ``verdict`` when it is a FAIL or WARN: the rule's fix and the server's SDK's remedy."""
        return fix_for(verdict.rule, self.sdk) if verdict.verdict in FINDINGS else None

    def beside_findings(self) -> list[tuple[RuleVerdict, Fix]]:
        """The verdicts that are no finding under the report's profile but FAIL or WARN under the
        profile beside it (``RuleVerdict.beside``), each with the rule's fix there."""
        return [(verdict, fix_for(verdict.rule, self.sdk)) for verdict in self.verdicts
                if verdict.beside and verdict.beside[1] in FINDINGS and verdict.verdict not in FINDINGS]

    def verdict_json(self, verdict: RuleVerdict) -> dict[str, Any]:
        """``verdict`` as JSON, with its ``fix`` (``{"text", "sdk"?, "remedy"?}``) beside a FAIL or WARN;
        its ``tools`` leave out a given tool that did not play its role (``capabilities["unplayed_tools"]``)."""
        item = verdict.to_json()
        unplayed = (self.capabilities or {}).get("unplayed_tools") or {}
        if item.get("tools") and unplayed:
            item["tools"] = [name for name in item["tools"] if name not in unplayed]
            if not item["tools"]:
                del item["tools"]
        fix = self.fix(verdict)
        if fix is not None:
            item["fix"] = fix.to_json()
        return item

    def unlocks(self) -> list[tuple[str, list[str]]]:
        """``(what would unlock them, [rule ids])`` for the rules not judged, in catalog order."""
        grouped: dict[str, list[str]] = {}
        for verdict in self.verdicts:
            if verdict.unlock and verdict.verdict in (Verdict.SKIP, Verdict.INCONCLUSIVE):
                grouped.setdefault(verdict.unlock, []).append(verdict.rule)
        return list(grouped.items())

    def drivers(self) -> list[dict[str, Any]]:
        """Which tool drove which rules: ``{"tool", "role", "given", "rules"}`` for every
        fixture tool and every tool given with ``--tool`` (``given``) whose calls are in the
        evidence of some judged verdict (PASS, WARN, FAIL), in the order first seen; a given
        tool that did not play its role (``capabilities["unplayed_tools"]``) drives none."""
        given = {name: ", ".join(roles) for name, roles in given_roles(self.capabilities).items()}
        unplayed = self.capabilities.get("unplayed_tools") or {}
        found: dict[str, dict[str, Any]] = {}
        for verdict in self.verdicts:
            if verdict.verdict in (Verdict.SKIP, Verdict.INCONCLUSIVE):
                continue
            for name in verdict.tools:
                role = given.get(name) or (BY_NAME[name].role.value if name in BY_NAME else None)
                if role is None or name in unplayed:
                    continue
                entry = found.setdefault(name, {"tool": name, "role": role, "given": name in given, "rules": []})
                entry["rules"].append(verdict.rule)
        return list(found.values())

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
            "verdicts": [self.verdict_json(v) for v in self.verdicts],
            "partial": self.partial is not None,
        }
        if self.partial:
            item["stopped"] = self.partial
        if self.seconds is not None:
            item["seconds"] = round(self.seconds, 3)
        if self.note:
            item["note"] = self.note
        if self.unreachable:
            item["unreachable"] = {"reason": self.unreachable}
        drivers = self.drivers()
        if drivers:
            item["tools"] = drivers
        unlocks = self.unlocks()
        if unlocks:
            item["unlock"] = [{"to_check": rules, "needs": hint} for hint, rules in unlocks]
        if self.gate is not None:
            item["gate"] = self.gate
        return item


def tools_called(exchanges: list[Exchange]) -> list[str]:
    """The names of the tools ``exchanges`` called (``tools/call``), in order, once each."""
    names: list[str] = []
    for exchange in exchanges:
        body = exchange.request_body
        params = body.get("params") if isinstance(body, dict) and body.get("method") == "tools/call" else None
        name = params.get("name") if isinstance(params, dict) else None
        if isinstance(name, str) and name not in names:
            names.append(name)
    return names


def given_roles(caps: dict[str, Any]) -> dict[str, list[str]]:
    """The roles of each tool given with ``--tool`` (``capabilities["tool_roles"]``), in the order given:
    one tool may be given for several roles."""
    roles: dict[str, list[str]] = {}
    for use in caps.get("tool_roles") or []:
        roles.setdefault(use["tool"], []).append(use["role"])
    return roles


def unplayed_lines(caps: dict[str, Any]) -> list[str]:
    """One line per tool given with ``--tool`` that did not play its role (``capabilities["unplayed_tools"]``)."""
    roles = given_roles(caps)
    return [not_played(ToolUse(Role(roles[name][0]), name), what)
            for name, what in (caps.get("unplayed_tools") or {}).items() if name in roles]


def tools_text(caps: dict[str, Any]) -> str:
    """The tools of a run's capabilities line: the fixture tools the server lists (or ``none``),
    then the tools given with ``--tool`` and their roles (``capabilities["tool_roles"]``)."""
    fixture = ", ".join(caps.get("fixture_tools") or []) or "none"
    given = [f"{use['tool']} ({use['role']})" for use in caps.get("tool_roles") or []]
    return fixture + (f"; given with --tool: {', '.join(given)}" if given else "")


def driver_line(entry: dict[str, Any]) -> str:
    """One entry of ``Report.drivers`` in words: ``tool book_flight (server-request, --tool) drove 6 rule(s): ...``."""
    how = f"{entry['role']}, --tool" if entry["given"] else f"{entry['role']}, fixture tool"
    return f"tool {entry['tool']} ({how}) drove {len(entry['rules'])} rule(s): {', '.join(entry['rules'])}"


def unreachable_report(target: str, url: str | None, profile: Profile | None, reason: str) -> Report:
    """The report of a run that judged nothing: ``reason`` says why the target could not be reached."""
    note = "profile auto: never chosen, the target did not answer" if profile is None else None
    return Report(target, url or target, profile or DEFAULT_PROFILE, {}, [], note, unreachable=reason)


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
