"""What the proxy's upstream is, asked once at start with bounded requests.

``check_upstream(url, seconds)`` sends one ``initialize`` (offering 2025-11-25, as
``verify``'s probe does) straight to ``url``, not through the proxy, and ends the
session it may open with a DELETE. When ``initialize`` is refused with a 4xx that
carries no JSON-RPC, it asks ``server/discover`` in the request shape of
2026-07-28 (F12), the handshake of a server of that revision only. Every wait is
bounded by ``seconds`` (connection and response head; a whole exchange by three
times that, at least 10 s).

The answer is an ``Upstream``:

- ``MCP``: some answer was a JSON-RPC message (a result or a JSON-RPC error);
- ``UNREACHABLE``: no connection, or no response head, within the bound;
- ``UNSURE``: an answer that says nothing either way: 401/403/407 (the probe carries
  no credentials; the proxied client may) or a 5xx other than 501 without JSON-RPC
  (a server that is starting or failing may come up later);
- ``NOT_MCP``: an answer that shows the endpoint does not speak MCP over HTTP: 501 Not
  Implemented (e.g. ``python -m http.server`` to a POST), 405 to the POST, any other
  4xx without JSON-RPC, a redirect, a 2xx that is a page or another body that is
  neither JSON-RPC nor an MCP event stream.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from enum import Enum

from mcp_resume.model.http.client import SESSIONLESS_VERSION, StreamableHttpClient, Timeouts
from mcp_resume.model.http.evidence import ErrorKind, Exchange

AUTH_STATUSES = (401, 403, 407)
NOT_IMPLEMENTED = 501
"""The one 5xx that is an answer, not a passing state: the server has no POST at all."""


class Kind(str, Enum):
    MCP = "mcp"
    UNREACHABLE = "unreachable"
    UNSURE = "unsure"
    NOT_MCP = "not-mcp"


@dataclass(frozen=True)
class Upstream:
    """The probe's answer: ``kind`` and one line saying what was seen (``detail``)."""

    kind: Kind
    detail: str


def check_upstream(url: str, seconds: float, headers: tuple[tuple[str, str], ...] = ()) -> Upstream:
    """Probe ``url`` (an ``http(s)://`` MCP endpoint) within bounds of ``seconds``, sending
    ``headers`` (``proxy --header``) with each request; never raises for what the upstream does."""
    return asyncio.run(_check(url, Timeouts.from_timeout(seconds), headers))


async def _check(url: str, bounds: Timeouts, headers: tuple[tuple[str, str], ...] = ()) -> Upstream:
    async with StreamableHttpClient(url, bounds, headers=headers) as client:
        init = await client.initialize("proxy: probe initialize")
        if init.session_header is not None and _speaks_json_rpc(init):
            await client.delete(init.session_header, label="proxy: probe delete session")
        found = _judged(init)
        if found.kind is not Kind.NOT_MCP or init.status is None or not 400 <= init.status < 500 or init.status == 405:
            return found
        client.protocol_version = SESSIONLESS_VERSION
        discovered = await client.request(None, "server/discover", label="proxy: probe server/discover (2026-07-28)")
        return _judged(discovered) if _speaks_json_rpc(discovered) else found


def _judged(x: Exchange) -> Upstream:
    if _speaks_json_rpc(x):
        result = next((m["result"] for m in x.messages if isinstance(m.get("result"), dict)), None)
        version = (result or {}).get("protocolVersion")
        said = f"protocol {version}" if version else "it answered initialize with a JSON-RPC error"
        return Upstream(Kind.MCP, f"an MCP server ({said})")
    if x.error_kind in (ErrorKind.CONNECT, ErrorKind.FIRST_BYTE):
        return Upstream(Kind.UNREACHABLE, f"unreachable: {x.error}")
    if x.status in AUTH_STATUSES:
        return Upstream(Kind.UNSURE, f"initialize answered HTTP {x.status}: it asks for credentials the probe "
                                     "does not carry, so whether it is an MCP server is not known")
    if x.status == NOT_IMPLEMENTED:
        return Upstream(Kind.NOT_MCP, "not an MCP server: initialize answered HTTP 501 Not Implemented "
                                      "(the endpoint takes no POST; an MCP endpoint must)")
    if x.status is not None and x.status >= 500:
        return Upstream(Kind.UNSURE, f"initialize answered HTTP {x.status} without a JSON-RPC message")
    if not x.ok:
        return Upstream(Kind.NOT_MCP, f"not an MCP server: initialize answered HTTP {x.status}: {x.error}")
    location = x.response_headers.get("location")
    if location and x.status is not None and 300 <= x.status < 400:
        return Upstream(Kind.NOT_MCP, f"not an MCP endpoint: initialize answered HTTP {x.status}, a redirect to "
                                      f"{location} (point --upstream at the endpoint itself)")
    kind = x.response_headers.get("content-type", "no content type")
    return Upstream(Kind.NOT_MCP, f"not an MCP server: initialize answered HTTP {x.status} ({kind}) "
                                  "without a JSON-RPC message")


def _speaks_json_rpc(x: Exchange) -> bool:
    """Some message of the answer is a JSON-RPC response (a result or an error)."""
    return any(m.get("jsonrpc") == "2.0" and ("result" in m or "error" in m) for m in x.messages)
