"""A server whose GET refuses the MCP-Protocol-Version its own ``initialize`` negotiated
(mcp-lite 0.10.0 negotiates 2025-03-26 and accepts 2025-06-18 only on GET): verify files
that under ``protocol-version-accepted`` (C40) and drives the rules that need a GET
stream with GETs that leave the header out. The servers are switches of
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


@pytest.mark.covers("protocol-version-accepted")
def test_a_get_refusing_the_negotiated_version_is_its_own_finding_and_the_gets_go_on_without_it():
    caps, found = probed_and_judged(LIKE_MCP_LITE, "protocol-version-accepted", "session-identity-stable", *GET_RULES)
    assert caps.protocol_version == "2025-03-26" and caps.get_status == 400 and caps.get_stream
    assert caps.get_refused_version == "2025-03-26"
    accepted = found["protocol-version-accepted"]
    assert accepted.verdict is Verdict.FAIL, accepted.reason
    assert "refused with 400 for carrying the negotiated MCP-Protocol-Version" in accepted.reason
    assert found["session-identity-stable"].verdict is Verdict.PASS, found["session-identity-stable"].reason
    for rule in GET_RULES:
        assert found[rule].verdict is Verdict.PASS, (rule, found[rule].reason)


def test_the_probe_sends_the_refused_get_once_more_without_the_version_header():
    caps, _ = probed_and_judged(LIKE_MCP_LITE)
    gets = [x for x in caps.exchanges if x.method == "GET"]
    assert [x.request_headers.get("mcp-protocol-version") for x in gets] == ["2025-03-26", None]
    assert [x.status for x in gets] == [400, 200]


@pytest.mark.covers("protocol-version-accepted")
def test_a_get_refused_for_another_reason_is_not_blamed_on_the_version():
    caps, found = probed_and_judged(Variant(version="2025-03-26", get_status=400), "protocol-version-accepted",
                                    "no-replay-on-session-resume")
    assert caps.get_status == 400 and caps.get_refused_version is None and not caps.get_stream
    assert found["protocol-version-accepted"].verdict is Verdict.PASS, found["protocol-version-accepted"].reason
    verdict = found["no-replay-on-session-resume"]
    assert verdict.verdict is Verdict.SKIP and "a GET stream" in (verdict.unlock or "")


def test_a_get_that_accepts_the_negotiated_version_is_driven():
    caps, found = probed_and_judged(Variant(version="2025-06-18", get_version="2025-06-18"), "no-replay-on-session-resume",
                                    "protocol-version-accepted")
    assert caps.get_stream and caps.get_refused_version is None
    for rule, verdict in found.items():
        assert verdict.verdict is Verdict.PASS, (rule, verdict.reason)
