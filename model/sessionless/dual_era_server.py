"""One endpoint serving both eras at once, each request judged by the revision it carries.

``DualEraServer`` keeps a session-era server (``ReferenceServer``, for 2025-11-25
clients) and a sessionless one (``SessionlessServer``, for 2026-07-28 clients)
behind one endpoint. Every client request arrives as a ``Wire``: its method, its
``MCP-Protocol-Version`` (the revision ``initialize`` negotiated, or the one a
2026 client sends on every POST, F12) and the two legacy headers. ``era`` picks
the table from the version alone: a 2025-11-25 client keeps its session and its
resumption while a 2026-07-28 client on the same endpoint gets neither, whatever
stale ``Mcp-Session-Id`` or ``Last-Event-ID`` it carries (F17). Server and
network actions stay with the era of the entity they act on.

The faulty dual servers below pick the era another way, as real ports have.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_resume.spec import actions as a
from mcp_resume.spec.sessionless import machine as s
from mcp_resume.spec.transitions import Observation as LegacyObservation

from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.model.sessionless.sessionless_server import SessionlessServer

LEGACY = "2025-11-25"
MODERN = s.REVISION


@dataclass(frozen=True)
class Wire:
    """What routing may look at: ``revision`` is ``MCP-Protocol-Version`` (``None`` on
    ``initialize``, whose body negotiates it)."""

    method: str
    revision: str | None
    session: str | None = None
    last_event_id: str | None = None


def wire(action) -> Wire | None:
    """The request ``action`` puts on the wire; ``None`` for server and network actions,
    a client restart and a closed stream (no request is sent)."""
    if isinstance(action, a.Initialize):
        return Wire("POST", None)
    if isinstance(action, (a.CallTool, a.AnswerRequest)):
        return Wire("POST", LEGACY, action.session)
    if isinstance(action, a.Reconnect):
        return Wire("GET", LEGACY, action.session, action.last_event_id)
    if isinstance(action, a.DeleteSession):
        return Wire("DELETE", LEGACY, action.session)
    if isinstance(action, (s.SendRequest, s.LegacyGet)):
        return Wire("GET" if isinstance(action, s.LegacyGet) else "POST", MODERN, action.session, action.last_event_id)
    if isinstance(action, (s.SendNotification, s.LegacyDelete)):
        return Wire("DELETE" if isinstance(action, s.LegacyDelete) else "POST", MODERN, action.session)
    if isinstance(action, s.RetryWithInput):
        return Wire("POST", MODERN)
    return None


def native_era(action) -> str:
    return MODERN if type(action) in s.ACTION_TYPES.values() else LEGACY


class DualEraServer:
    """Routes each request by its ``MCP-Protocol-Version``; ``apply`` takes the actions
    of either era and answers in that era's observation."""

    name = "dual-era"

    def __init__(self) -> None:
        self.legacy = ReferenceServer()
        self.modern = SessionlessServer()

    def apply(self, action):
        request = wire(action)
        era = self.era(request) if request is not None else native_era(action)
        if era == native_era(action):
            return (self.modern if era == MODERN else self.legacy).apply(action)
        if era == LEGACY:
            return _as_sessionless(self.legacy.apply(_as_legacy(action)), action)
        return LegacyObservation(self.modern.apply(_as_modern(action)).status)

    def close(self) -> None:
        pass

    def era(self, request: Wire) -> str:
        """The revision a request is served under: the one it carries (initialize: 2025-11-25)."""
        return MODERN if request.revision == MODERN else LEGACY


class HeaderRoutedServer(DualEraServer):
    """Takes any request carrying ``Mcp-Session-Id`` or ``Last-Event-ID`` for a session-era
    one: a 2026 client's stale headers reach the session tables (breaks F17, and F7 when
    the resumed session has pending server requests)."""

    name = "dual-era-header-routed"

    def era(self, request: Wire) -> str:
        return LEGACY if request.session or request.last_event_id else super().era(request)


class LatestEraServer(DualEraServer):
    """Serves GET and DELETE by the revision of the latest POST, a server-wide flag:
    once a 2026 client has spoken, a 2025 client's resumption gets 405."""

    name = "dual-era-latest-revision"

    def __init__(self) -> None:
        super().__init__()
        self.latest = LEGACY

    def era(self, request: Wire) -> str:
        if request.method == "POST":
            self.latest = super().era(request)
            return self.latest
        return self.latest


FAULTY_DUAL: tuple[type[DualEraServer], ...] = (HeaderRoutedServer, LatestEraServer)


def _as_legacy(action):
    """A 2026 request as the session-era tables take it."""
    if isinstance(action, s.LegacyGet):
        return a.Reconnect(action.session, action.last_event_id)
    if isinstance(action, s.LegacyDelete):
        return a.DeleteSession(action.session)
    return a.CallTool(action.session)


def _as_modern(action):
    """A session-era request as the 2026 tables take it (GET and DELETE only)."""
    if isinstance(action, a.Reconnect):
        return s.LegacyGet(action.session, action.last_event_id)
    return s.LegacyDelete(action.session)


def _as_sessionless(observed: LegacyObservation, action) -> s.Observation:
    """What a 2026 client sees of a session-era answer: events carrying server requests
    are requests of the server's own; other events are notifications of that stream."""
    stream = observed.stream or "?"
    messages = tuple(
        s.Message(stream, d.request, s.MessageKind.REQUEST) if d.request is not None
        else s.Message(stream, stream, s.MessageKind.NOTIFICATION)
        for d in observed.events
    )
    call = getattr(action, "id", None) if observed.status == 200 and isinstance(action, s.SendRequest) else None
    return s.Observation(observed.status, call=call, session=observed.session, messages=messages, closed=observed.closed)
