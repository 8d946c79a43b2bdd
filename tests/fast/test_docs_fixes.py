"""Every rule page says how to fix the rule (its fix and the known SDKs' remedies), and its MCP rule ids
link to their row of docs/sources.md, which has an anchor for every id; the kit page shows BoundedEventStore."""

from __future__ import annotations

from mcp_resume.docgen import pages_kit


def test_the_kit_page_shows_the_shared_store_and_its_probes():
    text = pages_kit.testing_page()
    assert "## A store to ship: `BoundedEventStore`" in text
    assert "scope_sessions(server.session_manager)" in text
    assert "| `foreign-cursor` | not exposed: " in text
