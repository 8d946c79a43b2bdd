"""Every rule has a fix in the server author's terms, and the known SDKs' remedies are well formed."""

from __future__ import annotations

import re

import pytest

from mcp_resume.model.targets.frameworks import BY_TARGET
from mcp_resume.model.traffic.fixes import FIXES, REMEDIES, SDKS, SHOWN_ORDER, fix_for, generic_fix, identify, remedies_for
from mcp_resume.spec.catalog import AGREEMENT, RULES, RULES_BY_ID
from mcp_resume.spec.sources import SOURCES

MCP_ID = re.compile(r"\b[A-F]\d+(?:-[A-F]\d+)?\b")


def test_every_rule_of_the_catalog_has_a_fix_and_nothing_else_has_one():
    assert set(FIXES) == set(RULES_BY_ID)
    assert all(len(FIXES[r.id]) > 40 for r in RULES)
    assert generic_fix(AGREEMENT)


def test_every_mcp_rule_id_a_fix_cites_has_a_gist_in_the_sources():
    texts = list(FIXES.values()) + [r.text for r in REMEDIES]
    cited = {match for text in texts for match in MCP_ID.findall(text)}
    assert cited and cited <= set(SOURCES), cited - set(SOURCES)


def test_remedies_name_known_sdks_and_rules():
    known = {sdk.target for sdk in SDKS}
    assert known == set(BY_TARGET) | {"python-sdk", "typescript-sdk"} == set(SHOWN_ORDER)
    for remedy in REMEDIES:
        assert remedy.sdk in known
        assert set(remedy.rules) <= set(RULES_BY_ID), remedy


def test_the_issue_examples_have_their_concrete_remedy():
    python = fix_for("no-cross-session", "python-sdk")
    assert "EventStore" in python.text and "session" in python.text
    assert "BoundedEventStore" in python.remedy and "official Python SDK" in python.line()
    typescript = fix_for("replay-suffix", "typescript-sdk")
    assert "millisecond" in typescript.remedy
    assert fix_for("no-cross-session").remedy is None
    assert fix_for("no-cross-session", "no-such-sdk").line() == FIXES["no-cross-session"]
    assert [r.sdk for r in remedies_for("malformed-session-400")][:2] == ["python-sdk", "typescript-sdk"]


@pytest.mark.parametrize("info, sdk", [
    ({"name": "mcp-resume python-sdk target", "version": ""}, "python-sdk"),
    ({"name": "mcp-resume python-sdk 1.x target", "version": "1.30.0"}, "python-sdk"),
    ({"name": "mcp-resume typescript-sdk target"}, "typescript-sdk"),
    ({"name": "mcp-resume fastmcp-python target", "version": "4.2.3"}, "fastmcp-python"),
    ({"name": "mcp-resume fastmcp-typescript target"}, "fastmcp-typescript"),
    ({"name": "mcp-resume tmcp target"}, "tmcp"),
    ({"name": "mcp-resume mcp-lite target"}, "mcp-lite"),
    ({"name": "weather"}, None),
    ({"name": "my-tmcp-fork"}, None),
    (None, None),
    ("python-sdk", None),
])
def test_identify_names_the_sdk_from_server_info(info, sdk):
    assert identify(info) == sdk
