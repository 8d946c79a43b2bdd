"""How big an exploration of the spec will be, known before the state search starts.

The fast explorer expands the session forms of a bound first (``fast.expand_forms``),
breadth-first from the fresh form, and a state is a multiset of at most
``sessions`` forms. A form ``k`` single-session steps from the fresh form is held
by a session at least ``k + 1`` steps old, so the states within depth ``D`` are
about the multisets whose ages add up to at most ``D`` (``estimate_states``; a
restart moves every session in one step, so it is an estimate, not a bound).
Without a depth bound every multiset counts: ``C(F + S, S)`` for ``F`` forms and
``S`` sessions.

``Watch`` computes the estimate after each level of forms, from the forms known
so far (forms found later only add states, so it never passes the final
estimate), and raises ``TooLarge`` as soon as it passes the budget: a runaway
bound (``--sessions 50``) is refused within a second or two. The
reference explorer (with or without symmetry reduction) is estimated from a
sample of its own walk (``reference_sample``).
"""

from __future__ import annotations

from math import comb

from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.space import Bounds

SAMPLE_DEPTH = 4
"""How deep the reference explorer is sampled with and without symmetry reduction."""


class TooLarge(ValueError):
    """The estimated size of a run is above its budget (``estimate``, ``budget``: states).
    ``partial``: the estimate counts only the session forms expanded before it passed the
    budget (it stops there), so the run holds more states than it says."""

    def __init__(self, estimate: int, budget: int, partial: bool = False) -> None:
        size = f"at least {estimate:,} states estimated (from the levels expanded before it passed the budget)" \
            if partial else f"about {estimate:,} states estimated"
        super().__init__(f"{size}, above the budget of {budget:,}")
        self.estimate = estimate
        self.budget = budget
        self.partial = partial


def estimate_states(distances: dict[int, int], sessions: int, depth: int | None) -> int:
    """About how many states hold at most ``sessions`` of the forms of ``distances``
    (form -> steps from the fresh form) within ``depth`` steps; see the module docstring."""
    if depth is None:
        return comb(len(distances) + sessions, sessions)
    by_age: dict[int, int] = {}
    for distance in distances.values():
        if distance + 1 <= depth:
            by_age[distance + 1] = by_age.get(distance + 1, 0) + 1
    most = min(sessions, depth)
    ways = [[0] * (depth + 1) for _ in range(most + 1)]  # ways[k][w]: k forms of total age w
    ways[0][0] = 1
    for age, count in by_age.items():
        for k in range(most, 0, -1):
            for w in range(depth, age - 1, -1):
                total = 0
                for m in range(1, min(k, w // age) + 1):
                    total += ways[k - m][w - m * age] * comb(count + m - 1, m)
                ways[k][w] += total
    return sum(sum(row) for row in ways)


class Watch:
    """Checks the estimate against ``budget`` while the forms are expanded (``fast.expand_forms``)."""

    def __init__(self, bounds: Bounds, budget: int | None, scale: float = 1.0, report=None) -> None:
        self.bounds = bounds
        self.budget = budget
        self.scale = scale
        self.report = report  # called with (distances, level) after each level, for progress

    def level(self, distances: dict[int, int], known_depth: int, more: bool) -> None:
        """After a level: every form of ``distances`` up to ``known_depth - 1`` steps
        is known (every form, when not ``more``). Raises ``TooLarge``."""
        if self.report is not None:
            self.report(distances, known_depth - 1)
        if self.budget is None:
            return
        depth = self.bounds.depth
        partial = more and (depth is None or known_depth < depth)
        found = self._estimate(distances, depth)  # forms found later only add states: a lower bound
        if found > self.budget:
            raise TooLarge(found, self.budget, partial)

    def final(self, distances: dict[int, int]) -> int:
        """The estimate once every form is known; ``TooLarge`` above the budget."""
        found = self._estimate(distances, self.bounds.depth)
        if self.budget is not None and found > self.budget:
            raise TooLarge(found, self.budget)
        return found

    def _estimate(self, distances: dict[int, int], depth: int | None) -> int:
        return int(estimate_states(distances, self.bounds.sessions, depth) * self.scale)


SAMPLE_STATES = 4000
"""States the reference explorer walks to sample the growth of its levels."""


def reference_sample(bounds: Bounds, profile: Profile = DEFAULT_PROFILE, symmetry: bool = True) -> tuple[int, bool]:
    """(estimate, exact) for ``explore_spec`` within a depth-bounded ``bounds``: walk
    ``SAMPLE_STATES`` states; when that does not finish, grow the last complete level
    geometrically (by its ratio to the level before) down to ``bounds.depth``."""
    from mcp_resume.model.explore.plain import explore_spec

    sample = explore_spec(bounds, profile, symmetry=symmetry, max_states=SAMPLE_STATES)
    if sample.complete:
        return sample.states, True
    levels = sample.levels[:-1]  # the last one is cut short
    if len(levels) < 2:
        return sample.states, False
    growth = max(1.0, levels[-1] / max(1, levels[-2]))
    found, level = float(sum(levels)), float(levels[-1])
    for _ in range(len(levels), bounds.depth + 1):
        level *= growth
        found += level
    return int(found), False


def estimate_reference(bounds: Bounds, profile: Profile = DEFAULT_PROFILE, symmetry: bool = True,
                       budget: int | None = None, workers: int = 1) -> int:
    """About how many states ``explore_spec`` finds within ``bounds``; ``TooLarge``
    above ``budget``. With a depth bound, ``reference_sample``; without one, the
    fast explorer's estimate (``estimate_states``), scaled by the ratio of the two
    at ``SAMPLE_DEPTH`` steps when ``symmetry`` is off."""
    from mcp_resume.model.explore.fast import SessionTable, _global_actions, expand_forms

    if bounds.depth is not None:
        found, _ = reference_sample(bounds, profile, symmetry)
        if budget is not None and found > budget:
            raise TooLarge(found, budget)
        return found
    scale = 1.0
    if not symmetry:
        sample = Bounds(bounds.sessions, bounds.streams, bounds.events, bounds.requests, SAMPLE_DEPTH)
        scale = reference_sample(sample, profile, False)[0] / max(1, reference_sample(sample, profile, True)[0])
    watch = Watch(bounds, budget, scale)
    table = SessionTable(bounds, profile)
    world = _global_actions(table)
    return watch.final(expand_forms(table, world.fresh, bounds, None, workers, watch))
