"""Starting and stopping servers under test: the embedded python-sdk target and a failing one."""

from __future__ import annotations

import sys

import pytest

from mcp_resume.model.targets.python_sdk_server import InMemoryEventStore
from mcp_resume.model.targets.process import TargetStartError, running_server


@pytest.mark.timeout(30)
def test_a_server_that_exits_reports_its_stderr_tail():
    argv = [sys.executable, "-c", "import sys; sys.stderr.write('port already taken\\n'); sys.exit(4)"]
    with pytest.raises(TargetStartError, match="(?s)exited with code 4.*port already taken"):
        with running_server(argv, "http://127.0.0.1:9/mcp", name="broken", start_timeout=10):
            pass


def test_event_store_replays_the_later_events_of_the_stream_and_skips_priming():
    import asyncio

    from mcp_types import JSONRPCNotification

    async def story():
        store = InMemoryEventStore()
        note = JSONRPCNotification(jsonrpc="2.0", method="notifications/message", params={"data": 1})
        priming = await store.store_event("7", None)
        first = await store.store_event("7", note)
        await store.store_event("other", note)
        second = await store.store_event("7", note)
        sent = []

        async def collect(message):
            sent.append(message.event_id)

        stream = await store.replay_events_after(priming, collect)
        unknown = await store.replay_events_after("ev-999", collect)
        return stream, sent, unknown, first, second

    stream, sent, unknown, first, second = asyncio.run(story())
    assert stream == "7" and sent == [first, second] and unknown is None
