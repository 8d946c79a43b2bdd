"""The command reference page, read from the argparse definitions (``mcp_resume.cli.build_parser``).

Nothing here names a command: every subcommand the parser has (nested ones too) gets a section
with its usage, description, options (flags, value, default, help) and epilog, in the parser's
order, so the page follows the command line as it changes and a test holds it to the parser.
Usage is formatted at a fixed width (``USAGE_WIDTH`` columns), never the terminal's, so the
page is the same on every machine.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Iterator

from .markdown import code, page, table
from .pages_spec import GENERATED

USAGE_WIDTH = 100

SHARED = (
    "Exit codes: **0** everything checked holds, **1** something does not (a FAIL verdict, a broken invariant, a "
    "faulty design not caught), **2** usage error or missing tool (e.g. no node for `typescript-sdk`), **3** the "
    "target could not be checked (down, never answers, not an MCP server; for `verify` and `validate` also: some "
    "verdict INCONCLUSIVE and none FAIL; `prove`: nothing refuted but some Z3 query unknown, raise `--rlimit`; "
    "`explore` and `liveness`: stopped at `--max-states` (or `--max-memory`) before the end), **130** interrupted: no partial artifact is left that "
    "looks like a result (`verify` still prints and writes the verdicts made so far, marked partial). A report that "
    "cannot be written is exit 2 with one line naming the file. A report named `-` (`--json -`, `--junit -` or "
    "`--markdown -`, one per run) goes to standard output and everything else the command prints to standard "
    "error, so `mcp-resume verify URL --json - | jq` works. Embedded servers die with their parent, even when it is "
    "killed."
)


@dataclass(frozen=True)
class Command:
    """One command of the parser: ``path`` the words after the program name (``()`` for the
    program itself), ``summary`` its one-line ``help`` in the parent's list (may be empty)."""

    path: tuple[str, ...]
    parser: argparse.ArgumentParser
    summary: str

    @property
    def name(self) -> str:
        return " ".join((self.parser.prog.split()[0], *self.path))

    @property
    def anchor(self) -> str:
        return "-".join(self.name.split())


def commands(parser: argparse.ArgumentParser) -> list[Command]:
    """The program and every subcommand under it, depth first in the parser's order; an alias
    (a second name for the same parser) is listed once, under its first name."""
    return list(_walk(parser, (), ""))


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...], summary: str) -> Iterator[Command]:
    yield Command(path, parser, summary)
    for action in _subcommand_actions(parser):
        helps = {choice.dest: choice.help or "" for choice in getattr(action, "_choices_actions", [])}
        seen: set[int] = set()
        for word, child in action.choices.items():
            if id(child) not in seen:
                seen.add(id(child))
                yield from _walk(child, (*path, word), helps.get(word, ""))


def _subcommand_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [action for action in parser._actions if action.nargs == argparse.PARSER]


def usage(parser: argparse.ArgumentParser) -> str:
    """The parser's usage line(s) as argparse prints them, wrapped at ``USAGE_WIDTH`` columns."""
    formatter = parser.formatter_class(prog=parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def option_rows(command: Command) -> list[tuple[str, str, str]]:
    """``(option, default, help)`` for every argument but ``--help`` and the subcommand itself;
    a positional argument is shown by its metavar."""
    rows = []
    for action in command.parser._actions:
        if isinstance(action, argparse._HelpAction) or action.nargs == argparse.PARSER or action.help == argparse.SUPPRESS:
            continue
        rows.append((code(_synopsis(action)), _default(action), _help(command.parser, action)))
    return rows


def _synopsis(action: argparse.Action) -> str:
    value = _value(action)
    if not action.option_strings:
        return value
    flags = ", ".join(action.option_strings)
    return f"{flags} {value}" if value else flags


def _value(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.metavar is not None:
        text = action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    elif action.choices is not None:
        text = "{" + ",".join(str(choice) for choice in action.choices) + "}"
    else:
        text = action.dest.upper() if action.option_strings else action.dest
    if action.nargs in ("*", argparse.REMAINDER):
        return f"[{text} ...]"
    if action.nargs == "+":
        return f"{text} [{text} ...]"
    if action.nargs == "?":
        return f"[{text}]"
    return text


def _default(action: argparse.Action) -> str:
    if action.nargs == 0 or action.default in (None, argparse.SUPPRESS) or action.required:
        return ""
    if isinstance(action.default, (list, tuple)) and not action.default:
        return ""
    return code(str(action.default))


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    text = action.help or ""
    if "%" in text:
        values = {**vars(action), "prog": parser.prog}
        if values.get("choices") is not None:
            values["choices"] = ", ".join(str(choice) for choice in action.choices)
        text = text % values
    if action.required and action.option_strings:
        text = f"required. {text}" if text else "required"
    return text


def command_section(command: Command) -> str:
    level = "#" * min(2 + max(len(command.path) - 1, 0), 4)
    rows = option_rows(command)
    return page(
        f"{level} `{command.name}`" if command.path else "## The program",
        command.summary and f"*{command.summary}*",
        f"```text\n{usage(command.parser)}\n```",
        command.parser.description or "",
        table(["option", "default", "what it does"], rows) if rows else "",
        command.parser.epilog or "",
    )


def commands_page(parser: argparse.ArgumentParser | None = None) -> str:
    """The reference page of every command of ``parser`` (``mcp_resume.cli.build_parser()`` when
    ``None``): a list of the commands, then one section each."""
    if parser is None:
        from mcp_resume.cli import build_parser

        parser = build_parser()
    listed = commands(parser)
    index = table(["command", "what it does"],
                  [(f"[{code(c.name)}](#{c.anchor})", c.summary) for c in listed if c.path])
    return page(
        "# Command reference",
        GENERATED + " Read from the command line's own definitions "
        "([src/mcp_resume/cli.py](../src/mcp_resume/cli.py)), so it says what `mcp-resume COMMAND --help` says. "
        "Every command also takes `-h`/`--help`.",
        index,
        "## What every command shares",
        SHARED,
        *(command_section(c) for c in listed),
    )
