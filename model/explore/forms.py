"""Expanding session forms on several cores: what the fast explorer spends most of its time on.

At the default bound the state search is a few per cent of a run; the rest is
``SessionTable.expand`` (``spec.transitions.step`` and the checks on every
action of every session form). ``expand_level(table, forms, pool)`` expands one
breadth-first level of forms, in this process or in a pool of forked workers
(``Pool``). Each worker keeps its own ``SessionTable`` and answers a chunk of
forms with its expansions written in its own form ids, and the forms it met for
the first time (with their ``check_state`` findings); the parent translates
them into its table, interning successors in the order a serial expansion
would, so form ids (and so traces) do not depend on the number of workers.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

CHUNK = 48
"""Forms per task of a pool."""

MIN_PARALLEL = 2 * CHUNK
"""A level with fewer unexpanded forms is expanded in this process."""

_LOCAL: dict = {}


class Pool:
    """``workers`` forked processes, each with its own session table for ``bounds`` and ``profile``."""

    def __init__(self, workers: int, bounds, profile) -> None:
        context = multiprocessing.get_context("fork")
        self.pool = context.Pool(workers, initializer=_start, initargs=(bounds, profile))
        self.known: dict[int, list] = {}  # worker pid -> its form tuples, by its form id
        self.findings: dict[int, dict[int, list]] = {}

    def close(self, failed: bool = False) -> None:
        """Let the workers finish (or, after a failure, stop them) and wait for them."""
        if failed:
            self.pool.terminate()
        else:
            self.pool.close()
        self.pool.join()


def quiet_worker() -> None:
    """In a forked worker: Ctrl-C and SIGTERM are the parent's business (it stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _start(bounds, profile) -> None:
    from mcp_resume.model.explore.fast import SessionTable

    quiet_worker()
    _LOCAL["table"] = SessionTable(bounds, profile)
    _LOCAL["sent"] = 0


def _expand_chunk(forms: list) -> tuple:
    """In a worker: expand ``forms`` (tuples); return its pid, the forms it met since
    its last answer (with findings), the expansions, and its steps and seconds."""
    table = _LOCAL["table"]
    steps, seconds = table.steps, table.seconds
    expansions = []
    for form in forms:
        number = table.intern(form)
        expansion = table.expand(number)
        expansions.append((number, expansion.moves, expansion.counts, expansion.pruned, expansion.findings,
                           expansion.forget, expansion.forget_findings))
    start, _LOCAL["sent"] = _LOCAL["sent"], len(table.forms)
    met = [(table.forms[n], table.state_findings.get(n)) for n in range(start, len(table.forms))]
    return os.getpid(), start, met, expansions, table.steps - steps, table.seconds - seconds


def expand_level(table, forms: list[int], pool: Pool | None) -> None:
    """Expand every form of ``forms`` (ids of ``table``) not expanded yet."""
    todo = [form for form in forms if table.expansions[form] is None]
    if pool is None or len(todo) < MIN_PARALLEL:
        for form in todo:
            table.expand(form)
        return
    started = time.perf_counter()
    chunks = [[table.forms[f] for f in todo[i:i + CHUNK]] for i in range(0, len(todo), CHUNK)]
    for answer in pool.pool.imap(_expand_chunk, chunks):
        _translate(table, pool, answer)
    table.seconds += time.perf_counter() - started


def _translate(table, pool: Pool, answer: tuple) -> None:
    from mcp_resume.model.explore.fast import Expansion

    pid, start, met, expansions, steps, _ = answer
    known = pool.known.setdefault(pid, [])
    findings = pool.findings.setdefault(pid, {})
    assert len(known) == start, "a worker's answers arrived out of order"
    for offset, (form, found) in enumerate(met):
        known.append(form)
        if found:
            findings[start + offset] = found
    table.steps += steps

    def ours(local: int) -> int:
        return table.intern_checked(known[local], findings.get(local, ()))

    for number, moves, counts, pruned, found, forget, forget_findings in expansions:
        mine = ours(number)
        translated = [(index, ours(after)) for index, after in moves]
        expansion = Expansion(moves=translated, counts=counts, pruned=pruned, findings=found,
                              forget_findings=forget_findings)
        expansion.successors = tuple(dict.fromkeys(after for _, after in translated))
        expansion.forget = ours(forget)
        table.expansions[mine] = expansion
