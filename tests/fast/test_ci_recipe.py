"""The CI recipe of docs/ci.md works when copied: its install step, run as GitHub Actions
runs it (``$RUNNER_TEMP``, ``$GITHUB_PATH``), installs mcp-resume from a checkout of this
repository into a fresh virtualenv, and its verify step, run with the ``PATH`` that step
left, holds a server started here on 127.0.0.1 to the spec. The commands are read from the
generated page (``docgen.pages_kit.ci_page``), so the page and this test cannot drift."""

from __future__ import annotations

from mcp_resume.docgen.pages_kit import INSTALL_STEP, MCP_RESUME_CHECKOUT, SERVER_URL, VERIFY_STEP, ci_page

from tests.helpers.ci_recipe import run_of


def test_the_steps_are_read_from_the_page():
    page = ci_page()
    assert run_of(page, "Install the server") == "pip install ."
    install = run_of(page, INSTALL_STEP)
    assert f"./{MCP_RESUME_CHECKOUT}" in install and "$GITHUB_PATH" in install and "venv" in install
    assert run_of(page, VERIFY_STEP).startswith(f"mcp-resume verify {SERVER_URL} ")
    assert "pip install . mcp-resume" not in page  # not on the package index
    verify_step = run_of(page, VERIFY_STEP)
    assert "--profile" not in verify_step  # the revision the server negotiates, by default
    assert "--profile boundary" in page and "docs/fixtures.md" in page and "--tool ROLE=NAME" in page
    assert "token:" in page and "private" in page
