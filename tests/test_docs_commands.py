"""docs/commands.md: the command reference is read from the argparse definitions, every command of them."""

from __future__ import annotations

import argparse

import pytest

from mcp_resume.cli import build_parser
from mcp_resume.docgen.pages_commands import commands, commands_page, usage


def _subcommands(parser: argparse.ArgumentParser, path=()):
    """Every (path, parser) under ``parser``, found through argparse's own subparsers class: a second
    route to the commands, beside the page's."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, child in action.choices.items():
                yield (*path, word), child
                yield from _subcommands(child, (*path, word))


@pytest.fixture(scope="module")
def real():
    return build_parser(), commands_page()


def test_every_command_of_the_parser_has_a_section_with_its_usage_description_and_epilog(real):
    parser, page = real
    found = list(_subcommands(parser))
    assert found, "the parser has subcommands"
    for path, child in found:
        name = " ".join(("mcp-resume", *path))
        assert f"`{name}`" in page and f"](#{'-'.join(name.split())})" in page
        assert usage(child) in page
        for text in (child.description, child.epilog):
            if text:
                assert text in page, f"{name}: {text[:60]}"


def test_every_option_of_every_command_is_listed_with_its_help(real):
    parser, page = real
    for _path, child in [((), parser), *_subcommands(parser)]:
        for action in child._actions:
            if action.help in (None, argparse.SUPPRESS) or isinstance(action, argparse._SubParsersAction):
                continue
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert f"`{flag}" in page or f", {flag}" in page, flag
            if "%" not in action.help and action.option_strings != ["-h", "--help"]:
                assert action.help.replace("|", "\\|") in page, action.help[:60]


def test_the_page_does_not_depend_on_the_terminal_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    narrow = commands_page()
    monkeypatch.setenv("COLUMNS", "300")
    assert commands_page() == narrow


def test_a_parser_of_any_shape_is_read_whole():
    parser = argparse.ArgumentParser(prog="tool", description="The tool.", epilog="Exit 0.")
    subs = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    run = subs.add_parser("run", aliases=["r"], help="run things", description="Run a thing.", epilog="Exit 1 on fail.")
    run.add_argument("target", choices=["a", "b"], help="what to run")
    run.add_argument("--out", required=True, metavar="DIR", help="where to write")
    run.add_argument("--times", type=int, default=3, help="how often (default: %(default)s)")
    run.add_argument("--tag", nargs="*", default=[], help="tags")
    run.add_argument("--secret", help=argparse.SUPPRESS)
    nested = subs.add_parser("group", help="a group").add_subparsers(dest="inner", required=True)
    nested.add_parser("inner", help="the inner one", description="Inside.")

    listed = commands(parser)
    assert [c.name for c in listed] == ["tool", "tool run", "tool group", "tool group inner"]  # the alias once
    page = commands_page(parser)
    assert "## `tool run`" in page and "### `tool group inner`" in page and "[`tool group inner`](#tool-group-inner)" in page
    assert "*the inner one*" in page and "Inside." in page and "Exit 1 on fail." in page and "Exit 0." in page
    assert "| `{a,b}` |  | what to run |" in page
    assert "| `--out DIR` |  | required. where to write |" in page
    assert "| `--times TIMES` | `3` | how often (default: 3) |" in page
    assert "| `--tag [TAG ...]` |  | tags |" in page
    assert "--secret" not in page


def test_the_docs_index_links_the_command_reference():
    from mcp_resume.docgen.pages_rules import PAGES

    assert "commands.md" in {name for name, _title, _what in PAGES}
