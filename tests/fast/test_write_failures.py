"""A report or artifact that cannot be written ends every command with exit 2 and one line on
stderr naming the file and the reason, never a traceback (``outputs.write_output``,
``cli.main``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_resume import cli
from mcp_resume.outputs import OutputError, write_output

from tests.helpers.write_failures import assert_one_line_naming, run


pytestmark = pytest.mark.skipif(not Path("/dev/full").exists() or not Path("/proc/version").exists(),
                                reason="needs /dev/full and /proc")


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
