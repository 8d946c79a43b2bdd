"""A CI gate on a real server without an event store (the official Python SDK, started here on
127.0.0.1): plain verify passes it, --require and --fail-on skip do not (issue 40)."""

from __future__ import annotations

import json

import pytest

from mcp_resume.cli import main

from tests.helpers.servers.sdk_readme import readme_app, serving_app

TIMEOUT = "2"


@pytest.mark.timeout(240)
def test_a_server_without_an_event_store_fails_a_gate_that_requires_resumption(tmp_path, capsys):
    with serving_app(readme_app(fixtures=True, event_store=False)) as url:
        base = ["verify", url, "--timeout", TIMEOUT, "--out", str(tmp_path / "findings")]
        assert main(base + ["--json", str(tmp_path / "r.json")]) == 0  # nothing wrong, much not checked
        capsys.readouterr()
        report = json.loads((tmp_path / "r.json").read_text())
        skipped = {v["rule"] for v in report["verdicts"] if v["verdict"] == "SKIP" and v["level"] != "n/a"}
        hinted = {rule for entry in report.get("unlock", []) for rule in entry["to_check"]}
        assert "no-cross-session" in skipped and skipped <= hinted, skipped - hinted  # each SKIP says what unlocks it
        assert main(base + ["--require", "replay-suffix"]) == 3
        err = capsys.readouterr().err
        assert "required rule replay-suffix is SKIP" in err and "pass the transport an event store" in err
        assert "event_store=" in err
        assert main(base + ["--fail-on", "skip"]) == 3
        assert "(--fail-on skip)" in capsys.readouterr().err
