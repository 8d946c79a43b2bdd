"""What tests/fast/test_traffic_sdk_client.py and tests/slow/test_traffic_sdk_client.py share."""

from __future__ import annotations

from mcp_resume.spec.verdicts import Verdict


def failed(validation) -> set[str]:
    return {r.rule for r in validation.results if r.verdict is Verdict.FAIL}
