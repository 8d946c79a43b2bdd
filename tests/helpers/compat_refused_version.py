"""What tests/fast/test_compat_refused_version.py and tests/slow/test_compat_refused_version.py share."""

from __future__ import annotations

import asyncio

from mcp_resume.model.http.client import StreamableHttpClient, Timeouts
from mcp_resume.model.verify.probe import probe
from mcp_resume.model.verify.scenarios import Context
from mcp_resume.model.verify.suite import SCENARIOS, judge_rule, resolve_profile
from tests.helpers.bounds import SHORT_BOUNDS
from tests.helpers.servers.variants import Variant, serving_variant


def probed_and_judged(variant: Variant, *rules: str, bounds: Timeouts = SHORT_BOUNDS):
    """The probe's capabilities and the verdicts of ``rules`` under ``auto``, waiting as ``bounds`` say."""
    with serving_variant(variant) as url:
        return asyncio.run(_run(url, rules, bounds))


async def _run(url, rules, bounds):
    async with StreamableHttpClient(url, bounds) as client:
        caps = await probe(client)
    profile, _ = resolve_profile(None, caps.protocol_version)
    ctx = Context(profile, bounds, caps)
    return caps, {rule: await judge_rule(SCENARIOS[rule], url, ctx, 60.0) for rule in rules}
