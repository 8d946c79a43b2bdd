"""The fast explorer on several processes, its estimate, and the budgets that stop a runaway run."""

import pytest

from mcp_resume.model.explore import estimate, fast, search, state_space
from mcp_resume.model.explore.fast import explore_fast
from mcp_resume.spec.space import NAMED_BOUNDS

from tests.helpers.explore_budget import expanded_table


@pytest.mark.parametrize("name", ["graph", "tiny", "small", "kill"])
def test_the_estimate_is_close_to_what_the_search_finds(name):
    bounds = NAMED_BOUNDS[name]
    distances, _ = expanded_table(bounds, 1)
    found = state_space.expected(name, fast.DEFAULT_PROFILE)["states"]
    assert abs(estimate.estimate_states(distances, bounds.sessions, bounds.depth) - found) <= found // 100


@pytest.mark.timeout(120)
def test_a_split_walk_stopped_at_max_states_ends_when_workers_leave_a_level_at_different_times(monkeypatch):
    """A worker once read the stop flag after the level's barrier: it saw a stop set in the
    next level by a worker that had gone on, left, and that worker waited for it for ever.
    Now the parent decides once per level for every worker; here the forked workers are
    slow to report each level, so the parent's worker has long finished its own."""
    import os
    import time

    parent, real = os.getpid(), search._Link.level

    def late(self, found, shared):
        if os.getpid() != parent:
            time.sleep(0.05)
        return real(self, found, shared)

    monkeypatch.setattr(search._Link, "level", late)
    bounds = NAMED_BOUNDS["default"]
    table = fast.SessionTable(bounds, fast.DEFAULT_PROFILE)
    world = fast._global_actions(table)
    fast.expand_forms(table, world.fresh, NAMED_BOUNDS["kill"])
    plan = fast._plan(table, world.fresh, NAMED_BOUNDS["kill"], 3000, None, 200)
    for _ in range(3):
        tally = search._search_split(plan, 3, None)
        assert tally.stopped and "--max-states 3,000" in tally.stopped and tally.states > 3000


@pytest.mark.timeout(60)
def test_a_split_walk_whose_worker_dies_is_an_error_not_a_wait(monkeypatch):
    import os

    real = search._child

    def dying(channel, index, plan, shared):
        if index == 0:
            os._exit(9)  # as if killed: no message, no result
        real(channel, index, plan, shared)

    monkeypatch.setattr(search, "_child", dying)
    bounds = NAMED_BOUNDS["kill"]
    table = fast.SessionTable(bounds, fast.DEFAULT_PROFILE)
    world = fast._global_actions(table)
    fast.expand_forms(table, world.fresh, bounds)
    with pytest.raises(RuntimeError, match="died"):
        search._search_split(fast._plan(table, world.fresh, bounds, None, None, 200), 3, None)


def test_a_walk_split_over_workers_counts_what_one_process_counts():
    """``search.search`` walks in one process below ``SPLIT_FROM`` workers; the split
    walk, which larger machines get, must count the same."""
    from mcp_resume.model.explore import search

    bounds = NAMED_BOUNDS["kill"]
    table = fast.SessionTable(bounds, fast.DEFAULT_PROFILE)
    world = fast._global_actions(table)
    fast.expand_forms(table, world.fresh, bounds)
    plan = fast._plan(table, world.fresh, bounds, None, None, fast.PROGRESS_EVERY)
    here, split = search._search_here(plan, None), search._search_split(plan, 2, None)
    assert (here.states, here.levels, here.expanded, here.form_weight, here.restarts) == \
           (split.states, split.levels, split.expanded, split.form_weight, split.restarts)


def test_the_estimate_so_far_never_passes_the_final_one():
    bounds = NAMED_BOUNDS["kill"]  # six levels of forms; the default bound's nine take a minute
    seen = []
    watch = estimate.Watch(bounds, None, report=lambda distances, level: seen.append(dict(distances)))
    table = fast.SessionTable(bounds, fast.DEFAULT_PROFILE)
    final = watch.final(fast.expand_forms(table, fast._global_actions(table).fresh, bounds, None, 1, watch))
    so_far = [estimate.estimate_states(distances, bounds.sessions, bounds.depth) for distances in seen]
    assert so_far == sorted(so_far) and so_far[-1] <= final and len(so_far) >= 5


def test_max_memory_stops_the_fast_engine_while_it_expands_session_forms(monkeypatch):
    """The forms take most of a run's time and memory: a process already above the limit
    stops after the first level of forms, not after all of them."""
    bounds = NAMED_BOUNDS["kill"]
    whole = explore_fast(bounds)
    monkeypatch.setattr(search, "resident_mb", lambda: 1000.0)
    stopped = explore_fast(bounds, max_memory=500)
    assert stopped.stopped and "--max-memory 500 MB" in stopped.stopped and not stopped.exhausted
    assert stopped.notes["session_forms"] < whole.notes["session_forms"] / 10
    assert stopped.states < whole.states
