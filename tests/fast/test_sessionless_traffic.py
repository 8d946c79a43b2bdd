"""Which 2026-07-28 POSTs the traffic judge reads as requests a server cannot take as sent
(model/sessionless/traffic.py ``fault_of``), and which exchanges it reads as of that revision."""

from __future__ import annotations

import pytest

from mcp_resume.model.http.evidence import Exchange
from mcp_resume.model.sessionless.traffic import UNIMPLEMENTED_METHOD, fault_of, is_sessionless
from mcp_resume.model.traffic.records import Record
from mcp_resume.spec.sessionless.machine import Fault

META = "io.modelcontextprotocol/protocolVersion"


def body(method="tools/list", version="2026-07-28"):
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": {META: version}}}


@pytest.mark.parametrize("headers, sent, fault", [
    ({"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}, body(), None),
    ({"mcp-protocol-version": "2026-07-28"}, body(version="2025-11-25"), Fault.VERSION_MISMATCH),
    ({"mcp-protocol-version": "1999-01-01"}, body(version="1999-01-01"), Fault.VERSION_UNSUPPORTED),
    ({"mcp-protocol-version": "2026-07-28", "mcp-method": "prompts/list"}, body(), Fault.METHOD_MISMATCH),
    ({"mcp-protocol-version": "2026-07-28"}, body(UNIMPLEMENTED_METHOD), Fault.METHOD_UNKNOWN),
    ({}, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, None),  # nothing to compare: taken as sent
])
def test_a_fault_is_read_from_the_headers_against_the_body(headers, sent, fault):
    assert fault_of(headers, sent) is fault


def test_an_exchange_with_mcp_method_is_of_the_2026_07_28_revision_whatever_its_version():
    def record(headers):
        return Record(1, 0.0, Exchange("x", "POST", "http://127.0.0.1/mcp", request_headers=headers))

    assert is_sessionless(record({"mcp-protocol-version": "1999-01-01", "mcp-method": "tools/list"}))
    assert not is_sessionless(record({"mcp-protocol-version": "2025-11-25"}))
