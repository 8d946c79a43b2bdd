"""Expanding session forms on several cores: what the fast explorer spends most of its time on.

At the default bound the state search is a few per cent of a run; the rest is
``SessionTable.expand`` (``spec.transitions.step`` and the checks on every
action of every session form). ``FormWorkers(table, workers).expand_level(forms)``
expands one breadth-first level of forms, in this process or on workers forked at
the first big level and kept for the whole expansion (``FormWorkers``: each keeps the
server steps it worked out). A worker starts from a copy of the parent's table (the
fork copies it), and before each level takes the forms the parent numbered since,
so every form known keeps its id and its ``check_state`` findings there. The level
is cut into chunks of ``CHUNK`` forms whose numbers wait in claims pipes, four bytes
per claim (a worker that meets slow forms is not waited for while the other one
idles); a worker answers each chunk, as soon as it is done, through its own pipe:
the chunk's number, the expansions, and the forms it met for the first time (with
their findings) numbered after the parent's. The parent reads whichever answer comes
and takes them in chunk order, so it numbers the new forms in the order a serial
expansion would: form ids (and so traces) do not depend on the number of workers.

The workers are a ``harness.workers.WorkerGroup`` (fork): an interrupted parent
kills them (SIGKILL) and reaps them; no lock is shared. Not ``forked.expand_level``
(the design explorer's): that one sends a worker's results once, when it is done.
"""

from __future__ import annotations

import os
import time

from mcp_resume.model.explore.canonical import server_key
from mcp_resume.model.harness.workers import Claims, WorkerFailed, WorkerGroup

__all__ = ["CHUNK", "MIN_PARALLEL", "FormWorkers", "WorkerFailed"]  # internal to ``fast``

CHUNK = 48
"""Forms per chunk a worker answers at once (more when a level has more chunks than
its pipe of claims holds)."""

MIN_PARALLEL = 2 * CHUNK
"""A level with fewer unexpanded forms is expanded in this process."""

_END = 2**32 - 1
"""The end mark of a level in a claims pipe."""

class FormWorkers:
    """Form workers forked once for a whole breadth-first expansion (at its first level of
    ``MIN_PARALLEL`` forms or more), each keeping its copy of the table from level to
    level, and with it the server steps it worked out (``SessionTable.server_steps``: a
    form whose server's side a worker has met is not stepped again there).

    Each level, every worker is sent the forms the parent numbered since the last level
    (it drops the ones it numbered itself, so ids agree), and the level's chunks; a
    chunk's number waits in the claims pipe of the worker that met its server's sides
    before (its *home*; a chunk of new ones goes to the worker with less work so far),
    followed by one end mark per worker. A worker claims from its own pipe first, then
    takes what is left in the others' (a worker that is done early does not idle), up to
    an end mark in each, then says it is done: the parent writes the next level's claims
    only then (else a worker still reading this level's end marks could take one of them).
    Use as a context manager: leaving it stops the workers.
    """

    def __init__(self, table, workers: int) -> None:
        self.table, self.workers = table, workers
        self.group: WorkerGroup | None = None
        self.pids: list[int] = []
        self.claims: list[Claims] = []  # each worker's claims pipe
        self.homes: dict[tuple, int] = {}  # a server's side -> the worker that stepped it
        self.synced = 0  # the forms every worker numbers as the parent does

    def __enter__(self) -> "FormWorkers":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def expand_level(self, forms: list[int], foreign: bool = True) -> None:
        """Expand every form of ``forms`` not expanded yet, on the workers when there are
        at least ``MIN_PARALLEL`` of them (else here). An error a worker meets is raised
        here; ``WorkerFailed`` when one died."""
        table = self.table
        todo = sorted((form for form in forms if table.expansions[form] is None),
                      key=lambda form: server_key(table.forms[form]))
        if self.workers <= 1 or len(todo) < MIN_PARALLEL:
            for form in todo:
                table.expand(form, foreign)
            return
        started = time.perf_counter()
        if not self.pids:
            self._start()
        chunks = self.claims[0].cut(todo, CHUNK, reserve=self.workers)  # a pipe may get every chunk
        self._claim(chunks)
        self.group.send_all((self.synced, [(form, table.state_findings.get(n)) for n, form in
                                           enumerate(table.forms[self.synced:], start=self.synced)], chunks, foreign))
        self.synced = len(table.forms)
        answered = _collect(table, len(chunks), self.group)
        workers = {pid: index for index, pid in enumerate(self.pids)}
        for number, pid in answered.items():
            for form in chunks[number]:
                self.homes.setdefault(server_key(table.forms[form]), workers[pid])
        table.seconds += time.perf_counter() - started

    def _start(self) -> None:
        self.claims = [Claims() for _ in range(self.workers)]  # before the fork: the workers share them
        self.group = WorkerGroup(self.workers, _serve, (self.table, [claims.read for claims in self.claims]))
        self.group.start()
        self.pids = list(self.group.pids)
        self.synced = len(self.table.forms)

    def _claim(self, chunks: list[list[int]]) -> None:
        """Put each chunk's number in its home worker's claims pipe, then the end marks."""
        table, load = self.table, [0] * self.workers
        mine: list[list[int]] = [[] for _ in range(self.workers)]
        for number, chunk in enumerate(chunks):
            home = self.homes.get(server_key(table.forms[chunk[0]]))
            if home is None:
                home = load.index(min(load))
            mine[home].append(number)
            load[home] += len(chunk)
        for claims, numbers in zip(self.claims, mine):
            claims.put(numbers + [_END] * self.workers)

    def close(self) -> None:
        """Stop the workers (``WorkerGroup.close``: killed and reaped, busy or not)."""
        if self.group is not None:
            self.group.close()
        for claims in self.claims:
            claims.close()
        self.group, self.pids, self.claims = None, [], []


def _collect(table, count: int, group: WorkerGroup) -> dict[int, int]:
    """Read the workers' answers as they come and take them in chunk order; return which
    worker (pid) answered each chunk."""
    base = len(table.forms)
    known: dict[int, list] = {}  # worker pid -> its new forms, from ``base`` on
    findings: dict[int, dict[int, list]] = {}
    waiting: dict[int, tuple] = {}  # chunk number -> its answer, until its turn
    answered: dict[int, int] = {}
    next_chunk, done = 0, 0
    while next_chunk < count or done < group.count:  # every chunk answered, every worker done
        if next_chunk in waiting:
            _translate(table, base, known, findings, waiting.pop(next_chunk))
            next_chunk += 1
            continue
        number, answer = _answer(group.receive()[1])
        if number is None:
            done += 1
            continue
        pid, start, met, _, _ = answer
        _note_met(base, known.setdefault(pid, []), findings.setdefault(pid, {}), start, met)
        waiting[number] = answer
        answered[number] = pid
    return answered


def _answer(message: tuple) -> tuple:
    """``(chunk number, answer)`` from a worker's message; ``(None, None)`` for its word that
    its level is done."""
    return (None, None) if message is None else message


def _serve(channel, me: int, table, claims: list[int]) -> None:
    """In a forked worker: for each command (the forms numbered since the last one, a
    level's chunks, ``foreign``), claim chunks from ``claims`` in turn (its own first), up
    to an end mark in each, and answer each; leave at the end of the commands. An error
    goes to the parent (``WorkerGroup``), which raises it."""
    claims = claims[me:] + claims[:me]
    while (command := channel.receive()) is not None:
        synced, met, chunks, foreign = command
        table.truncate(synced)
        for form, checked in met:
            table.intern_checked(form, checked)
        sent = len(table.forms)
        for pipe in claims:
            while (number := Claims.take(pipe)) != _END:
                channel.send((number, _expand_chunk(table, chunks[number], foreign, sent)))
                sent = len(table.forms)
        channel.send(None)  # it read its end mark in every pipe: the next level's claims may come


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
