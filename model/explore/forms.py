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
"""The length of each pickled answer or command, before it on its pipe."""

_END = 2**32 - 1
"""The end mark of a level in a claims pipe."""

class WorkerFailed(RuntimeError):
    """A form worker died without answering (killed, out of memory)."""


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
        self.children: dict[int, int] = {}  # the read end of a worker's answers -> its pid
        self.pids: list[int] = []
        self.commands: list[int] = []  # the write end of each worker's commands
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
        command = _frame((self.synced, [(form, table.state_findings.get(n)) for n, form in
                                        enumerate(table.forms[self.synced:], start=self.synced)], chunks, foreign))
        for write in self.commands:
            _write_all(write, command)
        self.synced = len(table.forms)
        answered = _collect(table, len(chunks), self.children)
        workers = {pid: index for index, pid in enumerate(self.pids)}
        for number, pid in answered.items():
            for form in chunks[number]:
                self.homes.setdefault(server_key(table.forms[form]), workers[pid])
        table.seconds += time.perf_counter() - started

    def _start(self) -> None:
        self.claims = [Claims() for _ in range(self.workers)]
        for me in range(self.workers):
            read, write = os.pipe()
            widen(write)
            order, command = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                for fd in [read, command] + self.commands:  # another worker's commands are not its own
                    os.close(fd)
                _serve(self.table, order, [self.claims[(me + k) % self.workers].read for k in range(self.workers)], write)
            os.close(write)
            os.close(order)
            self.children[read] = pid
            self.pids.append(pid)
            self.commands.append(command)
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
        """Stop the workers (they are waiting for a command, or killed if busy) and reap them."""
        for write in self.commands:
            os.close(write)  # a waiting worker reads the end and leaves
        for read, pid in self.children.items():
            stop_worker(pid)
            os.close(read)
        for claims in self.claims:
            claims.close()
        self.children, self.pids, self.commands, self.claims = {}, [], [], []


def _frame(message) -> bytes:
    """``message`` pickled, after its length (``_LENGTH``): one command or answer on a pipe."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _LENGTH.pack(len(data)) + data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exactly(fd: int, count: int) -> bytes | None:
    """``count`` bytes from ``fd``; None at its end."""
    parts, left = [], count
    while left:
        part = os.read(fd, min(left, 1 << 20))
        if not part:
            return None
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _collect(table, count: int, children: dict[int, int]) -> dict[int, int]:
    """Read the workers' answers as they come and take them in chunk order; return which
    worker (pid) answered each chunk."""
    base = len(table.forms)
    known: dict[int, list] = {}  # worker pid -> its new forms, from ``base`` on
    findings: dict[int, dict[int, list]] = {}
    waiting: dict[int, tuple] = {}  # chunk number -> its answer, until its turn
    answered: dict[int, int] = {}
    frames = {read: bytearray() for read in children}
    next_chunk, done = 0, 0
    while next_chunk < count or done < len(children):  # every chunk answered, every worker done
        if next_chunk in waiting:
            _translate(table, base, known, findings, waiting.pop(next_chunk))
            next_chunk += 1
            continue
        for read in select.select(list(frames), [], [])[0]:
            data = os.read(read, 1 << 20)
            if not data:  # a worker keeps its pipe open until told to leave: this one died
                raise WorkerFailed(f"form worker {children[read]} died without answering chunk "
                                   f"{next_chunk} (killed, or out of memory?)")
            for number, answer in _answers(frames[read], data):
                if number is None:
                    done += 1
                    continue
                pid, start, met, _, _ = answer
                _note_met(base, known.setdefault(pid, []), findings.setdefault(pid, {}), start, met)
                waiting[number] = answer
                answered[number] = pid
    return answered


def _answers(buffer: bytearray, data: bytes) -> list[tuple]:
    """The whole answers in ``buffer`` once ``data`` is added (what is left of an answer
    stays), ``(None, None)`` for a worker's word that its level is done; raises the error
    a worker sent."""
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
        answers.append((None, None) if kind == "done" else answer)
    return answers


def _serve(table, commands: int, claims: list[int], write: int) -> None:
    """In a forked worker: for each command (the forms numbered since the last one, a
    level's chunks, ``foreign``), claim chunks from ``claims`` in turn (its own first), up
    to an end mark in each, and answer each; leave at the end of the commands, without
    running the parent's clean-ups. An error is sent as the answer, for the parent to raise."""
    code = 1
    try:
        quiet_worker()
        with os.fdopen(write, "wb") as stream:
            while (head := _read_exactly(commands, _LENGTH.size)) is not None:
                synced, met, chunks, foreign = pickle.loads(_read_exactly(commands, _LENGTH.unpack(head)[0]))
                table.truncate(synced)
                for form, checked in met:
                    table.intern_checked(form, checked)
                sent = len(table.forms)
                for pipe in claims:
                    while (number := Claims.take(pipe)) != _END:
                        try:
                            answer = ("answer", (number, _expand_chunk(table, chunks[number], foreign, sent)))
                        except Exception as error:  # noqa: BLE001 - the parent raises it
                            answer = ("error", error)
                        sent = len(table.forms)
                        stream.write(_frame(answer))
                        stream.flush()
                        if answer[0] == "error":
                            return
                stream.write(_frame(("done", None)))  # it read its end mark in every pipe:
                stream.flush()  # the next level's claims may come
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
