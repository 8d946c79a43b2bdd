"""``mcp-resume explore``: options that mean nothing together are usage errors, refused before any work."""

import pytest

from mcp_resume import explore as explore_command
from mcp_resume.cli import main

MEANINGLESS = [
    (["--kill-matrix", "--design", "3"], "--design does not apply with --kill-matrix"),
    (["--kill-matrix", "--graph", "{x}"], "--graph does not apply with --kill-matrix"),
    (["--kill-matrix", "--first"], "--first does not apply with --kill-matrix"),
    (["--kill-matrix", "--traces", "{x}"], "--traces does not apply with --kill-matrix"),
    (["--kill-matrix", "--engine", "fast"], "--engine does not apply with --kill-matrix"),
    (["--kill-matrix", "--no-symmetry"], "--no-symmetry does not apply with --kill-matrix"),
    (["--kill-matrix", "--profile", "boundary"], "--profile does not apply with --kill-matrix"),
    (["--kill-matrix", "--max-states", "10"], "--max-states does not apply with --kill-matrix"),
    (["--kill-matrix", "--max-memory", "100"], "--max-memory does not apply with --kill-matrix"),
    (["--kill-matrix", "--budget", "10"], "--budget does not apply with --kill-matrix"),
    (["--examples", "5", "--traces", "{x}"], "--examples only applies with --kill-matrix"),
    (["--markdown", "{x}.md"], "--markdown only applies with --kill-matrix"),
    (["--first", "--graph", "{x}"], "--first only applies with --design N"),
    (["--design", "3", "--engine", "reference", "--traces", "{x}"], "--engine applies to the spec explorer"),
    (["--design", "3", "--no-symmetry"], "--no-symmetry applies to the spec explorer"),
    (["--design", "3", "--max-states", "10"], "--max-states applies to the spec explorer"),
    (["--design", "3", "--max-memory", "10"], "--max-memory applies to the spec explorer"),
    (["--design", "3", "--budget", "10"], "--budget applies to the spec explorer"),
    (["--no-symmetry", "--engine", "fast", "--traces", "{x}"], "--no-symmetry needs --engine reference"),
    (["--engine", "reference", "--workers", "2"], "--workers applies to the fast engine"),
    (["--no-symmetry", "--workers", "2", "--graph", "{x}"], "--workers applies to the fast engine"),
    (["--design", "3", "--json", "{x}", "--traces", "{x}"], "--json and --traces both name"),
    (["--json", "{x}", "--graph", "{x}"], "--json and --graph both name"),
    (["--kill-matrix", "--json", "{x}", "--markdown", "{x}"], "--json and --markdown both name"),
]


@pytest.fixture
def nothing_starts(monkeypatch):
    """Any run that starts fails the test at once (instead of running for minutes)."""

    def started(*args, **kwargs):
        raise AssertionError("a run started")

    for name in ("_kill_matrix", "_spec", "_design", "_draw"):
        monkeypatch.setattr(explore_command, name, started)


@pytest.mark.parametrize("args, message", MEANINGLESS, ids=lambda value: " ".join(value) if isinstance(value, list) else "")
def test_options_that_mean_nothing_together_are_a_one_line_usage_error(args, message, tmp_path, capsys, nothing_starts):
    folder = tmp_path / "x"
    code = main(["explore", *[arg.format(x=folder) for arg in args], "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1, err
    assert list(tmp_path.iterdir()) == []  # no empty x/, no x.md


@pytest.mark.parametrize("args", [
    ["--kill-matrix", "--workers", "1", "--examples", "3", "--markdown", "{x}.md"],
    ["--kill-matrix", "--bound", "small"],  # the matrix's explorer column explores that bound
    ["--design", "3", "--first", "--traces", "{x}"],
    ["--design", "3", "--workers", "2"],
    ["--engine", "reference", "--no-symmetry", "--max-states", "10"],
    ["--workers", "2", "--budget", "10", "--max-memory", "500"],
    ["--graph", "{x}", "--workers", "1"],
    ["--design", "3", "--graph", "{x}", "--traces", "{x}"],  # a folder for both: their files differ
])
def test_options_that_fit_together_reach_a_run(args, tmp_path, monkeypatch):
    started = []
    for name in ("_kill_matrix", "_spec", "_design"):
        monkeypatch.setattr(explore_command, name, lambda *a, name=name: (started.append(name), (0, None))[1] if name != "_kill_matrix" else started.append(name) or 0)
    monkeypatch.setattr(explore_command, "_draw", lambda *a: None)
    monkeypatch.setattr(explore_command, "_write_traces", lambda *a: None)
    code = main(["explore", *[arg.format(x=tmp_path / "x") for arg in args], "--quiet"])
    assert code == 0 and len(started) == 1


@pytest.mark.parametrize("command", ["explore", "check"])
def test_more_workers_than_anyone_can_use_is_a_usage_error(command, capsys, nothing_starts):
    """A thousand forked copies once exhausted the file descriptors mid-run, with a traceback."""
    with pytest.raises(SystemExit) as stopped:
        main([command, "--workers", "1000"])
    assert stopped.value.code == 2
    assert "--workers: at most 64, got 1000" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["١", "1_0", "1.5", "", "0x10"])
def test_a_number_not_written_in_ascii_digits_is_a_usage_error(value, capsys, nothing_starts):
    with pytest.raises(SystemExit) as stopped:
        main(["explore", "--sessions", value])
    assert stopped.value.code == 2
    assert "is not a whole number" in capsys.readouterr().err
