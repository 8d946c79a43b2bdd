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
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.processes import child_pids

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

from mcp_resume import interrupts
from mcp_resume.outputs import staged_folder

EXIT_INTERRUPTED = 130


def _files(folder: Path) -> set[Path]:
    return {path.relative_to(folder) for path in folder.rglob("*")}


def interrupted(argv: list[str], cwd: Path, after: float, signum: int = signal.SIGINT,
                watch_children: bool = False, ready: str | None = None) -> tuple[int, str, list[int]]:
    """Run ``mcp-resume ARGV``, send ``signum`` ``after`` seconds in (counted from the stderr line
    containing ``ready``, when given); return its exit code, its stderr and the child processes it
    had just before the signal."""
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "mcp_resume.cli", *argv], cwd=cwd, text=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stderr), daemon=True)
    reader.start()
    try:
        while process.poll() is None and not (_catches_sigterm(process.pid) and _has(lines, ready)):
            time.sleep(0.02)
        if ready is not None:
            started = time.monotonic()
        time.sleep(max(0.0, after - (time.monotonic() - started)))
        children = child_pids(process.pid) if watch_children else []
        assert process.poll() is None, f"mcp-resume {argv[0]} ended before the signal: {''.join(lines)}"
        os.kill(process.pid, signum)
        code = process.wait(60)
        reader.join(10)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    return code, "".join(lines), children


def _has(lines: list[str], ready: str | None) -> bool:
    return ready is None or any(ready in line for line in list(lines))


def _catches_sigterm(pid: int) -> bool:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    return False


@pytest.mark.slow
@pytest.mark.parametrize("after", [1.0, 3.0, 5.0])
def test_an_interrupted_prove_exits_130_and_writes_nothing(tmp_path, after):
    out = tmp_path / "proofs"
    out.mkdir()
    (out / "kept.txt").write_text("an earlier file")
    code, stderr, _ = interrupted(["prove", "--out", str(out), "--json", str(tmp_path / "summary.json")], tmp_path, after)
    assert code == EXIT_INTERRUPTED, stderr
    assert _files(out) == {Path("kept.txt")}
    assert not (tmp_path / "summary.json").exists()
    assert "Traceback" not in stderr and "interrupted" in stderr


@pytest.mark.slow
def test_sigterm_stops_prove_like_ctrl_c(tmp_path):
    code, stderr, _ = interrupted(["prove", "--out", str(tmp_path / "out")], tmp_path, 2.0, signal.SIGTERM)
    assert code == EXIT_INTERRUPTED, stderr
    assert _files(tmp_path / "out") == set()


@pytest.mark.slow
def test_an_interrupted_check_ends_its_workers_and_writes_nothing(tmp_path):
    out = tmp_path / "check"
    out.mkdir()
    code, stderr, children = interrupted(["check", "--out", str(out), "--workers", "2"], tmp_path, 3.0,
                                         watch_children=True, ready="stages on")
    assert code == EXIT_INTERRUPTED, stderr
    assert "leaked semaphore" not in stderr, stderr
    assert _files(out) == set()
    assert children, "check had started no worker process"
    assert not _running(children)


@pytest.mark.slow
def test_an_interrupted_kill_matrix_ends_its_workers(tmp_path):
    markdown = tmp_path / "kill.md"
    code, stderr, children = interrupted(["kill-matrix", "--workers", "2", "--markdown", str(markdown),
                                          "--json", str(tmp_path / "kill.json")], tmp_path, 15.0, watch_children=True)
    assert code == EXIT_INTERRUPTED, stderr
    assert "leaked semaphore" not in stderr, stderr  # the ended pool's queues are released before the exit
    assert not markdown.exists() and not (tmp_path / "kill.json").exists()
    assert children, "the kill matrix had started no worker process"
    assert not _running(children)


@pytest.mark.slow
def test_an_interrupted_explore_writes_no_result(tmp_path):
    code, stderr, _ = interrupted(["explore", "--bound", "default", "--json", str(tmp_path / "explore.json"),
                                   "--traces", str(tmp_path / "traces")], tmp_path, 3.0)
    assert code == EXIT_INTERRUPTED, stderr
    assert not (tmp_path / "explore.json").exists()
    assert not list((tmp_path / "traces").glob("*"))


@pytest.mark.slow
def test_an_interrupted_docs_leaves_its_folder_as_it_was(tmp_path):
    out = tmp_path / "docs"
    out.mkdir()
    tests = Path(__file__).resolve().parent
    code, stderr, _ = interrupted(["docs", "--out", str(out), "--tests", str(tests)], tmp_path, 3.0)
    assert code == EXIT_INTERRUPTED, stderr
    assert _files(out) == set()


def _running(pids: list[int], seconds: float = 5.0) -> list[str]:
    """The command lines of ``pids`` still running after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(_state(pid) != "Z" for pid in pids):
        time.sleep(0.1)
    return [_cmdline(pid) for pid in pids if _state(pid) != "Z"]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
    except OSError:
        return str(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


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
    assert _files(tmp_path) == {Path("old.txt"), Path("sub"), Path("sub/new.txt"), Path("sub/theirs.txt")}


def test_a_staged_folder_leaves_nothing_when_interrupted(tmp_path):
    (tmp_path / "old.txt").write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with staged_folder(tmp_path) as scratch:
            (scratch / "old.txt").write_text("partial")
            raise KeyboardInterrupt
    assert _files(tmp_path) == {Path("old.txt")}
    assert (tmp_path / "old.txt").read_text() == "old"


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
    assert _files(tmp_path) == {Path("old.txt")}


def _main_with(monkeypatch, handler) -> int:
    """``cli.main(["check"])`` with ``handler`` in place of the command's; the interrupt mark reset after."""
    from mcp_resume import cli

    parser = cli.build_parser()
    arguments = parser.parse_args(["check"])
    monkeypatch.setattr(arguments, "handler", handler)
    monkeypatch.setattr(parser, "parse_args", lambda argv: arguments)
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
