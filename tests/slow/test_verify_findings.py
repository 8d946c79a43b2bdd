"""Where verify's reproducers go when a server author runs it twice in one folder (issue 40):
plain `mcp-resume verify URL` writes them and says where, and runs against another port or
profile keep their own, against real servers started on 127.0.0.1."""

from __future__ import annotations

import pytest

from mcp_resume.cli import main
from mcp_resume.jobs.verifying import run_folder_name
from mcp_resume.model.serving.facade import serving_design


@pytest.mark.timeout(180)
def test_two_plain_runs_against_other_ports_and_profiles_both_keep_their_reproducers(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    folders = []
    for profile in ("auto", "boundary"):
        with serving_design("design-2") as url:  # a new server on a new port each time
            assert main(["verify", url, "--profile", profile, "--timeout", "2"]) == 1
        folder = tmp_path / "mcp-resume-findings" / run_folder_name(url, profile)
        out = capsys.readouterr().out
        assert f"reproducers (verify trace and curl script per finding) in mcp-resume-findings/{folder.name}" in out
        folders.append(folder)
    assert folders[0] != folders[1]
    for folder in folders:
        assert (folder / "no-cross-session.trace.json").exists() and (folder / "no-cross-session.curl.sh").exists()
