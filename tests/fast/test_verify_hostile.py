"""Hostile servers started for real on 127.0.0.1: each ends in a clear verdict or
error within its bound, never a hang or a traceback."""

from __future__ import annotations

import json
import time

import pytest

from tests.helpers import hostile_servers as hostile
from mcp_resume.jobs import verifying as verify_command
from mcp_resume.cli import main
from mcp_resume.spec.catalog import RULES


BOUND = 3.0
"""--timeout given to the hostile servers. Each answers at once, so a passing run never waits
it out; at 0.5 s a loaded machine (ten workers) once read only part of the 200 KiB head in time."""


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("reply", "words"),
    [
        ("huge_event", "SSE event longer than"),
        ("event_flood", "more than 10000 SSE events"),
        ("huge_header", "no valid response head"),
        ("redirect_elsewhere", "redirect to http://elsewhere.invalid/mcp: not followed"),
    ],
)
def test_hostile_answers_to_initialize_end_in_one_line_and_exit_3(reply, words, capsys):
    started = time.monotonic()
    with hostile.http_server(getattr(hostile, reply)) as url:
        code = main(["verify", url, "--timeout", str(BOUND)])
    err = capsys.readouterr().err
    assert code == 3 and words in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert time.monotonic() - started < 10


def test_ctrl_c_writes_the_partial_report(monkeypatch, tmp_path, capsys):
    from mcp_resume.model.verify.report import RuleVerdict
    from mcp_resume.spec.profiles import Level, Profile
    from mcp_resume.spec.verdicts import Verdict

    async def interrupted(run, on_verdict=None):
        run.profile = Profile.BOUNDARY
        run.verdicts.append(RuleVerdict("replay-suffix", Verdict.PASS, "1 step held it", Level.MUST))
        raise KeyboardInterrupt

    monkeypatch.setattr(verify_command, "verify", interrupted)
    path = tmp_path / "partial.json"
    with hostile.http_server(hostile.not_found) as url:
        code = main(["verify", url, "--json", str(path)])
    assert code == 130
    report = json.loads(path.read_text())
    assert len(report["verdicts"]) == len(RULES)
    assert all("interrupted" in v["evidence"]["reason"] for v in report["verdicts"][1:])
    assert "partial" in capsys.readouterr().err
