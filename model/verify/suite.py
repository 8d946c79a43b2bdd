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

Scenarios run side by side, up to ``VerifyRun.concurrency`` at once on one event loop, and their
independent parts too (``Context.side_by_side``): sessions of different scenarios do not interact
(MCP B30: a session's state is its own). On a server where they do, side by side must not change a
verdict, so:

- when any scenario's traffic shows the server delivering messages across sessions on its own
  (``leak``: a watching session's GET stream got messages, or a cross-session finding where no
  foreign event id was presented), every scenario is run again one at a time, parts one after
  another, and every verdict taken from that run;
- otherwise a scenario whose traffic shows strain (``strain``: a refused, slow or broken
  connection, an overload status, a session it opened answered 404 while it had not deleted it)
  is run again alone and its verdict taken from that run.

The report's note says which. ``concurrency`` 1 runs every scenario and part one after another.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from mcp_resume.spec.catalog import RULES, level
from mcp_resume.spec.profiles import PROFILE_OF_REVISION, Level, Profile
from mcp_resume.spec.verdicts import Verdict

from mcp_resume.model.http.client import PROTOCOL_VERSION, SESSIONLESS_VERSION, Timeouts, StreamableHttpClient
from mcp_resume.model.http.evidence import ErrorKind, Exchange
from mcp_resume.model.verify.driver import Driver, Inconclusive, NotObservable
from mcp_resume.model.verify.lifecycle_scenarios import (
    event_id_unique,
    expiry_independent,
    new_session_on_initialize,
    no_cross_session_after_delete,
    session_delete,
    sessionless_get_405,
    sessionless_ignores_headers,
    sessionless_notification_202,
    sessionless_request_validated,
)
from mcp_resume.model.verify.pending import (
    no_broadcast,
    no_duplicate_tool_call,
    no_reemit_on_stream_resume,
    reemit_keeps_pending,
    server_request_ownership,
    standalone_stream_scope,
)
from mcp_resume.model.verify.probe import Capabilities, TargetError, probe
from mcp_resume.model.verify.roles import ToolUse, check_listed
from mcp_resume.model.traffic.records import records_of
from mcp_resume.model.oracle.judge import beside_profile, judge
from mcp_resume.model.verify.judgement import Driven, verdict_of, with_beside
from mcp_resume.model.verify.report import Report, RuleVerdict, inconclusive, skip
from mcp_resume.model.verify.scenarios import (
    Context,
    UNLOCKS,
    WATCH_LABEL,
    Scenario,
    _missing,
    missing_need,
    malformed_session_400,
    missing_session_400,
    no_replay_on_session_resume,
    priming_event,
    protocol_version_accepted,
    reemit_pending,
    reject_foreign_event_id,
    reject_orphan_event_id,
    replay_suffix,
    retry_before_close,
    session_identity_stable,
    unknown_session_404,
    unlock_for,
    unsupported_version_400,
)

SCENARIO_EXCHANGES = 12
"""A scenario may take as long as this many whole exchanges before it is cut off."""
RUN_SECONDS = 600.0
"""Default bound on a whole verify run, in seconds."""
CLEANUP_SECONDS = 5.0
"""Bound on one scenario's cleanup (DELETE of its sessions, answers to its open server requests), in
seconds, and never past the whole run's bound."""
CONCURRENCY = 8
"""Scenarios run at once by default. Most of a scenario is waiting on the server, so eight take
about as long as the longest scenario and keep two cores nearly idle; each opens a few sessions and
streams, so a server sees a few dozen connections at once."""
CATALOG_ORDER = {rule.id: index for index, rule in enumerate(RULES)}
"""Each rule id's position in the catalog: verdicts and runs are kept in that order."""
CROSS_SESSION_RULES = ("no-cross-session", "server-request-ownership")
"""The rules whose findings show a server delivering a message to another session's connection.
(no-broadcast and standalone-stream-scope are about the streams of one session: what they find
stays in the scenario that drives that session.)"""
STRAIN_STATUSES = frozenset({429, 500, 502, 503, 504})
"""Statuses that may say the server is overloaded rather than what it thinks of a request (a 500
answered to a malformed request costs only the scenario's second run)."""

IN_PROCESS_ONLY = (
    "sessionless-request-scope",
    "sessionless-no-server-requests",
    "sessionless-close-cancels",
    "sessionless-input-required-retry",
)
"""Rules of the 2026-07-28 state machine (``spec/sessionless/machine.py``) checked in process only."""


async def _in_process_only(d: Driver, ctx: Context) -> None:
    raise NotObservable(
        "checked in process against the 2026-07-28 state machine (spec/sessionless/machine.py) only; over HTTP it "
        "needs a fixture tool that streams progress and answers InputRequiredResult"
    )


IN_PROCESS_OVER_HTTP = ("call-answered", "cancel-notifies")
"""Session-era rules that verify SKIPs: checked in process only, their breach shows over HTTP as
another rule's (``replay-suffix``) or not at all."""


async def _call_answered_unobservable(d: Driver, ctx: Context) -> None:
    raise NotObservable(
        "checked in process against the spec's state machine (mcp-resume check, explore); over HTTP a stream that "
        "ends is the same bytes as a connection the server closes to be polled (MCP D9), so a call ended without its "
        "response shows as the missing response of a resumed stream: replay-suffix"
    )


async def _cancel_notifies_unobservable(d: Driver, ctx: Context) -> None:
    raise NotObservable(
        "checked in process against the spec's state machine (mcp-resume check, explore); over HTTP a silent "
        "cancellation looks like a request still pending, and no client message makes a server give up on one"
    )


SESSIONS = ("sessions",)
STREAMS = ("sessions", "event-ids", "get")
RESUMES = ("sessions", "get")
PENDING = ("sessions", "get", "server-request-tool")

SCENARIOS: dict[str, Scenario] = {
    s.rule: s
    for s in (
        Scenario("replay-suffix", replay_suffix, STREAMS),
        Scenario("no-cross-session", no_cross_session_after_delete, RESUMES),
        Scenario("no-replay-on-session-resume", no_replay_on_session_resume, ("sessions", "get")),
        Scenario("no-reemit-on-stream-resume", no_reemit_on_stream_resume, PENDING + ("event-ids",)),
        Scenario("reemit-pending", reemit_pending, ("sessions", "server-request-tool")),
        Scenario("reemit-keeps-pending", reemit_keeps_pending, PENDING),
        Scenario("reject-orphan-event-id", reject_orphan_event_id, SESSIONS),
        Scenario("reject-foreign-event-id", reject_foreign_event_id, SESSIONS),
        Scenario("unknown-session-404", unknown_session_404, SESSIONS),
        Scenario("session-identity-stable", session_identity_stable, SESSIONS),
        Scenario("expiry-independent", expiry_independent, SESSIONS),
        Scenario("event-id-unique", event_id_unique, ("sessions", "event-ids")),
        Scenario("server-request-ownership", server_request_ownership, PENDING),
        Scenario("no-duplicate-tool-call", no_duplicate_tool_call, RESUMES),
        Scenario("no-broadcast", no_broadcast, PENDING),
        Scenario("standalone-stream-scope", standalone_stream_scope, RESUMES),
        Scenario("missing-session-400", missing_session_400, SESSIONS),
        Scenario("malformed-session-400", malformed_session_400, SESSIONS),
        Scenario("new-session-on-initialize", new_session_on_initialize, SESSIONS),
        Scenario("session-delete", session_delete, SESSIONS),
        Scenario("sessionless-get-405", sessionless_get_405, ()),
        Scenario("sessionless-ignores-headers", sessionless_ignores_headers, ()),
        Scenario("sessionless-request-validated", sessionless_request_validated, ()),
        Scenario("sessionless-notification-202", sessionless_notification_202, ()),
        Scenario("priming-event", priming_event, ("sessions", "sse")),
        Scenario("protocol-version-accepted", protocol_version_accepted, SESSIONS),
        Scenario("unsupported-version-400", unsupported_version_400, SESSIONS),
        Scenario("retry-before-close", retry_before_close, ("sessions", "sse")),
        Scenario("call-answered", _call_answered_unobservable, ()),
        Scenario("cancel-notifies", _cancel_notifies_unobservable, ()),
        *(Scenario(rule, _in_process_only, ()) for rule in IN_PROCESS_ONLY),
    )
}
"""One scenario per catalog rule id."""

assert set(SCENARIOS) == {r.id for r in RULES}, "every catalog rule needs a scenario"

OnVerdict = Callable[[RuleVerdict], None]


@dataclass
class VerifyRun:
    """One verify run: its inputs, and what it found so far.

    ``requested`` is the profile asked for (``None`` = auto); ``profile`` the one
    applied once the probe has seen the server's revision; ``tools`` the server's own
    tools given for a role (``verify --tool``), called wherever a fixture tool of that
    role would be; ``sdk`` the SDK the server is built with (``verify --sdk``, a target
    of ``model.traffic.fixes.SDKS``; ``None``: recognised from ``serverInfo``), whose
    remedies the report's fixes give; ``headers`` extra request headers (``verify --header``),
    whose names alone the report keeps (``capabilities["headers"]``); ``concurrency`` how many
    scenarios run at once (``verify --concurrency``; 1: one after another). ``run_seconds`` counts
    from ``started`` (the first request to the server).
    """

    url: str
    target: str
    requested: Profile | None
    bounds: Timeouts = field(default_factory=Timeouts)
    run_seconds: float = RUN_SECONDS
    stream_ttl: float | None = None
    session_ttl: float | None = None
    profile: Profile | None = None
    caps: Capabilities | None = None
    verdicts: list[RuleVerdict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    runs: list[Driven] = field(default_factory=list)
    tools: list[ToolUse] = field(default_factory=list)
    sdk: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    concurrency: int = CONCURRENCY
    started: float = field(default_factory=time.monotonic)
    stopped: str | None = None

    def report(self, stopped: str | None = None) -> Report:
        """The report; rules not judged yet are INCONCLUSIVE with ``stopped`` as reason, and the
        report is partial (``Report.partial``) when ``stopped`` is given (default: why the run
        stopped early, ``VerifyRun.stopped``, if it did)."""
        stopped = stopped or self.stopped
        profile = self.profile or self.requested or Profile.BOUNDARY
        verdicts = list(self.verdicts)
        judged = {v.rule for v in verdicts}
        for rule in RULES:
            if rule.id not in judged:
                verdicts.append(inconclusive(rule.id, profile, stopped or "not judged", [], []))
        caps = self.caps.to_json() if self.caps else {}
        if self.sdk is not None:
            caps["sdk"] = self.sdk
        if self.headers:
            caps["headers"] = [name for name, _ in self.headers]
        note = " ".join(self.notes) or None
        return Report(self.target, self.url, profile, caps, verdicts, note=note, partial=stopped,
                      seconds=time.monotonic() - self.started)


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

    The run ends within ``run.run_seconds`` of its start (plus the time to judge and report):
    rules not judged by then are INCONCLUSIVE, and the report is partial. Raises ``TargetError``
    (one line) when the server is unreachable or not MCP, and ``roles.ToolRoleError`` when a
    tool of ``run.tools`` is not one the server lists.
    """
    run.started = time.monotonic()
    deadline = run.started + run.run_seconds
    out_of_time = f"the whole run's time bound (--max-seconds {run.run_seconds:g}) was reached"
    try:
        await asyncio.wait_for(_probe(run), run.run_seconds)
    except asyncio.TimeoutError:
        run.stopped = f"{out_of_time} during the probe"
        return run.report()
    ctx = Context(run.profile, run.bounds, run.caps, run.stream_ttl, run.session_ttl, run.headers)
    if run.concurrency == 1:
        await _judge_all(run, ctx, deadline, on_verdict, [r.id for r in RULES], 1)
    else:
        await _judge_all(run, replace(ctx, side_by_side=True), deadline, on_verdict, [r.id for r in RULES],
                         run.concurrency)
        await _run_again_alone(run, ctx, deadline, on_verdict)
    _in_catalog_order(run)
    for revised in revise(run):
        if on_verdict is not None:
            on_verdict(revised)
    if time.monotonic() >= deadline and any(v.verdict is Verdict.INCONCLUSIVE for v in run.verdicts):
        run.stopped = out_of_time
    return run.report()


async def _probe(run: VerifyRun) -> None:
    """Probe the server into ``run.caps`` and pick ``run.profile``."""
    try:
        async with StreamableHttpClient(run.url, run.bounds, headers=run.headers) as client:
            run.caps = await probe(client)
    except TargetError:
        if run.requested is not Profile.MCP_2026_07_28:
            raise
        await _reachable(run)
        run.caps = Capabilities()
    check_listed(run.tools, run.caps.tools)
    run.caps.tool_uses = list(run.tools)
    run.profile, note = resolve_profile(run.requested, run.caps.protocol_version)
    if note:
        run.notes.append(note)
    if run.requested is None and run.caps.sessionless_too and run.profile is not Profile.MCP_2026_07_28:
        run.notes.append("The endpoint also serves 2026-07-28 (server/discover names it): auto judges the revision "
                         "it negotiated; --profile mcp-2026-07-28 judges that revision's rules, in its request shape.")


async def _judge_all(run: VerifyRun, ctx: Context, deadline: float, on_verdict: OnVerdict | None,
                     rule_ids: list[str], slots: int) -> None:
    """Judge ``rule_ids``, up to ``slots`` scenarios at once; verdicts are appended as made."""
    free = asyncio.Semaphore(max(1, slots))

    async def judge_one(rule_id: str) -> None:
        async with free:
            verdict = await judge_rule(SCENARIOS[rule_id], run.url, ctx, deadline - time.monotonic(), run.runs,
                                       deadline=deadline)
        run.verdicts.append(verdict)
        if on_verdict is not None:
            on_verdict(verdict)

    await asyncio.gather(*(judge_one(rule_id) for rule_id in rule_ids))


async def _run_again_alone(run: VerifyRun, ctx: Context, deadline: float, on_verdict: OnVerdict | None) -> None:
    """After scenarios side by side: every scenario again, one at a time, when one shows a leak
    (``leak``); else each that shows strain (``strain``). Verdicts are taken from the second run,
    while the whole run's time lasts; the report's note says which and why."""
    if time.monotonic() >= deadline:
        return
    leaked = next((why for driven in run.runs if (why := leak(driven)) is not None), None)
    if leaked is not None:
        again = [(driven, leaked) for driven in list(run.runs)]
        run.notes.append(f"Scenarios ran one at a time: the server delivered messages across sessions ({leaked}), "
                         "so scenarios side by side could see each other's traffic.")
    else:
        again = [(driven, why) for driven in list(run.runs) if (why := strain(driven)) is not None]
        if again:
            named = "; ".join(f"{driven.rule} ({why})" for driven, why in again)
            run.notes.append(f"Scenarios ran {run.concurrency} at once; {len(again)} showed strain and were run "
                             f"again alone, their verdicts from that run: {named}. --concurrency 1 runs every "
                             "scenario alone.")
    for driven, _ in sorted(again, key=lambda pair: CATALOG_ORDER[pair[0].rule]):
        run.runs.remove(driven)
        index = next(i for i, v in enumerate(run.verdicts) if v.rule == driven.rule)
        before = run.verdicts[index]
        verdict = await judge_rule(SCENARIOS[driven.rule], run.url, ctx, deadline - time.monotonic(), run.runs,
                                   deadline=deadline)
        run.verdicts[index] = verdict
        if on_verdict is not None and verdict.verdict is not before.verdict:
            on_verdict(verdict)


def strain(driven: Driven) -> str | None:
    """Why the traffic of a scenario run beside others may show the server strained rather than
    what it does with one client at a time: a session the scenario opened answered 404 before it
    deleted it (a server that ends sessions of its own accord, or one session's DELETE ending
    others), a connection refused, timed out or broken, an overload status (``STRAIN_STATUSES``),
    or the scenario itself cut off (INCONCLUSIVE); ``None`` when it shows none of these. A stream
    read to its whole-exchange bound is not strain: a server that keeps an idle stream busy (SSE
    keep-alive events) does so alone too."""
    if driven.stopped is not None and driven.stopped.verdict is Verdict.INCONCLUSIVE:
        return "it did not finish"
    live = set()
    for exchange in driven.exchanges:
        session = exchange.request_headers.get("mcp-session-id")
        if exchange.status == 404 and session in live:
            return f"{exchange.label}: HTTP 404 for a session it opened and had not deleted"
        if exchange.session_header and exchange.status is not None and exchange.status < 300:
            live.add(exchange.session_header)
        if exchange.method == "DELETE":
            live.discard(session)
        if exchange.error_kind in (ErrorKind.CONNECT, ErrorKind.FIRST_BYTE, ErrorKind.NETWORK):
            return f"{exchange.label}: {exchange.error}"
        if exchange.status in STRAIN_STATUSES:
            return f"{exchange.label}: HTTP {exchange.status}"
    return None


def leak(driven: Driven) -> str | None:
    """Where a scenario's traffic shows the server delivering messages across sessions on its own:
    a watching session's GET stream (``scenarios.WATCH_LABEL``, a session that sends nothing) that
    carried a JSON-RPC message, or a finding of a cross-session rule (``CROSS_SESSION_RULES``) at an
    exchange that did not provoke it on purpose (``_provoked``; MCP B23, B26); ``None`` when it
    shows none. A server that mixes sessions up only when one presents another's event id, or
    reuses its request id, leaks nothing to scenarios side by side."""
    for exchange in driven.exchanges:
        if exchange.label.endswith(WATCH_LABEL) and any(e.message is not None for e in exchange.events):
            return f"{exchange.label}: {sum(e.message is not None for e in exchange.events)} message(s)"
    presented = _provoked(driven.exchanges)
    for validation in (driven.validation, driven.beside):
        for result in validation.results if validation is not None else ():
            if result.rule not in CROSS_SESSION_RULES or result.verdict not in (Verdict.FAIL, Verdict.WARN):
                continue
            for step in result.steps:
                if any(f.rule == result.rule for f in step.report.findings) and not set(step.records) <= presented:
                    return f"{result.rule} {result.verdict.value} at {driven.exchanges[step.records[0] - 1].label}"
    return None


def _provoked(exchanges: list[Exchange]) -> set[int]:
    """The 1-based numbers of the exchanges that provoke a cross-session fault on purpose: a
    ``Last-Event-ID`` no event of its session (``Mcp-Session-Id``) carried, or one of a stream whose
    JSON-RPC request id another session also used. Scenarios side by side never share either: each
    presents its own sessions' event ids, and each client's request ids are its own."""
    ids: dict[str | None, set[str]] = {}
    request_of: dict[str, str] = {}
    sessions_of: dict[str, set[str | None]] = {}
    for exchange in exchanges:
        session = exchange.request_headers.get("mcp-session-id") or exchange.session_header
        ids.setdefault(session, set()).update(e.id for e in exchange.events if e.id is not None)
        rid = exchange.request_body.get("id") if isinstance(exchange.request_body, dict) else None
        if isinstance(rid, (str, int)) and exchange.method == "POST":
            sessions_of.setdefault(repr(rid), set()).add(session)
            request_of.update({e.id: repr(rid) for e in exchange.events if e.id is not None})
    provoked = set()
    for number, exchange in enumerate(exchanges, start=1):
        cursor = exchange.request_headers.get("last-event-id")
        if cursor is None:
            continue
        session = exchange.request_headers.get("mcp-session-id")
        shared = len(sessions_of.get(request_of.get(cursor, ""), ())) > 1
        if cursor not in ids.get(session, set()) or shared:
            provoked.add(number)
    return provoked


def _in_catalog_order(run: VerifyRun) -> None:
    """Verdicts and runs in catalog order, whatever order the scenarios finished in."""
    run.verdicts.sort(key=lambda v: CATALOG_ORDER[v.rule])
    run.runs.sort(key=lambda r: CATALOG_ORDER[r.rule])


def revise(run: VerifyRun) -> list[RuleVerdict]:
    """Judge again every rule already judged, with the traffic of every scenario run
    since (a later scenario may have broken an earlier rule, or judged one its own
    scenario could not); replaces them in ``run.verdicts`` and returns those whose
    verdict changed."""
    changed = []
    negotiated = run.caps.protocol_version if run.caps else None
    beside = _beside(run.profile, negotiated)
    for index, verdict in enumerate(run.verdicts):
        if _not_applicable(verdict.rule, run.profile, negotiated):
            continue
        own = next((r for r in run.runs if r.rule == verdict.rule), None)
        again = verdict_of(verdict.rule, run.profile, own, run.runs, before=None if own else verdict)
        again = with_beside(again, beside, own, run.runs)
        if (again.verdict, again.reason, again.beside) != (verdict.verdict, verdict.reason, verdict.beside):
            run.verdicts[index] = again
        if again.verdict is not verdict.verdict:
            changed.append(again)
    return changed


def verdicts_under(run: VerifyRun, profile: Profile) -> dict[str, RuleVerdict]:
    """Every rule's verdict on ``run``'s traffic (a finished session-era run) judged again under
    ``profile``: the same exchanges, the same judge, another profile's levels (scenarios drive a
    server alike under every session-era profile). A rule no scenario drove keeps its verdict's
    kind (its SKIP for a need the server lacks); one ``profile`` does not apply is SKIP."""
    again = [Driven(r.rule, r.exchanges, judge(records_of(r.exchanges), profile, complete=True, bounded_waits=True,
                                               session_ttl=run.session_ttl), r.stopped) for r in run.runs]
    verdicts = {}
    for before in run.verdicts:
        not_applicable = _not_applicable(before.rule, profile, None)
        if not_applicable:
            verdicts[before.rule] = skip(before.rule, profile, not_applicable)
            continue
        own = next((r for r in again if r.rule == before.rule), None)
        verdicts[before.rule] = verdict_of(before.rule, profile, own, again, before=None if own else before)
    return verdicts


def _not_applicable(rule_id: str, profile: Profile, negotiated: str | None) -> str | None:
    """Why ``profile`` does not apply the rule; ``None`` when it does. ``boundary`` holds a
    server of any session-era revision to 2025-11-25 and the decision, priming (D8) included."""
    if level(rule_id, profile) is Level.NOT_APPLICABLE:
        return f"not applicable under {profile.value}"
    return None


def _skip_not_applicable(rule_id: str, profile: Profile, reason: str, beside: Profile | None) -> RuleVerdict:
    """SKIP for a rule ``profile`` does not apply. When the profile shown beside it applies the
    rule, its scenario was not run for that profile either: the beside verdict is SKIP too, and
    the rule's ``unlock`` names the option that runs it."""
    if beside is None or level(rule_id, beside) is Level.NOT_APPLICABLE:
        return skip(rule_id, profile, reason)
    run_it = f"run verify --profile {beside.value}, which runs their scenarios"
    verdict = skip(rule_id, profile, f"{reason}; {beside.value} applies it: --profile {beside.value} judges it",
                   unlock=run_it)
    return replace(verdict, beside=(beside.value, Verdict.SKIP),
                   beside_reason=f"not run: its scenario runs only under a profile that applies it ({run_it})")


def _beside(profile: Profile, negotiated: str | None) -> Profile | None:
    """The profile whose verdicts are shown beside ``profile``'s (see ``beside_profile``)."""
    return beside_profile(profile, PROFILE_OF_REVISION.get(negotiated or ""))


async def judge_rule(scenario: Scenario, url: str, ctx: Context, seconds_left: float,
                     runs: list[Driven] | None = None, *, deadline: float | None = None) -> RuleVerdict:
    """The verdict on one rule: its scenario driven with a client and sessions of its own,
    its traffic judged by the spec, beside that of the scenarios in ``runs`` (to which
    this run is added). ``seconds_left`` bounds the scenario; ``deadline`` (``time.monotonic()``,
    default: ``seconds_left`` from now) its cleanup too."""
    runs = [] if runs is None else runs
    profile = ctx.profile
    not_applicable = _not_applicable(scenario.rule, profile, ctx.caps.protocol_version)
    if not_applicable:
        return _skip_not_applicable(scenario.rule, profile, not_applicable, _beside(profile, ctx.caps.protocol_version))
    missing = _missing(scenario.needs, ctx.caps)
    if missing is not None:
        need = missing_need(scenario.needs, ctx.caps)
        return skip(scenario.rule, profile, missing, unlock=unlock_for(need) if need != "sessions" else None)
    if seconds_left <= 0:
        return inconclusive(scenario.rule, profile, "the whole run's time bound was reached first", [], [])
    driven = await drive(scenario, url, ctx, seconds_left, deadline)
    runs.append(driven)
    beside = _beside(profile, ctx.caps.protocol_version)
    verdict = with_beside(verdict_of(scenario.rule, profile, driven, runs), beside, driven, runs)
    if verdict.verdict is Verdict.SKIP and verdict.unlock is None and not ctx.caps.event_ids:
        verdict = replace(verdict, unlock=unlock_for("event-ids"))  # nothing to resume from: say what would give it
    return verdict


async def drive(scenario: Scenario, url: str, ctx: Context, seconds_left: float,
                deadline: float | None = None) -> Driven:
    """Run ``scenario`` against ``url`` within its bound and judge its traffic with the spec; its
    cleanup is bounded by ``CLEANUP_SECONDS`` and by ``deadline`` (default: ``seconds_left`` from now)."""
    profile = ctx.profile
    deadline = time.monotonic() + seconds_left if deadline is None else deadline
    waits = (ctx.stream_ttl or 0) + (ctx.session_ttl or 0) if scenario.rule == "expiry-independent" else 0
    own_bound = ctx.bounds.exchange * SCENARIO_EXCHANGES + waits
    bound = min(own_bound, seconds_left)
    version = SESSIONLESS_VERSION if profile is Profile.MCP_2026_07_28 else ctx.caps.protocol_version or PROTOCOL_VERSION
    stopped: RuleVerdict | None = None
    async with StreamableHttpClient(url, ctx.bounds, protocol_version=version, headers=ctx.headers) as client:
        client.version_on_get = ctx.caps.get_refused_version is None
        driver = Driver(client, ctx.caps.tools, json_posts=ctx.caps.post_stream == "json", uses=ctx.caps.tool_uses,
                        unplayed=ctx.caps.unplayed)
        try:
            await asyncio.wait_for(scenario.run(driver, ctx), bound)
        except NotObservable as reason:
            stopped = skip(scenario.rule, profile, str(reason), client.exchanges, UNLOCKS.get(reason.unlock or ""))
        except Inconclusive as reason:
            stopped = inconclusive(scenario.rule, profile, str(reason), [], client.exchanges)
        except asyncio.TimeoutError:
            stopped = inconclusive(scenario.rule, profile, _timed_out(bound, own_bound), [], client.exchanges)
        finally:
            cleanup = min(CLEANUP_SECONDS, deadline - time.monotonic())
            try:
                if cleanup > 0:
                    await asyncio.wait_for(driver.cleanup(), cleanup)
            except asyncio.TimeoutError:
                pass
    records = records_of(client.exchanges)
    other = _beside(profile, ctx.caps.protocol_version)
    ttl = ctx.session_ttl
    beside = judge(records, other, complete=True, bounded_waits=True, session_ttl=ttl) if other is not None else None
    judged = judge(records, profile, complete=True, bounded_waits=True, session_ttl=ttl)
    return Driven(scenario.rule, client.exchanges, judged, stopped, beside)


def _timed_out(bound: float, own_bound: float) -> str:
    """Why a scenario stopped at ``bound`` seconds: its own bound, or the whole run's
    (``--max-seconds``), whichever was shorter."""
    if bound < own_bound:
        return f"the whole run's time bound (--max-seconds) was reached during the scenario, {bound:.1f} s after it began"
    return f"the scenario took longer than {bound:g} s"


async def _reachable(run: VerifyRun) -> None:
    async with StreamableHttpClient(run.url, run.bounds, headers=run.headers) as client:
        plain = await client.get(label="reachability: GET without headers")
    if plain.error_kind in (ErrorKind.CONNECT, ErrorKind.FIRST_BYTE):
        raise TargetError(f"{run.url}: {plain.error}")


