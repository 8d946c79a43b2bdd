"""The options more than one command shares, for the command modules' ``add_parser``.

Argparse types (a non-empty path or string, a whole number, a number of workers), the profile
choices, ``--bound NAME`` with the numbers that override it, the options that became commands
of their own (``Moved``), and ``handler``: the late-bound entry of a command module. Standard
library and the spec only: importing it loads no command's stack.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
from pathlib import Path

from mcp_resume.spec.profiles import SESSION_ERA, Profile

PROFILE_NAMES = [p.value for p in Profile]
SESSION_PROFILE_NAMES = [p.value for p in Profile if p in SESSION_ERA]


def output_path(text: str) -> Path:
    """An argparse type: a non-empty path (an empty one would silently mean the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return Path(text)


def non_empty(text: str) -> str:
    """An argparse type: a non-empty string."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def whole_number(text: str) -> int:
    """An argparse type: a whole number written in ASCII digits, with an optional sign (``int``
    alone also takes ``1_0`` and other scripts' digits)."""
    if not re.fullmatch(r"\s*[+-]?[0-9]+\s*", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(text)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    number = whole_number(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


MOST_WORKERS = 64
"""The most processes ``--workers`` may ask for: each is a forked copy of the run, and more
than the cores only slows it (a thousand exhausted the file descriptors and process slots)."""


def worker_count(text: str) -> int:
    """An argparse type: a number of worker processes, 1 to ``MOST_WORKERS``."""
    number = positive_int(text)
    if number > MOST_WORKERS:
        raise argparse.ArgumentTypeError(f"at most {MOST_WORKERS}, got {number} (this machine has "
                                         f"{os.cpu_count() or 1} cores; more workers than cores only slow a run)")
    return number


def handler(module: str, function: str):
    """The handler of one command: ``mcp_resume.<module>.<function>(args)``, looked up when the
    command runs (so a test may replace the function); its ``__qualname__`` names the module."""

    def run(args: argparse.Namespace) -> int:
        return getattr(importlib.import_module(f"mcp_resume.{module}"), function)(args)

    run.__qualname__ = f"{module}.{function}"
    return run


class Moved(argparse.Action):
    """An option that became a command of its own (issue 27: one command per job): giving it is a
    usage error (exit 2) that names the command to use instead."""

    def __init__(self, option_strings, dest, instead: str, **kwargs):
        kwargs.setdefault("nargs", 0)
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kwargs)
        self.instead = instead

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string} is no option of {parser.prog} any more: use '{self.instead}'")


def add_bound(parser: argparse.ArgumentParser, default: str) -> None:
    """``--bound NAME`` and the numbers that override it; ``default`` says which bound is explored without them."""
    parser.add_argument("--bound", type=non_empty, metavar="NAME", help=f"a named bound (default: {default})")
    for name, what in (("sessions", "sessions"), ("streams", "streams per session"), ("events", "events per stream"),
                       ("requests", "server requests per session"), ("depth", "steps from the initial state")):
        parser.add_argument(f"--{name}", type=whole_number, metavar="N", help=f"at most N {what} (overrides the named bound)")


def named_bounds() -> str:
    """The named bounds, for a description (their sizes: spec/space.py and docs/state-graph/README.md)."""
    from mcp_resume.spec.space import NAMED_BOUNDS

    return ", ".join(NAMED_BOUNDS) + " (spec/space.py; their sizes and counts: docs/state-graph/README.md)"
