"""verify's ``unsupported-version-400`` (MCP C40, D45) over HTTP: the reference as served by the
façade refuses a version no server supports with 400 (PASS); a server that serves any version
FAILs; a server of 2025-03-26, whose revision has no such header, is not judged (SKIP). The
servers are switches of ``tests/helpers/servers/variants.py``, started here on 127.0.0.1."""

from __future__ import annotations

import pytest

from mcp_resume.spec.verdicts import Verdict
from tests.helpers.bounds import SHORT_SETTLE_BOUNDS
from tests.helpers.compat_refused_version import probed_and_judged
from tests.helpers.servers.variants import Variant

pytestmark = [pytest.mark.timeout(120), pytest.mark.covers("unsupported-version-400")]

RULE = "unsupported-version-400"


def test_a_server_that_refuses_an_unsupported_version_passes():
    _, found = probed_and_judged(Variant(), RULE, "unknown-session-404", bounds=SHORT_SETTLE_BOUNDS)
    assert found[RULE].verdict is Verdict.PASS, found[RULE].reason
    assert found["unknown-session-404"].verdict is Verdict.PASS  # the 400 ended nothing


def test_a_server_that_serves_any_version_fails_with_the_exchange_as_evidence():
    _, found = probed_and_judged(Variant(any_version=True), RULE, bounds=SHORT_SETTLE_BOUNDS)
    verdict = found[RULE]
    assert verdict.verdict is Verdict.FAIL
    assert "1999-01-01" in verdict.reason and "answered 200" in verdict.reason


def test_a_server_of_2025_03_26_is_not_judged_for_a_header_its_revision_lacks():
    _, found = probed_and_judged(Variant(version="2025-03-26", any_version=True), RULE, bounds=SHORT_SETTLE_BOUNDS)
    assert found[RULE].verdict is Verdict.SKIP and "not applicable" in found[RULE].reason
