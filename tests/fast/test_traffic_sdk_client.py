"""Real client traffic: the official Python SDK's Streamable HTTP client
(``mcp.client.streamable_http``, ``tests.helpers.traffic_runs.sdk_clients``) through the
recording proxy and its live checker, as ``mcp-resume proxy`` runs them.

The embedded python-sdk target is started for real; the faulty designs are served
over HTTP on 127.0.0.1. Each finding the proxy reports live is one ``validate``
gives on the recording and one ``verify`` gives on the same server.
``tests/helpers/recordings/python-sdk-client.har`` is such a recording (python-sdk target, mcp
2.3.0), exported as HAR 1.2.
"""

from __future__ import annotations

import pytest

from mcp_resume.cli import main
from mcp_resume.model.traffic.records import read
from mcp_resume.model.traffic.trace_validation import validate
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

from tests.helpers.traffic_runs import RECORDINGS

from tests.helpers.traffic_sdk_client import failed


HAR = RECORDINGS / "python-sdk-client.har"
pytestmark = pytest.mark.timeout(300)


def test_the_committed_har_recording_of_the_sdk_client_validates_as_it_was_recorded(tmp_path):
    records = read(HAR)
    assert {r.timed for r in records} == {False}  # HAR keeps no per-event times
    result = validate(records, Profile.BOUNDARY)
    assert failed(result) == {"no-cross-session", "reject-foreign-event-id"}
    held = {r.rule for r in result.results if r.verdict is Verdict.PASS}
    assert {"replay-suffix", "session-delete", "event-id-unique"} <= held
    # no server request was pending at a session resumption: a PASS there would be vacuous
    assert "reemit-pending" not in held
    # new messages went out while other connections of the session were open: one stream each (B21)
    assert "no-broadcast" in held
    report = tmp_path / "report.json"
    assert main(["validate", str(HAR), "--format", "har", "--json", str(report)]) == 1
    assert '"no-cross-session"' in report.read_text()
