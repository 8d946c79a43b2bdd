"""The official SDKs' servers of protocol revision 2026-07-28 (``model.targets.modern_sdks``), started
for real on 127.0.0.1 by ``running_target``: each answers ``server/discover`` in the request shape of
that revision with HTTP 200, no session id and the SDK's own ``supportedVersions``.

"The SDK's own" list is read from the SDK, not written here: for the Python SDK its constant
``mcp_types.version.MODERN_PROTOCOL_VERSIONS``; for the TypeScript SDK, whose constant is internal
(``SUPPORTED_MODERN_PROTOCOL_VERSIONS``, not exported), the ``supported`` list of the -32022 error the
same server answers a request naming a revision it does not serve, which the SDK builds from that
constant on another code path (``createMcpHandler.ts`` ``serveModern``) than ``server/discover``
(``server.ts`` ``_ondiscover``). The TypeScript targets skip when node or npm is missing, or when npm
cannot install the pinned SDK (offline).
"""

from __future__ import annotations

import json
import shutil

import httpx
import pytest

from mcp_resume.model.targets import modern_sdks
from mcp_resume.model.targets.embedded import running_target
from mcp_resume.model.targets.process import TargetStartError

pytestmark = [pytest.mark.slow,  # as tests/conftest.py marks every test of tests/slow/
              pytest.mark.timeout(900)]  # a first run installs the pinned TypeScript SDK v2 from npm

REVISION = "2026-07-28"
UNSERVED = "2099-01-01"
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
TIMEOUT_SECONDS = 10.0


def _post(url: str, method: str, revision: str = REVISION, request_id: int = 1) -> tuple[httpx.Response, dict]:
    """POST ``method`` in the 2026-07-28 request shape naming ``revision`` (headers
    ``MCP-Protocol-Version``, ``Mcp-Method``; ``params._meta`` with the version, the client's
    capabilities and info); the response and its one JSON-RPC message (from a JSON or an SSE body)."""
    body = {"jsonrpc": "2.0", "id": request_id, "method": method,
            "params": {"_meta": {PROTOCOL_VERSION_KEY: revision, CAPABILITIES_KEY: {},
                                 CLIENT_INFO_KEY: {"name": "mcp-resume-test", "version": "0"}}}}
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": revision, "mcp-method": method}
    response = httpx.post(url, json=body, headers=headers, timeout=TIMEOUT_SECONDS, trust_env=False)
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        messages = [json.loads(d) for d in data if d]
        message = next(m for m in messages if m.get("id") == request_id)
    else:
        message = response.json()
    return response, message


def _initialize(url: str) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 7, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "mcp-resume-test", "version": "0"}}}
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    with httpx.stream("POST", url, json=body, headers=headers, timeout=TIMEOUT_SECONDS, trust_env=False) as response:
        return response  # the status line and headers; an SSE body is left unread


def _discovers_in_the_modern_shape(url: str, own_versions: list[str] | None = None) -> list[str]:
    """Assert ``server/discover`` is answered 200, with no session id, a ``DiscoverResult`` whose
    ``supportedVersions`` is the SDK's own list (``own_versions``; None: the ``supported`` of the
    server's -32022 to ``UNSERVED``); return that list."""
    response, message = _post(url, "server/discover")
    assert response.status_code == 200, response.text
    assert "mcp-session-id" not in response.headers
    assert message["jsonrpc"] == "2.0" and message["id"] == 1 and "error" not in message, message
    result = message["result"]
    assert isinstance(result.get("capabilities"), dict) and "tools" in result["capabilities"], result
    refused, error = _post(url, "server/discover", revision=UNSERVED, request_id=2)
    assert refused.status_code == 400 and error["error"]["code"] == -32022, refused.text
    assert error["error"]["data"]["requested"] == UNSERVED
    if own_versions is None:
        own_versions = error["error"]["data"]["supported"]
    else:
        assert error["error"]["data"]["supported"] == own_versions
    assert result["supportedVersions"] == own_versions and REVISION in own_versions, result
    return own_versions


def _typescript_installed() -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed: the typescript-sdk-v2 targets run on Node.js")
    try:
        modern_sdks.ensure_installed()
    except modern_sdks.ToolMissingError as error:
        pytest.skip(str(error))
    except TargetStartError as error:
        pytest.skip(f"the TypeScript SDK v2 cannot be installed here (offline?): {error}")


def test_typescript_sdk_v2_discovers_and_refuses_initialize():
    _typescript_installed()
    with running_target("typescript-sdk-v2") as url:
        _discovers_in_the_modern_shape(url)
        refused = _initialize(url)  # 2026-07-28 only: no session era
        assert refused.status_code == 400 and "mcp-session-id" not in refused.headers


def test_typescript_sdk_v2_dual_discovers_and_opens_sessions():
    _typescript_installed()
    with running_target("typescript-sdk-v2-dual") as url:
        _discovers_in_the_modern_shape(url)
        opened = _initialize(url)  # and 2025-11-25 sessions beside it
        assert opened.status_code == 200 and opened.headers.get("mcp-session-id")


def test_python_sdk_2026_discovers_with_the_sdks_modern_versions():
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    with running_target("python-sdk-2026") as url:
        _discovers_in_the_modern_shape(url, list(MODERN_PROTOCOL_VERSIONS))
        refused = _initialize(url)
        assert refused.status_code == 400 and "mcp-session-id" not in refused.headers
