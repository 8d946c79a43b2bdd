"""Output of the commands: checks on the paths they are given (made before any work starts), the one
writer of reports (``write_output``, ``OutputError``), staged artifact folders (``staged_folder``) and
the progress of long runs (``StageProgress``)."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from mcp_resume import interrupts


def output_folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot receive output (a file, not writable, under a file), or ``None``.

    A folder that does not exist yet is fine when its nearest existing parent is
    a writable folder.
    """
    if folder.exists():
        if not folder.is_dir():
            return f"{folder} is a file, not a folder"
        return None if os.access(folder, os.W_OK) else f"folder {folder} is not writable"
    parent = folder.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        return f"cannot create {folder}: {parent} is a file"
    return None if os.access(parent, os.W_OK) else f"cannot create {folder}: {parent} is not writable"


STANDARD_OUTPUT = "-"
"""The report file name that means standard output (``--json -``): the command's own report then
goes to stderr (``cli.main``), so stdout holds the report alone."""

_report_stream = None  # where a report named ``-`` goes: the stdout ``cli.main`` saw before it moved the rest


def is_standard_output(path) -> bool:
    """True for the report file name ``-`` (``STANDARD_OUTPUT``)."""
    return path is not None and str(path) == STANDARD_OUTPUT


def report_to(stream) -> None:
    """Send reports named ``-`` to ``stream`` (a text stream; ``cli.main`` passes the original stdout)."""
    global _report_stream
    _report_stream = stream


def output_file_problem(path: Path) -> str | None:
    """Why a report file cannot be written at ``path``, or ``None`` (``-``, standard output, always can)."""
    if is_standard_output(path):
        return None
    if path.is_dir():
        return f"{path} is a folder, expected a file name"
    if not path.parent.is_dir():
        return f"{path}: its folder {path.parent} does not exist (create it first)"
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return f"{path} is not writable"
    return None if path.exists() else _creation_problem(path)


def _creation_problem(path: Path) -> str | None:
    """Create and remove ``path`` (which does not exist) to learn what permissions do not show
    (``/proc``, a read-only disk). An interrupt between the two removes it all the same."""
    try:
        path.open("x").close()
        path.unlink()
    except OSError as error:
        return f"cannot create {path}: {error.strerror or error}"
    except BaseException:  # Ctrl-C or SIGTERM (KeyboardInterrupt): leave nothing behind
        path.unlink(missing_ok=True)
        raise
    return None


def prepare_output_folder(folder: Path) -> str | None:
    """Create ``folder`` (and its parents) for output, or say why it cannot be, as ``output_folder_problem`` does.

    Also catches what permissions do not show (``/proc``, a full or read-only disk).
    """
    problem = output_folder_problem(folder)
    if problem:
        return problem
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot create {folder}: {error.strerror or error}"
    return None


def output_folder_probe(folder: Path) -> str | None:
    """Why ``folder`` cannot receive output, found by creating it (and its missing parents)
    and removing what was created: nothing is left behind, and what permissions do not show
    (``/proc``, a read-only disk) is caught. ``-`` (standard output) is no folder."""
    if is_standard_output(folder):
        return "'-' means standard output, which cannot hold a folder: give a folder name"
    missing = [path for path in (folder, *folder.parents) if not path.exists()]
    try:
        problem = prepare_output_folder(folder)
    finally:  # also when an interrupt cuts in between creating and removing
        _remove_created(missing)
    return problem


def _remove_created(folders: list[Path]) -> None:
    """Remove the empty ``folders`` (innermost first) that a probe created."""
    for created in folders:
        try:
            created.rmdir()
        except FileNotFoundError:
            continue
        except OSError:
            break


def output_paths_problem(folders=(), files=()) -> str | None:
    """The first problem among output ``folders`` (created here) and report ``files``; ``None`` values are skipped."""
    for path in files:
        if path is not None and (problem := output_file_problem(Path(path))):
            return problem
    for path in folders:
        if path is not None and (problem := prepare_output_folder(Path(path))):
            return problem
    return None


class OutputError(Exception):
    """A report or artifact could not be written; the message is one line naming the file and the reason.
    ``mcp_resume.cli.main`` turns it into exit code 2."""


def write_output(path: Path, text: str | bytes | Iterable[str]) -> Path:
    """Write ``text`` (UTF-8 when a ``str``; pieces of text one after another, never joined whole, when
    an iterable such as ``json_pieces``) to ``path``; raise ``OutputError`` naming ``path`` and the
    reason when the write fails (``/dev/full``, ``/proc/version``, a read-only or missing folder).
    ``-`` (``STANDARD_OUTPUT``) writes to standard output."""
    pieces = [text] if isinstance(text, (str, bytes)) else _batched(text)
    if is_standard_output(path):
        stream = _report_stream or sys.stdout
        for piece in pieces:
            stream.write(piece if isinstance(piece, str) else piece.decode("utf-8"))
        stream.flush()
        return Path(path)
    try:
        with open(path, "wb") as stream:
            for piece in pieces:
                stream.write(piece.encode("utf-8") if isinstance(piece, str) else piece)
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None
    return Path(path)


WRITE_PIECES = 4096
"""Pieces of text joined into one write by ``write_output``."""


def _batched(pieces: Iterable[str]) -> Iterator[str]:
    batch: list[str] = []
    for piece in pieces:
        batch.append(piece)
        if len(batch) >= WRITE_PIECES:
            yield "".join(batch)
            batch.clear()
    yield "".join(batch)


class Streamed(list):
    """A JSON array whose items are made while it is written, never held together: ``json_pieces``
    iterates it (``length``: how many items ``items`` yields; iterated once). Only for the
    indenting JSON encoder, which asks ``len`` and iterates: the C encoder (no indent) reads a
    list's own storage and would write ``[]``."""

    def __init__(self, items: Iterable, length: int) -> None:
        super().__init__()
        self._items, self._length = items, length

    def __iter__(self):
        return iter(self._items)

    def __len__(self) -> int:
        return self._length


def json_pieces(value) -> Iterator[str]:
    """``json.dumps(value, indent=2) + "\n"`` in pieces, for ``write_output``: a ``Streamed``
    array inside ``value`` is written item by item."""
    yield from json.JSONEncoder(indent=2).iterencode(value)
    yield "\n"


def write_problem(error: OSError) -> str:
    """One line for an ``OSError`` raised while writing output: the file (when known) and the reason."""
    where = error.filename if error.filename is not None else "a file"
    return f"cannot write {where}: {error.strerror or error}"


@contextmanager
def staged_folder(out: Path) -> Iterator[Path]:
    """A scratch folder inside ``out`` to write a run's artifacts into; merged into ``out`` when the block
    ends normally (files replace those of the same name, nothing else in ``out`` is touched), removed
    without a trace when it raises (an interrupt, an error), so that ``out`` never holds a partial run.

    ``out`` must exist (``prepare_output_folder``). Raises ``OutputError`` when the scratch folder cannot
    be made or merged.
    """
    out = Path(out)
    scratch = out / f".partial-{secrets.token_hex(6)}"
    try:  # from before the folder exists: an interrupt that lands as it is made still removes it
        _make_folder(scratch)
        yield scratch
        interrupts.raise_if_seen()
        _merge(scratch, out)
    finally:
        _remove_tree(scratch)


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(mode=0o700)
    except OSError as error:
        raise OutputError(write_problem(error)) from None


SCRATCH_REMOVAL_SECONDS = 3.0
"""How long removing a scratch folder may keep trying, in seconds: a worker process interrupted with
its parent may still be writing into it for a moment."""


def _remove_tree(folder: Path) -> None:
    """Remove ``folder`` and everything in it, trying again while something still appears in it
    (within ``SCRATCH_REMOVAL_SECONDS``); a folder that cannot be removed is left as it is."""
    deadline = time.monotonic() + SCRATCH_REMOVAL_SECONDS
    while True:
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists() or time.monotonic() > deadline:
            return
        time.sleep(0.05)


def _merge(source: Path, target: Path) -> None:
    try:
        for entry in sorted(source.iterdir()):
            destination = target / entry.name
            if entry.is_dir() and not entry.is_symlink():
                if destination.exists() and not destination.is_dir():
                    destination.unlink()
                destination.mkdir(exist_ok=True)
                _merge(entry, destination)
            else:
                os.replace(entry, destination)
    except OSError as error:
        raise OutputError(write_problem(error)) from None


class StageProgress:
    """What a long run is doing and how far, on stderr; the one progress helper of the commands.

    ``stage(name, total)`` starts a stage (``total`` items, if known); ``advance(item)`` marks one item
    done. On a terminal a single rich line shows the stage, the item, ``n/N`` and the time elapsed,
    redrawn in place and cleared at the end; elsewhere (a CI log) each stage is one plain line
    ``<command>: <name>`` (with ``, N items`` when counted) and items print nothing. ``note(text)``
    prints a plain line in both modes. ``quiet`` prints nothing. With ``stages`` (the count known
    up front) each stage name is prefixed ``stage i of N:``. Use it as a context manager.
    """

    def __init__(self, command: str, *, quiet: bool = False, terminal: bool | None = None, unit: str = "items",
                 stages: int | None = None) -> None:
        self.command, self.quiet, self.unit, self.stages = command, quiet, unit, stages
        self.started = 0
        self.terminal = sys.stderr.isatty() if terminal is None else terminal
        self.name = ""
        self._bar = self._task = None

    def __enter__(self) -> "StageProgress":
        if self.terminal and not self.quiet:
            self._bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(), console=Console(stderr=True),
                                 transient=True)
            self._bar.start()
            self._task = self._bar.add_task(self.command, total=None)
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def stage(self, name: str, total: int | None = None) -> None:
        interrupts.raise_if_seen()
        self.started += 1
        self.name = f"stage {self.started} of {self.stages}: {name}" if self.stages else name
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.reset(self._task, total=total, description=f"{self.command}: {self.name}")
        else:
            counted = f", {total} {self.unit}" if total else ""
            print(f"{self.command}: {self.name}{counted}", file=sys.stderr, flush=True)

    def advance(self, item: str | None = None) -> None:
        interrupts.raise_if_seen()
        if self._bar is not None:
            text = f"{self.command}: {self.name}" + (f": {item}" if item else "")
            self._bar.update(self._task, advance=1, description=text)

    def note(self, text: str) -> None:
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False)
        else:
            print(f"{self.command}: {text}", file=sys.stderr, flush=True)


LONG_ID_CHARS = 64
"""A printed token longer than this (a session id, an event id) is shortened by ``short_ids``."""
_LONG_TOKEN = re.compile(r"[^\s'\"`()\[\]{},;]{%d,}" % (LONG_ID_CHARS + 1))


def short_ids(text: str) -> str:
    """``text`` for a printed line: every token (a run without blanks, quotes, brackets or
    separators) longer than ``LONG_ID_CHARS`` characters, such as a session id a server made
    thousands of characters long, becomes its first 16 and last 8 characters around an ellipsis,
    with its length: ``abcdefghijklmnop…stuvwxyz (3000 chars)``. URLs and absolute paths stay
    whole (a reader copies them). JSON reports keep ids whole: use this for text only."""
    def shortened(found: re.Match) -> str:
        token = found.group(0)
        if "://" in token or token.startswith(("/", "~")):
            return token
        return f"{token[:16]}…{token[-8:]} ({len(token)} chars)"

    return _LONG_TOKEN.sub(shortened, text)


def wide_console(**options):
    """A ``rich`` console as wide as the terminal, or 140 columns when the output is not one (a pipe,
    a CI log), so that a verdict table keeps its rule ids whole; ``options`` go to ``Console``."""
    from rich.console import Console

    console = Console(**options)
    return console if console.is_terminal else Console(width=140, **options)
