"""Saved traces replayed: a hand-edited one is blamed on the edited step, a deeply nested
one is refused in one line, a step a server cannot play is named. (Replay time against
trace length is a benchmark's figure: benchmarks/bench_replay.py.)"""

import json

import pytest

from mcp_resume.cli import main
from mcp_resume.spec import actions as a
from mcp_resume.spec.trace import Trace


@pytest.mark.timeout(120)
def test_replay_over_http_names_the_step_it_cannot_play(tmp_path, capsys):
    from mcp_resume.model.serving.facade import serving_design

    actions = (a.Initialize(), a.CallTool("S1"), a.Respond("T1"), a.ExpireStream("T1"), a.CallTool("S1"))
    path = tmp_path / "expiry.trace.json"
    path.write_text(Trace(actions).dumps(), encoding="utf-8")
    with serving_design("reference") as url:
        assert main(["replay", str(path), url, "--timeout", "2"]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "step 4 (expire_stream(stream=T1)) cannot be played" in err


@pytest.mark.timeout(120)
def test_replaying_a_verify_trace_on_a_server_that_cannot_be_driven_judges_nothing_and_exits_3(tmp_path, capsys):
    # a FAIL "fixed" by moving to a server without the fixture tools must not replay green
    from mcp_resume.model.verify.formats import VERIFY_TRACE_FORMAT
    from tests.helpers.servers.plain_sdk import serving_plain

    path = tmp_path / "reemit-keeps-pending.trace.json"
    path.write_text(json.dumps({"format": VERIFY_TRACE_FORMAT, "rule": "reemit-keeps-pending", "profile": "boundary",
                                "target": "design-1", "verdict": "FAIL"}), encoding="utf-8")
    with serving_plain() as url:
        assert main(["replay", str(path), url, "--timeout", "2"]) == 3
    captured = capsys.readouterr()
    assert "reemit-keeps-pending: SKIP" in captured.out
    assert "was not judged" in captured.err and "SKIP" in captured.err
