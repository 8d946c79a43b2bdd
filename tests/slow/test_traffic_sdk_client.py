"""Real client traffic: the official Python SDK's Streamable HTTP client
(``mcp.client.streamable_http``, ``tests.helpers.traffic_runs.sdk_clients``) through the
recording proxy and its live checker, as ``mcp-resume proxy`` runs them.

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_traffic_sdk_client.py``, whose docstring says more.
"""

from __future__ import annotations

import functools

import pytest

from mcp_resume.model.serving.designs_over_http import verify_server_over_http
from mcp_resume.model.http.evidence import End
from mcp_resume.model.traffic.trace_validation import validate
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

from tests.helpers.traffic_runs import recorded_live, scenario, sdk_clients, session_of

from tests.helpers.traffic_sdk_client import failed


pytestmark = pytest.mark.timeout(300)


def test_the_sdk_clients_traffic_shows_the_python_sdks_cross_session_replay_live_and_in_the_recording():
    records, live = recorded_live("python-sdk", sdk_clients)
    result = validate(records, Profile.BOUNDARY)
    crossing = result.result("no-cross-session")
    assert crossing.verdict is Verdict.FAIL and "on a connection of session" in crossing.reason
    assert live == failed(result)
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


@pytest.mark.parametrize("design, run", [
    (1, scenario), (2, scenario), (2, sdk_clients), (4, scenario), (7, sdk_clients), (10, sdk_clients), (11, scenario),
])
def test_each_live_finding_of_the_proxy_is_found_by_validate_and_by_verify(design, run):
    name = f"design-{design}"
    records, live = recorded_live(name, run)
    assert live, f"{name}: the proxy found nothing live"
    assert failed(validate(records, Profile.BOUNDARY)) == live
    assert live <= _verify_failed(name), f"{name}: verify FAILs {sorted(_verify_failed(name))}"
