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


def test_an_interrupt_while_probing_leaves_nothing_behind(tmp_path, monkeypatch):
    """Ctrl-C between creating a probe and removing it (a prove interrupted in its first
    second once left an empty --json file): the probe is removed, the interrupt goes on."""
    from pathlib import Path

    from mcp_resume.outputs import output_folder_probe

    unlink, mkdir = Path.unlink, Path.mkdir

    def unlink_interrupted(self, *args, **kwargs):  # the first removal: Ctrl-C lands before it
        monkeypatch.setattr(Path, "unlink", unlink)
        raise KeyboardInterrupt

    def mkdir_interrupted(self, *args, **kwargs):  # Ctrl-C lands once the folders are made
        mkdir(self, *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "unlink", unlink_interrupted)
    with pytest.raises(KeyboardInterrupt):
        output_file_problem(tmp_path / "summary.json")
    assert not (tmp_path / "summary.json").exists()

    monkeypatch.setattr(Path, "mkdir", mkdir_interrupted)
    with pytest.raises(KeyboardInterrupt):
        output_folder_probe(tmp_path / "out" / "deeper")
    assert list(tmp_path.iterdir()) == [], list(tmp_path.iterdir())
