"""One breadth-first level worked out on several cores: forked workers, results in order.

``expand_level(frontier, expand, workers, enough)`` forks ``workers`` processes
(copy-on-write: each sees the caller's whole memory as it is now, the frontier
included, so nothing is sent to them). The frontier is cut into runs of
consecutive nodes whose numbers wait, in order, in a pipe every worker reads
(``Claims``): a worker that is free claims the next run and expands its nodes in
order with ``expand(key, node)`` (nodes differ in cost: a fixed share would
leave one worker idle while the other finishes), and sends back each node's
result (pickled, through its own pipe) when it is done. The caller then replays
the results in frontier order, exactly as if it had expanded the nodes itself.

A walk that stops at its first findings need not wait for a worker that is still
busy with later nodes: ``enough(result)``, called by a worker on each of its
results in order, says when its own results make every later node of the level
unneeded; the worker then publishes that node's index in a word of shared memory,
and every worker stops before any node past it (runs are claimed in frontier
order, so every node before it was claimed by a worker that expands it). Likewise ``failed(result)``
publishes the first failing node, and ``expand`` is told when its node comes
after one (``late``): a walk that finishes such a level keeps no successor there.

Used by the design explorer (``explore_server``) for the levels big enough to
pay for two forks (a few milliseconds). A worker that fails or dies makes
``expand_level`` return ``None``: the caller expands the level itself and meets
the same error where it happens.
"""

from __future__ import annotations

import fcntl
import mmap
import os
import pickle
import signal
import struct
from typing import Callable, Sequence

_NONE = 2**62
"""The shared index before any worker has had enough."""


def expand_level(frontier: list, expand: Callable, workers: int, enough: Callable[[object], bool],
                 failed: Callable[[object], bool] = lambda result: False) -> dict[int, object] | None:
    """The results of ``expand(key, node, late)`` for the nodes of ``frontier`` (``(key,
    node)`` pairs) that a walk in frontier order reaches, by index; ``None`` when a worker
    failed. ``late`` is True for a node after one whose result ``failed`` says failed
    (a walk that stops at the end of such a level keeps no successor after it). No more
    workers are forked than the frontier has nodes."""
    workers = max(1, min(workers, len(frontier)))
    shared = mmap.mmap(-1, 16)
    shared[:] = struct.pack("qq", _NONE, _NONE)
    claims = Claims()
    runs = claims.share(range(len(frontier)), 1)
    children: list[tuple[int, int]] = []
    try:
        for _ in range(workers):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                os.close(read)
                _work(frontier, expand, enough, failed, runs, claims.read, shared, write)
            os.close(write)
            children.append((pid, read))
        results: dict[int, object] = {}
        failed = False
        for pid, read in children:
            with os.fdopen(read, "rb") as stream:
                data = stream.read()
            _, status = os.waitpid(pid, 0)
            if status != 0 or not data:
                failed = True
                continue
            results.update(pickle.loads(data))
        children = []
        return None if failed else results
    finally:
        for pid, read in children:  # interrupted: stop the workers still running
            stop_worker(pid)
        claims.close()
        shared.close()


def stop_worker(pid: int) -> None:
    """Kill a forked worker (SIGKILL) and reap it; one already gone is fine."""
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass


def quiet_worker() -> None:
    """In a forked worker: Ctrl-C and SIGTERM are the parent's business (it stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _work(frontier, expand, enough, failed, runs: list[range], claims: int, shared: mmap.mmap, write: int) -> None:
    """In a forked worker: claim runs of nodes and expand them until the level needs no
    more, send the results, and leave without running the parent's clean-ups."""
    code = 1
    try:
        quiet_worker()
        results = {}
        needed = True
        while needed and (number := Claims.take(claims)) is not None:
            for index in runs[number]:
                if index > _read(shared, _STOP):
                    needed = False  # so is every later node: runs are claimed in order
                    break
                key, node = frontier[index]
                result = results[index] = expand(key, node, index > _read(shared, _FAILED))
                if failed(result):
                    _lower(shared, _FAILED, index)
                if enough(result):
                    _lower(shared, _STOP, index)
                    needed = False
                    break
        data = pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write, "wb") as stream:
            stream.write(data)
        code = 0
    finally:
        os._exit(code)


_STOP, _FAILED = 0, 8
"""Where the shared word of each index is: the first node whose worker had enough, the
first node that failed."""


def _read(shared: mmap.mmap, at: int) -> int:
    return struct.unpack("q", shared[at:at + 8])[0]


def _lower(shared: mmap.mmap, at: int, index: int) -> None:
    """Publish ``index`` unless a lower one is there already (two workers may race here;
    each publishes only an index whose results it holds, so either value is safe: the
    walk, in frontier order, meets that node or an earlier one first)."""
    if index < _read(shared, at):
        shared[at:at + 8] = struct.pack("q", index)


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
