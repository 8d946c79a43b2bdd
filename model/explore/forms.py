"""Expanding session forms on several cores: what the fast explorer spends most of its time on.

At the default bound the state search is a few per cent of a run; the rest is
``SessionTable.expand`` (``spec.transitions.step`` and the checks on every
action of every session form). ``expand_level(table, forms, workers)`` expands
one breadth-first level of forms, in this process or on workers forked for that
level. A worker starts from a copy of the parent's table as it is when the level
starts (the fork copies it; nothing is sent), so every form known so far keeps
its id and its ``check_state`` findings there. The level is cut into chunks of
``CHUNK`` forms, dealt out in turn (worker ``w`` of ``n`` takes chunks ``w``,
``w + n``, ...); a worker answers each chunk, as soon as it is done, through its
own pipe: the expansions, and the forms it met for the first time (with their
findings) numbered after the parent's. The parent reads the answers in chunk
order, so it numbers the new forms of one chunk while the workers expand the
next, in the order a serial expansion would: form ids (and so traces) do not
depend on the number of workers.

Not a ``multiprocessing`` pool: a pool's ``terminate`` can wait forever for a
queue lock that a worker killed by the same Ctrl-C or SIGTERM held. Here an
interrupted parent kills its workers (SIGKILL) and reaps them; no lock is shared.
Not ``forked.expand_level`` either (the design explorer's): it sends a worker's
results once, when the worker is done.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import struct
import time

from mcp_resume.model.explore.forked import quiet_worker, stop_worker

CHUNK = 48
"""Forms per chunk a worker answers at once."""

MIN_PARALLEL = 2 * CHUNK
"""A level with fewer unexpanded forms is expanded in this process."""

_LENGTH = struct.Struct("<Q")
"""The length of each pickled answer, before it on the pipe."""


class WorkerFailed(RuntimeError):
    """A form worker died without answering (killed, out of memory)."""


def expand_level(table, forms: list[int], workers: int = 1, foreign: bool = True) -> None:
    """Expand every form of ``forms`` (ids of ``table``) not expanded yet (``foreign`` as
    ``SessionTable.expand``), on ``workers`` processes (at most one per chunk) forked for
    this level when there are at least ``MIN_PARALLEL`` of them. An error a worker meets
    is raised here; ``WorkerFailed`` when one died."""
    todo = [form for form in forms if table.expansions[form] is None]
    if workers <= 1 or len(todo) < MIN_PARALLEL:
        for form in todo:
            table.expand(form, foreign)
        return
    started = time.perf_counter()
    chunks = [todo[i:i + CHUNK] for i in range(0, len(todo), CHUNK)]
    count = min(workers, len(chunks))
    base = len(table.forms)
    children: list[tuple[int, object]] = []  # (pid, the read end of its pipe)
    try:
        for worker in range(count):
            read, write = os.pipe()
            _widen(write)
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                os.close(read)
                _work(table, chunks[worker::count], foreign, write)
            os.close(write)
            children.append((pid, os.fdopen(read, "rb")))
        known: dict[int, list] = {}  # worker pid -> its new forms, from ``base`` on
        findings: dict[int, dict[int, list]] = {}
        for index in range(len(chunks)):
            pid, stream = children[index % count]
            _translate(table, base, known, findings, _receive(pid, stream))
        for pid, stream in children:
            stream.close()
            os.waitpid(pid, 0)
        children = []
    finally:
        for pid, stream in children:  # interrupted or failed: stop the workers still running
            stop_worker(pid)
            stream.close()
    table.seconds += time.perf_counter() - started


def _work(table, chunks: list[list[int]], foreign: bool, write: int) -> None:
    """In a forked worker: answer ``chunks`` in order, then leave without running the
    parent's clean-ups. An error is sent as the answer, for the parent to raise."""
    code = 1
    try:
        quiet_worker()
        with os.fdopen(write, "wb") as stream:
            sent = len(table.forms)
            for chunk in chunks:
                try:
                    answer = ("answer", _expand_chunk(table, chunk, foreign, sent))
                except Exception as error:  # noqa: BLE001 - the parent raises it
                    answer = ("error", error)
                sent = len(table.forms)
                data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
                stream.write(_LENGTH.pack(len(data)) + data)
                stream.flush()
                if answer[0] == "error":
                    break
        code = 0
    finally:
        os._exit(code)


def _expand_chunk(table, forms: list[int], foreign: bool, start: int) -> tuple:
    """Expand ``forms``; return this process's pid, ``start`` (where its forms new since
    its last answer begin), those forms (with findings), the expansions, and its steps."""
    steps = table.steps
    expansions = []
    for number in forms:
        expansion = table.expand(number, foreign)
        expansions.append((number, expansion.moves, expansion.counts, expansion.pruned, expansion.findings,
                           expansion.forget, expansion.forget_findings))
    met = [(table.forms[n], table.state_findings.get(n)) for n in range(start, len(table.forms))]
    return os.getpid(), start, met, expansions, table.steps - steps


def _receive(pid: int, stream) -> tuple:
    """The next answer of worker ``pid``; raises the error it sent, or ``WorkerFailed``."""
    head = stream.read(_LENGTH.size)
    data = stream.read(_LENGTH.unpack(head)[0]) if len(head) == _LENGTH.size else b""
    if not data:
        raise WorkerFailed(f"form worker {pid} died without answering (killed, or out of memory?)")
    kind, answer = pickle.loads(data)
    if kind == "error":
        raise answer
    return answer


def _widen(pipe: int) -> None:
    """Let a pipe hold ``PIPE_BYTES`` (Linux), so a worker ahead of the parent's reading
    goes on expanding instead of waiting to write; elsewhere, or refused, keep the default."""
    try:
        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (AttributeError, OSError):
        pass


PIPE_BYTES = 1 << 20
"""A worker's pipe: room for several dozen answers (a chunk's is about 15 kB)."""


def _translate(table, base: int, known: dict, findings: dict, answer: tuple) -> None:
    from mcp_resume.model.explore.fast import Expansion

    pid, start, met, expansions, steps = answer
    mine = known.setdefault(pid, [])
    found = findings.setdefault(pid, {})
    assert base + len(mine) == start, "a worker's answers arrived out of order"
    for offset, (form, checked) in enumerate(met):
        mine.append(form)
        if checked:
            found[start + offset] = checked
    table.steps += steps

    def ours(local: int) -> int:
        if local < base:
            return local  # a form the parent had when the level started: same id
        return table.intern_checked(mine[local - base], found.get(local, ()))

    for number, moves, counts, pruned, failing, forget, forget_findings in expansions:
        translated = [move if move[1] < base else (move[0], ours(move[1])) for move in moves]
        expansion = Expansion(moves=translated, counts=counts, pruned=pruned, findings=failing,
                              forget_findings=forget_findings)
        expansion.successors = tuple(dict.fromkeys(after for _, after in translated))
        expansion.forget = ours(forget)
        table.expansions[number] = expansion
