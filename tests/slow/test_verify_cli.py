"""``mcp-resume verify``: bad input, hostile targets, and the printed table."""

from __future__ import annotations

import json
import time

import pytest

from tests.helpers import hostile_servers as hostile
from mcp_resume.cli import main
from mcp_resume.model.verify.report import skip
from mcp_resume.spec.profiles import Profile


BOUND_SECONDS = 1.0
"""--timeout given to hostile targets; each must be judged within a few of these."""


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("make_target", "words"),
    [
        ("down", "cannot connect"),
        ("silent", "no response head within"),
        ("broken_sse", "not an SSE stream"),
        ("sse_with_bad_json", "not a JSON object"),
        ("html_page", "text/html"),
        ("json_that_is_not", "not JSON"),
        ("dripping_sse", "no initialize result"),
        ("not_found", "initialize answered HTTP 404"),
    ],
)
def test_hostile_targets_end_in_one_line_and_exit_3(make_target, words, capsys):
    started = time.monotonic()
    with _hostile(make_target) as url:
        code = main(["verify", url, "--timeout", str(BOUND_SECONDS)])
    elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 3
    assert words in err and err.startswith("mcp-resume verify: error: ") and err.count("\n") == 1
    assert "Traceback" not in err
    assert elapsed < 4 * BOUND_SECONDS + 2


@pytest.mark.timeout(120)
def test_a_server_minting_a_malformed_session_id_fails_and_is_not_a_target_error(capsys, tmp_path):
    report = tmp_path / "report.json"
    with hostile.http_server(hostile.malformed_session_header) as url:
        code = main(["verify", url, "--timeout", str(BOUND_SECONDS), "--json", str(report)])
    assert code == 1, capsys.readouterr().err
    verdicts = {v["rule"]: v for v in json.loads(report.read_text())["verdicts"]}
    judged = verdicts["new-session-on-initialize"]
    assert judged["verdict"] == "FAIL" and judged["level"] == "MUST"
    assert "'bad session id', not visible ASCII" in judged["evidence"]["reason"]
    assert verdicts["session-delete"]["verdict"] == "INCONCLUSIVE"  # no usable session to DELETE
    assert "B30" in capsys.readouterr().out


def _hostile(kind):
    if kind == "down":
        return hostile.down_server()
    if kind == "silent":
        return hostile.silent_server()
    return hostile.http_server(getattr(hostile, kind))


@pytest.mark.timeout(60)
def test_python_sdk_target_is_started_verified_and_stopped(monkeypatch, capsys):
    import httpx

    from mcp_resume.jobs import verifying as verify

    seen = {}

    async def fake_verify(run, on_verdict=None):
        seen["url"], seen["target"] = run.url, run.target
        async with httpx.AsyncClient(trust_env=False) as client:
            seen["status"] = (await client.get(run.url, headers={"accept": "text/event-stream"})).status_code
        run.profile = Profile.BOUNDARY
        run.verdicts.append(skip("priming-event", run.profile, "stubbed"))
        return run.report()

    monkeypatch.setattr(verify, "verify", fake_verify)
    assert main(["verify", "python-sdk", "--timeout", "2"]) == 3  # the stub judged one rule: the rest are INCONCLUSIVE
    assert seen["target"] == "python-sdk" and seen["url"].startswith("http://127.0.0.1:")
    assert seen["status"] == 400  # the real SDK answered while verify ran
    with pytest.raises(httpx.ConnectError):
        httpx.get(seen["url"], trust_env=False, timeout=2)  # and was stopped afterwards
    assert "priming-event" in capsys.readouterr().out
