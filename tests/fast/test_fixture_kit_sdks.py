"""The fixture-tool kits beyond the installed SDK: ``add_fixture_tools`` on a ``FastMCP`` of
the Python SDK 1.x (in that release's virtualenv, ``model.targets.sdk_venvs``) and the
TypeScript kit ``fixture_tools.mjs`` (run with node by the embedded ``typescript-sdk``
target, whose server imports it). Slow tier: real servers, and npm or pip on first use."""

from __future__ import annotations

import re

import pytest

from mcp_resume.model.targets.typescript_sdk import FIXTURE_TOOLS
from mcp_resume.model.verify import fixture_tools


pytestmark = [pytest.mark.timeout(900)]


def test_the_typescript_kit_states_the_definition_s_values():
    source = FIXTURE_TOOLS.read_text(encoding="utf-8")
    constants = {name: int(value) for name, value in re.findall(r"export const (\w+) = (\d+);", source)}
    assert constants == {
        "NOTIFICATIONS": fixture_tools.NOTIFICATIONS,
        "STEP_MS": round(fixture_tools.STEP_SECONDS * 1000),
        "RECONNECT_PAUSE_MS": round(fixture_tools.RECONNECT_PAUSE_SECONDS * 1000),
        "ANSWER_TIMEOUT_MS": round(fixture_tools.ANSWER_TIMEOUT_SECONDS * 1000),
    }
    for tool in fixture_tools.FIXTURE_TOOLS:
        assert f'"{tool.name}"' in source and tool.description in source
        assert all(f"{a.name}: z.string().optional()" in source and f'?? "{a.default}"' in source for a in tool.arguments)
