"""The fast explorer's state-level search: breadth-first over sorted tuples of session-form ids.

A state is a sorted tuple of session-form ids (``fast``). Once the session table
holds every form the bound reaches (``fast.expand_forms``), the successors of a
state need only three lists indexed by form id: its distinct successor forms,
its form after ``restart_client``, and its counts of events and requests. This
module walks the states level by level with those lists and tallies what the
counts of transitions need (``Tally``): how often each form was a session of an
expanded state, and how many events and requests the other sessions held.

``search(plan, workers)`` runs the walk in this process (``workers == 1``) or
splits it over ``workers`` processes (this one and ``workers - 1`` forked ones,
a ``harness.workers.WorkerGroup``): worker ``w`` owns the states whose ``hash``
(of a tuple of ints: the same in every process) is ``w`` modulo ``workers``,
expands its own frontier, and after each level sends every successor it does
not own to its owner, once, through this process (each worker's share pickled
once by its sender, passed on as it is). Levels are kept in step by this
process: it tells every worker the level's new states and whether the run
stops, once all have reported; the counts are the same for any number of workers.

A run stops early, marked ``stopped``, when it holds more than ``max_states``
states or its processes more than ``max_memory`` MB of resident memory
(``/proc/self/statm``).
"""

from __future__ import annotations

import mmap
import os
import pickle
from dataclasses import dataclass, field
from typing import Callable

from mcp_resume.model.harness.workers import WorkerGroup

__all__ = ["Plan", "Tally", "search", "expand_level", "resident_mb", "SPLIT_FROM"]  # internal to ``fast``

CHECK_EVERY = 2000
"""States expanded between two looks at the budget and two progress calls."""

_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20 if hasattr(os, "sysconf") else 4096 / 2**20


@dataclass(frozen=True)
class Plan:
    """What the walk needs, indexed by session-form id; the same in every worker."""

    successors: list[tuple[int, ...]]
    forgets: list[int]
    events: list[int]
    requests: list[int]
    fresh: int
    max_sessions: int
    depth: int | None
    max_states: int | None = None
    max_memory: float | None = None  # MB, over every process of the run
    check_every: int = CHECK_EVERY


@dataclass
class Tally:
    """What a walk counted (summed over workers): see ``fast._count``."""

    forms: int
    expanded: int = 0
    event_weight: int = 0
    request_weight: int = 0
    initializations: int = 0
    pruned_initializations: int = 0
    restarts: int = 0
    form_weight: list[int] = field(default_factory=list)
    foreign_event_weight: list[int] = field(default_factory=list)
    foreign_request_weight: list[int] = field(default_factory=list)
    levels: list[int] = field(default_factory=lambda: [1])
    states: int = 1
    depth: int = 0
    stopped: str | None = None

    def __post_init__(self) -> None:
        for name in ("form_weight", "foreign_event_weight", "foreign_request_weight"):
            if not getattr(self, name):
                setattr(self, name, [0] * self.forms)

    def add(self, other: "Tally") -> None:
        for name in ("expanded", "event_weight", "request_weight", "initializations", "pruned_initializations", "restarts"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("form_weight", "foreign_event_weight", "foreign_request_weight"):
            mine, theirs = getattr(self, name), getattr(other, name)
            for index, value in enumerate(theirs):
                if value:
                    mine[index] += value


Progress = Callable[[Tally], None]


def resident_mb() -> float:
    """This process's resident memory in MB (0.0 where ``/proc`` is missing)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_MB
    except (OSError, IndexError, ValueError):
        return 0.0


def expand_level(plan: Plan, tally: Tally, frontier: list, keep: Callable[[tuple], None]) -> None:
    """Expand every state of ``frontier``; hand each successor other than itself to ``keep``."""
    successors, forgets, events, requests = plan.successors, plan.forgets, plan.events, plan.requests
    fresh, max_sessions = plan.fresh, plan.max_sessions
    weight, foreign_events, foreign_requests = tally.form_weight, tally.foreign_event_weight, tally.foreign_request_weight
    event_weight = request_weight = initializations = pruned = 0
    for state in frontier:
        total_events = total_requests = 0
        for form in state:
            total_events += events[form]
            total_requests += requests[form]
        event_weight += total_events
        request_weight += total_requests
        size = len(state)
        if size < max_sessions:
            initializations += 1
            keep(_insert(state, fresh))
        else:
            pruned += 1
        previous = -1
        for index, form in enumerate(state):
            weight[form] += 1
            foreign_events[form] += total_events - events[form]
            foreign_requests[form] += total_requests - requests[form]
            if form == previous:
                continue
            previous = form
            if size == 1:
                for after in successors[form]:
                    keep((after,))
            elif size == 2:
                other = state[1 - index]
                for after in successors[form]:
                    keep((after, other) if after <= other else (other, after))
            else:
                rest = state[:index] + state[index + 1:]
                for after in successors[form]:
                    keep(_insert(rest, after))
        restarted = tuple(sorted([forgets[form] for form in state]))
        if restarted != state:
            keep(restarted)
    tally.expanded += len(frontier)
    tally.event_weight += event_weight
    tally.request_weight += request_weight
    tally.initializations += initializations
    tally.pruned_initializations += pruned
    tally.restarts += len(frontier)


def _insert(state: tuple, form: int) -> tuple:
    size = len(state)
    if size == 0:
        return (form,)
    if size == 1:
        other = state[0]
        return (form, other) if form <= other else (other, form)
    items = list(state)
    position = 0
    while position < size and items[position] < form:
        position += 1
    items.insert(position, form)
    return tuple(items)


def _chunks(frontier: list, size: int, max_states: int | None = None, seen: set | None = None):
    """``frontier`` in pieces of ``size`` states, between which a walk looks at its budget;
    with ``max_states``, smaller pieces as ``seen`` nears it (a state has at most a few
    dozen successors), so a run stops close to the number asked for."""
    start = 0
    while start < len(frontier):
        step = size
        if max_states is not None and seen is not None:
            step = max(1, min(size, (max_states - len(seen)) // MOST_SUCCESSORS))
        yield frontier[start:start + step]
        start += step


MOST_SUCCESSORS = 32
"""About the most successors a state of the spec has (a chunk's size as a run nears --max-states)."""


class _Budget:
    """Whether a run has gone over ``max_states`` or ``max_memory``; the reason when it has."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan

    def over(self, states: int, memory: float) -> str | None:
        plan = self.plan
        if plan.max_states is not None and states > plan.max_states:
            return f"stopped at --max-states {plan.max_states:,}: {states:,} states held"
        if plan.max_memory is not None and memory > plan.max_memory:
            return f"stopped at --max-memory {plan.max_memory:,.0f} MB: {memory:,.0f} MB resident"
        return None


SPLIT_FROM = 3
"""Workers a walk needs before it is split over processes: on two cores the split walk
was no faster (default bound 0.86 s against 0.61 s in one process, the ``deep`` bound
3.65 s against 3.55 s): a state costs a tuple and a set lookup, a successor sent to
its owner a pickle."""


def search(plan: Plan, workers: int = 1, progress: Progress | None = None) -> Tally:
    """Walk every state within ``plan``; see the module docstring. ``workers`` >= 1; the
    walk is split over them from ``SPLIT_FROM`` on."""
    if workers < SPLIT_FROM:
        return _search_here(plan, progress)
    return _search_split(plan, workers, progress)


def _search_here(plan: Plan, progress: Progress | None) -> Tally:
    tally = Tally(len(plan.successors))
    budget = _Budget(plan)
    seen: set = {()}
    frontier: list = [()]
    add = seen.add
    while frontier and (plan.depth is None or tally.depth < plan.depth):
        found: list = []
        append = found.append

        def keep(state, add=add, append=append, seen=seen):
            size = len(seen)
            add(state)
            if len(seen) != size:
                append(state)

        for chunk in _chunks(frontier, plan.check_every, plan.max_states, seen):
            expand_level(plan, tally, chunk, keep)
            tally.states = len(seen)
            tally.stopped = budget.over(len(seen), resident_mb())
            if tally.stopped:
                if found:  # the level it stopped in, as far as it went: the levels add up to the states
                    tally.depth += 1
                    tally.levels.append(len(found))
                return tally
            if progress:
                progress(tally)
        frontier = found
        if frontier:
            tally.depth += 1
            tally.levels.append(len(frontier))
    tally.states = len(seen)
    return tally


# -- the walk split over worker processes ---------------------------------------------------


class _Shared:
    """What the workers of one split walk share, in a page of memory mapped before the fork
    (no lock: each word has one writer, or any writer's value is fine): the states each
    worker holds, its resident MB, and the stop flag with its reason."""

    REASON = 200

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._memory = mmap.mmap(-1, 16 * workers + 8 + self.REASON)
        view = memoryview(self._memory)
        self.held = view[:8 * workers].cast("q")
        self.memory = view[8 * workers:16 * workers].cast("d")
        self._flag = view[16 * workers:16 * workers + 8].cast("q")
        self._reason = view[16 * workers + 8:]

    def stopped(self) -> bool:
        return bool(self._flag[0])

    def stop(self, reason: str) -> None:
        data = reason.encode()[:self.REASON - 1]
        self._reason[:len(data)] = data
        self._flag[0] = 1

    def reason(self) -> str:
        return bytes(self._reason).split(b"\0", 1)[0].decode(errors="replace") or "stopped"


def _search_split(plan: Plan, workers: int, progress: Progress | None) -> Tally:
    shared = _Shared(workers)
    with WorkerGroup(workers - 1, _child, (plan, shared)) as group:
        mine = _work(plan, shared, 0, progress, _Coordinator(group, workers))
        tallies = [mine]
        for _ in range(workers - 1):
            tallies.append(group.receive()[1])
    total = Tally(len(plan.successors))
    for tally in tallies:
        total.add(tally)
    total.levels, total.depth, total.states, total.stopped = mine.levels, mine.depth, sum(t.states for t in tallies), mine.stopped
    return total


def _child(channel, index: int, plan: Plan, shared: _Shared) -> None:
    """A forked worker (number ``index + 1``): its share of the walk, then its tally."""
    channel.send(_work(plan, shared, index + 1, None, _Link(channel)))


class _Link:
    """A forked worker's side of a level's exchange, through the parent."""

    def __init__(self, channel) -> None:
        self.channel = channel

    def _receive(self):
        message = self.channel.receive()
        if message is None:
            raise RuntimeError("the explorer's parent process left")
        return message

    def exchange(self, outgoing: list[bytes]) -> list[bytes]:
        """Send each other worker's share (pickled); the shares the others sent this one."""
        self.channel.send(outgoing)
        return self._receive()

    def level(self, found: int, shared: _Shared) -> tuple[int, bool]:
        """Report this worker's new states; the level's new states and whether the run stops."""
        self.channel.send(found)
        return self._receive()


class _Coordinator:
    """The parent's side (worker 0) of a level's exchange: it passes every share on to its
    owner, and decides, once every worker has reported, whether the run stops."""

    def __init__(self, group: WorkerGroup, workers: int) -> None:
        self.group, self.workers = group, workers

    def exchange(self, outgoing: list[bytes]) -> list[bytes]:
        shares = {0: outgoing}
        for _ in range(self.workers - 1):
            index, theirs = self.group.receive()
            shares[index + 1] = theirs
        for owner in range(1, self.workers):
            self.group.send(owner - 1, [shares[w][owner] for w in range(self.workers) if w != owner])
        return [shares[w][0] for w in range(1, self.workers)]

    def level(self, found: int, shared: _Shared) -> tuple[int, bool]:
        new = found
        for _ in range(self.workers - 1):
            new += self.group.receive()[1]
        stopping = shared.stopped()  # every worker is done with the level: its value is final
        for index in range(self.workers - 1):
            self.group.send(index, (new, stopping))
        return new, stopping


def _work(plan: Plan, shared: _Shared, worker: int, progress: Progress | None, link) -> Tally:
    """One worker's share of the walk: its frontier, its states, what it sends each level
    (through ``link``: a ``_Coordinator`` in the parent, a ``_Link`` in a forked worker)."""
    workers = shared.workers
    tally = Tally(len(plan.successors))
    budget = _Budget(plan)
    seen: set = {()} if worker == 0 else set()
    frontier: list = [()] if worker == 0 else []
    sent: set = set()
    while plan.depth is None or tally.depth < plan.depth:
        found: list = []
        outgoing: list[list] = [[] for _ in range(workers)]
        keep = _keeper(seen, sent, found, outgoing, worker, workers)
        for chunk in _chunks(frontier, plan.check_every):
            expand_level(plan, tally, chunk, keep)
            if _check(shared, budget, worker, len(seen), tally, progress):
                break
        shares = [pickle.dumps(states, protocol=pickle.HIGHEST_PROTOCOL) if owner != worker else b""
                  for owner, states in enumerate(outgoing)]
        for share in link.exchange(shares):
            for state in pickle.loads(share):
                size = len(seen)
                seen.add(state)
                if len(seen) != size:
                    found.append(state)
        frontier = found
        shared.held[worker] = len(seen)
        new, stopping = link.level(len(found), shared)
        if stopping:
            tally.stopped = shared.reason()
            if new:  # the level it stopped in, as far as it went
                tally.depth += 1
                tally.levels.append(new)
            break
        if not new:
            break
        tally.depth += 1
        tally.levels.append(new)
    tally.states = len(seen)
    return tally


def _keeper(seen: set, sent: set, found: list, outgoing: list, worker: int, workers: int):
    add, append, send = seen.add, found.append, sent.add

    def keep(state):
        owner = hash(state) % workers
        if owner == worker:
            size = len(seen)
            add(state)
            if len(seen) != size:
                append(state)
        else:
            size = len(sent)
            send(state)
            if len(sent) != size:
                outgoing[owner].append(state)

    return keep


def _check(shared: _Shared, budget: _Budget, worker: int, held: int, tally: Tally, progress) -> bool:
    shared.held[worker] = held
    shared.memory[worker] = resident_mb()
    if not shared.stopped():
        reason = budget.over(sum(shared.held), sum(shared.memory))
        if reason:
            shared.stop(reason)
    if progress:
        tally.states = sum(shared.held)
        progress(tally)
    return shared.stopped()
