"""Every rule page says how to fix the rule (its fix and the known SDKs' remedies), and its MCP rule ids
link to their row of docs/sources.md, which has an anchor for every id; the kit page shows BoundedEventStore."""

from __future__ import annotations

import re

import pytest

from mcp_resume.docgen.collect import collect
from mcp_resume.docgen.pages_rules import rule_page
from mcp_resume.docgen.pages_spec import sources_page
from mcp_resume.model.traffic.fixes import SDK_BY_TARGET, generic_fix, remedies_for
from mcp_resume.spec.catalog import RULES
from mcp_resume.spec.sources import SOURCES, anchor

from tests.helpers import ROOT

pytestmark = pytest.mark.xdist_group("test_docs_fixes")  # every test shares a module-scoped fixture


LINK = re.compile(r"\]\(\.\./sources\.md#([a-z0-9-]+)\)")


@pytest.fixture(scope="module")
def pages():
    model = collect(ROOT / "tests", ROOT)
    return {rule.id: rule_page(model, rule) for rule in RULES}


@pytest.fixture(scope="module")
def anchors():
    return set(re.findall(r'<a id="([a-z0-9-]+)"></a>', sources_page(None)))


def test_sources_gives_every_id_an_anchor(anchors):
    assert anchors == {anchor(source_id) for source_id in SOURCES}
    assert len(anchors) == len(SOURCES)


def test_every_rule_page_says_how_to_fix_it_with_the_known_sdks_remedies(pages):
    for rule in RULES:
        text = pages[rule.id]
        assert "## How to fix" in text
        fix = text.split("## How to fix", 1)[1].split("\n## ", 1)[0]
        assert re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", fix).count(generic_fix(rule.id)) == 1, rule.id
        for remedy in remedies_for(rule.id):
            assert f"{SDK_BY_TARGET[remedy.sdk].label} (`{remedy.sdk}`)" in fix
    assert "BoundedEventStore" in pages["no-cross-session"] and "millisecond" in pages["replay-suffix"]


def test_every_mcp_rule_id_on_a_rule_page_links_to_its_gist(pages, anchors):
    for rule in RULES:
        text = pages[rule.id]
        linked = set(LINK.findall(text))
        assert {anchor(s) for s in rule.sources} <= linked, rule.id
        assert linked <= anchors, linked - anchors
        bare = [s for s in rule.sources if f"| `{s}` |" in text]
        assert not bare, (rule.id, bare)
