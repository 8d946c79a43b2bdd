"""The reference explorer: breadth-first over the spec's own states, one ``step`` per action.

``explore_spec(bounds, profile, symmetry=True)`` starts at ``INITIAL_STATE``, tries
every ``candidate_actions`` action that ``enabled`` allows, computes each
transition with ``spec.transitions.step``, checks it with ``check_transition``
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

from mcp_resume.spec.invariants import Finding, check_state, check_transition
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.state import INITIAL_STATE, State
from mcp_resume.spec.trace import Failure, Trace
from mcp_resume.spec.transitions import Transition, enabled, step
from mcp_resume.spec.verdicts import Verdict, verdict_for_broken

from mcp_resume.model.explore.canonical import canonical_key
from mcp_resume.model.explore.result import ExplorationResult
from mcp_resume.model.explore.space import Bounds, candidate_actions, within

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
) -> ExplorationResult:
    """Explore the spec within ``bounds``; see the module docstring.

    ``record``, when given, sees every transition taken (to draw the graph).
    Raises ``NotModelled`` for a sessionless profile.
    """
    result = ExplorationResult("spec", profile, bounds, "reference", symmetry)
    key = canonical_key if symmetry else _identity
    started = time.perf_counter()
    first = key(INITIAL_STATE)
    parents: dict = {first: None}
    _judge_state(result, INITIAL_STATE, lambda: (), profile, bounds)
    frontier = [(first, INITIAL_STATE)]
    result.levels.append(1)
    depth = 0
    expanded = 0
    while frontier and (bounds.depth is None or depth < bounds.depth):
        next_frontier = []
        for state_key, state in frontier:
            for action in candidate_actions(state):
                if not enabled(state, action):
                    continue
                transition = step(state, action, profile)
                if not within(transition.after, bounds):
                    result.pruned += 1
                    continue
                result.transitions += 1
                result.coverage.record(action.kind, transition.outcome.branch if transition.outcome else None)
                findings = check_transition(transition)
                if findings:
                    _judge(result, findings, path_to(parents, state_key) + (action,), profile, bounds)
                after_key = key(transition.after)
                if record:
                    record(state_key, transition, after_key)
                if after_key in parents:
                    continue
                parents[after_key] = (state_key, action)
                next_frontier.append((after_key, transition.after))
                _judge_state(result, transition.after, lambda: path_to(parents, after_key), profile, bounds)
            expanded += 1
            if progress and expanded % PROGRESS_EVERY == 0:
                _progress(result, parents, depth, started, progress)
        frontier = next_frontier
        if frontier:
            depth += 1
            result.levels.append(len(frontier))
    result.states = len(parents)
    result.depth = depth
    result.seconds = time.perf_counter() - started
    return result


def _identity(state: State) -> State:
    return state


def path_to(parents: dict, state_key) -> tuple:
    """The steps from the root to ``state_key`` in a breadth-first ``parents`` map
    (key -> ``(parent key, step)``, ``None`` at the root)."""
    actions = []
    link = parents[state_key]
    while link is not None:
        state_key, action = link
        actions.append(action)
        link = parents[state_key]
    return tuple(reversed(actions))


def _judge_state(result: ExplorationResult, state: State, path: Callable[[], tuple], profile: Profile, bounds: Bounds) -> None:
    findings = check_state(state)
    if findings:
        _judge(result, findings, path(), profile, bounds)


def _judge(result: ExplorationResult, findings: list[Finding], actions: tuple, profile: Profile, bounds: Bounds) -> None:
    for finding in findings:
        failing = verdict_for_broken(finding.rule, profile) is Verdict.FAIL
        registry = result.violations if failing else result.warnings
        if finding.rule not in registry:
            trace = explorer_trace(actions, profile, finding, bounds, result.server)
            result.record(registry, finding.rule, finding.message, trace)


def explorer_trace(actions: tuple, profile: Profile, finding: Finding, bounds: Bounds, server: str) -> Trace:
    """A trace in the Hypothesis machine's format, failing at its last step."""
    failure = Failure(len(actions), finding.rule, finding.message)
    return Trace(tuple(actions), profile, failure, "explorer", {"server": server, "bounds": bounds.to_json()})


def _progress(result: ExplorationResult, parents: dict, depth: int, started: float, progress: Progress) -> None:
    result.states = len(parents)
    result.depth = depth
    result.seconds = time.perf_counter() - started
    progress(result)
