"""Explore an in-process server beside the spec: every path within bounds, breadth-first.

``explore_server(factory, bounds, profile, stop)`` drives the spec and a server
under test side by side, as ``checker.Checker`` does for one sequence, but over
every sequence within ``bounds``: from each product state (a spec state, the
server's state, the id map between them) it tries every ``candidate_actions``
action the spec enables, judges the server's answer with the spec's invariants,
and keeps the new product state. Breadth-first order makes the first
counterexample found for a rule a shortest one; its trace replays with
``checker.replay`` on any adapter.

When to stop (``Stop``). ``FIRST`` ends the walk at the first failing step.
``LEVEL`` (what ``explore-design N`` does) finishes the level of product
states that step left from, so every rule broken at that shortest depth gets
its shortest trace, then stops: a rule the design breaks only with a longer
trace is not listed (the walk cannot know of one without going deeper).
``NEVER`` walks the whole bound and lists every rule broken within it. Once the
stopping depth is known, the successors of the last level are not keyed: they
would never be expanded. Given the rules a server is known to break (``expect``:
a faulty design's), ``LEVEL`` ends as soon as each has its shortest
counterexample, without finishing the level.

Each level is expanded likeliest first (``likeliest_first``: the spec states with
the most a server can get wrong, pending requests and streams left without a
connection first). Any order within a level keeps every path shortest; this one
makes a walk that stops at its first findings stop sooner.

How a server state is reached again. In-process servers are mutable objects,
and each product state has as many successors as actions. The explorer keeps
each product state to expand as a ``pickle`` of the server and its id map (a
few hundred bytes) and restores a working copy with ``pickle.loads``, which
costs the same at any depth (re-running the path from the start grows with it)
and is several times faster than ``copy.deepcopy`` (``benchmarks/bench_explorer.py``
measures the three). Most actions are refused and change nothing: the
explorer spots those by comparing the working copy with the one it was restored
from, and then tries the next action on the same copy (it restores a fresh one
only after a step that changed something). It compares their pickles, or, for a
server that says ``==`` sees all its state (``attributes_are_state``, as the
reference server and every design here do), their attributes with ``==``, four
times cheaper.

How a product state is recognised. Its key is the canonical form of the spec
state without what nothing a server is judged on reads (``_server_side``: the
client's memory, how an ended session ended and its streams' kinds and server
requests' statuses) with the server's state written
in the same canonical names (``fingerprint.server_fingerprint``): paths that
reach the same spec state up to symmetry and those details, and leave the
server holding the same tables up to a renaming of its ids, are explored once.
A key is worked out once per (spec state, server pickle) pair.

A step with a finding that does not fail the run (a SHOULD or MAY broken under
``profile``) is recorded as a warning and, as in the Hypothesis machine, its
product state is not explored further: from there the server may be in a
state the spec does not predict.
"""

from __future__ import annotations

import enum
import pickle
import time
from typing import Callable

from mcp_resume.spec.space import Bounds, within
from mcp_resume.spec.space import candidate_actions
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.state import (
    INITIAL_STATE, RequestStatus, ServerRequest, Session, SessionStatus, State, Stream, StreamKind, StreamStatus,
)
from mcp_resume.spec.transitions import Pending, pending_choices, step_if_enabled
from mcp_resume.spec.walk import BreadthFirst, StopWalk, path_to

from mcp_resume.model.servers.adapter import ServerUnderTest
from mcp_resume.model.harness.checker import Checker, Counterexample
from mcp_resume.model.explore.result import ExplorationResult
from mcp_resume.model.explore.plain import Progress, explorer_trace
from mcp_resume.model.explore.fingerprint import canonical_names, server_fingerprint
from mcp_resume.model.explore.collector import collector_paused
from mcp_resume.model.explore import forked
from mcp_resume.model.servers.idmap import IdMap
from mcp_resume.model.harness import memos

memos.install()  # the spec's pure functions memoized in this process: same results, less time

Snapshot = bytes

PROGRESS_EVERY_DESIGN = 100
"""Product states expanded between two progress calls (a design's states cost ~1 ms each;
the progress line itself shows at most one update a second)."""


class Stop(enum.Enum):
    """When ``explore_server`` ends a walk that found a counterexample (module docstring)."""

    FIRST = "first"  # at the first failing step
    LEVEL = "level"  # at the end of the level the first failing step left from
    NEVER = "never"  # never: the whole bound


@collector_paused()
def explore_server(
    factory: Callable[[], ServerUnderTest],
    bounds: Bounds,
    profile: Profile = DEFAULT_PROFILE,
    stop: Stop = Stop.FIRST,
    progress: Progress | None = None,
    expect: frozenset[str] = frozenset(),
    workers: int = 1,
) -> ExplorationResult:
    """Explore the server made by ``factory`` beside the spec within ``bounds``.

    ``stop`` says when a walk that found a counterexample ends (``Stop``); every
    trace kept is a shortest one for its rule. ``expect``: rules the server is
    known to break (catalog ids); under ``Stop.LEVEL`` the walk ends once each has
    a counterexample (module docstring). ``workers``: processes a level of at least
    ``FORK_AT`` product states is expanded on (``forked``; the result is the same
    for any number). ``result.notes["stop"]`` names the mode and
    ``result.notes["expanded"]`` counts the product states expanded.
    The server must be picklable (every in-process server is). Raises
    ``NotModelled`` for a sessionless profile.
    """
    started = time.perf_counter()
    probe = factory()
    name = getattr(probe, "name", type(probe).__name__)
    result = ExplorationResult(name, profile, bounds, "product", True)
    result.notes["stop"] = stop.value
    keys = _Keys()
    root = keys.key(INITIAL_STATE, probe, IdMap())
    first = _snapshot(probe, IdMap())
    probe.close()
    walk = BreadthFirst(root, (INITIAL_STATE, first))
    parents = walk.parents
    found: list[int] = []  # the level the first failing step left from
    ahead: dict = {}  # product state key -> its steps, worked out on other cores
    handed: set = set()  # in a forked worker: keys whose product state it already sent

    def steps_of(key, node, keep: bool = True) -> list:
        state, snapshot = node
        return _steps(state, snapshot, profile, bounds, keys, keep, lambda k: k in parents or k in handed)

    def forked_steps(key, node, late: bool) -> list:
        """In a worker: the steps of a node; none of its successors is kept once a node
        before it failed (the walk stops at the end of this level)."""
        steps = steps_of(key, node, keep=not (stop is Stop.LEVEL and late))
        handed.update(step[2] for step in steps if step[0] == _NEXT and step[3] is not None)
        return steps

    rules: set[str] = set()  # in a forked worker: the rules its own steps broke

    def failed(steps) -> bool:
        return any(step[0] == _FAIL for step in steps)

    def enough(steps) -> bool:
        """In a worker: whether its steps so far end the level whatever the others find."""
        failures = [step for step in steps if step[0] == _FAIL]
        if failures and stop is Stop.FIRST:
            return True
        for step in failures:
            rules.update(finding.rule for finding in step[2])
        return stop is Stop.LEVEL and bool(expect) and expect <= rules

    def work_ahead(frontier: list) -> None:
        if workers > 1 and len(frontier) >= FORK_AT and not found:
            ahead.clear()
            results = forked.expand_level(frontier, forked_steps, workers, enough, failed)
            if results is not None:
                ahead.update((frontier[index][0], steps) for index, steps in results.items())

    def successors(key, node):
        if found and walk.depth > found[0]:
            raise StopWalk  # LEVEL: the level with the first failing step is done
        steps = ahead.pop(key, None)
        if steps is None:
            steps = steps_of(key, node, keep=not found)
        keep = not found  # once the last level is known, its successors are never expanded
        for step in steps:
            kind, action = step[0], step[1]
            if kind == _COUNT:
                result.transitions += 1
                result.coverage.record(action.kind, step[2])
            elif kind == _NEXT:
                after_key = step[2]
                if keep and after_key not in parents:
                    yield action, after_key, step[3]
            elif kind == _PRUNE:
                result.pruned += 1
            elif kind == _WARN:
                _record_warnings(result, parents, key, action, step[2], bounds)
            else:
                _record_failure(result, parents, key, action, step[2], bounds)
                if stop is Stop.FIRST:
                    raise StopWalk
                if stop is Stop.LEVEL and not found:
                    found.append(walk.depth)
                    keep = False
                if stop is Stop.LEVEL and expect and expect <= result.violations.keys():
                    raise StopWalk  # every expected rule has its shortest counterexample
        if progress and (walk.expanded + 1) % PROGRESS_EVERY_DESIGN == 0:
            _finish(result, walk, started, found).exhausted = False  # not yet
            progress(result)

    walk.run(successors, bounds.depth, order=likeliest_first, level=work_ahead)
    return _finish(result, walk, started, found)


FORK_AT = 64
"""Product states a level needs before ``workers > 1`` expand it on forked processes
(two forks cost a few milliseconds; a product state about 2 ms)."""

_COUNT, _NEXT, _PRUNE, _WARN, _FAIL = range(5)
"""The kinds of step ``_steps`` lists, each a tuple that starts with its kind and action
(numbers: a step may come back from a forked worker, pickled)."""


def _steps(state, snapshot: Snapshot, profile: Profile, bounds: Bounds, keys: "_Keys", keep: bool,
           known: Callable[[tuple], bool]) -> list[tuple]:
    """What every candidate action does from the product state (``state``, ``snapshot``),
    in ``candidate_actions`` order, as the walk replays it:

    - ``(_FAIL, action, failing findings)``: the server broke a rule that fails the run;
    - ``(_PRUNE, action)``: the spec's next state breaks a bound;
    - ``(_COUNT, action, branch)``: a transition judged, then one of
      ``(_WARN, action, findings)``: a finding that does not fail the run (the path ends),
      ``(_NEXT, action, key, node)``: a product state with something changed; ``node`` is
      ``None`` when ``known(key)`` (the walk has it already), and the successors are
      not keyed at all unless ``keep``.
    """
    steps: list[tuple] = []
    work = None
    unchanged = _Unchanged(snapshot)
    memo = _MEMOS.setdefault(profile, _SpecMemo())
    table = memo.table(state)
    for action in candidate_actions(state):
        variants = table.get(action)
        if variants is None:  # the spec's own step, once per (spec state, action); none when not enabled
            transition = step_if_enabled(state, action, profile)
            variants = table[action] = () if transition is None else (transition,)
            memo.entries += 1
        if not variants:
            continue
        if work is None:
            work = pickle.loads(snapshot)
        judged = _agreeing(work, variants[0], action)
        if judged is None:  # the server did something else than the spec's own step: judge it in full
            work = pickle.loads(snapshot)
            checker = _checker(work, state, profile)
            try:
                report = checker.apply(action)
            except Counterexample as failure:
                steps.append((_FAIL, action, failure.report.failing))
                work = None
                continue
            judged = checker.state, report.branch, report.findings
            work = checker.server, checker.ids  # the checker may have taken a copy of the id map (an alternative)
        after_state, branch, findings = judged
        if after_state is not state and not within(after_state, bounds):
            steps.append((_PRUNE, action))
            work = None
            continue
        steps.append((_COUNT, action, branch))
        if findings:
            steps.append((_WARN, action, findings))
            work = None
            continue
        after = None
        if after_state is state:  # the spec stayed put: did the server?
            if unchanged.attributes(work):
                continue  # nothing changed: the working copy serves the next action
            after = _snapshot(*work)
            if after == snapshot:
                continue
        server, ids = work
        work = None
        if not keep:
            continue
        after = after or _snapshot(server, ids)
        after_key = keys.key(after_state, server, ids, after)
        steps.append((_NEXT, action, after_key, None if known(after_key) else (after_state, after)))
    return steps


def likeliest_first(node) -> tuple:
    """The sort key of a product state ``(spec state, snapshot)`` within its level: most
    pending server requests first, then most open streams without a connection (what
    a resumption must deal with), most events (what a replay must get right), most
    sessions (what must not cross)."""
    state = node[0]
    pending = sum(1 for r in state.requests if r.status is RequestStatus.PENDING)
    unconnected = sum(1 for t in state.streams if t.status is StreamStatus.OPEN and not t.connected)
    return (-pending, -unconnected, -len(state.events), -len(state.sessions))


class _Keys:
    """Product-state keys, with the canonical names of each spec state computed once, and
    the key of each (spec state, snapshot) pair once: about half the successors a walk
    meets are byte for byte a product state met before (two orders of the same steps)."""

    LIMIT = 200_000  # pairs kept before the cache starts afresh

    def __init__(self) -> None:
        self._names: dict = {}
        self._known: dict = {}

    def key(self, state, server: ServerUnderTest, ids: IdMap, snapshot: Snapshot | None = None) -> tuple:
        """The key of the product state (``state``, ``server`` with ``ids``), whose pickle
        is ``snapshot`` when given."""
        pair = (state, snapshot)
        if snapshot is not None:
            known = self._known.get(pair)
            if known is not None:
                return known
        named = self._names.get(state)
        if named is None:
            named = self._names[state] = canonical_names(_server_side(state))
        form, names = named
        key = form, server_fingerprint(server, ids, names)
        if snapshot is not None:
            if len(self._known) > self.LIMIT:
                self._known.clear()
            self._known[pair] = key
        return key


def _server_side(state: State) -> State:
    """``state`` without what no decision and no server check reads (``spec.decision``,
    ``SERVER_CHECKS``; the spec's own state invariants do): the client's memory (its
    cursors and the server requests it holds), and of an ended session, how it ended
    (deleted or expired), its streams' kinds and its server requests' statuses (nothing
    it owns can act again, and its ids only ever count as another session's). Product
    states that differ only there get the same verdict on every continuation, so they
    are explored once (``tests/slow/test_explore_server.py`` holds the spec to this)."""
    ended = {s.id for s in state.sessions if s.status is not SessionStatus.LIVE}
    if not ended:
        return State(state.sessions, state.streams, state.events, state.requests, ())
    sessions = tuple(Session(s.id, SessionStatus.EXPIRED) if s.id in ended else s for s in state.sessions)
    streams = tuple(Stream(t.id, t.session, StreamKind.POST, t.status, t.connected, t.evicted) if t.session in ended
                    else t for t in state.streams)
    requests = tuple(ServerRequest(r.id, r.session, r.stream, RequestStatus.PENDING, r.issued_on) if r.session in ended
                     else r for r in state.requests)
    return State(sessions, streams, state.events, requests, ())


class _Unchanged:
    """Whether a working copy still equals the product state it was restored from, by
    its attributes (``attributes_are_state`` servers only; the pickles decide otherwise)."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.pristine: tuple | None = None  # an untouched copy, restored on first use

    def attributes(self, work: tuple[ServerUnderTest, IdMap]) -> bool:
        """True when ``work``'s attributes equal the untouched copy's; False when they
        differ or the server does not say ``==`` sees all its state."""
        server, ids = work
        if not getattr(server, "attributes_are_state", False):
            return False
        if self.pristine is None:
            self.pristine = pickle.loads(self.snapshot)
        server_before, ids_before = self.pristine
        return vars(server) == vars(server_before) and vars(ids) == vars(ids_before)


def _snapshot(server: ServerUnderTest, ids: IdMap) -> Snapshot:
    return pickle.dumps((server, ids), protocol=pickle.HIGHEST_PROTOCOL)


class _SpecMemo:
    """The spec's side of each step, computed once per (spec state, action) and
    shared by every product state over that spec state, and by every server
    explored under the same profile in this process: the faulty designs mostly
    agree with the spec, so they walk the same spec states."""

    LIMIT = 250_000  # entries kept before the memo starts afresh (about 250 MB at most)

    def __init__(self) -> None:
        self.variants: dict = {}  # spec state -> {action: its variants}
        self.findings: dict = {}
        self.entries = 0
        self._last: tuple = (None, {})  # the state looked up last (by identity) and its table

    def table(self, state) -> dict:
        """The variants computed so far from ``state``, by action (one hash per
        product state: the explorer tries all of a state's actions in a row)."""
        last, table = self._last
        if last is state:
            return table
        table = self.variants.get(state)
        if table is None:
            self.clear_if_full()  # before any of this state's variants exist
            table = self.variants[state] = {}
        self._last = (state, table)
        return table

    def clear_if_full(self) -> None:
        if self.entries + len(self.findings) > self.LIMIT:
            self.variants.clear()
            self.findings.clear()
            self.entries = 0
            self._last = (None, {})


_MEMOS: dict[Profile, _SpecMemo] = {}


def clear_spec_memo() -> None:
    """Forget the spec's side of every step computed so far in this process (a
    benchmark that times each design as a fresh process would)."""
    _MEMOS.clear()


class _MemoChecker(Checker):
    """A ``Checker`` whose spec computations (``_variants``, ``_judge``) come from a memo.

    Same findings, same next state as ``Checker``: both are functions of the
    spec state, the action and the translated observation only. One shortcut:
    a step on which the server's observation is exactly the spec's is the
    spec's own step, whose findings could only be the spec breaking its own
    checks; the spec explorer judges every such step (``check_spec_step``,
    ``check_state``), so this checker files nothing there and spends no time
    judging the spec again (about a quarter of a design's walk otherwise).
    """

    memo: _SpecMemo

    def _variants(self, action):
        table = self.memo.table(self.state)
        variants = table.get(action)
        if variants is None:
            variants = table[action] = super()._variants(action)
            self.memo.entries += 1
        return variants

    def _judge(self, spec, observed):
        if observed == spec.observation and _accepted(spec, self.profile):
            return []  # the spec's own step: the spec explorer judges those (check_spec_step, check_state)
        # ``spec`` is one of the memo's own variants, alive as long as the memo's
        # entries (both dicts are cleared together), so its id names it
        key = (id(spec), observed)
        findings = self.memo.findings.get(key)
        if findings is None:
            findings = self.memo.findings[key] = super()._judge(spec, observed)
        return list(findings)


def _accepted(spec, profile: Profile) -> bool:
    """Whether ``spec`` is a step ``profile`` accepts: not a session resumption that leaves a
    request it had to deal with, which the checker follows (``Checker._chosen``) and judges."""
    outcome = spec.outcome
    if outcome is None or not outcome.reemit or Pending.LEAVE in pending_choices(profile):
        return True
    dealt = {d.request for d in spec.observation.events} | {d.cancels for d in spec.observation.events}
    return set(outcome.reemit) <= dealt


def _agreeing(work: tuple[ServerUnderTest, IdMap], spec, action):
    """``(next spec state, branch, no findings)`` when the server (the working copy
    ``work``) answers ``action`` exactly as the spec's own step ``spec`` does, which is
    what the checker concludes then (``_MemoChecker``: the spec's own step files
    nothing); else ``None``, the working copy spoiled: the caller judges the action in
    full on a fresh copy (another answer, an alternative choice, a server that raised)."""
    server, ids = work
    try:
        raw = server.apply(ids.to_server(action))
    except Exception:  # the full judgement meets it again, and says what it means
        return None
    if ids.align(spec, raw) != spec.observation:
        return None
    return spec.after, spec.outcome.branch if spec.outcome is not None else None, ()


def _checker(work: tuple[ServerUnderTest, IdMap], state, profile: Profile) -> Checker:
    """A memoised checker over the working copy ``work`` (a server and its id map) in ``state``."""
    server, ids = work
    checker = _MemoChecker(server, profile, source="explorer")
    checker.memo = _MEMOS.setdefault(profile, _SpecMemo())
    checker.state = state
    checker.ids = ids
    return checker


def _record_failure(result: ExplorationResult, parents: dict, key, action, failing, bounds: Bounds) -> None:
    actions = path_to(parents, key) + (action,)
    for finding in failing:
        result.record(result.violations, finding.rule, finding.message, explorer_trace(actions, result.profile, finding, bounds, result.server))


def _record_warnings(result: ExplorationResult, parents: dict, key, action, findings, bounds: Bounds) -> None:
    if all(finding.rule in result.warnings for finding in findings):
        return
    actions = path_to(parents, key) + (action,)
    for finding in findings:
        result.record(result.warnings, finding.rule, finding.message, explorer_trace(actions, result.profile, finding, bounds, result.server))


def _finish(result: ExplorationResult, walk: BreadthFirst, started: float, found: list[int]) -> ExplorationResult:
    """The result so far; a walk that stopped ends one step below the level its
    first failing step left from (the length of its shortest counterexample)."""
    result.states = len(walk.parents)
    if found:
        result.depth = found[0] + 1
    else:
        result.depth = walk.depth + 1 if walk.stopped else walk.depth
    result.levels = list(walk.levels)[: found[0] + 1] if found else list(walk.levels)
    result.exhausted = not walk.stopped and not found
    result.notes["expanded"] = walk.expanded
    result.seconds = time.perf_counter() - started
    return result
