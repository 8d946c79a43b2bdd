"""validate's and the proxy's reports carry the fix of every FAIL and WARN, as verify's do: a fix line
in text, a ``fix`` field in JSON, a "How to fix" section in Markdown (MCP ids linked to their gist),
a ``how to fix:`` line in JUnit."""

from __future__ import annotations

import json

from mcp_resume.cli import main
from mcp_resume.model.traffic.fixes import FIXES
from mcp_resume.model.traffic.records import write_line
from mcp_resume.model.traffic.trace_validation import validate
from mcp_resume.jobs.proxying import print_finding as _finding
from mcp_resume.spec.profiles import Profile

from tests.helpers.traffic_runs import recorded


def test_validate_gives_every_finding_its_fix_in_every_format(tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    path.write_text("".join(write_line(r) for r in recorded("design-2")))
    files = {kind: tmp_path / f"report.{kind}" for kind in ("json", "junit", "markdown")}
    argv = ["validate", str(path), "--profile", "boundary"]
    argv += [x for kind, file in files.items() for x in (f"--{kind}", str(file))]
    assert main(argv) == 1
    printed = capsys.readouterr().out
    verdicts = json.loads(files["json"].read_text())["verdicts"]
    findings = [v for v in verdicts if v["verdict"] in ("FAIL", "WARN")]
    assert any(v["rule"] == "no-cross-session" for v in findings)
    for verdict in findings:
        assert verdict["fix"] == {"text": FIXES[verdict["rule"]]}
        assert f"fix {verdict['rule']} ({verdict['verdict']}):" in printed
    assert all("fix" not in v for v in verdicts if v["verdict"] not in ("FAIL", "WARN"))
    text = files["markdown"].read_text()
    assert "## How to fix" in text and "[B26](#source-b26)" in text and '<a id="source-b26"></a>' in text
    assert files["junit"].read_text().count("how to fix: ") == len(findings)


def test_the_proxy_prints_the_fix_under_each_finding(tmp_path, capsys):
    records = recorded("design-2")
    result = validate(records, Profile.BOUNDARY)
    rule = result.result("no-cross-session")
    _finding(rule)
    printed = capsys.readouterr().out
    assert printed.startswith("FAIL no-cross-session") and f"  fix: {FIXES['no-cross-session']}" in printed
