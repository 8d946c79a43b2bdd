"""One breadth-first level worked out on several cores: forked workers, results in order.

``expand_level(frontier, expand, workers, enough)`` forks ``workers`` processes
(``harness.workers.WorkerGroup``; copy-on-write: each sees the caller's whole memory as it is now, the frontier
included, so nothing is sent to them). The frontier is cut into runs of
consecutive nodes whose numbers wait, in order, in a pipe every worker reads
(``Claims``): a worker that is free claims the next run and expands its nodes in
order with ``expand(key, node)`` (nodes differ in cost: a fixed share would
leave one worker idle while the other finishes), and sends back its nodes'
results (one message on its own pipe) when it is done. The caller then replays
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

import mmap
import struct
from typing import Callable

from mcp_resume.model.harness.workers import Claims, WorkerGroup

__all__ = ["expand_level"]  # internal to ``server``

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
    try:
        with WorkerGroup(workers, _work, (frontier, expand, enough, failed, runs, claims.read, shared)) as group:
            results: dict[int, object] = {}
            for _ in range(workers):
                results.update(group.receive()[1])
            return results
    except Exception:  # noqa: BLE001 - a worker failed or died: the caller expands the level itself
        return None
    finally:
        claims.close()
        shared.close()


def _work(channel, me: int, frontier, expand, enough, failed, runs: list[range], claims: int,
          shared: mmap.mmap) -> None:
    """In a forked worker: claim runs of nodes and expand them until the level needs no
    more, then send the results."""
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
    channel.send(results)


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
