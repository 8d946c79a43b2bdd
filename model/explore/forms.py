"""Expanding session forms on several cores: what the fast explorer spends most of its time on.

At the default bound the state search is a few per cent of a run; the rest is
``SessionTable.expand`` (``spec.transitions.step`` and the checks on every
action of every session form). ``expand_level(table, forms, workers)`` expands
one breadth-first level of forms, in this process or on a pool of workers forked
for that level. A worker starts from a copy of the parent's table as it is when
the level starts (the fork copies it; nothing is sent), so every form known so
far keeps its id and its ``check_state`` findings there; it answers a chunk of
forms with their expansions, and the forms it met for the first time (with their
findings) numbered after the parent's. The parent interns those in the order a
serial expansion would, so form ids (and so traces) do not depend on the number
of workers.

Not ``forked.expand_level`` (the design explorer's): a pool hands out chunks as
workers free up and streams their answers, so the parent numbers the new forms of
one chunk while the workers expand the next.
"""

from __future__ import annotations

import multiprocessing
import os
import time

from mcp_resume.model.explore.forked import quiet_worker

CHUNK = 48
"""Forms per task of a pool."""

MIN_PARALLEL = 2 * CHUNK
"""A level with fewer unexpanded forms is expanded in this process."""

_LOCAL: dict = {}
_INHERITED: dict = {}  # the parent's table while a level's pool is forked from it


def _start() -> None:
    quiet_worker()
    table = _INHERITED["table"]
    _LOCAL["table"] = table
    _LOCAL["foreign"] = _INHERITED["foreign"]
    _LOCAL["sent"] = _LOCAL["base"] = len(table.forms)


def _expand_chunk(forms: list[int]) -> tuple:
    """In a worker: expand ``forms`` (ids of the parent's table); return its pid, where
    its new forms since its last answer start, those forms (with findings), the
    expansions, and its steps."""
    table = _LOCAL["table"]
    steps = table.steps
    expansions = []
    foreign = _LOCAL["foreign"]
    for number in forms:
        expansion = table.expand(number, foreign)
        expansions.append((number, expansion.moves, expansion.counts, expansion.pruned, expansion.findings,
                           expansion.forget, expansion.forget_findings))
    start, _LOCAL["sent"] = _LOCAL["sent"], len(table.forms)
    met = [(table.forms[n], table.state_findings.get(n)) for n in range(start, len(table.forms))]
    return os.getpid(), start, met, expansions, table.steps - steps


def expand_level(table, forms: list[int], workers: int = 1, foreign: bool = True) -> None:
    """Expand every form of ``forms`` (ids of ``table``) not expanded yet (``foreign`` as
    ``SessionTable.expand``), on ``workers`` processes (at most one per chunk) forked for
    this level when there are at least ``MIN_PARALLEL`` of them."""
    todo = [form for form in forms if table.expansions[form] is None]
    if workers <= 1 or len(todo) < MIN_PARALLEL:
        for form in todo:
            table.expand(form, foreign)
        return
    started = time.perf_counter()
    chunks = [todo[i:i + CHUNK] for i in range(0, len(todo), CHUNK)]
    base = len(table.forms)
    known: dict[int, list] = {}  # worker pid -> its new forms, from ``base`` on
    findings: dict[int, dict[int, list]] = {}
    _INHERITED["table"] = table
    _INHERITED["foreign"] = foreign
    pool = multiprocessing.get_context("fork").Pool(min(workers, len(chunks)), initializer=_start)
    try:
        for answer in pool.imap(_expand_chunk, chunks):
            _translate(table, base, known, findings, answer)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
        _INHERITED.clear()
    table.seconds += time.perf_counter() - started


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
