"""An interrupt (SIGINT, SIGTERM) ends every command with exit 130 and writes nothing that looks
like a result: no new file under the output folder, no worker process left running.

Each command runs as a real subprocess and gets the signal after the given number of seconds,
counted from its start, and never before its signal handling is in place (it catches SIGTERM,
``/proc/PID/status``): under load the interpreter may need more than a second to start, and a
SIGINT before ``cli.main`` runs is Python's own.
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

import pytest

from mcp_resume import interrupts
from mcp_resume.outputs import staged_folder

from tests.helpers.interrupts import files, interrupted  # noqa: F401 (interrupted: a fixture)


pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

EXIT_INTERRUPTED = 130


def test_a_staged_folder_is_merged_only_when_the_block_ends(tmp_path):
    (tmp_path / "old.txt").write_text("old")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "theirs.txt").write_text("theirs")
    with staged_folder(tmp_path) as scratch:
        (scratch / "sub").mkdir()
        (scratch / "sub" / "new.txt").write_text("new")
        (scratch / "old.txt").write_text("replaced")
        assert not (tmp_path / "sub" / "new.txt").exists()
    assert (tmp_path / "old.txt").read_text() == "replaced"
    assert files(tmp_path) == {Path("old.txt"), Path("sub"), Path("sub/new.txt"), Path("sub/theirs.txt")}


def test_a_staged_folder_leaves_nothing_when_interrupted(tmp_path):
    (tmp_path / "old.txt").write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with staged_folder(tmp_path) as scratch:
            (scratch / "old.txt").write_text("partial")
            raise KeyboardInterrupt
    assert files(tmp_path) == {Path("old.txt")}
    assert (tmp_path / "old.txt").read_text() == "old"


def test_an_interrupt_as_the_scratch_folder_is_made_leaves_nothing(tmp_path, monkeypatch):
    """The interrupt lands right after the folder exists (seen once in CI: an empty ``.partial-``
    folder was left when it was made before its removal was armed)."""
    make = os.mkdir

    def made_then_interrupted(path, *args, **kwargs):
        make(path, *args, **kwargs)
        if Path(path).name.startswith(".partial-"):
            raise KeyboardInterrupt

    monkeypatch.setattr(os, "mkdir", made_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        with staged_folder(tmp_path):
            pytest.fail("the block ran although the interrupt landed before it")
    assert files(tmp_path) == set()


def test_an_interrupt_whose_exception_was_lost_still_stops_the_merge(tmp_path):
    """Python drops an exception raised in a destructor (a Z3 solver being freed): the mark stays."""
    (tmp_path / "old.txt").write_text("old")
    interrupts.reset()  # a command run in this worker before may have ended the run (interrupts.end)
    try:
        with pytest.raises(KeyboardInterrupt):
            with staged_folder(tmp_path) as scratch:
                (scratch / "old.txt").write_text("partial")
                interrupts.mark()
    finally:
        interrupts.reset()
    assert (tmp_path / "old.txt").read_text() == "old"
    assert files(tmp_path) == {Path("old.txt")}


def _main_with(monkeypatch, handler) -> int:
    """``cli.main(["check"])`` with ``handler`` in place of the command's; the interrupt mark reset after."""
    from mcp_resume import cli

    parser = cli.build_parser()
    arguments = parser.parse_args(["check"])
    monkeypatch.setattr(arguments, "handler", handler)
    monkeypatch.setattr(parser, "parse_known_args", lambda argv: (arguments, []))
    monkeypatch.setattr(cli, "build_parser", lambda only=None: parser)
    try:
        return cli.main(["check"])
    finally:
        interrupts.reset()


def _lost_interrupt_then_exit(outcome):
    """A handler that gets an interrupt whose ``KeyboardInterrupt`` is lost, then ends with ``outcome``."""
    def handler(args):
        interrupts.mark()
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome
    return handler


@pytest.mark.parametrize("outcome", [0, ctypes.ArgumentError("argument 1: KeyboardInterrupt: "), OSError(5, "I/O error")],
                         ids=["finishes", "ctypes-wraps-it", "os-error"])
def test_a_command_that_ends_after_a_lost_interrupt_exits_130(monkeypatch, capsys, outcome):
    assert _main_with(monkeypatch, _lost_interrupt_then_exit(outcome)) == EXIT_INTERRUPTED
    assert "interrupted" in capsys.readouterr().err



def test_a_command_that_reports_its_own_interrupt_is_not_said_interrupted_twice(monkeypatch, capsys):
    def handler(args):
        interrupts.mark()
        print("mcp-resume check: interrupted: the verdicts above are partial", file=sys.stderr)
        return EXIT_INTERRUPTED

    assert _main_with(monkeypatch, handler) == EXIT_INTERRUPTED
    assert capsys.readouterr().err.count("interrupted") == 1

class _RaisesInDestructor:
    """Like a Z3 solver freed while our signal handler runs: the interrupt lands in ``__del__``."""

    def __del__(self):
        raise KeyboardInterrupt


def test_an_interrupt_lost_in_a_destructor_prints_no_traceback(monkeypatch, capsys):
    def handler(args):
        interrupts.mark()
        doomed = _RaisesInDestructor()
        del doomed  # Python cannot raise here: "Exception ignored in ... __del__" unless the hook drops it
        return 0

    assert _main_with(monkeypatch, handler) == EXIT_INTERRUPTED
    err = capsys.readouterr().err
    assert "interrupted" in err and "Exception ignored" not in err and "Traceback" not in err


def test_ctrl_c_while_the_command_loads_is_one_line_and_exit_130(monkeypatch, capsys):
    import builtins

    from mcp_resume import command

    real_import = builtins.__import__

    def interrupted(name, *args, **kwargs):
        if name == "mcp_resume.cli":
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", interrupted)
    assert command.entry() == 130
    assert capsys.readouterr().err == "mcp-resume: interrupted\n"


def test_handled_signals_call_the_handler_in_the_block_and_their_own_after_it():
    import signal
    import threading

    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    got = []
    with interrupts.handled(lambda signum, frame: got.append(signum)):
        signal.raise_signal(signal.SIGTERM)
        signal.raise_signal(signal.SIGINT)
    assert got == [signal.SIGTERM, signal.SIGINT]
    assert {signum: signal.getsignal(signum) for signum in before} == before
    off_main = []

    def in_a_thread():
        with interrupts.handled(lambda signum, frame: None):  # signals do not land here: nothing to set
            off_main.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join(10)
    assert off_main == [before[signal.SIGINT]]
