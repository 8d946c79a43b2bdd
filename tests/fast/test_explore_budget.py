"""The fast explorer on several processes, its estimate, and the budgets that stop a runaway run."""

import json

import pytest

from mcp_resume.cli import main
from mcp_resume.model.explore import canonical, fast, state_space
from mcp_resume.model.explore.fast import explore_fast
from mcp_resume.model.explore.plain import explore_spec
from mcp_resume.spec.space import NAMED_BOUNDS, Bounds

from tests.helpers.explore_budget import expanded_table


def _counts(result):
    return (result.states, result.transitions, result.pruned, result.depth, result.levels,
            dict(result.coverage.actions), dict(result.coverage.branches))


@pytest.mark.parametrize("name", ["tiny", "small"])
def test_the_counts_are_the_manifests_with_one_and_two_workers(name):
    one, two = explore_fast(NAMED_BOUNDS[name], workers=1), explore_fast(NAMED_BOUNDS[name], workers=2)
    assert _counts(one) == _counts(two)
    assert state_space.differences(name, two) == [] and two.holds and two.complete


def test_a_level_of_forms_is_expanded_by_workers_as_in_this_process(monkeypatch):
    monkeypatch.setattr(fast.forms, "MIN_PARALLEL", 1)
    monkeypatch.setattr(fast.forms, "CHUNK", 7)
    bounds = Bounds(sessions=2, streams=2, events=2, requests=1, depth=5)
    here, table_here = expanded_table(bounds, 1)
    split, table_split = expanded_table(bounds, 2)
    assert here == split and table_here.forms == table_split.forms  # the same ids for the same forms
    for mine, theirs in zip(table_here.expansions, table_split.expansions):
        assert (mine is None) == (theirs is None)
        if mine is not None:
            assert (mine.moves, mine.successors, mine.forget, mine.counts, mine.pruned) == \
                   (theirs.moves, theirs.successors, theirs.forget, theirs.counts, theirs.pruned)


def test_answers_that_come_out_of_chunk_order_give_the_same_ids(monkeypatch):
    """The worker that claims the first chunk of a level holds it until the parent has the
    answer of a later chunk: the parent keeps that answer until its turn; ids and
    expansions are those of one process."""
    import multiprocessing

    monkeypatch.setattr(fast.forms, "MIN_PARALLEL", 4)  # a level on the workers has two chunks or more
    monkeypatch.setattr(fast.forms, "CHUNK", 3)
    bounds = Bounds(sessions=2, streams=2, events=2, requests=1, depth=5)
    here, table_here = expanded_table(bounds, 1)
    later_chunk_answered = multiprocessing.get_context("fork").Event()  # made before the workers' fork
    real_take, real_answer, arrived = fast.forms.Claims.take, fast.forms._answer, []

    def take_holding_the_first_chunk(read):
        number = real_take(read)
        if number == 0 and not later_chunk_answered.is_set():
            later_chunk_answered.wait(30)  # bounded: a worker that never answers fails the test, not CI
        return number

    def answer(message):
        number, found = real_answer(message)
        if number is not None:  # None: a worker's level is done
            arrived.append(number)
            if number != 0:
                later_chunk_answered.set()
        return number, found

    monkeypatch.setattr(fast.forms.Claims, "take", staticmethod(take_holding_the_first_chunk))
    monkeypatch.setattr(fast.forms, "_answer", answer)
    real_collect = fast.forms._collect
    monkeypatch.setattr(fast.forms, "_collect", lambda *args: arrived.append(None) or real_collect(*args))
    split, table_split = expanded_table(bounds, 2)
    assert here == split and table_here.forms == table_split.forms
    assert [mine.moves for mine in table_here.expansions if mine] == [theirs.moves for theirs in table_split.expansions if theirs]
    levels = [arrival.split() for arrival in " ".join(map(str, arrived)).split("None") if arrival.strip()]
    assert levels and levels[0][0] != "0"  # the first level on the workers: a later chunk came before chunk 0


def test_a_broken_rule_found_by_two_workers_has_the_shortest_trace(monkeypatch):
    from mcp_resume.spec import invariants

    monkeypatch.setitem(invariants.STATE_INVARIANTS, "expiry-independent",
                        lambda state: [f"{s.id} has two streams" for s in state.sessions if len(state.streams_of(s.id)) >= 2])
    result = explore_fast(Bounds(sessions=2, streams=2, events=1, requests=1, depth=5), workers=2)
    assert [a.kind for a in result.violations["expiry-independent"].trace.actions] == ["initialize", "call_tool", "call_tool"]


def test_the_one_session_canonical_form_is_the_general_one():
    states = {}
    explore_spec(Bounds(sessions=1, streams=2, events=2, requests=1, depth=6), symmetry=False,
                 record=lambda source, t, target: states.setdefault(target, t.after))
    assert len(states) > 500
    for state in states.values():
        if state.sessions:
            assert canonical._alone_form(state) == canonical._form(state, state.sessions[0].id, False)[0]


def test_a_runaway_bound_is_refused_with_the_estimate_and_the_flag(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["explore", "--bound", "tiny", "--sessions", "50", "--json", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "states estimated" in err and "--budget" in err and err.count("\n") == 1
    assert not out.exists()


def test_the_reference_engine_is_refused_above_its_budget(capsys):
    # small without symmetry reduction: 2,090 states, sampled exactly
    assert main(["explore", "--bound", "small", "--no-symmetry", "--budget", "1500", "--quiet"]) == 2
    assert "about 2,090 states estimated" in capsys.readouterr().err


@pytest.mark.parametrize("workers", ["1", "2"])
def test_max_states_stops_the_run_marked_incomplete(tmp_path, capsys, workers):
    out = tmp_path / "r.json"
    args = ["explore", "--bound", "tiny", "--sessions", "50", "--max-states", "3000", "--workers", workers]
    assert main([*args, "--json", str(out), "--quiet"]) == 3
    data = json.loads(out.read_text())
    assert data["complete"] is False and "--max-states 3,000" in data["stopped"] and not data["holds"]
    assert 3000 < data["states"] < 50_000 and data["manifest_differences"] is None
    assert "INCOMPLETE" in capsys.readouterr().out


def test_max_memory_stops_the_reference_engine(tmp_path):
    out = tmp_path / "r.json"
    assert main(["explore", "--bound", "small", "--reference", "--max-memory", "1", "--json", str(out), "--quiet"]) == 3
    data = json.loads(out.read_text())
    assert data["complete"] is False and "--max-memory 1 MB" in data["stopped"]


def _expanding_fails_at(monkeypatch, failure):
    """Form workers whose expansion of the fifth form ``failure()``s."""
    monkeypatch.setattr(fast.forms, "MIN_PARALLEL", 1)
    monkeypatch.setattr(fast.forms, "CHUNK", 2)
    real = fast.SessionTable._expand

    def expand(self, number, foreign):
        if number == 5:
            failure()
        return real(self, number, foreign)

    monkeypatch.setattr(fast.SessionTable, "_expand", expand)


def test_an_error_in_a_form_worker_is_raised_in_the_parent(monkeypatch):
    def fail():
        raise fast.FastEngineError("an action on one session changed another")

    _expanding_fails_at(monkeypatch, fail)
    with pytest.raises(fast.FastEngineError, match="changed another"):
        explore_fast(NAMED_BOUNDS["small"], workers=2)


def test_a_form_worker_that_dies_is_a_clear_error_and_leaves_no_process(monkeypatch):
    import os

    from tests.helpers.processes import child_pids

    _expanding_fails_at(monkeypatch, lambda: os._exit(9))
    before = set(child_pids(os.getpid()))  # other tests may have left helpers of their own
    with pytest.raises(fast.forms.WorkerFailed, match="died without answering"):
        explore_fast(NAMED_BOUNDS["small"], workers=2)
    assert set(child_pids(os.getpid())) <= before


def test_a_deep_runaway_bound_is_refused_from_its_first_levels(capsys):
    """The estimate once counted only the states as deep as the forms expanded so far: this
    bound ran for minutes without being refused. Forms found later only add states, so the
    estimate from the first levels is a lower bound of the run's size."""
    args = ["explore", "--sessions", "3", "--streams", "3", "--events", "3", "--requests", "2", "--depth", "12", "--quiet"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "at least" in err and "above the budget of 4,000,000" in err and "--budget well above that" in err
