"""docs/commands.md: the command reference is read from the argparse definitions, every command of them."""

from __future__ import annotations

import argparse

from mcp_resume.docgen.pages_commands import commands, commands_page


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
