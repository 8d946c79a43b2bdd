"""The most ordinary traffic: the official Python SDK 2.3 ``Client`` as its README uses it,
in ``mode="legacy"`` (initialize, a session) and in its default mode (``server/discover``,
2026-07-28, no session), against a server written as the SDK's README shows
(``tests/helpers/servers/plain_sdk.py``: an ``MCPServer``, no event store). The server breaks
nothing but D8's SHOULD (no priming event on its POST streams, 2025-11-25): ``validate`` gives
that one WARN, no FAIL, and reads the revision from the traffic.
``tests/helpers/recordings/python-sdk-2.3-client-*.jsonl`` are recordings of it through the proxy
(``traffic_runs.write_plain_recordings``); the slow test records it again live."""

from __future__ import annotations

import json

import pytest

from mcp_resume.cli import main
from mcp_resume.model.oracle.judge import judge
from mcp_resume.model.traffic.records import read
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

from tests.helpers.traffic_runs import PLAIN_RECORDINGS, RECORDINGS


REVISIONS = {"legacy": Profile.MCP_2025_11_25, None: Profile.MCP_2026_07_28}
BLAME = (Verdict.FAIL, Verdict.WARN, Verdict.INCONCLUSIVE)


@pytest.mark.parametrize("mode", list(PLAIN_RECORDINGS), ids=lambda m: m or "default")
def test_the_recorded_sdk_client_blames_the_plain_server_for_nothing(mode, tmp_path):
    path = RECORDINGS / PLAIN_RECORDINGS[mode]
    result = judge(read(path))
    assert result.profile is REVISIONS[mode]
    blamed = {r.rule: r.verdict for r in result.results if r.verdict in BLAME}
    # without an event store the SDK opens its POST streams with no priming event: D8's SHOULD, whatever it keeps
    assert blamed == ({"priming-event": Verdict.WARN} if mode == "legacy" else {})
    assert any(r.verdict is Verdict.PASS for r in result.results) and not result.notes
    report = tmp_path / "report.json"
    assert main(["validate", str(path), "--json", str(report)]) == 0
    written = json.loads(report.read_text())
    assert written["profile"] == REVISIONS[mode].value
    assert "agreement" not in {v["rule"] for v in written["verdicts"]}


def test_events_without_an_id_are_not_one_event():
    result = judge(read(RECORDINGS / PLAIN_RECORDINGS["legacy"]))
    named = [d.event for p in result.steps for d in p.report.observed.events]
    assert len(named) == len(set(named))
    assert result.result("event-id-unique").verdict is Verdict.SKIP  # no id to judge
