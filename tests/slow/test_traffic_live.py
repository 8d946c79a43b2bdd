"""The proxy's live checker (``model.oracle.live``) judges only what the final
validation will judge the same way: a moment of the recording replayed into it
with a chosen clock."""

from __future__ import annotations

import copy

import pytest

from mcp_resume.model.oracle.live import LiveChecker
from mcp_resume.model.traffic.trace_validation import REPLAY_WINDOW, validate
from mcp_resume.spec.profiles import Profile

from tests.helpers.traffic_runs import recorded, scenario, sdk_clients, session_of


def _as_at(records, moment: float):
    """The recording as the proxy had it at ``moment``: later exchanges not begun, later
    events not arrived, later ends not happened."""
    early = []
    for record in (copy.deepcopy(r) for r in records if r.started <= moment):
        kept = sum(1 for t in record.arrivals if t <= moment)
        record.exchange.events, record.arrivals = record.exchange.events[:kept], record.arrivals[:kept]
        if record.ended is not None and record.ended > moment:
            record.ended, record.exchange.end = None, None
        if record.head is not None and record.head > moment:
            record.head = None
        early.append(record)
    return early


def _live(records, now: float) -> set[str]:
    found: set[str] = set()
    checker = LiveChecker(Profile.BOUNDARY, lambda rule, result: found.add(rule.rule), lambda: now, interval=3600)
    for record in records:
        checker.started(record)
    checker.check()  # the worker's own check sees the same records at the same clock
    seen = set(found)
    checker.stop()  # its final validation counts every record: not what this moment shows
    return seen


def test_a_delete_whose_streams_have_not_ended_yet_is_not_judged_before_its_window_passed():
    records = recorded("reference", sdk_clients)
    assert not validate(records, Profile.BOUNDARY).failed
    delete = next(r for r in reversed(records) if r.exchange.method == "DELETE" and r.exchange.status in (200, 204))
    closed = {r.number for r in records if r.number != delete.number and session_of(r) == session_of(delete)
              and r.ended is not None and delete.started <= r.ended <= delete.ended + REPLAY_WINDOW}
    assert closed, "the run's DELETE closed no stream of its session"
    # just after the DELETE's answer, as if the streams it closes had not ended yet
    moment = delete.ended + 0.001
    early = _as_at(records, moment)
    for record in early:
        if record.number in closed:
            record.ended, record.exchange.end = None, None
    assert _live(early, moment) == set()
    assert _live(records, delete.ended + 2 * REPLAY_WINDOW) == set()


def _moments(records) -> list[float]:
    """Just after each start, response head, event and end of the recording."""
    times = set()
    for r in records:
        times.update(t for t in (r.started, r.head, r.ended) if t is not None)
        times.update(r.arrivals)
    return sorted(t + 0.001 for t in times)


@pytest.mark.parametrize("name", ["reference", "variation-cancel", "variation-ring-buffer", "variation-reserialised"])
@pytest.mark.parametrize("run", [scenario, sdk_clients])
def test_a_correct_servers_recording_gives_no_live_finding_at_any_moment(name, run):
    records = recorded(name, run)
    wrong = {}
    for moment in _moments(records):
        found = _live(_as_at(records, moment), moment)
        if found:
            wrong[round(moment, 3)] = sorted(found)
    assert not wrong, wrong
