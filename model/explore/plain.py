"""The reference explorer: breadth-first over the spec's own states, one ``step`` per action.

``explore_spec(bounds, profile, symmetry=True)`` starts at ``INITIAL_STATE``, tries
every ``candidate_actions`` action that ``enabled`` allows, computes each
transition with ``spec.transitions.step``, checks it with ``check_spec_step`` (server and sanity checks)
and every new state with ``check_state``, and keeps a state for expansion when
its key is new: the canonical form (``canonical.canonical_key``) with symmetry
reduction, the state itself without. Breadth-first order makes the first trace
found for each broken rule a shortest one.

It is the plain statement of what exploring means. ``explore_fast`` computes the
same counts much faster, and the tests hold the two to each other.
"""

from __future__ import annotations

import time
from typing import Callable

from mcp_resume.spec.space import Bounds, within
from mcp_resume.spec.space import candidate_actions
from mcp_resume.spec.invariants import Finding, check_spec_step, check_state
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.state import INITIAL_STATE, State
from mcp_resume.spec.trace import Failure, Trace
from mcp_resume.spec.transitions import Transition, enabled, step
from mcp_resume.spec.verdicts import Verdict, verdict_for_finding
from mcp_resume.spec.walk import BreadthFirst, StopWalk, path_to

from mcp_resume.model.explore.canonical import canonical_key
from mcp_resume.model.explore.result import ExplorationResult
from mcp_resume.model.explore.search import resident_mb

Progress = Callable[[ExplorationResult], None]
"""Called now and then during a run with the result so far (counts, ``seconds``)."""

Recorder = Callable[[object, Transition, object], None]
"""Called with (key of the source state, transition, key of the target) for every transition."""

PROGRESS_EVERY = 2000
"""States expanded between two progress calls."""


def explore_spec(
    bounds: Bounds,
    profile: Profile = DEFAULT_PROFILE,
    symmetry: bool = True,
    progress: Progress | None = None,
    record: Recorder | None = None,
    max_states: int | None = None,
    max_memory: float | None = None,
) -> ExplorationResult:
    """Explore the spec within ``bounds``; see the module docstring.

    ``record``, when given, sees every transition taken (to draw the graph).
    ``max_states`` / ``max_memory`` (MB resident): stop there, ``result.stopped``
    saying why, with the counts so far. Raises ``NotModelled`` for a sessionless profile.
    """
    result = ExplorationResult("spec", profile, bounds, "reference", symmetry)
    key = canonical_key if symmetry else _identity
    started = time.perf_counter()
    walk = BreadthFirst(key(INITIAL_STATE), INITIAL_STATE)
    parents = walk.parents
    _judge_state(result, INITIAL_STATE, lambda: (), profile, bounds)

    def successors(state_key, state: State):
        for action in candidate_actions(state):
            if not enabled(state, action, profile):
                continue
            transition = step(state, action, profile)
            if not within(transition.after, bounds):
                result.pruned += 1
                continue
            result.transitions += 1
            result.coverage.record(action.kind, transition.outcome.branch if transition.outcome else None)
            findings = check_spec_step(transition)
            if findings:
                _judge(result, findings, path_to(parents, state_key) + (action,), profile, bounds)
            after_key = key(transition.after)
            if record:
                record(state_key, transition, after_key)
            if after_key in parents:
                continue
            yield action, after_key, transition.after
            _judge_state(result, transition.after, lambda after_key=after_key: path_to(parents, after_key), profile, bounds)
        if progress and (walk.expanded + 1) % PROGRESS_EVERY == 0:
            _progress(result, walk, started, progress)
        over_states = max_states is not None and len(parents) > max_states
        if over_states or (max_memory and walk.expanded % PROGRESS_EVERY == 0):
            result.stopped = over_budget(len(parents), max_states, max_memory)
            if result.stopped:
                raise StopWalk

    walk.run(successors, bounds.depth)
    result.exhausted = result.stopped is None
    result.levels = list(walk.levels)
    result.states = len(parents)
    result.depth = walk.depth
    partial = result.states - sum(result.levels)
    if result.stopped and partial > 0:  # the level it stopped in, as far as it went
        result.levels.append(partial)
        result.depth += 1
    result.seconds = time.perf_counter() - started
    return result


def over_budget(states: int, max_states: int | None, max_memory: float | None) -> str | None:
    """Why a run holding ``states`` states must stop (``--max-states``, ``--max-memory``), or None."""
    if max_states is not None and states > max_states:
        return f"stopped at --max-states {max_states:,}: {states:,} states held"
    if max_memory is not None and (memory := resident_mb()) > max_memory:
        return f"stopped at --max-memory {max_memory:,.0f} MB: {memory:,.0f} MB resident"
    return None


def _identity(state: State) -> State:
    return state


def _judge_state(result: ExplorationResult, state: State, path: Callable[[], tuple], profile: Profile, bounds: Bounds) -> None:
    findings = check_state(state)
    if findings:
        _judge(result, findings, path(), profile, bounds)


def _judge(result: ExplorationResult, findings: list[Finding], actions: tuple, profile: Profile, bounds: Bounds) -> None:
    for finding in findings:
        failing = verdict_for_finding(finding, profile) is Verdict.FAIL
        registry = result.violations if failing else result.warnings
        if finding.rule not in registry:
            trace = explorer_trace(actions, profile, finding, bounds, result.server)
            result.record(registry, finding.rule, finding.message, trace)


def explorer_trace(actions: tuple, profile: Profile, finding: Finding, bounds: Bounds, server: str) -> Trace:
    """A trace in the Hypothesis machine's format, failing at its last step."""
    failure = Failure(len(actions), finding.rule, finding.message)
    return Trace(tuple(actions), profile, failure, "explorer", {"server": server, "bounds": bounds.to_json()})


def _progress(result: ExplorationResult, walk: BreadthFirst, started: float, progress: Progress) -> None:
    result.states = len(walk.parents)
    result.depth = walk.depth
    result.levels = list(walk.levels)
    result.seconds = time.perf_counter() - started
    progress(result)
