"""Expanding session forms on several cores: what the fast explorer spends most of its time on.

At the default bound the state search is a few per cent of a run; the rest is
``SessionTable.expand`` (``spec.transitions.step`` and the checks on every
action of every session form). ``expand_level(table, forms, workers)`` expands
one breadth-first level of forms, in this process or on workers forked for that
level. A worker starts from a copy of the parent's table as it is when the level
starts (the fork copies it; nothing is sent), so every form known so far keeps
its id and its ``check_state`` findings there. The level is cut into chunks of
``CHUNK`` forms; a worker that is free claims the next chunk (the chunk numbers
wait in a pipe that every worker reads, four bytes per claim: a worker that meets
slow forms is not waited for while the other one idles), and answers each chunk,
as soon as it is done, through its own pipe: the chunk's number, the expansions,
and the forms it met for the first time (with their findings) numbered after the
parent's. The parent reads whichever answer comes and takes them in chunk order,
so it numbers the new forms in the order a serial expansion would: form ids (and
so traces) do not depend on the number of workers.

Not a ``multiprocessing`` pool: a pool's ``terminate`` can wait forever for a
queue lock that a worker killed by the same Ctrl-C or SIGTERM held. Here an
interrupted parent kills its workers (SIGKILL) and reaps them; no lock is shared.
Not ``forked.expand_level`` either (the design explorer's): it sends a worker's
results once, when the worker is done.
"""

from __future__ import annotations

import os
import pickle
import select
import struct
import time

from mcp_resume.model.explore.canonical import server_key
from mcp_resume.model.explore.forked import Claims, quiet_worker, stop_worker, widen

CHUNK = 48
"""Forms per chunk a worker answers at once (more when a level has more chunks than
its pipe of claims holds)."""

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
    todo = sorted((form for form in forms if table.expansions[form] is None), key=lambda form: server_key(table.forms[form]))
    if workers <= 1 or len(todo) < MIN_PARALLEL:
        for form in todo:
            table.expand(form, foreign)
        return
    started = time.perf_counter()
    claims = Claims()
    chunks = claims.share(todo, CHUNK)
    children: dict[int, int] = {}  # the read end of a worker's pipe -> its pid
    try:
        for _ in range(min(workers, len(chunks))):
            read, write = os.pipe()
            widen(write)
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                os.close(read)
                _work(table, chunks, claims.read, foreign, write)
            os.close(write)
            children[read] = pid
        claims.close()
        _collect(table, len(chunks), children)
    finally:
        claims.close()
        for read, pid in children.items():  # interrupted or failed: stop the workers still running
            stop_worker(pid)
            os.close(read)
    table.seconds += time.perf_counter() - started


def _collect(table, count: int, children: dict[int, int]) -> None:
    """Read the workers' answers as they come and take them in chunk order; the workers
    are reaped and ``children`` emptied when every chunk is answered."""
    base = len(table.forms)
    known: dict[int, list] = {}  # worker pid -> its new forms, from ``base`` on
    findings: dict[int, dict[int, list]] = {}
    waiting: dict[int, tuple] = {}  # chunk number -> its answer, until its turn
    frames = {read: bytearray() for read in children}
    next_chunk = 0
    while next_chunk < count:
        if next_chunk in waiting:
            _translate(table, base, known, findings, waiting.pop(next_chunk))
            next_chunk += 1
            continue
        if not frames:
            raise WorkerFailed(f"form workers {sorted(children.values())} died without answering chunk "
                               f"{next_chunk} (killed, or out of memory?)")
        for read in select.select(list(frames), [], [])[0]:
            data = os.read(read, 1 << 20)
            if not data:
                del frames[read]
                continue
            for number, answer in _answers(frames[read], data):
                pid, start, met, _, _ = answer
                _note_met(base, known.setdefault(pid, []), findings.setdefault(pid, {}), start, met)
                waiting[number] = answer
    for read, pid in list(children.items()):
        os.close(read)
        os.waitpid(pid, 0)
        del children[read]


def _answers(buffer: bytearray, data: bytes) -> list[tuple]:
    """The whole answers in ``buffer`` once ``data`` is added (what is left of an answer
    stays); raises the error a worker sent."""
    buffer += data
    answers = []
    while len(buffer) >= _LENGTH.size:
        length = _LENGTH.unpack_from(buffer)[0]
        if len(buffer) < _LENGTH.size + length:
            break
        kind, answer = pickle.loads(bytes(buffer[_LENGTH.size:_LENGTH.size + length]))
        del buffer[:_LENGTH.size + length]
        if kind == "error":
            raise answer
        answers.append(answer)
    return answers


def _work(table, chunks: list[list[int]], claims: int, foreign: bool, write: int) -> None:
    """In a forked worker: claim chunks and answer each, until none is left, then leave
    without running the parent's clean-ups. An error is sent as the answer, for the
    parent to raise."""
    code = 1
    try:
        quiet_worker()
        with os.fdopen(write, "wb") as stream:
            sent = len(table.forms)
            while (number := Claims.take(claims)) is not None:
                try:
                    answer = ("answer", (number, _expand_chunk(table, chunks[number], foreign, sent)))
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
    its last answer begin), those forms (with findings), the expansions, and its steps
    (judged, and stepped with ``step``)."""
    steps, stepped = table.steps, table.stepped
    expansions = []
    for number in forms:
        expansion = table.expand(number, foreign)
        expansions.append((number, expansion.moves, expansion.counts, expansion.pruned, expansion.findings,
                           expansion.forget, expansion.forget_findings))
    met = [(table.forms[n], table.state_findings.get(n)) for n in range(start, len(table.forms))]
    return os.getpid(), start, met, expansions, (table.steps - steps, table.stepped - stepped)


def _note_met(base: int, mine: list, found: dict, start: int, met: list) -> None:
    """Record the forms a worker met first (in its order: its answers come in order on its pipe)."""
    assert base + len(mine) == start, "a worker's answers arrived out of order"
    for offset, (form, checked) in enumerate(met):
        mine.append(form)
        if checked:
            found[start + offset] = checked


def _translate(table, base: int, known: dict, findings: dict, answer: tuple) -> None:
    """Put a chunk's expansions into ``table``, the worker's new forms numbered as ours
    (interned in the order a serial expansion meets them)."""
    from mcp_resume.model.explore.fast import Expansion

    pid, _, _, expansions, (steps, stepped) = answer
    mine, found = known[pid], findings[pid]
    table.steps += steps
    table.stepped += stepped

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
