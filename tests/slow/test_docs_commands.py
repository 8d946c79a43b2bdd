"""docs/commands.md: the command reference is read from the argparse definitions, every command of them."""

from __future__ import annotations

import argparse

import pytest

from mcp_resume.cli import build_parser
from mcp_resume.docgen.pages_commands import commands_page, usage

pytestmark = pytest.mark.xdist_group("test_docs_commands")  # every test shares a module-scoped fixture


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
