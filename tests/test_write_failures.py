"""A report or artifact that cannot be written ends every command with exit 2 and one line on
stderr naming the file and the reason, never a traceback (``outputs.write_output``,
``cli.main``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcp_resume import cli
from mcp_resume.outputs import OutputError, write_output

pytestmark = pytest.mark.skipif(not Path("/dev/full").exists() or not Path("/proc/version").exists(),
                                reason="needs /dev/full and /proc")

REASONS = {"/dev/full": "No space left on device", "/proc/version": ""}


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mcp_resume.cli", *argv], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


def assert_one_line_naming(done: subprocess.CompletedProcess, path: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, done.stderr
    assert path in errors[0] and REASONS.get(path, "") in errors[0], errors[0]


@pytest.mark.parametrize("target", ["/dev/full", "/proc/version"])
def test_write_output_names_the_file_and_the_reason(target):
    with pytest.raises(OutputError) as raised:
        write_output(Path(target), "{}\n")
    message = str(raised.value)
    assert message.startswith(f"cannot write {target}: ") and "\n" not in message
    assert len(message) > len(f"cannot write {target}: ")


@pytest.mark.parametrize("target", ["/dev/full", "/proc/version"])
def test_explore_json_that_cannot_be_written(tmp_path, target):
    done = run("explore", "--bound", "tiny", "--json", target, "--quiet", cwd=tmp_path)
    assert_one_line_naming(done, target)


@pytest.mark.parametrize("argv", [
    ["prove", "--out", "/proc/mcp-resume-out"],
    ["check", "--out", "/proc/mcp-resume-out"],
    ["docs", "--out", "/proc/mcp-resume-out"],
    ["explore", "--bound", "tiny", "--traces", "/proc/mcp-resume-out"],
    ["verify", "design-1", "--out", "/proc/mcp-resume-out"],
], ids=lambda argv: argv[0])
def test_an_unwritable_folder_is_refused_before_the_run(tmp_path, argv):
    done = run(*argv, cwd=Path(__file__).resolve().parent.parent)
    assert_one_line_naming(done, "/proc/mcp-resume-out")


def test_main_turns_any_failed_write_into_one_line_and_exit_2(monkeypatch, capsys):
    import mcp_resume.check as check

    monkeypatch.setattr(check, "run_check", lambda args: write_output(Path("/dev/full"), "{}") and 0)
    assert cli.main(["check"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["mcp-resume check: error: cannot write /dev/full: No space left on device"]


def test_main_names_the_file_of_a_stray_os_error(monkeypatch, capsys):
    import mcp_resume.check as check

    def fails(args):
        raise PermissionError(13, "Permission denied", "/somewhere/report.json")

    monkeypatch.setattr(check, "run_check", fails)
    assert cli.main(["check"]) == 2
    assert capsys.readouterr().err.strip() == "mcp-resume check: error: /somewhere/report.json: Permission denied"


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("target", ["/dev/full", "/proc/version"])
def test_prove_json_that_cannot_be_written(tmp_path, target):
    done = run("prove", "--out", str(tmp_path / "proofs"), "--json", target, "--quiet", cwd=tmp_path)
    assert_one_line_naming(done, target)


@pytest.mark.slow
@pytest.mark.parametrize("option", ["--json", "--junit", "--markdown"])
def test_verify_reports_that_cannot_be_written(tmp_path, option):
    done = run("verify", "design-1", "--timeout", "2", option, "/dev/full", "--out", str(tmp_path / "found"),
               cwd=tmp_path)
    assert_one_line_naming(done, "/dev/full")
