"""The capability probe of ``mcp-resume verify``: what does the server offer?

One throw-away session: ``initialize`` (offering 2025-11-25; when that is
refused, ``server/discover`` in the request shape of 2026-07-28, the handshake of a
2026-07-28-only server, rules §F: F12, F16; when that names no 2026-07-28 either,
``initialize`` again in that request shape),
``notifications/initialized``, ``tools/list`` (do POST streams carry event ids,
a priming event?), a GET with the session id alone (a standalone stream, or
405? do its events carry ids?), then DELETE. Every request after
``initialize`` carries the negotiated ``MCP-Protocol-Version``; a GET refused
400 with it is sent once more without the header, to tell a server that refuses
the revision it negotiated (C40: 400 is for an unsupported version) from one
that refuses the GET for another reason. A server of the session era is last
asked ``server/discover`` in the request shape of 2026-07-28: one that names that
revision serves both eras. The scenarios
read the result to SKIP what the server does not offer (docs/design.md §3).

``probe`` raises ``TargetError`` when the target is not reachable or does not
answer ``initialize`` as an MCP server (exit code 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_resume.model.http.client import PROTOCOL_VERSION, SESSIONLESS_VERSION, SSE_TYPE, StreamableHttpClient
from mcp_resume.model.http.evidence import End, ErrorKind, Exchange
from mcp_resume.model.verify.driver import FIXTURE_TOOLS, negotiated_version


class TargetError(Exception):
    """The target cannot be checked: unreachable, silent, or not an MCP server.
    The message is one line."""


@dataclass
class Capabilities:
    """What the probe saw.

    - ``session_ids``: ``initialize`` was answered with an ``Mcp-Session-Id``;
    - ``post_stream``: ``"sse"`` or ``"json"``, how a POSTed request is answered;
    - ``event_ids``: some SSE event carried an id, on a POST or on the GET stream;
    - ``post_event_ids`` / ``get_event_ids``: where ids were seen;
    - ``priming``: the ``tools/list`` stream began with an id and empty data (D8);
    - ``get_status``: the status of a GET with the session id alone;
    - ``get_stream``: that GET opened an SSE stream (sent without the header when
      ``get_refused_version`` is set);
    - ``get_refused_version``: the negotiated ``MCP-Protocol-Version`` that GET was
      refused (400) with, when the same GET without the header opened an SSE stream:
      the scenarios then send their GETs without it (C40);
    - ``delete_status``: the status of DELETE with that session id (2xx, or 405 when refused);
    - ``sessionless_too``: a server of the session era that also answers ``server/discover``
      in the request shape of 2026-07-28 naming that revision (it serves both eras);
    - ``tools`` / ``fixture_tools``: tools listed, and those named after the
      conformance fixtures (``docs/fixtures.md``);
    - ``tool_uses``: the server's own tools given for a role (``verify --tool``,
      ``model.verify.roles.ToolUse``), set by the run after the probe, not seen by it.
    - ``server_info``: the ``serverInfo`` object of the ``initialize`` result (``name``,
      ``version`` ...), from which a report names the server's SDK for its fixes.
    """

    session_ids: bool = False
    protocol_version: str | None = None
    post_stream: str | None = None
    event_ids: bool = False
    post_event_ids: bool = False
    get_event_ids: bool = False
    priming: bool = False
    get_status: int | None = None
    get_stream: bool = False
    get_refused_version: str | None = None
    delete_status: int | None = None
    sessionless_too: bool = False
    tools: list[str] = field(default_factory=list)
    fixture_tools: list[str] = field(default_factory=list)
    tool_uses: list = field(default_factory=list)
    unplayed: dict[str, str] = field(default_factory=dict)
    """Tools given with ``--tool`` whose calls did not play their role: name -> what they did not do
    (``roles.not_played``); filled while the scenarios run, they drive no rule."""
    server_info: dict[str, Any] | None = None
    exchanges: list[Exchange] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "session_ids": self.session_ids,
            "protocol_version": self.protocol_version,
            "post_stream": self.post_stream,
            "event_ids": self.event_ids,
            "post_event_ids": self.post_event_ids,
            "get_event_ids": self.get_event_ids,
            "priming": self.priming,
            "get_status": self.get_status,
            "get_stream": self.get_stream,
            "get_refused_version": self.get_refused_version,
            "delete_status": self.delete_status,
            "sessionless_too": self.sessionless_too,
            "fixture_tools": self.fixture_tools,
            **({"tool_roles": [use.to_json() for use in self.tool_uses]} if self.tool_uses else {}),
            **({"unplayed_tools": dict(self.unplayed)} if self.unplayed else {}),
            "server_info": self.server_info,
            "probe": [e.to_json() for e in self.exchanges],
        }


async def probe(client: StreamableHttpClient) -> Capabilities:
    """Probe the server behind ``client``; raises ``TargetError`` (one line) when
    ``initialize`` does not succeed."""
    caps = Capabilities(exchanges=client.exchanges)
    init = await client.initialize("probe: initialize")
    if _refused(init):
        discovered = await _discover(client)
        if discovered is not None:
            init = discovered
    if init.ok and init.status is not None and 400 <= init.status < 500 and client.protocol_version != SESSIONLESS_VERSION:
        client.protocol_version = SESSIONLESS_VERSION
        retried = await client.initialize("probe: initialize in the request shape of 2026-07-28")
        if retried.ok and retried.status == 200 and negotiated_version(retried) == SESSIONLESS_VERSION:
            init = retried
        else:
            client.protocol_version = PROTOCOL_VERSION
    result = _initialize_result(client.url, init, client)
    caps.protocol_version = result.get("protocolVersion") or _discovered_version(result)
    caps.server_info = result.get("serverInfo") if isinstance(result.get("serverInfo"), dict) else None
    if isinstance(caps.protocol_version, str):
        client.protocol_version = caps.protocol_version
    session = init.session_header
    caps.session_ids = session is not None
    _note_stream(caps, init)
    await client.notify(session, "notifications/initialized", label="probe: initialized")
    listed = await client.request(session, "tools/list", label="probe: tools/list")
    if listed.ok:
        _note_stream(caps, listed)
        caps.priming = bool(listed.events) and listed.events[0].id is not None and listed.events[0].is_priming
        caps.tools = _tool_names(listed)
        caps.fixture_tools = [t for t in FIXTURE_TOOLS if t in caps.tools]
    if session is not None:
        get = await client.get(label="probe: GET with the session id alone", session=session)
        caps.get_status = None if get.error_kind is ErrorKind.FIRST_BYTE else get.status
        if get.status == 400 and client.protocol_version:
            bare = await _without_version(client, session)
            if _is_stream(bare):
                caps.get_refused_version, get = client.protocol_version, bare
        caps.get_stream = _is_stream(get)
        caps.get_event_ids = caps.get_stream and any(e.id is not None for e in get.events)
        caps.event_ids = caps.event_ids or caps.get_event_ids
        deleted = await client.delete(session, label="probe: delete session")
        caps.delete_status = deleted.status
    if caps.protocol_version != SESSIONLESS_VERSION:
        spoken = client.protocol_version
        caps.sessionless_too = await _discover(client) is not None
        client.protocol_version = spoken
    return caps


def _refused(exchange: Exchange) -> bool:
    """``initialize`` refused: a 4xx, or a JSON-RPC error (a 2026-07-28 server has no such method)."""
    if exchange.ok and exchange.status is not None and 400 <= exchange.status < 500:
        return True
    return any("error" in m and m.get("method") is None for m in exchange.messages)


def _refusal_hint(status: int | None, client: StreamableHttpClient) -> str:
    """What an answer other than 200 to ``initialize`` most likely means, and what to do."""
    given = [name for name, _ in client.extra_headers]
    if status in (401, 403) and given:
        return (f"the server refused the credentials given ({', '.join(given)}, values not shown): check them, "
                "and that the header name is the one the server reads")
    if status in (401, 403):
        return ("the server needs credentials: give them with --header 'Authorization: ...' or "
                "MCP_RESUME_HEADERS")
    if status in (404, 405):
        return ("no MCP endpoint at this path (the Streamable HTTP endpoint is often /mcp, e.g. "
                "http://127.0.0.1:8000/mcp): check the URL's path")
    return "not an MCP server, or one that refused to start a session"


async def _discover(client: StreamableHttpClient) -> Exchange | None:
    """``server/discover`` in the request shape of 2026-07-28 (F12), for a server of that
    revision only, which has no ``initialize``; the exchange when it names that revision."""
    spoken, client.protocol_version = client.protocol_version, SESSIONLESS_VERSION
    discovered = await client.request(None, "server/discover", label="probe: server/discover (2026-07-28)")
    result = next((m.get("result") for m in discovered.messages if isinstance(m.get("result"), dict)), None)
    if discovered.ok and discovered.status == 200 and _discovered_version(result or {}) == SESSIONLESS_VERSION:
        return discovered
    client.protocol_version = spoken
    return None


def _discovered_version(result: dict[str, Any]) -> str | None:
    """The 2026-07-28 revision when a ``server/discover`` result lists it among ``supportedVersions``."""
    versions = result.get("supportedVersions")
    return SESSIONLESS_VERSION if isinstance(versions, list) and SESSIONLESS_VERSION in versions else None


async def _without_version(client: StreamableHttpClient, session: str) -> Exchange:
    """The GET with the session id alone once more, without ``MCP-Protocol-Version``."""
    client.version_on_get = False
    try:
        return await client.get(label="probe: the same GET without MCP-Protocol-Version", session=session)
    finally:
        client.version_on_get = True


def _is_stream(get: Exchange) -> bool:
    return get.ok and get.status == 200 and get.content_type == SSE_TYPE


def _initialize_result(url: str, exchange: Exchange, client: StreamableHttpClient) -> dict[str, Any]:
    if not exchange.ok:
        raise TargetError(f"{url}: initialize failed: {exchange.error}")
    location = exchange.response_headers.get("location")
    if exchange.status is not None and 300 <= exchange.status < 400 and location:
        raise TargetError(
            f"{url}: initialize answered HTTP {exchange.status}, a redirect to {location}: not followed "
            "(mcp-resume talks only to the URL it is given; verify that URL instead)"
        )
    if exchange.status != 200:
        raise TargetError(f"{url}: initialize answered HTTP {exchange.status}: {_refusal_hint(exchange.status, client)}")
    for message in exchange.messages:
        if "error" in message and message.get("method") is None:
            error = message["error"] if isinstance(message["error"], dict) else {}
            raise TargetError(f"{url}: initialize refused: {error.get('code')} {error.get('message')}")
        if isinstance(message.get("result"), dict):
            return message["result"]
    ended = exchange.end.value if exchange.end else "?"
    raise TargetError(f"{url}: not an MCP server: no initialize result in the answer (stream {ended})")


def _note_stream(caps: Capabilities, exchange: Exchange) -> None:
    if exchange.content_type == SSE_TYPE:
        caps.post_stream = "sse"
        caps.post_event_ids = caps.post_event_ids or any(e.id is not None for e in exchange.events)
        caps.event_ids = caps.event_ids or caps.post_event_ids
    elif caps.post_stream is None and exchange.end is End.CLOSED:
        caps.post_stream = "json"


def _tool_names(exchange: Exchange) -> list[str]:
    for message in exchange.messages:
        result = message.get("result")
        if isinstance(result, dict) and isinstance(result.get("tools"), list):
            return [t.get("name") for t in result["tools"] if isinstance(t, dict) and isinstance(t.get("name"), str)]
    return []
