"""A server whose GET refuses the MCP-Protocol-Version its own ``initialize`` negotiated
(mcp-lite 0.10.0 negotiates 2025-03-26 and accepts 2025-06-18 only on GET): verify files
that under ``protocol-version-accepted`` (C40) and drives the rules that need a GET
stream with GETs that leave the header out.

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_compat_refused_version.py``, whose docstring says more.
"""

from __future__ import annotations

import pytest

from mcp_resume.spec.verdicts import Verdict
from tests.helpers.servers.variants import Variant

from tests.helpers.compat_refused_version import probed_and_judged


GET_RULES = ("no-replay-on-session-resume", "reject-orphan-event-id")  # reemit-pending: n/a under MCP
LIKE_MCP_LITE = Variant(version="2025-03-26", get_version="2025-06-18")

pytestmark = [pytest.mark.timeout(120)]


@pytest.mark.covers("protocol-version-accepted")
def test_a_get_refusing_the_negotiated_version_is_its_own_finding_and_the_gets_go_on_without_it():
    caps, found = probed_and_judged(LIKE_MCP_LITE, "protocol-version-accepted", "session-identity-stable", *GET_RULES)
    assert caps.protocol_version == "2025-03-26" and caps.get_status == 400 and caps.get_stream
    assert caps.get_refused_version == "2025-03-26"
    accepted = found["protocol-version-accepted"]
    assert accepted.verdict is Verdict.FAIL, accepted.reason
    assert "refused with 400 for carrying the negotiated MCP-Protocol-Version" in accepted.reason
    assert found["session-identity-stable"].verdict is Verdict.PASS, found["session-identity-stable"].reason
    for rule in GET_RULES:
        assert found[rule].verdict is Verdict.PASS, (rule, found[rule].reason)


def test_the_probe_sends_the_refused_get_once_more_without_the_version_header():
    caps, _ = probed_and_judged(LIKE_MCP_LITE)
    gets = [x for x in caps.exchanges if x.method == "GET"]
    assert [x.request_headers.get("mcp-protocol-version") for x in gets] == ["2025-03-26", None]
    assert [x.status for x in gets] == [400, 200]


def test_a_get_that_accepts_the_negotiated_version_is_driven():
    caps, found = probed_and_judged(Variant(version="2025-06-18", get_version="2025-06-18"), "no-replay-on-session-resume",
                                    "protocol-version-accepted")
    assert caps.get_stream and caps.get_refused_version is None
    for rule, verdict in found.items():
        assert verdict.verdict is Verdict.PASS, (rule, verdict.reason)
