"""Every command refuses an output path it cannot write before doing any work: exit 2, one line, nothing lost."""

import pytest

from mcp_resume.cli import main
from mcp_resume.outputs import output_file_problem, prepare_output_folder

from tests.helpers import ROOT


@pytest.fixture
def a_file(tmp_path):
    path = tmp_path / "taken"
    path.write_text("keep me")
    return path


@pytest.mark.parametrize("argv", [
    ["prove", "--out", "{file}"],
    ["prove", "--json", "{tmp}"],
    ["graph", "--out", "{file}"],
    ["liveness", "--graph", "{file}"],
    ["kill-matrix", "--markdown", "{tmp}"],
    ["explore", "--bound", "graph", "--traces", "{file}"],
    ["explore", "--bound", "graph", "--json", "{tmp}"],
    ["docs", "--out", "{file}"],
    ["docs", "--out", "{tmp}/missing", "--check"],
    ["verify", "design-1", "--out", "{file}"],
    ["check", "--out", "{file}"],
])
def test_an_unusable_output_path_is_exit_2_before_any_work(argv, a_file, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path.parent if argv[0] != "docs" else ROOT)
    args = [a.format(file=a_file, tmp=tmp_path) for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "Traceback" not in err
    assert a_file.read_text() == "keep me"


@pytest.mark.parametrize("argv, message", [
    (["explore", "--markdown", "m.md"], "use 'mcp-resume kill-matrix --markdown FILE'"),
    (["explore", "--first"], "use 'mcp-resume explore-design N --first'"),
    (["explore", "--examples", "3"], "use 'mcp-resume kill-matrix --examples N'"),
    (["explore-design", "3", "--max-states", "10"], "unrecognized arguments: --max-states"),
    (["kill-matrix", "--traces", "t"], "unrecognized arguments: --traces"),
])
def test_an_option_that_means_nothing_for_a_command_is_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2 and message in capsys.readouterr().err


def test_preparing_creates_folders_and_probing_a_file_leaves_nothing_behind(tmp_path, a_file):
    assert prepare_output_folder(tmp_path / "new" / "deeper") is None and (tmp_path / "new" / "deeper").is_dir()
    assert "is a file" in prepare_output_folder(a_file / "x")
    assert output_file_problem(tmp_path / "fresh.json") is None and not (tmp_path / "fresh.json").exists()
