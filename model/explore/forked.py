"""One breadth-first level worked out on several cores: forked workers, results in order.

``expand_level(frontier, expand, workers, enough)`` forks ``workers`` processes
(copy-on-write: each sees the caller's whole memory as it is now, the frontier
included, so nothing is sent to them). Worker ``w`` expands the nodes ``w``,
``w + workers``, ``w + 2 * workers`` ... of the frontier, in order, with
``expand(key, node)``, and sends back each node's result (pickled, through a
pipe). The caller then replays the results in frontier order, exactly as if it
had expanded the nodes itself.

A walk that stops at its first findings need not wait for a worker that is still
busy with later nodes: ``enough(result)``, called by a worker on each of its
results in order, says when its own results make every later node of the level
unneeded; the worker then publishes that node's index in a word of shared memory,
and every worker stops before any node past it. Likewise ``failed(result)``
publishes the first failing node, and ``expand`` is told when its node comes
after one (``late``): a walk that finishes such a level keeps no successor there.

Used by the design explorer (``explore_server``) for the levels big enough to
pay for two forks (a few milliseconds). A worker that fails or dies makes
``expand_level`` return ``None``: the caller expands the level itself and meets
the same error where it happens.
"""

from __future__ import annotations

import mmap
import os
import pickle
import signal
import struct
from typing import Callable

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
    children: list[tuple[int, int]] = []
    try:
        for worker in range(workers):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                os.close(read)
                _work(frontier, expand, enough, failed, worker, workers, shared, write)
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


def _work(frontier, expand, enough, failed, worker: int, workers: int, shared: mmap.mmap, write: int) -> None:
    """In a forked worker: expand this worker's nodes until the level needs no more, send
    the results, and leave without running the parent's clean-ups."""
    code = 1
    try:
        quiet_worker()
        results = {}
        for index in range(worker, len(frontier), workers):
            if index > _read(shared, _STOP):
                break
            key, node = frontier[index]
            result = results[index] = expand(key, node, index > _read(shared, _FAILED))
            if failed(result):
                _lower(shared, _FAILED, index)
            if enough(result):
                _lower(shared, _STOP, index)
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
