"""The EventStore kit's report: a leak it observed fails the store (also deployed shared), the
finding leads in one line, the SDK background comes once, messages show as JSON, no file paths."""

import re
import uuid

import pytest
from mcp.server.streamable_http import EventMessage
from mcp_types import JSONRPCNotification

from tests.helpers import event_stores as stores
from mcp_resume.testing import ISOLATION_STATEMENT, PER_SESSION, SHARED, check_event_store

pytestmark = pytest.mark.xdist_group("test_kit_report")  # every test shares a module-scoped fixture


class _SendsAStrangerStore(stores.MemoryEventStore):
    """Replays, after the real events, a log message it never stored (with a long payload)."""

    async def replay_events_after(self, last_event_id, send_callback):
        stream = await super().replay_events_after(last_event_id, send_callback)
        if stream is not None:
            params = {"level": "info", "data": "x" * 80, "_meta": {"io.github.mcp-resume/emission": "0.1"}}
            stranger = JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params=params)
            await send_callback(EventMessage(stranger, uuid.uuid4().hex))
        return stream


@pytest.fixture(scope="module")
def shared_leak():
    return check_event_store(stores.global_log_stores(), deployment=SHARED, examples=3)


@pytest.fixture(scope="module")
def stranger():
    return check_event_store(_SendsAStrangerStore, examples=20, deployment=PER_SESSION)


def test_a_store_that_leaks_between_sessions_fails_when_checked_shared(shared_leak):
    assert not shared_leak.passed and shared_leak.isolation == "broken"
    assert {p.name for p in shared_leak.leaks} >= {"foreign-cursor", "request-id-collision"}
    with pytest.raises(AssertionError, match="leak between sessions"):
        assert shared_leak.passed, shared_leak.explain()
    assert shared_leak.to_json()["passed"] is False and shared_leak.to_json()["leaks"]


def test_the_finding_leads_in_one_line(shared_leak):
    first = shared_leak.explain().splitlines()[0]
    assert first == f"EventStore check of {shared_leak.store}: FAIL: {shared_leak.findings()[0]}"
    assert first.split("FAIL: ")[1].startswith("[no-cross-session] leak between sessions (foreign-cursor)")


def test_the_sdk_background_is_given_once_at_the_end(shared_leak):
    text = shared_leak.explain()
    assert text.count(ISOLATION_STATEMENT) == 1 and text.count("why: ") == len(shared_leak.limits)
    lines = text.splitlines()
    background = next(n for n, line in enumerate(lines) if line.startswith("background:"))
    assert all(not line.startswith("  [no-cross-session]") for line in lines[background:])
    assert len(shared_leak.findings()) == len(shared_leak.leaks) >= 2


def test_the_report_names_no_file_a_pip_user_lacks(shared_leak):
    assert not re.search(r"[\w/]+\.py\b", shared_leak.explain())


def test_a_message_the_store_made_up_is_shown_as_json(stranger):
    assert not stranger.passed and stranger.failure is not None
    text = stranger.explain()
    assert '{"jsonrpc":"2.0","method":"notifications/message"' in text and "JSONRPCNotification(" not in text
    assert text.splitlines()[0].endswith(f"FAIL: [{stranger.failure.rule}] state machine, step "
                                         f"{stranger.failure.step}: {stranger.failure.message}")
    assert not re.search(r"[\w/]+\.py\b", text)
