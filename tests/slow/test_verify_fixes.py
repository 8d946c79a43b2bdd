"""Every FAIL and WARN of verify carries its fix, in every report format: the rule's fix in the server
author's terms and, when serverInfo names a known SDK, that SDK's remedy; MCP rule ids link to their
gist in Markdown and stay bare in plain text."""

from __future__ import annotations

import json

import pytest

from mcp_resume.cli import main
from mcp_resume.model.traffic.fixes import FIXES


@pytest.mark.timeout(300)
def test_a_real_run_gives_every_finding_its_fix_in_every_format(tmp_path, capsys):
    files = {kind: tmp_path / f"report.{kind}" for kind in ("json", "junit", "markdown")}
    argv = ["verify", "design-2", "--profile", "boundary"]
    argv += [x for kind, path in files.items() for x in (f"--{kind}", str(path))]
    assert main(argv) == 1
    printed = capsys.readouterr().out
    data = json.loads(files["json"].read_text())
    findings = [v for v in data["verdicts"] if v["verdict"] in ("FAIL", "WARN")]
    assert any(v["rule"] == "no-cross-session" for v in findings)
    for verdict in findings:
        assert verdict["fix"]["text"] == FIXES[verdict["rule"]]
        assert f"fix {verdict['rule']} ({verdict['verdict']}):" in printed
    assert all("fix" not in v for v in data["verdicts"] if v["verdict"] not in ("FAIL", "WARN"))
    assert files["markdown"].read_text().count("**How to fix:**") == len(findings)
    assert files["junit"].read_text().count("how to fix: ") == len(findings)
