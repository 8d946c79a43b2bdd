"""Worker processes: the one module that starts them (programs are ``model.targets.process``'s).

Every parallel user goes through ``WorkerGroup``: ``count`` workers, each running
``serve(channel, index, *args)`` and talking to the parent over its own two pipes in
pickled, length-framed messages (``Channel``). The parent ``send``s a worker a message
and ``receive``s whichever worker's message comes first. Two ways to start them:

- ``"fork"`` (the explorers: ``forked`` levels, ``forms`` workers, ``search``'s split
  walk): ``os.fork``, so a worker sees the caller's memory as it is now, copy-on-write
  (a frontier, a table of forms: nothing large is sent). Safe there because the
  explorers fork before any thread of theirs runs; pipes the caller made before
  ``start`` are inherited (``Claims``).
- ``"spawn"`` (``check``'s stages, the kill matrix: ``finished_tasks``): a fresh
  interpreter (``multiprocessing``'s spawn start). Those parents may run threads
  (rich's progress, an HTTP server under ``verify``), and a fork copies a lock some
  other thread holds, never to be released. ``serve`` and its arguments must then
  pickle (module-level functions).

One clean-up path: leaving the group's ``with`` block, normally, by an error, by
Ctrl-C or by SIGTERM (``KeyboardInterrupt`` here), kills every worker still running
with SIGKILL and reaps it. No lock, queue or semaphore is shared between processes,
so nothing can wait for ever on a lock a killed worker held, and nothing is left for a
resource tracker to warn about. A worker ignores Ctrl-C (the parent's business) and
dies of SIGTERM; an error in ``serve`` is sent to the parent, whose ``receive`` raises
it; a worker that dies without a word is ``WorkerFailed``.
"""

from __future__ import annotations

import fcntl
import multiprocessing
import os
import pickle
import signal
import struct
from contextlib import contextmanager
from multiprocessing.connection import Connection, wait
from typing import Callable, Iterator, Sequence

START_METHODS = ("fork", "spawn")

MAX_WORKERS = 4
"""The most processes a run takes unasked (the explorers and the kill matrix): more than the
cores only slows it, and four already saturate a laptop."""


def default_workers() -> int:
    """Processes a run uses unless ``--workers`` says: the cores, at most ``MAX_WORKERS``."""
    return min(MAX_WORKERS, os.cpu_count() or 1)


class WorkerFailed(RuntimeError):
    """A worker process died without answering (killed, out of memory)."""


class _Failure:
    """What a worker sends instead of an answer when ``serve`` raised: the error."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


class _Finished:
    """What a worker sends last when ``serve`` returned: its pipe's end is no death."""


class Channel:
    """A worker's end of its two pipes: ``receive()`` the parent's next message (``None``
    once the parent closed its end or sent ``None``), ``send(message)`` an answer."""

    def __init__(self, commands: Connection, answers: Connection) -> None:
        self.commands, self.answers = commands, answers

    def receive(self):
        try:
            return self.commands.recv()
        except EOFError:
            return None

    def send(self, message) -> None:
        self.answers.send(message)


class WorkerGroup:
    """``count`` worker processes running ``serve(channel, index, *args)``; see the module
    docstring. Use as a context manager; ``start()`` starts them (``__enter__`` does)."""

    def __init__(self, count: int, serve: Callable, args: tuple = (), start: str = "fork") -> None:
        if start not in START_METHODS:
            raise ValueError(f"start must be one of {START_METHODS}, not {start!r}")
        self.count, self.serve, self.args, self.method = count, serve, args, start
        self.pids: list[int] = []
        self._processes: dict = {}  # the spawn start's Process objects, by worker index
        self._commands: list[Connection] = []  # the parent's writing end, per worker
        self._answers: list[Connection] = []  # the parent's reading end, per worker
        self._index: dict[Connection, int] = {}

    def __enter__(self) -> "WorkerGroup":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> None:
        """Start every worker (once)."""
        if self.pids:
            return
        try:
            for index in range(self.count):
                self._start_one(index)
        except BaseException:
            self.close()
            raise

    def _start_one(self, index: int) -> None:
        command_read, command_write = multiprocessing.Pipe(duplex=False)
        answer_read, answer_write = multiprocessing.Pipe(duplex=False)
        widen(answer_write.fileno())
        self._commands.append(command_write)  # known at once: ``close`` closes them whatever happens
        self._answers.append(answer_read)
        if self.method == "fork":
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                for end in self._commands + self._answers:
                    end.close()  # the parent's ends: a worker that holds none sees the parent leave
                _run_forked(self.serve, Channel(command_read, answer_write), index, self.args)
            self.pids.append(pid)
        else:
            process = multiprocessing.get_context("spawn").Process(
                target=_run_spawned, args=(self.serve, command_read, answer_write, index, self.args), daemon=True)
            process.start()
            self._processes[index] = process
            self.pids.append(process.pid)
        command_read.close()
        answer_write.close()
        self._index[answer_read] = index

    def send(self, index: int, message) -> None:
        """Send worker ``index`` a message (pickled); ``None`` tells it to leave."""
        self._commands[index].send(message)

    def send_all(self, message) -> None:
        """Send every worker the same message (pickled once)."""
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        for commands in self._commands:
            commands.send_bytes(data)

    def receive(self, timeout: float | None = None) -> tuple[int, object] | None:
        """``(index, message)`` from whichever worker answers first (``None`` after ``timeout``
        seconds without one). Raises the error a worker's ``serve`` raised, ``WorkerFailed``
        when a worker died without answering."""
        while True:
            waiting = [answers for answers in self._answers if answers in self._index]
            if not waiting:
                raise WorkerFailed("every worker has finished: there is no answer to wait for")
            ready = wait(waiting, timeout)
            if not ready:
                return None
            connection = ready[0]
            index = self._index[connection]
            try:
                message = connection.recv()
            except (EOFError, OSError):
                raise WorkerFailed(f"worker {self.pids[index]} died without answering "
                                   "(killed, or out of memory?)") from None
            if isinstance(message, _Failure):
                raise message.error
            if not isinstance(message, _Finished):
                return index, message
            del self._index[connection]  # it said all it had to say

    def close(self) -> None:
        """Kill every worker still running (SIGKILL) and reap it; close the pipes. Idempotent."""
        forked = [pid for index, pid in enumerate(self.pids) if index not in self._processes]
        for pid in forked:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for process in self._processes.values():
            process.kill()  # multiprocessing's own, so that it reaps and forgets the process
        for pid in forked:
            _reap(pid)
        for process in self._processes.values():
            process.join()
        for end in self._commands + self._answers:
            end.close()
        self.pids, self._processes, self._commands, self._answers, self._index = [], {}, [], [], {}


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def quiet_worker() -> None:
    """In a worker: Ctrl-C is the parent's business (it kills the workers); SIGTERM kills."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _serve(serve: Callable, channel: Channel, index: int, args: tuple) -> int:
    """Run ``serve`` in a worker; an error goes to the parent. The worker's exit code."""
    try:
        serve(channel, index, *args)
        channel.send(_Finished())
        return 0
    except BaseException as error:  # noqa: BLE001 - the parent raises it
        try:
            channel.send(_Failure(error))
        except Exception:  # noqa: BLE001 - an error that does not pickle
            try:
                channel.send(_Failure(RuntimeError(repr(error))))
            except Exception:  # noqa: BLE001 - the parent is gone: nobody to tell
                pass
        return 1


def _run_forked(serve: Callable, channel: Channel, index: int, args: tuple) -> None:
    """A forked worker: serve, then leave without running the parent's clean-ups."""
    code = 1
    try:
        quiet_worker()
        code = _serve(serve, channel, index, args)
    finally:
        os._exit(code)


def _run_spawned(serve: Callable, commands: Connection, answers: Connection, index: int, args: tuple) -> None:
    quiet_worker()
    raise SystemExit(_serve(serve, Channel(commands, answers), index, args))


# -- independent tasks, results as they finish ----------------------------------------------


@contextmanager
def finished_tasks(function: Callable, tasks: Sequence[tuple], workers: int,
                   start: str = "spawn") -> Iterator[Iterator[tuple[int, object]]]:
    """``function(*task)`` for every task of ``tasks`` on ``min(workers, len(tasks))`` workers;
    yields an iterator of ``(index in tasks, result)`` in the order they finish. A free worker
    takes the next task in ``tasks`` order. Leaving the block ends every worker (the one
    clean-up path of ``WorkerGroup``), finished or not; an error of a task is raised here."""
    count = max(1, min(workers, len(tasks)))
    with WorkerGroup(count, _serve_tasks, (function,), start=start) as group:
        yield _results(group, tasks)


def _results(group: WorkerGroup, tasks: Sequence[tuple]) -> Iterator[tuple[int, object]]:
    pending = iter(enumerate(tasks))
    busy = 0
    for worker in range(group.count):
        task = next(pending, None)
        if task is not None:
            group.send(worker, task)
            busy += 1
    while busy:
        worker, answer = group.receive()
        busy -= 1
        task = next(pending, None)
        if task is not None:
            group.send(worker, task)
            busy += 1
        yield answer


def _serve_tasks(channel: Channel, index: int, function: Callable) -> None:
    while (task := channel.receive()) is not None:
        number, args = task
        channel.send((number, function(*args)))


# -- pipes the explorers' forked workers share -----------------------------------------------


class Claims:
    """The numbers ``0 .. n-1`` of a level's runs of work, in a pipe written before the
    workers are forked; each worker reads the next one when it is free (``take``, four
    bytes: a read that small is atomic, so no lock, and a killed worker holds nothing)."""

    SIZE = 4

    def __init__(self) -> None:
        self.read, self._write = os.pipe()
        widen(self._write)
        self.capacity = _capacity(self._write)

    def share(self, items: Sequence, least: int) -> list[Sequence]:
        """Cut ``items`` into runs (``cut``), write the runs' numbers, in order, and close
        the pipe's writing end; return the runs (slices of ``items``)."""
        runs = self.cut(items, least)
        self.put(range(len(runs)))
        os.close(self._write)
        self._write = -1
        return runs

    def cut(self, items: Sequence, least: int, reserve: int = 0) -> list[Sequence]:
        """``items`` in runs of consecutive items, ``least`` or more each (more when the pipe
        could not hold a number per run, besides ``reserve`` other numbers)."""
        size = max(least, -(-len(items) // (self.capacity // self.SIZE - reserve)))
        return [items[start:start + size] for start in range(0, len(items), size)]

    def put(self, numbers) -> None:
        """Write ``numbers`` for the workers to take (the pipe holds them all: ``cut``)."""
        os.write(self._write, b"".join(_CLAIM.pack(number) for number in numbers))

    @staticmethod
    def take(read: int) -> int | None:
        """In a worker: the next number from the pipe ``read``; ``None`` once all are taken."""
        claim = os.read(read, Claims.SIZE)
        return _CLAIM.unpack(claim)[0] if claim else None

    def close(self) -> None:
        for fd in (self.read, self._write):
            if fd >= 0:
                os.close(fd)
        self.read = self._write = -1


_CLAIM = struct.Struct("<I")
"""A number in the pipe of claims."""

PIPE_BYTES = 1 << 20
"""A pipe widened by ``widen``: room for a quarter million claims, or for several dozen
answers of the spec explorer's form workers (a chunk's is about 15 kB)."""


def widen(pipe: int) -> None:
    """Let a pipe hold ``PIPE_BYTES`` (Linux), so a worker ahead of the parent's reading
    goes on working instead of waiting to write; elsewhere, or refused, keep the default."""
    try:
        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (AttributeError, OSError):
        pass


def _capacity(pipe: int) -> int:
    """How many bytes ``pipe`` holds (Linux ``F_GETPIPE_SZ``; elsewhere POSIX's least, 4,096)."""
    try:
        return fcntl.fcntl(pipe, fcntl.F_GETPIPE_SZ)
    except (AttributeError, OSError):
        return 4096
