"""Diagrams derived from the spec: the decision flowchart and the lifecycles."""

from __future__ import annotations

import pytest

from mcp_resume import cli
from mcp_resume.diagram import run_diagram
from mcp_resume.proofs.diagrams.decision_flow import describe_statuses, status_set_text
from mcp_resume.proofs.diagrams.render import write_diagrams

from tests.helpers.diagrams import args, no_graphviz, needs_graphviz


def test_status_sets_read_briefly():
    assert status_set_text(frozenset(range(400, 500)) - {404}) == "4xx except 404"
    assert status_set_text(frozenset(range(400, 500)) | {200}) == "200, 4xx"
    assert status_set_text(frozenset({200, 405, 409})) == "200, 405, 409"
    assert describe_statuses(404, frozenset({404})) == "404"


def test_write_diagrams_without_rendering(tmp_path):
    written = write_diagrams(tmp_path, ["dot", "mermaid"], None)
    assert sorted(p.name for p in written) == sorted(
        f"{name}.{ext}" for name in ("decision-flow", "stream-lifecycle", "session-lifecycle")
        for ext in ("dot", "mmd", "md"))
    assert "```mermaid\n" in (tmp_path / "decision-flow.md").read_text()
    with pytest.raises(ValueError, match="Graphviz"):
        write_diagrams(tmp_path, ["svg"], None)
    with pytest.raises(ValueError, match="unknown"):
        write_diagrams(tmp_path, ["pdf"], None)


def test_svg_without_graphviz_is_a_usage_error_and_writes_nothing(monkeypatch, tmp_path, capsys):
    no_graphviz(monkeypatch)
    assert run_diagram(args(tmp_path / "out", ["svg"])) == 2
    assert not (tmp_path / "out").exists()
    assert "apt-get install graphviz" in capsys.readouterr().err


def test_the_cli_passes_the_exit_code_through(monkeypatch, tmp_path):
    no_graphviz(monkeypatch)
    assert cli.main(["diagram", "--out", str(tmp_path), "--format", "png"]) == 2


def test_default_formats_skip_svg_with_a_note_without_graphviz(monkeypatch, tmp_path, capsys):
    no_graphviz(monkeypatch)
    assert run_diagram(args(tmp_path)) == 0
    names = {p.name for p in tmp_path.iterdir()}
    assert {"decision-flow.dot", "decision-flow.mmd", "decision-flow.md"} <= names
    assert not any(n.endswith(".svg") for n in names)
    assert "SVG skipped" in capsys.readouterr().err


def test_an_output_folder_under_a_file_is_a_usage_error_before_any_work(monkeypatch, tmp_path, capsys):
    no_graphviz(monkeypatch)
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert run_diagram(args(blocker / "out")) == 2
    assert run_diagram(args(blocker)) == 2
    assert "is a file" in capsys.readouterr().err


@needs_graphviz
def test_default_formats_include_svg_with_graphviz(tmp_path):
    assert run_diagram(args(tmp_path)) == 0
    assert (tmp_path / "decision-flow.svg").exists()
