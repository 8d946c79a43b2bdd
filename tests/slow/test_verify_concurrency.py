"""Scenarios run side by side: the same verdicts as the server gets alone, on a server that cannot
take many connections at once too (it is judged as it would be one scenario at a time)."""

from __future__ import annotations

import asyncio

import pytest

from mcp_resume.model.servers.inprocess import server_factory
from mcp_resume.model.serving.facade import FacadeApp, serving, serving_design
from mcp_resume.model.verify.suite import VerifyRun, verify
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict
from tests.helpers.bounds import SHORT_BOUNDS

pytestmark = pytest.mark.slow

OPEN_REQUESTS = 8
"""Requests the capped server serves at once; more are answered 503 (more than one scenario's own)."""


class Capped:
    """An ASGI app that answers HTTP 503 while ``limit`` requests of ``app`` are being served."""

    def __init__(self, app, limit: int):
        self.app, self.limit, self.open, self.refused = app, limit, 0, 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if self.open >= self.limit:
            self.refused += 1
            await send({"type": "http.response.start", "status": 503, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"busy"})
            return
        self.open += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.open -= 1


def verdicts_of(url: str, concurrency: int) -> tuple[dict[str, tuple], VerifyRun]:
    run = VerifyRun(url, "reference", Profile.BOUNDARY, SHORT_BOUNDS, concurrency=concurrency)
    report = asyncio.run(verify(run))
    return {v.rule: (v.verdict, v.beside) for v in report.verdicts}, run


@pytest.fixture(scope="module")
def reference_verdicts():
    with serving_design("reference") as url:
        verdicts, run = verdicts_of(url, 6)
    assert not any("showed strain" in note or "one at a time" in note for note in run.notes)
    return verdicts


@pytest.mark.xdist_group("test_verify_concurrency")  # shares a module-scoped fixture
def test_a_server_refusing_concurrent_requests_gets_the_verdicts_it_gets_alone(reference_verdicts):
    capped = Capped(FacadeApp(server_factory("reference")()), OPEN_REQUESTS)
    with serving(capped) as url:
        verdicts, run = verdicts_of(url, 6)
    assert capped.refused > 0  # the cap bit: scenarios side by side need more than it serves
    assert verdicts == reference_verdicts
    note = " ".join(run.notes)
    assert "showed strain and were run again alone" in note and "HTTP 503" in note


@pytest.mark.xdist_group("test_verify_concurrency")  # shares a module-scoped fixture
def test_one_scenario_at_a_time_gives_the_same_verdicts(reference_verdicts):
    with serving_design("reference") as url:
        verdicts, _ = verdicts_of(url, 1)
    assert verdicts == reference_verdicts


def test_a_server_that_sends_to_every_session_has_every_scenario_run_again_one_at_a_time():
    with serving_design("design-21") as url:  # every new message to every connected stream
        verdicts, run = verdicts_of(url, 6)
    assert any("Scenarios ran one at a time: the server delivered messages across sessions" in n for n in run.notes)
    assert verdicts["no-broadcast"][0] is Verdict.FAIL and verdicts["no-cross-session"][0] is Verdict.FAIL


def test_a_delete_that_ends_every_session_has_the_scenarios_it_cut_run_again_alone():
    with serving_design("design-29") as url:  # DELETE of one session ends every session
        verdicts, run = verdicts_of(url, 6)
    note = " ".join(run.notes)
    assert "showed strain and were run again alone" in note and "HTTP 404 for a session it opened" in note
    assert verdicts["session-identity-stable"][0] is Verdict.FAIL
