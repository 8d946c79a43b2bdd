"""The explorer's commands end to end (``explore``, ``explore-design``, ``graph``, ``kill-matrix``):
counts, manifest, designs, graph, traces, usage errors."""

import json
import shutil

import pytest

from mcp_resume import explore as explore_command, graph as graph_command
from mcp_resume.jobs import kill_matrix_run
from mcp_resume.cli import main
from mcp_resume.model.harness.checker import Counterexample, replay
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.model.explore.kill_cells import UnavailableColumn
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec.trace import loads


def test_a_named_bound_is_explored_and_matches_the_manifest(tmp_path, capsys):
    out = tmp_path / "tiny.json"
    assert main(["explore", "--bound", "tiny", "--json", str(out), "--quiet"]) == 0
    data = json.loads(out.read_text())
    assert data["states"] == 808 and data["bound_name"] == "tiny" and data["manifest_differences"] == []
    assert data["holds"] and data["coverage"]["complete"]
    printed = capsys.readouterr().out
    assert "matches" in printed and "stream-resumption (1)" in printed and "reemit-pending" in printed


def test_explicit_numbers_override_the_bound_and_skip_the_manifest(tmp_path):
    out = tmp_path / "r.json"
    args = ["explore", "--bound", "small", "--depth", "3", "--json", str(out), "--quiet"]
    code = main(args)
    data = json.loads(out.read_text())
    assert data["bound_name"] is None and data["manifest_differences"] is None
    assert data["bounds"]["depth"] == 3 and data["bounds"]["sessions"] == 2
    assert code == 1 and data["vacuous"]  # three steps cannot fire every action: vacuous, exit 1


def test_a_design_is_explored_with_the_shortest_trace_of_what_it_breaks(tmp_path):
    out, traces = tmp_path / "d.json", tmp_path / "traces"
    assert main(["explore-design", "10", "--first", "--json", str(out), "--traces", str(traces), "--quiet"]) == 1
    data = json.loads(out.read_text())
    assert data["design"] == 10 and data["violations"]["reject-foreign-event-id"]["steps"] == 2
    (path,) = traces.glob("*.json")
    trace = loads(path.read_text())
    with pytest.raises(Counterexample):
        replay(trace, DESIGNS[10]())
    assert len(replay(trace, ReferenceServer())) == 2


def test_an_earlier_runs_trace_of_the_same_server_is_named_and_kept(tmp_path, capsys):
    traces = tmp_path / "traces"
    traces.mkdir()
    stale = traces / f"{DESIGNS[10]().name}-replay-suffix.json"
    other = traces / f"{DESIGNS[11]().name}-replay-suffix.json"
    stale.write_text("{}")
    other.write_text("{}")
    assert main(["explore-design", "10", "--first", "--traces", str(traces)]) == 1
    out = capsys.readouterr().out
    assert "earlier run's trace" in out and stale.name in out and other.name not in out
    assert stale.read_text() == other.read_text() == "{}"
    assert (traces / f"{DESIGNS[10]().name}-reject-foreign-event-id.json").exists()


def test_the_graph_is_written_as_dot_with_its_parts(tmp_path):
    folder = tmp_path / "graph"
    assert main(["graph", "--out", str(folder)]) == 0
    assert (folder / "explored.dot").read_text().startswith("digraph")
    parts = sorted(folder.glob("explored-*.dot"))
    assert len(parts) > 1 and all(part.read_text().startswith("digraph") for part in parts)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) is not installed: no SVG to check")
def test_the_graph_and_its_parts_are_drawn_as_svg_with_graphviz(tmp_path):
    folder = tmp_path / "graph"
    assert main(["graph", "--out", str(folder)]) == 0
    assert (folder / "explored.svg").read_bytes().lstrip().startswith(b"<?xml")
    assert all(part.with_suffix(".svg").exists() for part in folder.glob("explored-*.dot"))


def test_without_graphviz_the_graph_says_how_to_get_svg_and_still_exits_0(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no dot on it
    folder = tmp_path / "graph"
    assert main(["graph", "--out", str(folder)]) == 0
    assert (folder / "explored.dot").exists() and not list(folder.glob("*.svg"))
    assert "install Graphviz" in " ".join(capsys.readouterr().out.split())


def test_a_new_graph_replaces_the_parts_of_an_earlier_larger_one(tmp_path):
    folder = tmp_path / "graph"
    folder.mkdir()
    stale, kept = folder / "explored-99.svg", folder / "explored-notes.txt"
    stale.write_text("<svg/>")
    kept.write_text("mine")
    assert main(["graph", "--out", str(folder)]) == 0
    assert not stale.exists() and kept.read_text() == "mine"
    assert (folder / "explored-1.dot").exists()


def test_the_graph_shows_a_chosen_designs_counterexample(tmp_path):
    folder = tmp_path / "graph"
    code = main(["graph", "--out", str(folder), "--design", "4"])
    assert code == 1  # design 4 breaks a rule within the graph bound
    assert "no-replay-on-session-resume" in (folder / "explored.dot").read_text()


@pytest.mark.parametrize("args, message", [
    (["--bound", "huge"], "unknown bound"),
    (["--bound", "liveness"], "the liveness command's own"),
    (["--sessions", "-1"], "--sessions must be at least 1, got -1"),
    (["--sessions", "0"], "--sessions must be at least 1, got 0"),
    (["--bound", "tiny", "--depth", "0"], "--depth must be at least 1, got 0"),
    (["--streams", "-1"], "must be 0 or more"),
    (["--json", "/nonexistent/folder/out.json"], "does not exist (create it first)"),
])
def test_bad_input_is_a_usage_error(args, message, capsys):
    assert main(["explore", *args, "--quiet"]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["explore-design", "39"], "unknown design 39"),
    (["graph", "--out", "g", "--design", "39"], "unknown design 39"),
    (["liveness", "39"], "unknown design 39"),
    (["explore-design", "3", "--bound", "huge"], "unknown bound"),
    (["kill-matrix", "--bound", "huge"], "unknown bound"),
    (["graph", "--out", "g", "--sessions", "0"], "--sessions must be at least 1, got 0"),
])
def test_bad_input_of_the_other_explorer_commands_is_a_usage_error(args, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_design_is_explored_within_the_kill_bound_and_drawn_within_the_graph_bound(tmp_path, capsys):
    """Design 1 is caught within the kill bound, not within the (smaller) graph bound: the run
    once explored the graph bound and said it holds; its picture is the graph bound's, with the
    counterexample found within the kill bound in red."""
    folder, out = tmp_path / "graph", tmp_path / "d.json"
    assert main(["explore-design", "1", "--json", str(out), "--quiet"]) == 1
    data = json.loads(out.read_text())
    assert data["bound_name"] == "kill" and data["verdict"] == "broken"
    assert main(["graph", "--out", str(folder), "--design", "1"]) == 1
    assert "64 states" in capsys.readouterr().out  # the graph bound's picture
    assert "red" in (folder / "explored.dot").read_text()


def test_the_json_report_goes_to_stdout_alone_when_named_dash(capsys):
    assert main(["explore", "--bound", "tiny", "--json", "-", "--quiet"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["states"] == 808 and data["verdict"] == "holds"
    assert "spec holds within" in captured.err


def test_two_reports_on_stdout_are_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["kill-matrix", "--json", "-", "--markdown", "-"])
    assert stopped.value.code == 2
    assert "only one report can go to standard output" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["explore", "--bound", "tiny", "--traces"], ["graph", "--out"]])
@pytest.mark.parametrize("folder, message", [("/proc/mcp-resume-test/x", "cannot create /proc/mcp-resume-test/x"),
                                             ("-", "'-' means standard output")])
def test_an_output_folder_that_cannot_be_made_is_refused_before_the_run(command, folder, message, capsys, monkeypatch):
    monkeypatch.setattr(explore_command, "explore_spec", lambda *a: pytest.fail("the run started"))
    monkeypatch.setattr(graph_command, "draw", lambda *a: pytest.fail("the drawing started"))
    assert main([*command, folder]) == 2
    assert message in capsys.readouterr().err


def test_an_interrupted_run_leaves_no_output_folder(tmp_path, monkeypatch):
    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(explore_command, "explore_spec", interrupted)
    assert main(["explore", "--bound", "tiny", "--traces", str(tmp_path / "new" / "traces"), "--quiet"]) == 130
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("engine", [[], ["--reference"]], ids=["fast", "reference"])
def test_max_states_stops_a_small_run_near_the_cap_with_real_counts(tmp_path, engine, capsys):
    """The fast engine stopped while expanding session forms once reported 0 states; the
    reference engine once looked at the cap every 2,000 states only."""
    out = tmp_path / "r.json"
    assert main(["explore", "--bound", "default", *engine, "--max-states", "300", "--json", str(out), "--quiet"]) == 3
    data = json.loads(out.read_text())
    assert data["verdict"] == "incomplete" and data["holds"] is None and "--max-states 300" in data["stopped"]
    assert 300 < data["states"] < 340 and data["transitions"] > data["states"]
    assert sum(data["levels"]) == data["states"] and len(data["levels"]) == data["depth"] + 1
    assert "holds so far" in capsys.readouterr().out


def test_the_kill_matrix_is_printed_written_and_exits_by_whether_it_holds(tmp_path, monkeypatch):
    class Escapes:
        name = "lenient"

        def unavailable(self):
            return None

        def run(self, design, profile):
            from mcp_resume.model.explore.kill_cells import Cell

            return Cell(self.name, design, profile, "passed")

    monkeypatch.setattr(kill_matrix_run, "kill_columns", lambda examples, bounds: [Escapes(), UnavailableColumn("z3-bmc", "later")])
    out, md = tmp_path / "km.json", tmp_path / "km.md"
    assert main(["kill-matrix", "--workers", "1", "--json", str(out), "--markdown", str(md), "--quiet"]) == 1
    data = json.loads(out.read_text())
    assert data["holds"] is False and {c["outcome"] for c in data["cells"]} == {"passed", "not available"}
    assert "(!)" in md.read_text()
