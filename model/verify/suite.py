"""The whole of ``mcp-resume verify``: one verdict per catalog rule, within bounds.

``verify(run)`` probes the server, picks the profile (``auto``: the MCP profile
of the revision the server negotiates, ``PROFILE_OF_REVISION``), then judges
every rule of ``spec.catalog.RULES`` in catalog order:

- a rule the profile does not apply is SKIP ("not applicable under ...");
- a rule whose scenario needs what the probe did not see (sessions, event ids,
  a GET stream, a fixture tool) is SKIP with that reason;
- a scenario that finds its rule unobservable on this server is SKIP with why;
- otherwise the scenario runs in fresh sessions of its own, with its own
  client, bounded by ``Timeouts.exchange * SCENARIO_EXCHANGES`` seconds and by
  what is left of the whole run (``VerifyRun.run_seconds``).

Verdicts are appended to ``VerifyRun.verdicts`` as they are made, so a caller
interrupted (Ctrl-C) or out of time still has every verdict made so far:
``VerifyRun.report(stopped=...)`` fills the rest with INCONCLUSIVE.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from mcp_resume.spec.catalog import RULES
from mcp_resume.spec.profiles import Level, Profile

from mcp_resume.model.http.client import Timeouts, StreamableHttpClient
from mcp_resume.model.http.evidence import ErrorKind
from mcp_resume.model.verify.driver import Driver, Inconclusive, NotObservable
from mcp_resume.model.verify.lifecycle import (
    event_id_unique,
    expiry_independent,
    new_session_on_initialize,
    no_cross_session_after_delete,
    session_delete,
    sessionless_get_405,
    sessionless_ignores_headers,
)
from mcp_resume.model.verify.pending import (
    no_duplicate_tool_call,
    no_reemit_on_stream_resume,
    reemit_keeps_pending,
    server_request_ownership,
)
from mcp_resume.model.verify.probe import Capabilities, TargetError, probe
from mcp_resume.model.verify.report import Check, Report, RuleVerdict, inconclusive, judge, skip
from mcp_resume.model.verify.scenarios import (
    Context,
    Scenario,
    _missing,
    malformed_session_400,
    missing_session_400,
    no_replay_on_session_resume,
    priming_event,
    reemit_pending,
    reject_foreign_event_id,
    reject_orphan_event_id,
    replay_suffix,
    session_identity_stable,
    unknown_session_404,
)

SCENARIO_EXCHANGES = 12
"""A scenario may take as long as this many whole exchanges before it is cut off."""
RUN_SECONDS = 600.0
"""Default bound on a whole verify run, in seconds."""
CLEANUP_SECONDS = 5.0

PROFILE_OF_REVISION: dict[str, Profile] = {
    "2025-03-26": Profile.MCP_2025_03_26,
    "2025-06-18": Profile.MCP_2025_06_18,
    "2025-11-25": Profile.MCP_2025_11_25,
    "2026-07-28": Profile.MCP_2026_07_28,
}
"""``--profile auto``: the profile of each MCP revision a server may negotiate."""

SESSIONS = ("sessions",)
STREAMS = ("sessions", "event-ids", "get")
PENDING = ("sessions", "get", "server-request-tool")

async def _no_broadcast_not_driven(d: Driver, ctx) -> list[Check]:
    """Interim: the over-HTTP scenario of ``no-broadcast`` (MCP B21) is not written yet."""
    raise NotObservable("no-broadcast is not driven over HTTP yet (a pending request on a connection the client still reads)")


SCENARIOS: dict[str, Scenario] = {
    s.rule: s
    for s in (
        Scenario("replay-suffix", replay_suffix, STREAMS),
        Scenario("no-cross-session", no_cross_session_after_delete, STREAMS),
        Scenario("no-replay-on-session-resume", no_replay_on_session_resume, ("sessions", "get")),
        Scenario("no-reemit-on-stream-resume", no_reemit_on_stream_resume, PENDING + ("event-ids",)),
        Scenario("reemit-pending", reemit_pending, PENDING),
        Scenario("reemit-keeps-pending", reemit_keeps_pending, PENDING),
        Scenario("reject-orphan-event-id", reject_orphan_event_id, STREAMS),
        Scenario("reject-foreign-event-id", reject_foreign_event_id, STREAMS),
        Scenario("unknown-session-404", unknown_session_404, SESSIONS),
        Scenario("session-identity-stable", session_identity_stable, SESSIONS),
        Scenario("expiry-independent", expiry_independent, STREAMS),
        Scenario("event-id-unique", event_id_unique, ("sessions", "event-ids")),
        Scenario("server-request-ownership", server_request_ownership, PENDING),
        Scenario("no-duplicate-tool-call", no_duplicate_tool_call, STREAMS),
        Scenario("missing-session-400", missing_session_400, SESSIONS),
        Scenario("malformed-session-400", malformed_session_400, SESSIONS),
        Scenario("new-session-on-initialize", new_session_on_initialize, ()),
        Scenario("session-delete", session_delete, SESSIONS),
        Scenario("sessionless-get-405", sessionless_get_405, ()),
        Scenario("sessionless-ignores-headers", sessionless_ignores_headers, ()),
        Scenario("priming-event", priming_event, ("sse",)),
        Scenario("no-broadcast", _no_broadcast_not_driven, PENDING),
    )
}
"""One scenario per catalog rule id."""


assert set(SCENARIOS) == {r.id for r in RULES}, "every catalog rule needs a scenario"

OnVerdict = Callable[[RuleVerdict], None]


@dataclass
class VerifyRun:
    """One verify run: its inputs, and what it found so far.

    ``requested`` is the profile asked for (``None`` = auto); ``profile`` the one
    applied once the probe has seen the server's revision.
    """

    url: str
    target: str
    requested: Profile | None
    bounds: Timeouts = field(default_factory=Timeouts)
    run_seconds: float = RUN_SECONDS
    profile: Profile | None = None
    caps: Capabilities | None = None
    verdicts: list[RuleVerdict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def report(self, stopped: str | None = None) -> Report:
        """The report; rules not judged yet are INCONCLUSIVE with ``stopped`` as reason."""
        profile = self.profile or self.requested or Profile.BOUNDARY
        verdicts = list(self.verdicts)
        judged = {v.rule for v in verdicts}
        for rule in RULES:
            if rule.id not in judged:
                verdicts.append(inconclusive(rule.id, profile, stopped or "not judged", [], []))
        caps = self.caps.to_json() if self.caps else {}
        note = " ".join(self.notes) or None
        return Report(self.target, self.url, profile, caps, verdicts, note=note)


def resolve_profile(requested: Profile | None, negotiated: str | None) -> tuple[Profile, str | None]:
    """The profile to apply and a note on how it was picked (``None`` = auto)."""
    if requested is not None:
        return requested, None
    profile = PROFILE_OF_REVISION.get(negotiated or "")
    if profile is None:
        return Profile.MCP_2025_11_25, (
            f"profile auto: the server negotiated {negotiated!r}, which mcp-resume does not know; "
            "applying mcp-2025-11-25."
        )
    stricter = "" if profile is Profile.MCP_2026_07_28 else " --profile boundary is the stricter one."
    return profile, f"profile auto: the server negotiated MCP {negotiated}, so {profile.value} applies;{stricter}"


async def verify(run: VerifyRun, on_verdict: OnVerdict | None = None) -> Report:
    """Probe, pick the profile, judge every rule; returns the report.

    Raises ``TargetError`` (one line) when the server is unreachable or not MCP.
    """
    started = time.monotonic()
    if run.requested is Profile.MCP_2026_07_28:
        await _reachable(run)
        run.caps, run.profile = Capabilities(), run.requested
    else:
        async with StreamableHttpClient(run.url, run.bounds) as client:
            run.caps = await probe(client)
        run.profile, note = resolve_profile(run.requested, run.caps.protocol_version)
        if note:
            run.notes.append(note)
    ctx = Context(run.profile, run.bounds, run.caps)
    for rule in RULES:
        left = run.run_seconds - (time.monotonic() - started)
        verdict = await judge_rule(SCENARIOS[rule.id], run.url, ctx, left)
        run.verdicts.append(verdict)
        if on_verdict is not None:
            on_verdict(verdict)
    return run.report()


async def judge_rule(scenario: Scenario, url: str, ctx: Context, seconds_left: float) -> RuleVerdict:
    """The verdict on one rule, from a client and sessions of its own."""
    profile = ctx.profile
    if scenario.rule in _rule_levels_na(profile):
        return skip(scenario.rule, profile, f"not applicable under {profile.value}")
    try:
        missing = _missing(scenario.needs, ctx.caps)
    except Inconclusive as reason:
        return inconclusive(scenario.rule, profile, str(reason), [], [])
    if missing is not None:
        return skip(scenario.rule, profile, missing)
    if seconds_left <= 0:
        return inconclusive(scenario.rule, profile, "the whole run's time bound was reached first", [], [])
    bound = min(ctx.bounds.exchange * SCENARIO_EXCHANGES, seconds_left)
    async with StreamableHttpClient(url, ctx.bounds) as client:
        driver = Driver(client, ctx.caps.tools)
        checks: list[Check] = []
        try:
            checks = await asyncio.wait_for(scenario.run(driver, ctx), bound)
            return judge(scenario.rule, profile, checks, client.exchanges)
        except NotObservable as reason:
            return skip(scenario.rule, profile, str(reason), client.exchanges)
        except Inconclusive as reason:
            return inconclusive(scenario.rule, profile, str(reason), checks, client.exchanges)
        except asyncio.TimeoutError:
            return inconclusive(scenario.rule, profile, f"the scenario took longer than {bound:g} s", checks, client.exchanges)
        finally:
            try:
                await asyncio.wait_for(driver.cleanup(), CLEANUP_SECONDS)
            except asyncio.TimeoutError:
                pass


def _rule_levels_na(profile: Profile) -> set[str]:
    return {r.id for r in RULES if r.level(profile) is Level.NOT_APPLICABLE}


async def _reachable(run: VerifyRun) -> None:
    async with StreamableHttpClient(run.url, run.bounds) as client:
        plain = await client.get(label="reachability: GET without headers")
    if plain.error_kind in (ErrorKind.CONNECT, ErrorKind.FIRST_BYTE):
        raise TargetError(f"{run.url}: {plain.error}")


