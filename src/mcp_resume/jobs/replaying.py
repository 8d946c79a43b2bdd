"""Replaying a saved finding for ``mcp-resume replay``: a verify trace's rule judged again against a
target over HTTP (``replay_verify_trace``), a spec trace side by side with the spec against an
in-process server or over HTTP, and a lasso's prefix and rounds (``replay_spec_trace``). Each
prints what was expected and observed and returns the exit code ``replay`` documents.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from contextlib import nullcontext

from mcp_resume.model.servers.adapter import Unsupported
from mcp_resume.model.targets.embedded import is_embedded, running_target
from mcp_resume.model.http.client import Timeouts, StreamableHttpClient
from mcp_resume.model.verify.probe import probe
from mcp_resume.model.verify.roles import ToolUse, check_listed, recorded_uses
from mcp_resume.model.verify.scenarios import Context
from mcp_resume.model.verify.suite import SCENARIOS, judge_rule
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.trace import Trace
from mcp_resume.spec.verdicts import Verdict

from mcp_resume.jobs.exits import EXIT_FAILED, EXIT_OK, EXIT_UNCHECKED as EXIT_UNREACHABLE
IN_PROCESS = ("spec", "reference")
NOT_JUDGED = (Verdict.SKIP, Verdict.INCONCLUSIVE)
"""A replayed rule's verdicts that judged nothing: exit 3, never 0."""
STILL_BROKEN = (Verdict.FAIL, Verdict.WARN)
"""A replayed rule's verdicts that show the finding again: exit 1, never 0."""


def replay_verify_trace(data: dict, target: str, profile_name: str | None, bounds: Timeouts,
                        given: Sequence[ToolUse] = (), headers: tuple[tuple[str, str], ...] = ()) -> int:
    """Judge a verify trace's rule again on ``target``, with the tools the trace records for a role
    (``verify --tool``) and those ``given`` (``replay --tool``) replacing their role's; exit 0 for
    PASS, 1 while the finding reproduces (FAIL or WARN), 3 when nothing was judged (SKIP,
    INCONCLUSIVE). ``headers``: extra request headers (``replay --header``; a trace keeps their
    names only, ``capabilities["headers"]``). ``ValueError`` for a trace naming no known rule,
    ``ToolRoleError`` for a tool the server does not list."""
    rule = data.get("rule")
    if rule not in SCENARIOS:
        raise ValueError(f"the trace names no known rule: {rule!r}")
    profile = Profile.parse(profile_name or data.get("profile", "boundary"))
    uses = _tool_uses(recorded_uses(data.get("tools")), list(given))
    name = "reference" if target == "spec" else target
    print(f"replay {rule} under {profile.value} against {target} (recorded: {data.get('verdict')} on {data.get('target')})")
    if target == "spec" and uses:
        print(f"  the spec's reference server lists only the fixture tools: it plays every role with its own, "
              f"not {', '.join(use.name for use in uses)}")
        uses = []
    for use in uses:
        print(f"  tool {use.name} for {use.role.value}" + (f" with {json.dumps(use.arguments)}" if use.arguments else ""))
    if is_embedded(name):
        with running_target(name) as url:
            verdict = asyncio.run(_judge(rule, url, profile, bounds, uses))
    else:
        url = _parse_url(target)
        needed = [name for name in data.get("headers") or () if name.lower() not in {n.lower() for n, _ in headers}]
        if needed:
            print(f"  the trace was recorded with header(s) {', '.join(needed)}: give them with --header or "
                  "MCP_RESUME_HEADERS if the server needs them")
        verdict = asyncio.run(_judge(rule, url, profile, bounds, uses, headers))
    print(f"{verdict.rule}: {verdict.verdict.value} ({verdict.level.value}): {verdict.reason}")
    for check in verdict.checks:
        print(f"  [{'held' if check.held else 'BROKEN'}] {check.what}: expected {check.expected}, observed {check.observed}")
    for exchange in verdict.exchanges:
        print(f"    {exchange.one_line()}")
    if verdict.verdict in NOT_JUDGED:
        return _error(f"{rule} was not judged on {target} ({verdict.verdict.value}): {verdict.reason}; "
                      "a replay that judged nothing does not show the finding fixed", EXIT_UNREACHABLE)
    if verdict.verdict in STILL_BROKEN:
        print(f"{rule} is still {verdict.verdict.value} on {target}: the finding reproduces")  # a verdict, no error
        return EXIT_FAILED
    print(f"{rule} holds on {target} ({verdict.verdict.value}): the finding does not reproduce")
    return EXIT_OK


def _tool_uses(recorded: list[ToolUse], given: list[ToolUse]) -> list[ToolUse]:
    """The trace's tools, those of a role given with ``--tool`` replaced by the given ones."""
    replaced = {use.role for use in given}
    return [use for use in recorded if use.role not in replaced] + given


def _parse_url(target: str) -> str:
    """The URL of ``target``; ``ValueError`` (exit 2) when it is none."""
    from mcp_resume.jobs.targets import UsageError, parse_target

    try:
        return parse_target(target)
    except UsageError as error:
        raise ValueError(str(error)) from None


async def _judge(rule: str, url: str, profile: Profile, bounds: Timeouts, uses: Sequence[ToolUse] = (),
                 headers: tuple[tuple[str, str], ...] = ()):
    async with StreamableHttpClient(url, bounds, headers=headers) as client:
        caps = await probe(client)
    check_listed(list(uses), caps.tools)
    caps.tool_uses = list(uses)
    return await judge_rule(SCENARIOS[rule], url, Context(profile, bounds, caps, headers=headers), float("inf"))


def replay_spec_trace(trace, target: str, profile_name: str | None, bounds: Timeouts,
                      headers: tuple[tuple[str, str], ...] = ()) -> int:
    """Replay a spec trace against ``target``: in process (``spec``, ``reference``, ``design-N``,
    ``variation-...``), or its client actions over HTTP, with ``headers`` on every request. Exit
    code 0 (agrees), 1 (a FAIL), 4 (the target cannot play the trace)."""
    from mcp_resume.model.harness.checker import Counterexample, replay
    from mcp_resume.model.servers.inprocess import server_factory

    profile = Profile.parse(profile_name) if profile_name else trace.profile
    if not trace.actions:
        raise ValueError("the trace has no action: there is nothing to replay")
    in_process = target in IN_PROCESS or target.startswith(("design-", "variation-"))
    if in_process and "lasso" in trace.meta:  # a malformed one is refused by lasso_shape, not replayed as plain
        server = server_factory(target)() if target != "spec" else server_factory("spec")(profile)
        return _replay_lasso(trace, server, target, profile)
    if not in_process:
        return _replay_over_http(trace, target, profile, bounds, headers)
    server = server_factory(target)() if target != "spec" else server_factory("spec")(profile)
    print(f"replay a {len(trace.actions)}-step trace under {profile.value} against {target}")  # once it is there
    try:
        reports = replay(trace, server, profile)
    except Counterexample as found:
        print(found.explain())
        return EXIT_FAILED
    except Unsupported as error:
        return _error(f"{target} cannot be driven through this trace: {error}", EXIT_UNREACHABLE)
    finally:
        server.close()
    print(trace.describe())
    print(f"all {len(reports)} steps agree with the spec")
    return EXIT_OK


def _replay_over_http(trace, target: str, profile: Profile, bounds: Timeouts,
                      headers: tuple[tuple[str, str], ...] = ()) -> int:
    """Play the trace's client actions against ``target`` (a URL or an embedded target) and
    judge what came back with the spec (``model.verify.playback``): exit 1 on a FAIL."""
    from mcp_resume.model.verify.playback import replay_over_http

    url = target if is_embedded(target) else _parse_url(target)
    context = running_target(target) if is_embedded(target) else nullcontext(url)
    with context as url:
        tools = asyncio.run(_listed_tools(url, bounds, headers))
        print(f"replay the client actions of a {len(trace.actions)}-step trace under {profile.value} against {target}")
        try:
            judged = replay_over_http(trace, url, bounds, tools, profile, headers)
        except Unsupported as error:
            return _error(f"{target} cannot be driven through this trace: {error}. Over HTTP only client actions "
                          "and the server actions fixture tools can play are replayed; replay the trace against "
                          "spec, reference or design-N instead", EXIT_UNREACHABLE)
    print(trace.describe())
    failed = [r for r in judged.results if r.verdict is Verdict.FAIL]
    for result in failed:
        print(f"{result.rule}: FAIL: {result.reason}")
    if failed:
        return EXIT_FAILED
    if not judged.steps:
        return _error(f"no step of the trace could be judged on {target}: "
                      + ("; ".join(judged.open) or "the log left every exchange open"), EXIT_UNREACHABLE)
    print(f"the server's answers agree with the spec ({len(judged.steps)} steps judged)")
    return EXIT_OK


async def _listed_tools(url: str, bounds: Timeouts, headers: tuple[tuple[str, str], ...] = ()) -> list[str]:
    async with StreamableHttpClient(url, bounds, headers=headers) as client:
        return (await probe(client)).tools


def _replay_lasso(trace, server, target: str, profile: Profile) -> int:
    """A lasso of ``liveness``: the prefix, then the cycle as often as the trace
    repeats it, following the server. The lasso reproduces when its request
    (``meta.lasso.request``; any request when it names none) is stranded after the prefix
    and after every round; exit 1 then, where ``no-stranded-request`` is a MUST under
    ``profile`` (``liveness_check.required``), else 0."""
    from mcp_resume.model.explore.liveness_check import RULE, lasso_request, lasso_shape, replay_lasso, required, requirement

    try:
        prefix, cycle = lasso_shape(trace)
    except ValueError:
        server.close()
        raise
    request = lasso_request(trace)
    rounds = (len(trace.actions) - prefix) // cycle
    print(f"replay a lasso under {profile.value} against {target}: a {prefix}-step prefix, then its {cycle}-step "
          f"cycle {_times(rounds)}; {request or 'a request'} stays stranded, it says")
    print(Trace(trace.actions, trace.profile, None, trace.source, trace.meta).describe())
    try:
        after = replay_lasso(trace, server)
    finally:
        server.close()
    for number, requests in enumerate(after):
        name = "after the prefix" if number == 0 else f"after round {number}"
        print(f"{name}: " + (", ".join(f"{r} stranded" for r in sorted(requests)) or "nothing stranded"))
    missed = [number for number, requests in enumerate(after)
              if not (request in requests if request else requests)]
    if missed:
        where = "the prefix" if missed[0] == 0 else f"round {missed[0]}"
        print(f"{RULE}: the lasso does not reproduce on {target}: {request or 'no request'} is not stranded after {where}")
        if target == "spec":
            print("(the spec target is the spec's own server: it re-emits a pending request at session resumption, "
                  "as boundary requires)")
        return EXIT_OK
    print(f"{RULE}: the lasso reproduces on {target}: {request or ', '.join(sorted(after[-1]))} stranded after the "
          "prefix and after every round")
    print(requirement(profile))
    return EXIT_FAILED if required(profile) else EXIT_OK


def _times(rounds: int) -> str:
    return "once" if rounds == 1 else "twice" if rounds == 2 else f"{rounds} times"


def _error(message: str, code: int) -> int:
    print(f"mcp-resume replay: error: {message}", file=sys.stderr)
    return code
