"""Real client traffic: the official Python SDK's Streamable HTTP client
(``mcp.client.streamable_http``, ``tests.traffic_runs.sdk_clients``) through the
recording proxy and its live checker, as ``mcp-resume proxy`` runs them.

The embedded python-sdk target is started for real; the faulty designs are served
over HTTP on 127.0.0.1. Each finding the proxy reports live is one ``validate``
gives on the recording and one ``verify`` gives on the same server.
``fixtures/python-sdk-client.har`` is such a recording (python-sdk target, mcp
2.3.0), exported as HAR 1.2.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from mcp_resume.cli import main
from mcp_resume.model.serving.designs_over_http import verify_server_over_http
from mcp_resume.model.http.evidence import End
from mcp_resume.model.traffic.records import read
from mcp_resume.model.traffic.validate import validate
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

from tests.traffic_runs import recorded_live, scenario, sdk_clients, session_of

HAR = Path(__file__).parent / "fixtures" / "python-sdk-client.har"
pytestmark = pytest.mark.timeout(300)


def _failed(validation) -> set[str]:
    return {r.rule for r in validation.results if r.verdict is Verdict.FAIL}


@pytest.mark.slow
def test_the_sdk_clients_traffic_shows_the_python_sdks_cross_session_replay_live_and_in_the_recording():
    records, live = recorded_live("python-sdk", sdk_clients)
    result = validate(records, Profile.BOUNDARY)
    crossing = result.result("no-cross-session")
    assert crossing.verdict is Verdict.FAIL and "on a connection of session" in crossing.reason
    assert live == _failed(result)
    # what the run exercised: two sessions at once (and a third that leaves during a call), the
    # SDK's own stream resumption after the server closed a stream, a connection the client
    # dropped, and DELETE
    assert len({session_of(r) for r in records} - {None}) == 3
    first = session_of(next(r for r in records if session_of(r)))
    own = [r for r in records if r.exchange.method == "GET" and session_of(r) == first
           and "last-event-id" in r.exchange.request_headers]
    assert own and result.result("replay-suffix").verdict is Verdict.PASS
    assert any(r.exchange.end is End.DROPPED and r.exchange.method == "POST" for r in records)
    assert {r.exchange.status for r in records if r.exchange.method == "DELETE"} <= {200, 204}


@pytest.mark.parametrize("name", ["reference", "variation-cancel", "variation-ring-buffer", "variation-reserialised"])
def test_correct_servers_give_the_sdk_clients_traffic_no_fail(name):
    records, live = recorded_live(name, sdk_clients)
    result = validate(records, Profile.BOUNDARY)
    assert not live and not result.failed, [r.reason for r in result.results if r.verdict is Verdict.FAIL]


@functools.cache
def _verify_failed(name: str) -> frozenset[str]:
    report = verify_server_over_http(name, Profile.BOUNDARY)
    return frozenset(v.rule for v in report.verdicts if v.verdict is Verdict.FAIL)


@pytest.mark.slow
@pytest.mark.parametrize("design, run", [
    (1, scenario), (2, scenario), (2, sdk_clients), (4, scenario), (7, sdk_clients), (10, sdk_clients), (11, scenario),
])
def test_each_live_finding_of_the_proxy_is_found_by_validate_and_by_verify(design, run):
    name = f"design-{design}"
    records, live = recorded_live(name, run)
    assert live, f"{name}: the proxy found nothing live"
    assert _failed(validate(records, Profile.BOUNDARY)) == live
    assert live <= _verify_failed(name), f"{name}: verify FAILs {sorted(_verify_failed(name))}"


def test_the_committed_har_recording_of_the_sdk_client_validates_as_it_was_recorded(tmp_path):
    records = read(HAR)
    assert {r.timed for r in records} == {False}  # HAR keeps no per-event times
    result = validate(records, Profile.BOUNDARY)
    assert _failed(result) == {"no-cross-session", "reject-foreign-event-id"}
    held = {r.rule for r in result.results if r.verdict is Verdict.PASS}
    assert {"replay-suffix", "session-delete", "event-id-unique"} <= held
    # no server request was pending at a session resumption: a PASS there would be vacuous
    assert "reemit-pending" not in held
    # new messages went out while other connections of the session were open: one stream each (B21)
    assert "no-broadcast" in held
    report = tmp_path / "report.json"
    assert main(["validate", str(HAR), "--format", "har", "--json", str(report)]) == 1
    assert '"no-cross-session"' in report.read_text()
