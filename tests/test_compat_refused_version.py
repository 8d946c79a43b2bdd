"""A server whose GET refuses the MCP-Protocol-Version its own ``initialize`` negotiated
(mcp-lite 0.10.0 negotiates 2025-03-26 and accepts 2025-06-18 only on GET): verify files
a finding under ``session-identity-stable`` (B15, C40) and each rule that needs a GET
stream SKIPs with that cause and what would unlock it. The servers are switches of
``tests/servers/variants.py``, started here on 127.0.0.1."""

from __future__ import annotations

import asyncio

import pytest

from mcp_resume.model.http.client import StreamableHttpClient, Timeouts
from mcp_resume.model.verify.probe import probe
from mcp_resume.model.verify.scenarios import Context
from mcp_resume.model.verify.suite import SCENARIOS, judge_rule, resolve_profile
from mcp_resume.spec.verdicts import Verdict
from servers.variants import Variant, serving_variant

BOUNDS = Timeouts.from_timeout(2.0)
GET_RULES = ("no-replay-on-session-resume", "reject-orphan-event-id", "reemit-pending")
LIKE_MCP_LITE = Variant(version="2025-03-26", get_version="2025-06-18")

pytestmark = [pytest.mark.timeout(120)]


def probed_and_judged(variant: Variant, *rules: str):
    """The probe's capabilities and the verdicts of ``rules`` under ``auto``."""
    with serving_variant(variant) as url:
        return asyncio.run(_run(url, rules))


async def _run(url, rules):
    async with StreamableHttpClient(url, BOUNDS) as client:
        caps = await probe(client)
    profile, _ = resolve_profile(None, caps.protocol_version)
    ctx = Context(profile, BOUNDS, caps)
    return caps, {rule: await judge_rule(SCENARIOS[rule], url, ctx, 60.0) for rule in rules}


@pytest.mark.covers("session-identity-stable")
def test_a_get_refusing_the_negotiated_version_is_a_finding_of_the_server():
    caps, found = probed_and_judged(LIKE_MCP_LITE, "session-identity-stable", *GET_RULES)
    assert caps.protocol_version == "2025-03-26" and caps.get_status == 400 and not caps.get_stream
    assert caps.get_refused_version == "2025-03-26"
    stable = found["session-identity-stable"]
    assert stable.verdict is Verdict.FAIL, stable.reason
    failed = [c for c in stable.checks if not c.held]
    assert [c.what.split(":")[0] for c in failed] == ["GET with the session id alone"]
    assert "answered 400" in failed[0].observed
    for rule in GET_RULES:
        verdict = found[rule]
        assert verdict.verdict is Verdict.SKIP, (rule, verdict.reason)
        assert "refuses MCP-Protocol-Version 2025-03-26" in verdict.reason, (rule, verdict.reason)
        assert verdict.unlock and "accept MCP-Protocol-Version 2025-03-26" in verdict.unlock, (rule, verdict.unlock)


def test_the_probe_sends_the_refused_get_once_more_without_the_version_header():
    caps, _ = probed_and_judged(LIKE_MCP_LITE)
    gets = [x for x in caps.exchanges if x.method == "GET"]
    assert [x.request_headers.get("mcp-protocol-version") for x in gets] == ["2025-03-26", None]
    assert [x.status for x in gets] == [400, 200]


def test_a_get_refused_for_another_reason_is_not_blamed_on_the_version():
    caps, found = probed_and_judged(Variant(version="2025-03-26", get_status=400), "no-replay-on-session-resume")
    assert caps.get_status == 400 and caps.get_refused_version is None
    verdict = found["no-replay-on-session-resume"]
    assert verdict.verdict is Verdict.SKIP and "refuses MCP-Protocol-Version" not in verdict.reason
    assert "a GET stream" in (verdict.unlock or "")


def test_a_get_that_accepts_the_negotiated_version_is_driven():
    caps, found = probed_and_judged(Variant(version="2025-06-18", get_version="2025-06-18"), "no-replay-on-session-resume")
    assert caps.get_stream and caps.get_refused_version is None
    assert found["no-replay-on-session-resume"].verdict is Verdict.PASS, found["no-replay-on-session-resume"].reason
