"""Hostile servers started for real on 127.0.0.1: each ends in a clear verdict or
error within its bound, never a hang or a traceback."""

from __future__ import annotations

import json
import re
import time

import pytest

from tests.helpers import hostile_servers as hostile
from mcp_resume.cli import main
from mcp_resume.spec.catalog import RULES


BOUND = 0.5
"""--timeout given to the hostile servers."""


@pytest.mark.timeout(120)
def test_a_server_that_stops_answering_after_the_probe_gets_a_verdict_for_every_rule(tmp_path, capsys):
    path = tmp_path / "report.json"
    started = time.monotonic()
    with hostile.http_server(hostile.mcp_then_silent) as url:
        code = main(["verify", url, "--timeout", str(BOUND), "--max-seconds", "30", "--json", str(path)])
    elapsed = time.monotonic() - started
    report = json.loads(path.read_text())
    verdicts = {v["rule"]: v for v in report["verdicts"]}
    assert code in (1, 3) and list(verdicts) == [r.id for r in RULES]  # never 0: much was never checked
    assert elapsed < 30 + 10
    # GET never answered: MCP allows only an SSE stream or 405 (B15), so a session resumption, a
    # stream resumption and a cursor refusal that get no answer break a MUST (the case no-answer
    # of replay-suffix and reject-foreign-event-id), and the rules that need a GET stream have none
    assert verdicts["session-identity-stable"]["verdict"] == "FAIL"
    for rule in ("replay-suffix", "reject-foreign-event-id"):
        judged = verdicts[rule]
        assert (judged["verdict"], judged["level"]) == ("FAIL", "MUST") and "gave no answer" in judged["evidence"]["reason"]
    for rule in ("no-replay-on-session-resume", "server-request-ownership", "no-broadcast"):
        assert verdicts[rule]["verdict"] == "SKIP" and "answered nothing" in verdicts[rule]["evidence"]["reason"]
    for verdict in verdicts.values():
        assert verdict["evidence"]["reason"]
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.timeout(30)
def test_the_whole_run_bound_leaves_the_rest_inconclusive(tmp_path):
    path = tmp_path / "report.json"
    started = time.monotonic()
    with hostile.http_server(hostile.mcp_then_silent) as url:
        main(["verify", url, "--timeout", str(BOUND), "--max-seconds", "2", "--json", str(path)])
    assert time.monotonic() - started < 15
    reasons = [v["evidence"]["reason"] for v in json.loads(path.read_text())["verdicts"]]
    assert any("whole run's time bound" in reason for reason in reasons)


@pytest.mark.timeout(30)
def test_a_scenario_the_whole_run_bound_cuts_says_so_with_a_readable_time():
    import asyncio

    from mcp_resume.model.http.client import Timeouts
    from mcp_resume.model.verify.probe import Capabilities
    from mcp_resume.model.verify.scenarios import Context
    from mcp_resume.model.verify.suite import SCENARIOS, drive
    from mcp_resume.spec.profiles import Profile

    ctx = Context(Profile.BOUNDARY, Timeouts.from_timeout(2.0), Capabilities(tools=["test_elicitation"]))
    with hostile.http_server(hostile.mcp_then_silent) as url:  # the scenario's first call is never answered
        driven = asyncio.run(drive(SCENARIOS["reemit-pending"], url, ctx, 0.7272))
    reason = driven.stopped.reason
    assert re.fullmatch(r"the whole run's time bound \(--max-seconds\) was reached during the scenario, "
                        r"0\.7 s after it began", reason), reason
