"""README.md: short, led by the user's job, and every command in it works as written (issue 27).

The quick start's test command is the one ``.ci/run`` runs verbatim; every ``mcp-resume ...``
command the README shows parses with the real parser, and the cheap ones run here; every link
points at a file of the repository or a page ``mcp-resume docs`` generates."""

from __future__ import annotations

import re
import shlex

import pytest

from mcp_resume.cli import build_parser, main
from mcp_resume.docgen.compare import EXTERNAL_PAGES
from mcp_resume.docgen.pages_rules import PAGES
from mcp_resume.docgen.pages_spec import GENERATED
from mcp_resume.model.verify.roles import parse_tool_option
from mcp_resume.spec.profiles import Profile

from tests.helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_RUN = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
MOST_LINES, WIDEST_LINE = 150, 200
CHEAP = {"diagram"}  # commands run in full here: seconds, no network, no server


def _code_blocks(text: str, heading: str | None = None) -> list[str]:
    if heading is not None:
        text = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)


def _commands(text: str = README) -> list[str]:
    """Every ``mcp-resume ...`` command of ``text``: in shell code blocks (each part of a ``&&`` or
    ``|`` chain, comments dropped) and in inline code."""
    found = []
    shell_blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    for line in (line for block in shell_blocks for line in block.splitlines()):
        for part in re.split(r"&&|\|", line.split(" #", 1)[0] if not line.startswith("#") else ""):
            if part.strip().startswith("mcp-resume "):
                found.append(part.strip())
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    for span in re.findall(r"`([^`\n]+)`", prose):
        for part in span.split("|"):
            if part.strip().startswith("mcp-resume "):
                found.append(part.strip())
    return found


def test_the_readme_is_at_most_150_lines_none_very_long():
    lines = README.splitlines()
    assert len(lines) <= MOST_LINES, f"README.md has {len(lines)} lines; at most {MOST_LINES}"
    long = [number for number, line in enumerate(lines, 1) if len(line) > WIDEST_LINE]
    assert not long, f"README.md lines over {WIDEST_LINE} characters: {long}"


def test_the_quick_start_comes_first_with_the_check_and_the_test_command_ci_runs():
    assert README.split("\n## ", 2)[1].startswith("Quick start\n")
    check, tests = (block.strip() for block in _code_blocks(README, "Quick start")[:2])
    assert check == "python3 -m venv .venv && . .venv/bin/activate && pip install . && mcp-resume check"
    ci_line = CI_RUN.split("# The README's test command, verbatim:\n", 1)[1].splitlines()[0].strip()
    assert tests == ci_line == "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && python -m pytest"


def test_the_readme_leads_with_verify_on_the_users_server_and_what_its_output_means():
    sections = re.findall(r"^## (.+)$", README, flags=re.M)
    assert sections[:2] == ["Quick start", "Check your own server"] and sections[-1] == "Contributing"
    job = README.split("\n## Check your own server\n", 1)[1].split("\n## ", 1)[0]
    assert "mcp-resume verify http://127.0.0.1:8000/mcp" in job
    for word in ("PASS", "FAIL", "WARN", "SKIP", "INCONCLUSIVE", "fix", "boundary", "--profile auto", "Exit codes",
                 "docs/fixtures.md", "--tool", "docs/ci.md", "docs/profiles.md"):
        assert word in job, word
    for code, meaning in (("**0**", "no FAIL"), ("**1**", "some FAIL"), ("**2**", "usage"), ("**3**", "INCONCLUSIVE"),
                          ("**130**", "interrupted")):
        assert re.search(re.escape(code) + r"[^*]*" + meaning, job), code


def test_the_readme_shows_commands():
    assert len(_commands()) >= 10


@pytest.mark.parametrize("command", _commands())
def test_every_command_in_the_readme_parses_with_the_real_parser(command):
    args = build_parser().parse_args(shlex.split(command)[1:])
    for tool in getattr(args, "tool", None) or []:
        parse_tool_option(tool)


@pytest.mark.parametrize("command", [c for c in _commands() if shlex.split(c)[1] in CHEAP])
def test_the_cheap_commands_of_the_readme_run(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(shlex.split(command)[1:]) == 0


def test_every_link_of_the_readme_leads_somewhere():
    generated = {"docs/README.md", *(f"docs/{name}" for name, _title, _what in PAGES),
                 *(f"docs/{name}" for name in EXTERNAL_PAGES)}
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if target.startswith("http"):
            continue
        assert target in generated or (ROOT / target).exists(), target


def test_the_benchmark_figures_live_in_benchmarks_results_with_dates():
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    revisions = {profile.value.removeprefix("mcp-") for profile in Profile}
    assert "benchmarks/RESULTS.md" in README
    assert set(re.findall(r"20\d\d-\d\d-\d\d", README)) <= revisions, "a dated figure belongs in benchmarks/RESULTS.md"
    for script in sorted(p.name for p in (ROOT / "benchmarks").glob("bench_*.py")):
        assert f"`{script}`" in results, script
    assert re.search(r"20\d\d-\d\d-\d\d", results) and "load" in results


def _moved_page(name: str) -> str:
    from mcp_resume.docgen.pages_contributing import contributing_page
    from mcp_resume.docgen.pages_traffic import traffic_page

    return {"contributing": contributing_page, "traffic": traffic_page}[name]()


@pytest.mark.parametrize("name", ["contributing", "traffic"])
def test_every_command_of_the_pages_that_took_the_readmes_material_parses(name):
    found = _commands(_moved_page(name).replace(GENERATED, ""))  # the stamp names the command, it is no command line
    assert found
    for command in found:
        build_parser().parse_args(shlex.split(command)[1:])


@pytest.mark.parametrize("name", ["contributing", "traffic"])
def test_every_file_the_pages_that_took_the_readmes_material_name_exists(name):
    text = _moved_page(name)
    named = set(re.findall(r"`((?:spec|model|proofs|src|tests|benchmarks|tools)/[\w./-]+)`", text))
    named |= {target.removeprefix("../") for target in re.findall(r"\]\(\.\./([^)#]+)\)", text)}
    assert named, "the page names files"
    missing = sorted(path for path in named if not (ROOT / path.removeprefix("../")).exists())
    assert not missing, f"docs/{name}.md names files that do not exist: {missing}"
