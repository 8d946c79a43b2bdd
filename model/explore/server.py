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
``LEVEL`` (what ``explore --design N`` does) finishes the level of product
states that step left from, so every rule broken at that shortest depth gets
its shortest trace, then stops: a rule the design breaks only with a longer
trace is not listed (the walk cannot know of one without going deeper).
``NEVER`` walks the whole bound and lists every rule broken within it. Once the
stopping depth is known, the successors of the last level are not keyed: they
would never be expanded.

How a server state is reached again. In-process servers are mutable objects,
and each product state has as many successors as actions. The explorer keeps
each product state to expand as a ``pickle`` of the server and its id map (a
few hundred bytes) and restores a working copy with ``pickle.loads``, which
costs the same at any depth (re-running the path from the start grows with it)
and is several times faster than ``copy.deepcopy`` (``benchmarks/bench_explorer.py``
measures the three). Most actions are refused and change nothing: the
explorer spots those by comparing the working copy's pickle with the one it
was restored from, and then tries the next action on the same copy (it
restores a fresh one only after a step that changed something).

How a product state is recognised. Its key is the spec state's canonical form
with the server's state written in the same canonical names
(``fingerprint.server_fingerprint``): paths that reach the same spec state up
to symmetry and leave the server holding the same tables up to a renaming of
its ids are explored once.

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
from mcp_resume.spec.state import INITIAL_STATE
from mcp_resume.spec.transitions import enabled
from mcp_resume.spec.walk import BreadthFirst, StopWalk, path_to

from mcp_resume.model.servers.adapter import ServerUnderTest
from mcp_resume.model.harness.checker import Checker, Counterexample
from mcp_resume.model.explore.result import ExplorationResult
from mcp_resume.model.explore.plain import Progress, explorer_trace
from mcp_resume.model.explore.fingerprint import canonical_names, server_fingerprint
from mcp_resume.model.servers.idmap import IdMap

Snapshot = bytes

PROGRESS_EVERY_DESIGN = 100
"""Product states expanded between two progress calls (a design's states cost ~1 ms each;
the progress line itself shows at most one update a second)."""


class Stop(enum.Enum):
    """When ``explore_server`` ends a walk that found a counterexample (module docstring)."""

    FIRST = "first"  # at the first failing step
    LEVEL = "level"  # at the end of the level the first failing step left from
    NEVER = "never"  # never: the whole bound


def explore_server(
    factory: Callable[[], ServerUnderTest],
    bounds: Bounds,
    profile: Profile = DEFAULT_PROFILE,
    stop: Stop = Stop.FIRST,
    progress: Progress | None = None,
) -> ExplorationResult:
    """Explore the server made by ``factory`` beside the spec within ``bounds``.

    ``stop`` says when a walk that found a counterexample ends (``Stop``); every
    trace kept is a shortest one for its rule. ``result.notes["stop"]`` names the
    mode and ``result.notes["expanded"]`` counts the product states expanded.
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

    def successors(key, node):
        if found and walk.depth > found[0]:
            raise StopWalk  # LEVEL: the level with the first failing step is done
        state, snapshot = node
        keep = not found  # once the last level is known, its successors are never expanded
        work = None
        for action in candidate_actions(state):
            if not enabled(state, action):
                continue
            if work is None:
                work = pickle.loads(snapshot)
            checker = _checker(work, state, profile)
            try:
                report = checker.apply(action)
            except Counterexample as failure:
                _record_failure(result, parents, key, action, failure, bounds)
                if stop is Stop.FIRST:
                    raise StopWalk from None
                if stop is Stop.LEVEL and not found:
                    found.append(walk.depth)
                    keep = False
                work = None
                continue
            if checker.state is not state and not within(checker.state, bounds):
                result.pruned += 1
                work = None
                continue
            result.transitions += 1
            result.coverage.record(action.kind, report.branch)
            if report.findings:
                _record_warnings(result, parents, key, action, report, bounds)
                work = None
                continue
            after = None
            if checker.state is state:  # the spec stayed put: did the server?
                after = _snapshot(checker.server, checker.ids)
                if after == snapshot:
                    continue  # nothing changed: the working copy serves the next action
            work = None
            if not keep:
                continue
            after_key = keys.key(checker.state, checker.server, checker.ids)
            if after_key not in parents:  # a pickle only for a product state to expand
                yield action, after_key, (checker.state, after or _snapshot(checker.server, checker.ids))
        if progress and (walk.expanded + 1) % PROGRESS_EVERY_DESIGN == 0:
            _finish(result, walk, started, found).exhausted = False  # not yet
            progress(result)

    walk.run(successors, bounds.depth)
    return _finish(result, walk, started, found)


class _Keys:
    """Product-state keys, with the canonical names of each spec state computed once."""

    def __init__(self) -> None:
        self._names: dict = {}

    def key(self, state, server: ServerUnderTest, ids: IdMap) -> tuple:
        named = self._names.get(state)
        if named is None:
            named = self._names[state] = canonical_names(state)
        form, names = named
        return form, server_fingerprint(server, ids, names)


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
        if observed == spec.observation:
            return []  # the spec's own step: the spec explorer judges those (check_spec_step, check_state)
        # ``spec`` is one of the memo's own variants, alive as long as the memo's
        # entries (both dicts are cleared together), so its id names it
        key = (id(spec), observed)
        findings = self.memo.findings.get(key)
        if findings is None:
            findings = self.memo.findings[key] = super()._judge(spec, observed)
        return list(findings)


def _restore(snapshot: Snapshot, state, profile: Profile) -> Checker:
    return _checker(pickle.loads(snapshot), state, profile)


def _checker(work: tuple[ServerUnderTest, IdMap], state, profile: Profile) -> Checker:
    """A memoised checker over the working copy ``work`` (a server and its id map) in ``state``."""
    server, ids = work
    checker = _MemoChecker(server, profile, source="explorer")
    checker.memo = _MEMOS.setdefault(profile, _SpecMemo())
    checker.state = state
    checker.ids = ids
    return checker


def _record_failure(result: ExplorationResult, parents: dict, key, action, found: Counterexample, bounds: Bounds) -> None:
    actions = path_to(parents, key) + (action,)
    for finding in found.report.failing:
        result.record(result.violations, finding.rule, finding.message, explorer_trace(actions, result.profile, finding, bounds, result.server))


def _record_warnings(result: ExplorationResult, parents: dict, key, action, report, bounds: Bounds) -> None:
    if all(finding.rule in result.warnings for finding in report.findings):
        return
    actions = path_to(parents, key) + (action,)
    for finding in report.findings:
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
