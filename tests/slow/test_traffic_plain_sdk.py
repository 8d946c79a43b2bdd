"""The most ordinary traffic: the official Python SDK 2.3 ``Client`` as its README uses it,
in ``mode="legacy"`` (initialize, a session) and in its default mode (``server/discover``,
2026-07-28, no session), against a server written as the SDK's README shows
(``tests/helpers/servers/plain_sdk.py``: an ``MCPServer``, no event store).

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_traffic_plain_sdk.py``, whose docstring says more.
"""

from __future__ import annotations

import pytest

from mcp_resume.model.oracle.judge import judge
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

from tests.helpers.traffic_runs import PLAIN_RECORDINGS, recorded_live, sdk_client


REVISIONS = {"legacy": Profile.MCP_2025_11_25, None: Profile.MCP_2026_07_28}
BLAME = (Verdict.FAIL, Verdict.WARN, Verdict.INCONCLUSIVE)


@pytest.mark.parametrize("mode", list(PLAIN_RECORDINGS), ids=lambda m: m or "default")
def test_the_proxy_blames_the_plain_server_for_nothing_live(mode):
    records, live = recorded_live("plain-sdk", sdk_client(mode), profile=None)
    assert live == set()
    result = judge(records)
    assert result.profile is REVISIONS[mode]
    blamed = {r.rule: r.verdict for r in result.results if r.verdict in BLAME}
    # without an event store the SDK opens its POST streams with no priming event: D8's SHOULD, whatever it keeps
    assert blamed == ({"priming-event": Verdict.WARN} if mode == "legacy" else {})
