"""Whether the run was told to stop (SIGINT or SIGTERM), remembered beyond the ``KeyboardInterrupt``.

The signal handler raises ``KeyboardInterrupt`` in the main thread, but Python drops an exception
raised inside a destructor (``__del__``, e.g. a Z3 solver's being freed) with only "Exception
ignored": the run would carry on and finish as if nothing had happened. So the handler also marks
the run here, and the places that commit a result (``outputs.staged_folder``), that start the next
stage (``outputs.StageProgress``) and the command's exit (``cli.main``) ask again.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_seen = threading.Event()
_ended = threading.Event()  # the command has returned: nothing is left to stop


def mark() -> None:
    """Remember that an interrupt arrived (called by the signal handler)."""
    _seen.set()


def seen() -> bool:
    """True when an interrupt arrived since the command started (``reset``)."""
    return _seen.is_set()


def reset() -> None:
    """Forget earlier interrupts: a command run in-process starts clean."""
    _seen.clear()
    _ended.clear()


def end() -> None:
    """The command has returned: ``raise_if_seen`` raises no more (on the way out, a finalizer
    that asks must not turn the exit code into death by SIGINT)."""
    _ended.set()


def raise_if_seen() -> None:
    """Raise ``KeyboardInterrupt`` when an interrupt arrived but its exception was lost."""
    if _seen.is_set() and not _ended.is_set():
        raise KeyboardInterrupt


@contextmanager
def handled(handler: Callable) -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM call ``handler(signum, frame)``; the handlers
    they had are put back after it. Outside the main thread, where signals do not land,
    nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, before in previous.items():
            signal.signal(signum, before)
