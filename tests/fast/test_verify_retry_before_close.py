"""verify's ``retry-before-close`` (MCP D10, D23) over HTTP: ``test_reconnection`` makes the server
close the call's connection mid-call. The reference as served by the façade sends the SSE retry field
on every priming event (PASS); one that sends none WARNs (a SHOULD); under 2025-06-18, which has no
polling, the rule is not judged. The servers are switches of ``tests/helpers/servers/variants.py``,
started here on 127.0.0.1."""

from __future__ import annotations

import pytest

from mcp_resume.spec.verdicts import Verdict
from tests.helpers.bounds import SHORT_SETTLE_BOUNDS
from tests.helpers.compat_refused_version import probed_and_judged
from tests.helpers.servers.variants import Variant

pytestmark = [pytest.mark.timeout(120), pytest.mark.covers("retry-before-close")]

RULE = "retry-before-close"


def test_a_server_that_sends_retry_before_it_closes_passes():
    _, found = probed_and_judged(Variant(), RULE, bounds=SHORT_SETTLE_BOUNDS)
    assert found[RULE].verdict is Verdict.PASS, found[RULE].reason


def test_a_server_that_closes_without_retry_warns():
    _, found = probed_and_judged(Variant(no_retry=True), RULE, bounds=SHORT_SETTLE_BOUNDS)
    assert found[RULE].verdict is Verdict.WARN, found[RULE].reason
    assert "retry field" in found[RULE].reason


def test_a_server_of_2025_06_18_is_not_judged_for_polling_its_revision_lacks():
    _, found = probed_and_judged(Variant(version="2025-06-18", no_retry=True), RULE, bounds=SHORT_SETTLE_BOUNDS)
    assert found[RULE].verdict is Verdict.SKIP and "not applicable" in found[RULE].reason
