"""The explorers: the reference one and the fast one find the same state space, every
step of the fast one is ``spec.transitions.step``'s, and broken rules come with
shortest traces that replay."""

import pytest

from mcp_resume.model.explore import fast
from mcp_resume.model.explore.canonical import canonical_key, server_key
from mcp_resume.model.harness.checker import SpecSanityError, Counterexample, replay
from mcp_resume.model.explore.fast import SessionTable, explore_fast, moves
from mcp_resume.spec.space import NAMED_BOUNDS, Bounds, within
from mcp_resume.spec.space import candidate_actions
from mcp_resume.model.explore.plain import explore_spec
from mcp_resume.model.servers.inprocess import SpecAdapter
from mcp_resume.spec import invariants
from mcp_resume.spec.decision import Branch
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.state import INITIAL_STATE
from mcp_resume.spec.trace import loads
from mcp_resume.spec.transitions import step_if_enabled

from tests.helpers.explorer import counts, expanded_forms


@pytest.mark.parametrize("profile", [Profile.BOUNDARY, Profile.MCP_2025_11_25, Profile.MCP_2025_03_26])
def test_the_explorers_agree_under_every_session_era_profile(profile):
    bounds = Bounds(sessions=2, streams=1, events=2, requests=1, depth=5)
    assert counts(explore_fast(bounds, profile)) == counts(explore_spec(bounds, profile))


def test_a_session_holds_an_event_or_a_request_only_after_two_steps_of_its_own():
    bounds = Bounds(sessions=2, streams=1, events=1, requests=1, depth=6)
    table = SessionTable(bounds, Profile.BOUNDARY)
    fresh = fast._global_actions(table).fresh
    assert fast._own_steps_to_hold(table, fresh) == 0  # nothing expanded yet: no bound to claim
    fast.expand_forms(table, fresh, bounds)
    assert fast._own_steps_to_hold(table, fresh) == 2  # a stream first, then an event on it


def test_another_sessions_ids_are_stepped_only_for_forms_a_state_with_one_can_hold(monkeypatch):
    """Skipping them elsewhere changes no count, and does skip steps."""
    bounds = Bounds(sessions=2, streams=2, events=2, requests=1, depth=6)
    skipping = explore_fast(bounds)
    monkeypatch.setattr(fast, "_foreign_needed", lambda table, fresh, bounds, distance: True)
    everywhere = explore_fast(bounds)
    assert counts(skipping) == counts(everywhere)
    assert skipping.notes["session_steps"] < everywhere.notes["session_steps"]


def test_every_successor_of_the_fast_explorer_is_a_successor_by_step_and_none_is_missing():
    bounds = Bounds(sessions=2, streams=2, events=2, requests=1, depth=5)
    expected: dict = {}

    def record(source, transition, target):
        if target != source:
            expected.setdefault(source, set()).add(target)

    explore_spec(bounds, record=record)
    table = SessionTable(bounds, Profile.BOUNDARY)
    fresh = fast._global_actions(table).fresh
    checked = 0
    for source, targets in expected.items():
        ids = tuple(sorted(table.intern(form) for form in source))
        found = {tuple(sorted(table.forms[i] for i in key)) for key, _ in moves(table, fresh, bounds, ids)}
        assert found == targets, source
        checked += 1
    assert checked > 100  # every state expanded within the bound


def test_a_composed_step_is_the_step_of_the_whole_state():
    """For each state of a small bound and each action, ``step`` on the whole state
    lands on the canonical form the session table predicts."""
    bounds = Bounds(sessions=2, streams=1, events=2, requests=1, depth=4)
    table = SessionTable(bounds, Profile.BOUNDARY)
    fresh = fast._global_actions(table).fresh
    states = {}
    explore_spec(bounds, record=lambda source, t, target: states.setdefault(source, t.before))
    for key, state in states.items():
        ids = tuple(sorted(table.intern(form) for form in key))
        predicted = {tuple(sorted(table.forms[i] for i in k)) for k, _ in moves(table, fresh, bounds, ids)}
        for action in candidate_actions(state):
            transition = step_if_enabled(state, action)
            if transition is None:
                continue
            after = transition.after
            if within(after, bounds) and canonical_key(after) != key:
                assert canonical_key(after) in predicted, (key, action)


def test_symmetry_reduction_merges_states_that_differ_only_in_names():
    bounds = Bounds(sessions=2, streams=2, events=2, requests=1, depth=5)
    reduced = explore_spec(bounds, symmetry=True)
    plain = explore_spec(bounds, symmetry=False)
    assert reduced.states < plain.states
    assert reduced.levels[:3] == plain.levels[:3]  # nothing to merge before a second entity exists
    assert set(reduced.coverage.actions) == set(plain.coverage.actions)


def test_the_depth_bound_stops_the_search_and_counts_levels():
    result = explore_fast(Bounds(sessions=2, streams=2, events=3, requests=1, depth=3))
    assert result.depth == 3 and len(result.levels) == 4 and sum(result.levels) == result.states


def test_a_run_that_cannot_reach_everything_is_vacuous():
    result = explore_fast(Bounds(sessions=1, streams=0, events=0, requests=0))
    assert result.vacuous and not result.holds
    assert "emit_event" in result.coverage.missing_actions
    assert Branch.STREAM_RESUMPTION.value in result.coverage.missing_branches


def test_progress_is_reported_during_a_long_run(monkeypatch):
    monkeypatch.setattr(fast, "PROGRESS_EVERY", 50)
    seen = []
    explore_fast(NAMED_BOUNDS["small"], progress=lambda r: seen.append(r.states))
    assert len(seen) >= 3 and seen == sorted(seen)


def _two_streams_break_expiry(state):
    return [f"{s.id} has two streams" for s in state.sessions if len(state.streams_of(s.id)) >= 2]


def _any_replay_breaks_suffix(t):
    if t.outcome is not None and t.outcome.branch is Branch.STREAM_RESUMPTION and t.observation.events:
        return ["replayed something"]
    return []


@pytest.fixture
def broken_state_invariant(monkeypatch):
    monkeypatch.setitem(invariants.STATE_INVARIANTS, "expiry-independent", _two_streams_break_expiry)


@pytest.fixture
def broken_transition_check(monkeypatch):
    checks = tuple((rule, _any_replay_breaks_suffix if rule == "replay-suffix" else check)
                   for rule, check in invariants.SERVER_CHECKS)
    monkeypatch.setattr(invariants, "SERVER_CHECKS", checks)


@pytest.mark.parametrize("explore", [explore_fast, explore_spec], ids=["fast", "reference"])
def test_a_broken_state_invariant_comes_with_its_shortest_trace(broken_state_invariant, explore, tmp_path):
    result = explore(Bounds(sessions=2, streams=2, events=1, requests=1, depth=5))
    violation = result.violations["expiry-independent"]
    assert violation.steps == 3  # initialize, call_tool, call_tool: nothing shorter has two streams
    assert [a.kind for a in violation.trace.actions] == ["initialize", "call_tool", "call_tool"]
    assert violation.trace.source == "explorer" and violation.trace.failure.step == 3
    path = tmp_path / "trace.json"
    path.write_text(violation.trace.dumps())
    with pytest.raises(SpecSanityError, match="expiry-independent"):  # a state invariant checks the spec itself
        replay(loads(path.read_text()), SpecAdapter())


@pytest.mark.parametrize("explore", [explore_fast, explore_spec], ids=["fast", "reference"])
def test_a_broken_transition_check_comes_with_its_shortest_trace(broken_transition_check, explore):
    result = explore(Bounds(sessions=2, streams=1, events=2, requests=1, depth=6))
    violation = result.violations["replay-suffix"]
    # initialize, call_tool, emit, emit, then resume from the first event: the second is replayed
    assert violation.steps == 5
    assert violation.trace.actions[-1].kind == "reconnect"
    with pytest.raises(Counterexample) as failed:
        replay(violation.trace, SpecAdapter())
    assert failed.value.trace.failure.step == 5


def test_the_initial_state_has_no_session_and_holds():
    assert canonical_key(INITIAL_STATE) == ()
    assert explore_fast(Bounds(sessions=0, streams=0, events=0, requests=0)).states == 1


def test_a_transition_check_broken_on_one_server_side_is_found_on_every_form_with_it(broken_transition_check):
    """A finding of a reused step is the first form's finding: it is filed for each form."""
    bounds = Bounds(sessions=2, streams=1, events=2, requests=1, depth=6)
    reusing, expanded = expanded_forms(bounds)
    failing = [n for n, e in enumerate(expanded) if e is not None and e[3]]
    assert len({server_key(reusing.forms[n]) for n in failing}) < len(failing)  # some forms share one
