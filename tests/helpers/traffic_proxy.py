"""What tests/fast/test_traffic_proxy.py and tests/slow/test_traffic_proxy.py share."""

from __future__ import annotations

import pytest

from mcp_resume.model.serving.facade import serving, serving_design
from mcp_resume.model.traffic.recording_proxy import RecordingProxy
from mcp_resume.model.traffic.recording import Fanout, JsonLinesRecorder, MemoryRecorder


@pytest.fixture
def proxied(tmp_path):
    memory = MemoryRecorder()
    path = tmp_path / "run.jsonl"
    lines = JsonLinesRecorder(path)
    with serving_design("reference") as upstream:
        proxy = RecordingProxy(upstream, Fanout(memory, lines))
        with serving(proxy) as front:
            yield upstream, front, memory, path
    lines.close()
