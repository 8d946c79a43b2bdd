"""A server whose GET refuses the MCP-Protocol-Version its own ``initialize`` negotiated
(mcp-lite 0.10.0 negotiates 2025-03-26 and accepts 2025-06-18 only on GET): verify files
that under ``protocol-version-accepted`` (C40) and drives the rules that need a GET
stream with GETs that leave the header out. The servers are switches of
``tests/helpers/servers/variants.py``, started here on 127.0.0.1."""

from __future__ import annotations

import pytest

from mcp_resume.spec.verdicts import Verdict
from tests.helpers.servers.variants import Variant

from tests.helpers.bounds import SHORT_SETTLE_BOUNDS
from tests.helpers.compat_refused_version import probed_and_judged


pytestmark = [pytest.mark.timeout(120)]


@pytest.mark.covers("protocol-version-accepted")
def test_a_get_refused_for_another_reason_is_not_blamed_on_the_version():
    caps, found = probed_and_judged(Variant(version="2025-03-26", get_status=400), "protocol-version-accepted",
                                    "no-replay-on-session-resume", bounds=SHORT_SETTLE_BOUNDS)
    assert caps.get_status == 400 and caps.get_refused_version is None and not caps.get_stream
    assert found["protocol-version-accepted"].verdict is Verdict.PASS, found["protocol-version-accepted"].reason
    verdict = found["no-replay-on-session-resume"]
    assert verdict.verdict is Verdict.SKIP and "a GET stream" in (verdict.unlock or "")
