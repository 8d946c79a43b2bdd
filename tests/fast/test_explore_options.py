"""The explorer's commands (``explore``, ``explore-design``, ``liveness``, ``kill-matrix``, ``graph``)
each take only the options that mean something for it: any other is argparse's usage error,
refused before any work; an option that became a command names that command."""

import pytest

from mcp_resume import explore, explore_design, graph, kill_matrix, liveness
from mcp_resume.cli import build_parser, main

MEANINGLESS = [
    (["kill-matrix", "--design", "3"], "unrecognized arguments: --design"),
    (["kill-matrix", "--graph", "{x}"], "unrecognized arguments: --graph"),
    (["kill-matrix", "--first"], "unrecognized arguments: --first"),
    (["kill-matrix", "--traces", "{x}"], "unrecognized arguments: --traces"),
    (["kill-matrix", "--reference"], "unrecognized arguments: --reference"),
    (["kill-matrix", "--no-symmetry"], "unrecognized arguments: --no-symmetry"),
    (["kill-matrix", "--profile", "boundary"], "unrecognized arguments: --profile"),
    (["kill-matrix", "--max-states", "10"], "unrecognized arguments: --max-states"),
    (["kill-matrix", "--max-memory", "100"], "unrecognized arguments: --max-memory"),
    (["kill-matrix", "--budget", "10"], "unrecognized arguments: --budget"),
    (["explore", "--examples", "5", "--traces", "{x}"], "use 'mcp-resume kill-matrix --examples N'"),
    (["explore", "--markdown", "{x}.md"], "use 'mcp-resume kill-matrix --markdown FILE'"),
    (["explore", "--first"], "use 'mcp-resume explore-design N --first'"),
    (["explore", "--kill-matrix"], "use 'mcp-resume kill-matrix'"),
    (["explore", "--design", "3"], "use 'mcp-resume explore-design N'"),
    (["explore", "--liveness", "--design", "1"], "use 'mcp-resume liveness [N]'"),
    (["explore", "--graph", "{x}"], "use 'mcp-resume graph --out DIR'"),
    (["explore", "--engine", "reference"], "use 'mcp-resume explore --reference (or --no-symmetry)'"),
    (["explore-design", "3", "--reference", "--traces", "{x}"], "unrecognized arguments: --reference"),
    (["explore-design", "3", "--no-symmetry"], "unrecognized arguments: --no-symmetry"),
    (["explore-design", "3", "--max-states", "10"], "unrecognized arguments: --max-states"),
    (["explore-design", "3", "--max-memory", "10"], "unrecognized arguments: --max-memory"),
    (["explore-design", "3", "--budget", "10"], "unrecognized arguments: --budget"),
    (["explore-design", "3", "--first", "--exhaustive"], "argument --exhaustive: not allowed with argument --first"),
    (["explore", "--reference", "--no-symmetry"], "argument --no-symmetry: not allowed with argument --reference"),
    (["explore", "--reference", "--workers", "2"], "argument --workers: not allowed with argument --reference"),
    (["explore", "--no-symmetry", "--workers", "2"], "argument --workers: not allowed with argument --no-symmetry"),
    (["liveness", "--workers", "2"], "unrecognized arguments: --workers"),
    (["liveness", "--budget", "2"], "unrecognized arguments: --budget"),
    (["liveness", "--exhaustive"], "unrecognized arguments: --exhaustive"),
    (["graph", "--out", "{x}", "--json", "{x}.json"], "unrecognized arguments: --json"),
    (["graph", "--out", "{x}", "--workers", "1"], "unrecognized arguments: --workers"),
]


@pytest.fixture
def nothing_starts(monkeypatch):
    """Any run that starts fails the test at once (instead of running for minutes)."""

    def started(*args, **kwargs):
        raise AssertionError("a run started")

    for module, name in ((explore, "explore_spec"), (explore_design, "explore_design"), (liveness, "check_liveness"),
                         (kill_matrix, "fill_kill_matrix"), (graph, "draw")):
        monkeypatch.setattr(module, name, started)


@pytest.mark.parametrize("args, message", MEANINGLESS, ids=lambda value: " ".join(value) if isinstance(value, list) else "")
def test_options_that_mean_nothing_for_a_command_are_a_usage_error(args, message, tmp_path, capsys, nothing_starts):
    folder = tmp_path / "x"
    with pytest.raises(SystemExit) as stopped:
        main([*[arg.format(x=folder) for arg in args], "--quiet"] if args[0] != "graph" else [arg.format(x=folder) for arg in args])
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # no empty x/, no x.md


@pytest.mark.parametrize("args, message", [
    (["explore-design", "3", "--json", "{x}", "--traces", "{x}"], "--json and --traces both name"),
    (["explore", "--json", "{x}", "--traces", "{x}"], "--json and --traces both name"),
    (["liveness", "--json", "{x}", "--graph", "{x}"], "--json and --graph both name"),
    (["kill-matrix", "--json", "{x}", "--markdown", "{x}"], "--json and --markdown both name"),
])
def test_two_outputs_named_by_one_path_are_a_one_line_usage_error(args, message, tmp_path, capsys, nothing_starts):
    code = main([*[arg.format(x=tmp_path / "x") for arg in args], "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, module, name", [
    (["kill-matrix", "--workers", "1", "--examples", "3", "--markdown", "{x}.md"], kill_matrix, "fill_kill_matrix"),
    (["kill-matrix", "--bound", "small"], kill_matrix, "fill_kill_matrix"),  # the matrix's explorer column explores that bound
    (["explore-design", "3", "--first", "--traces", "{x}"], explore_design, "explore_design"),
    (["explore-design", "3", "--workers", "2"], explore_design, "explore_design"),
    (["explore", "--no-symmetry", "--max-states", "10"], explore, "explore_spec"),
    (["explore", "--workers", "2", "--budget", "10", "--max-memory", "500"], explore, "explore_spec"),
    (["liveness", "3", "--traces", "{x}", "--graph", "{x}"], liveness, "check_liveness"),  # a folder for both: their files differ
])
def test_options_that_fit_together_reach_a_run(args, module, name, tmp_path, monkeypatch):
    started = []

    class Matrix:
        holds = True

        def to_json(self):
            return {}

        def to_markdown(self):
            return ""

    def run(*a, **k):
        started.append(name)
        return Matrix() if name == "fill_kill_matrix" else 0 if name == "check_liveness" else (0, None)

    monkeypatch.setattr(module, name, run)
    monkeypatch.setattr(module, "write_traces", lambda *a: None, raising=False)
    monkeypatch.setattr(module, "print_kill_matrix", lambda *a: None, raising=False)
    code = main([*[arg.format(x=tmp_path / "x") for arg in args], "--quiet"])
    assert code == 0 and started == [name]


@pytest.mark.parametrize("command", ["explore", "explore-design", "kill-matrix", "check"])
def test_more_workers_than_anyone_can_use_is_a_usage_error(command, capsys, nothing_starts):
    """A thousand forked copies once exhausted the file descriptors mid-run, with a traceback."""
    with pytest.raises(SystemExit) as stopped:
        main([command, *(["3"] if command == "explore-design" else []), "--workers", "1000"])
    assert stopped.value.code == 2
    assert "--workers: at most 64, got 1000" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["١", "1_0", "1.5", "", "0x10"])
def test_a_number_not_written_in_ascii_digits_is_a_usage_error(value, capsys, nothing_starts):
    with pytest.raises(SystemExit) as stopped:
        main(["explore", "--sessions", value])
    assert stopped.value.code == 2
    assert "is not a whole number" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["explore", "explore-design", "liveness", "kill-matrix", "graph", "check"])
def test_each_commands_help_fits_on_a_screen(command, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) <= 45 and max(map(len, lines)) <= 100, "\n".join(lines)
