"""The ``mcp-resume`` command line.

One command per job. Each subcommand lives in its own module next to this one
(``mcp_resume.<command>``): it defines its own arguments (``add_parser``; the options
several commands share are ``mcp_resume.options``), calls the library the commands share,
``mcp_resume.jobs``, and prints; no command module imports another. This module builds the
top parser, registers the commands in order (``COMMANDS``; it imports only the module of the
command it runs), dispatches, and turns an interrupt or an output that cannot be written into
its exit code. Exit codes (``jobs.exits``), shared by every subcommand:

- 0: everything checked holds;
- 1: something checked does not hold (a FAIL verdict, a broken invariant, a
  faulty design that was not caught);
- 2: bad usage or a missing tool (unknown profile, no Graphviz for SVG ...);
- 3: the target could not be checked (down, never answers, not MCP), or, for
  ``verify``, some verdict is INCONCLUSIVE and none is FAIL;
- 130: interrupted (Ctrl-C or SIGTERM).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys

from mcp_resume import __version__, interrupts
from mcp_resume.jobs.exits import EXIT_INTERRUPTED, EXIT_USAGE

COMMANDS = (
    ("check", "check",
     "the quick gate: Z3 proofs, the Hypothesis machine, the explorer, every faulty design caught"),
    ("diagram", "diagram",
     "draw the decision and the stream lifecycle from the spec"),
    ("verify", "verify",
     "hold a real server to the spec over HTTP and give a verdict per rule"),
    ("docs", "docs",
     "write the documentation set generated from the spec (or --check it)"),
    ("replay", "replay",
     "run a saved finding (a verify trace or a spec trace) again against a target"),
    ("compat", "compat",
     "verify the official MCP SDKs and third-party frameworks and write the compatibility page"),
    ("prove", "prove",
     "prove every invariant of the state machine with Z3 and refute every faulty design"),
    ("explore", "explore",
     "walk every state of the spec within bounds, checking every invariant (as TLC does)"),
    ("explore-design", "explore_design",
     "explore faulty design N beside the spec to its shortest counterexamples"),
    ("liveness", "liveness",
     "check no-stranded-request under fair reconnects, with a lasso counterexample"),
    ("kill-matrix", "kill_matrix",
     "every faulty design against every checker, under boundary and mcp-2025-11-25"),
    ("graph", "graph",
     "draw the spec's state graph, optionally with a faulty design's counterexample in red"),
    ("validate", "validate",
     "judge recorded traffic with a server (HAR, or the proxy's JSON lines) against the spec"),
    ("proxy", "proxy",
     "a checking reverse proxy between a real MCP client and its server"),
)
"""Each command's name, its module (``mcp_resume.<module>``, whose ``add_parser`` defines its
options) and its line in ``mcp-resume --help``, in the order that lists them. Only the module of
the command being run is imported (each pulls in its own stack: Z3, Hypothesis, httpx ...)."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``mcp-resume`` parser with every command's options; with ``only`` (a word of the command
    line, or ``""``), those of that command alone, the others listed by name and summary."""
    parser = argparse.ArgumentParser(
        prog="mcp-resume",
        description=(
            "Check how an MCP Streamable HTTP server tells stream resumption (Last-Event-ID) "
            "from session resumption (Mcp-Session-Id alone), against an executable specification."
        ),
        epilog=("Exit codes: 0 all holds, 1 something does not hold, 2 usage error or missing tool, "
                "3 target could not be checked (verify: also when a verdict is INCONCLUSIVE and none FAILs), 130 interrupted."),
    )
    parser.add_argument("--version", action="version", version=f"mcp-resume {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module, summary in COMMANDS:
        if only is None or only == name:
            importlib.import_module(f"mcp_resume.{module}").add_parser(commands, summary)
        else:
            commands.add_parser(name, help=summary)
    return parser


REPORT_OPTIONS = ("json", "junit", "markdown")
"""The report files a command may write; any one of them may be ``-``, standard output."""


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand. Shared by all of them: SIGINT and SIGTERM end the run with exit 130; an
    output that cannot be written (``OutputError``, or an ``OSError`` naming a file) is one line on
    stderr and exit 2, never a traceback. A report file named ``-`` (``--json -``, ``--junit -`` or
    ``--markdown -``, one of them) is written to stdout, and the rest of the command's output to stderr."""
    from mcp_resume.outputs import is_standard_output, report_to

    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(only=_command_word(argv))
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # said in the command's own usage, not the top level's (argparse's default)
        _command_parser(parser, args.command).error(f"unrecognized arguments: {' '.join(unknown)}")
    to_stdout = [name for name in REPORT_OPTIONS if is_standard_output(getattr(args, name, None))]
    if len(to_stdout) > 1:
        _command_parser(parser, args.command).error(
            f"only one report can go to standard output ('-'): --{' and --'.join(to_stdout)} both ask for it")
    if to_stdout:  # stdout holds that report alone; everything else the command prints goes to stderr
        report_to(sys.stdout)
        with contextlib.redirect_stdout(sys.stderr):
            return _run(args)
    report_to(None)
    return _run(args)


def _command_word(argv: list[str]) -> str:
    """The command ``argv`` names: its first word that is not an option (the top parser's options,
    ``--help`` and ``--version``, take no value); ``""`` when there is none."""
    return next((word for word in argv if not word.startswith("-")), "")


def _command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The subparser of ``command`` (its usage and prog, e.g. ``mcp-resume verify``), so that an error
    found after parsing is said as argparse says the subcommand's own; ``parser`` if there is none."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(command, parser)
    return parser


def _run(args) -> int:
    from mcp_resume.outputs import OutputError

    interrupts.reset()
    unraisable = sys.unraisablehook
    sys.unraisablehook = _quiet_lost_interrupt(unraisable)
    with interrupts.handled(_interrupt):
        try:
            code = args.handler(args)
            if code != EXIT_INTERRUPTED:  # else the command has said so itself, in its own words
                interrupts.raise_if_seen()
            return code
        except KeyboardInterrupt:
            return _interrupted(args.command)
        except Exception as error:
            if interrupts.seen():  # the interrupt surfaced as another error (e.g. ctypes wraps it inside a Z3 call)
                return _interrupted(args.command)
            if isinstance(error, OutputError):
                print(f"mcp-resume {args.command}: error: {error}", file=sys.stderr)
                return EXIT_USAGE
            if isinstance(error, OSError) and error.filename is not None:
                print(f"mcp-resume {args.command}: error: {error.filename}: {error.strerror or error}", file=sys.stderr)
                return EXIT_USAGE
            raise
        finally:
            interrupts.end()
            if not interrupts.seen():  # an interrupted run keeps the quiet hook: its half-built objects die on the way out
                sys.unraisablehook = unraisable


def _interrupted(command: str) -> int:
    print(f"mcp-resume {command}: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def _quiet_lost_interrupt(previous):
    """An unraisable-exception hook that, once the run was interrupted (``interrupts``), drops what
    destructors raise: the ``KeyboardInterrupt`` of our own handler when it lands in a ``__del__``
    ("Exception ignored in ... __del__"), and the errors of objects whose construction it cut short
    (a Z3 ``AstRef`` without its ``ctx``). The run exits 130 anyway. Before an interrupt, every
    unraisable exception goes to ``previous``."""
    def hook(unraisable) -> None:
        if interrupts.seen():
            return
        previous(unraisable)
    return hook


def _interrupt(signum, frame) -> None:
    """The command's handler of SIGINT and SIGTERM (``interrupts.handled``): SIGTERM is treated
    like Ctrl-C, so that started servers are stopped and partial reports written on the way
    out. Only the first signal interrupts: later ones are ignored, so that the clean-up
    (removing a scratch folder, stopping servers and workers) is not cut short."""
    interrupts.mark()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def entry() -> int:
    """The ``mcp-resume`` console command: ``main`` on ``sys.argv``. An interrupted run leaves at once
    with exit 130 (``os._exit`` after flushing): its clean-up ran inside the command, and the
    interpreter's own finalization would free objects the interrupt left half-built."""
    try:
        code = main()
    except KeyboardInterrupt:  # before the command's own handlers were in place (parsing the arguments)
        print("mcp-resume: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if code == EXIT_INTERRUPTED and interrupts.seen():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)
    return code


if __name__ == "__main__":
    sys.exit(entry())
