"""One oracle: every checker that sees a real server judges with the spec's own server checks.

Weakening one check of ``spec/invariants.py`` (``no_cross_session`` made to hold always)
changes what ``verify`` says of a design that breaks it over HTTP and what ``validate``
says of a recording of it: neither has a comparison of its own to fall back on."""

from __future__ import annotations

import asyncio

import pytest

from mcp_resume.model.http.client import StreamableHttpClient
from mcp_resume.model.serving.designs_over_http import FACADE_BOUNDS
from mcp_resume.model.serving.facade import serving_design
from mcp_resume.model.oracle.judge import judge
from mcp_resume.model.verify.probe import probe
from mcp_resume.model.verify.scenarios import Context
from mcp_resume.model.verify.suite import SCENARIOS, judge_rule
from mcp_resume.spec import invariants
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

from tests.helpers.traffic_runs import recorded

pytestmark = [pytest.mark.timeout(120)]


def _weakened(monkeypatch) -> None:
    checks = tuple((rule, (lambda t: []) if check is invariants.no_cross_session else check)
                   for rule, check in invariants.SERVER_CHECKS)
    monkeypatch.setattr(invariants, "SERVER_CHECKS", checks)


def _verify_design_2(rule: str) -> Verdict:
    async def run(url: str) -> Verdict:
        async with StreamableHttpClient(url, FACADE_BOUNDS) as client:
            caps = await probe(client)
        ctx = Context(Profile.BOUNDARY, FACADE_BOUNDS, caps)
        return (await judge_rule(SCENARIOS[rule], url, ctx, 60.0)).verdict

    with serving_design("design-2") as url:
        return asyncio.run(run(url))


def test_verify_reports_what_the_spec_check_finds_and_nothing_else(monkeypatch):
    assert _verify_design_2("no-cross-session") is Verdict.FAIL
    _weakened(monkeypatch)
    assert _verify_design_2("no-cross-session") is Verdict.PASS


def test_validate_reports_what_the_spec_check_finds_and_nothing_else(monkeypatch):
    records = recorded("design-2")
    assert judge(records, Profile.BOUNDARY).result("no-cross-session").verdict is Verdict.FAIL
    _weakened(monkeypatch)
    weakened = judge(records, Profile.BOUNDARY)
    assert weakened.result("no-cross-session").verdict is Verdict.PASS
    assert weakened.result("reject-foreign-event-id").verdict is Verdict.FAIL  # the other checks still judge
