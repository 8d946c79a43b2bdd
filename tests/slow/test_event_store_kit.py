"""The EventStore test kit: by default it checks a store as the SDK wires it (one store for all
sessions), where the SDK's own example store FAILs; checked per session, correct stores pass,
faulty designs 1, 2 and 7 written as stores are caught by the rule they break, and the report
says what no store can do."""

from __future__ import annotations

import asyncio
import functools
import json

from tests.helpers import event_stores as stores
import pytest

from mcp_resume.model.harness.checker import Counterexample, replay
from mcp_resume.model.targets.python_sdk_server import InMemoryEventStore
from mcp_resume.spec.designs import design as spec_design
from mcp_resume.testing import (
    ISOLATION_STATEMENT,
    PER_SESSION,
    SHARED,
    EventStoreTransport,
    ReferenceEventStore,
    check_event_store,
)

SQLITE_EXAMPLES = 80


@pytest.fixture(scope="module")
def memory_report():
    return check_event_store(stores.MemoryEventStore, deployment=PER_SESSION)


@pytest.fixture(scope="module")
def sqlite_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("sqlite") / "events.db"
    return path, check_event_store(functools.partial(stores.SqliteEventStore, path), examples=SQLITE_EXAMPLES,
                                   deployment=PER_SESSION)


@pytest.mark.xdist_group("test_event_store_kit")  # shares a module-scoped fixture
@pytest.mark.covers("replay-suffix", "no-cross-session", "event-id-unique")
def test_a_correct_in_memory_store_passes(memory_report):
    report = memory_report
    assert report.passed, report.explain()
    assert report.failure is None and report.warnings == {}
    assert report.isolation.startswith("held")
    assert report.actions_run > 1000 and report.skipped == {}
    assert [p.name for p in report.contract] == ["resume-from-priming"] and report.contract[0].held


@pytest.mark.xdist_group("test_event_store_kit")  # shares a module-scoped fixture
@pytest.mark.covers("replay-suffix", "no-cross-session", "event-id-unique")
def test_a_correct_store_on_a_real_sqlite_file_passes(sqlite_run):
    path, report = sqlite_run
    assert report.passed, report.explain()
    rows = stores.sqlite_rows(path)
    assert len({row["scope"] for row in rows}) > 20, "one scope per store instance, all in one file"
    assert any(row["message"] is None for row in rows), "priming events were stored"
    assert any(row["stream_id"] == "_GET_stream" for row in rows), "the standalone stream key is the SDK's"
    assert any(row["message"] and row["message"].get("method") == "elicitation/create" for row in rows)


FAULTY = {
    "design-1-per-session-cursor": (1, lambda tmp: stores.PerSessionCursorStore),
    "design-2-global-log": (2, lambda tmp: stores.global_log_stores()),
    "design-2-one-sqlite-table": (2, lambda tmp: functools.partial(stores.SqliteEventStore, tmp / "g.db", scoped=False)),
    "design-7-off-by-one": (7, lambda tmp: stores.OffByOneStore),
}


@pytest.fixture(scope="module")
def faulty_reports(tmp_path_factory):
    """``faulty_reports[name]``: the kit's report on that faulty store, made on first use."""
    tmp = tmp_path_factory.mktemp("faulty")

    class Reports(dict):
        def __missing__(self, name: str):
            self[name] = check_event_store(FAULTY[name][1](tmp), deployment=PER_SESSION)
            return self[name]

    return Reports()


@pytest.mark.xdist_group("test_event_store_kit")  # shares a module-scoped fixture
@pytest.mark.covers("replay-suffix", "no-cross-session")
@pytest.mark.parametrize("name", sorted(FAULTY))
def test_faulty_designs_written_as_stores_are_caught_by_the_rule_they_break(faulty_reports, name):
    report = faulty_reports[name]
    design = FAULTY[name][0]
    assert not report.passed
    assert report.failure.rule in spec_design(design).rules, report.explain()
    assert report.confirmed is True, "the same trace holds with the reference store"


@pytest.mark.xdist_group("test_event_store_kit")  # shares a module-scoped fixture
def test_design_1_replays_another_streams_events(faulty_reports):
    report = faulty_reports["design-1-per-session-cursor"]
    assert report.failure.rule == "no-cross-session" and "of stream" in report.failure.message
    priming = report.contract[0]
    assert not priming.held and "b1" in priming.observed


@pytest.mark.xdist_group("test_event_store_kit")  # shares a module-scoped fixture
@pytest.mark.parametrize("name", ["design-2-global-log", "design-2-one-sqlite-table"])
def test_design_2_resolves_another_sessions_event_id(faulty_reports, name):
    report = faulty_reports[name]
    assert report.failure.rule == "no-cross-session" and report.isolation == "broken"
    assert "of session" in report.failure.message


@pytest.mark.xdist_group("test_event_store_kit")  # shares a module-scoped fixture
def test_design_7_includes_the_cursors_own_event(faulty_reports):
    report = faulty_reports["design-7-off-by-one"]
    assert report.failure.rule == "replay-suffix"
    assert "cursor's own event" in report.failure.message


@pytest.mark.xdist_group("test_event_store_kit")  # shares a module-scoped fixture
def test_the_counterexample_trace_replays_on_the_store_and_holds_on_the_reference(faulty_reports):
    trace = faulty_reports["design-7-off-by-one"].trace
    with pytest.raises(Counterexample) as failed:
        replay(trace, EventStoreTransport(stores.OffByOneStore))
    assert failed.value.trace.failure.step == trace.failure.step
    assert len(replay(trace, EventStoreTransport(ReferenceEventStore))) == len(trace.actions)


def test_under_an_mcp_revision_off_by_one_is_a_warning_not_a_failure():
    report = check_event_store(stores.OffByOneStore, profile="mcp-2025-11-25", examples=60,
                               deployment=PER_SESSION)
    assert report.passed and "replay-suffix" in report.warnings


@pytest.mark.covers("no-cross-session")
def test_by_default_the_sdks_example_store_fails_as_the_sdk_wires_it():
    """The SDK's example InMemoryEventStore, checked with no options: the deployment of
    ``streamable_http_app(event_store=...)``, one store for every session (issue 40)."""
    report = check_event_store(InMemoryEventStore, examples=20)
    assert report.deployment == SHARED and not report.passed and report.isolation == "broken"
    first = report.explain().splitlines()[0]
    assert first.startswith("EventStore check of ") and ": FAIL: [no-cross-session] leak between sessions" in first
    assert "BoundedEventStore" in report.explain()
    assert check_event_store(InMemoryEventStore, examples=20, deployment=PER_SESSION).passed


# -- smaller faults, each caught where it shows ------------------------------------


@pytest.mark.covers("event-id-unique")
def test_an_event_id_returned_twice_is_caught():
    report = check_event_store(stores.RepeatingIdStore, examples=40, deployment=PER_SESSION)
    assert report.failure.rule == "event-id-unique" and "twice" in report.failure.message


def test_a_replayed_priming_event_is_caught():
    report = check_event_store(stores.PrimingReplayStore, examples=60)
    assert report.failure.rule == "replay-suffix" and "without a message" in report.failure.message


def test_a_store_that_cannot_resume_from_a_priming_event_fails_the_contract():
    report = check_event_store(stores.ForgetsPrimingStore, examples=30)
    assert report.failure is None and not report.passed
    assert not report.contract[0].held and "named stream None" in report.contract[0].observed


def test_a_store_with_plain_methods_is_told_the_sdk_awaits_them():
    report = check_event_store(stores.SyncStore, examples=5)
    assert not report.passed and "async def" in report.failure.message


def test_ids_that_repeat_across_sessions_pass_with_a_note():
    report = check_event_store(stores.CountingIdStore, examples=60, deployment=PER_SESSION)
    assert report.passed, report.explain()
    assert report.skipped.get("reconnect", 0) > 0
    assert any("repeat across store instances" in note for note in report.notes())


# -- what no store can do: the SDK's shared deployment -----------------------------


@pytest.mark.xdist_group("test_event_store_kit")  # shares a module-scoped fixture
def test_the_report_states_when_isolation_cannot_be_guaranteed_and_what_to_do(memory_report):
    text = memory_report.explain()
    assert ISOLATION_STATEMENT in text
    assert "its own view" in ISOLATION_STATEMENT and "BoundedEventStore" in ISOLATION_STATEMENT
    limits = {p.name: p for p in memory_report.limits}
    assert set(limits) == {"foreign-cursor", "request-id-collision", "shared-standalone-key", "reused-standalone-key"}
    assert all(not p.held for p in limits.values()), "every correct store is exposed: these are the SDK's limits"
    assert "'A2'" in limits["foreign-cursor"].observed and "'B1'" in limits["request-id-collision"].observed
    assert all(p.why and p.remedy for p in limits.values())


@pytest.mark.covers("replay-suffix", "event-id-unique")
def test_shared_deployment_checks_the_rest_and_fails_on_the_leaks_it_observed():
    report = check_event_store(stores.MemoryEventStore, deployment=SHARED, examples=80)
    assert report.failure is None and all(p.held for p in report.contract), report.explain()
    assert not report.passed and report.isolation == "broken" and report.leaks
    assert report.skipped.get("reconnect", 0) > 0
    assert any("never told which session asks" in note for note in report.notes())


def test_shared_deployment_still_catches_off_by_one():
    report = check_event_store(stores.OffByOneStore, deployment=SHARED, examples=80)
    assert report.failure.rule == "replay-suffix"


@pytest.mark.xdist_group("test_event_store_kit")  # shares a module-scoped fixture
def test_the_report_is_json(faulty_reports):
    data = json.loads(json.dumps(faulty_reports["design-7-off-by-one"].to_json()))
    assert data["format"] == "mcp-resume-event-store-report/1" and data["passed"] is False
    assert data["failure"]["rule"] == "replay-suffix" and data["trace"]["format"] == "mcp-resume-trace/1"
    assert data["isolation"]["statement"] == ISOLATION_STATEMENT
    assert len(data["limits"]) == 4 and data["contract"][0]["name"] == "resume-from-priming"


def test_the_same_store_gets_the_same_verdict_every_time():
    first = check_event_store(stores.OffByOneStore, examples=40)
    second = check_event_store(stores.OffByOneStore, examples=40)
    assert first.trace.actions == second.trace.actions and first.failure == second.failure


def test_the_kit_can_be_called_from_an_async_test():
    async def inside_a_running_loop():
        return check_event_store(stores.MemoryEventStore, examples=10, deployment=PER_SESSION)

    assert asyncio.run(inside_a_running_loop()).passed


# -- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "factory, options, error, words",
    [
        (stores.MemoryEventStore(), {}, TypeError, "factory of stores"),
        (lambda: object(), {}, TypeError, "lacks store_event and replay_events_after"),
        (stores.MemoryEventStore, {"examples": 0}, ValueError, "positive integer"),
        (stores.MemoryEventStore, {"profile": "mcp-2026-07-28"}, ValueError, "no event store to check"),
        (stores.MemoryEventStore, {"profile": "nope"}, ValueError, "known profiles"),
        (stores.MemoryEventStore, {"deployment": "global"}, ValueError, "per-session, shared"),
    ],
)
def test_bad_input_is_refused_with_a_message_that_says_what_to_do(factory, options, error, words):
    with pytest.raises(error, match=words):
        check_event_store(factory, **options)


# -- the pytest plugin: the lines a user adds ----------------------------------------


def test_the_pytest_plugin_runs_the_five_lines_of_the_readme(pytester):
    pytester.makepyfile(
        my_store=(
            "from mcp.server.streamable_http import EventMessage, EventStore\n"
            "class OffByOne(EventStore):\n"
            "    def __init__(self):\n        self.events = []\n"
            "    async def store_event(self, stream_id, message):\n"
            "        self.events.append((f'{id(self)}-{len(self.events)}', stream_id, message))\n"
            "        return self.events[-1][0]\n"
            "    async def replay_events_after(self, last_event_id, send_callback):\n"
            "        ids = [e[0] for e in self.events]\n"
            "        if last_event_id not in ids:\n            return None\n"
            "        _, stream, _ = self.events[ids.index(last_event_id)]\n"
            "        for event_id, key, message in self.events[ids.index(last_event_id):]:\n"
            "            if key == stream and message is not None:\n"
            "                await send_callback(EventMessage(message, event_id))\n"
            "        return stream\n"
        ),
        test_store=(
            "from my_store import OffByOne\n\n"
            "def test_my_event_store(event_store_check):\n"
            "    report = event_store_check(OffByOne)\n"
            "    assert report.passed, report.explain()\n"
        ),
    )
    result = pytester.runpytest_inprocess("--mcp-resume-examples", "30", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*EventStore check of my_store.OffByOne: FAIL*", "*replay-suffix*"])
