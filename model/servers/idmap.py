"""The map between the spec's handles (``S1``, ``T2``, ``E3``, ``R1``) and a server's ids.

A server under test mints its own session ids, stream keys, event ids and request
ids. After every step the checker aligns what the server reported with what the
spec created (``align``), and translates later actions into the server's ids
(``to_server``). An id the map cannot pair stays visible as ``?<id>`` so that an
invariant reports it rather than the map hiding it. A session id outside 0x21-0x7E
(MCP B30) is never paired and stays itself: no handle looks like it, and the
invariants see that it is malformed.
"""

from __future__ import annotations

from dataclasses import fields

from mcp_resume.spec.actions import Action
from mcp_resume.spec.headers import is_well_formed
from mcp_resume.spec.transitions import Delivered, Observation, Transition

UNMAPPED_PREFIX = "?"

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
"""The field names of each action class, read once."""


class IdMap:
    def __init__(self) -> None:
        self._to_server: dict[str, str] = {}
        self._to_spec: dict[str, str] = {}

    def pair(self, handle: str | None, server_id: str | None) -> None:
        """Record that ``handle`` is ``server_id``; first pairing wins."""
        if handle is None or server_id is None:
            return
        if handle in self._to_server or server_id in self._to_spec:
            return
        self._to_server[handle] = server_id
        self._to_spec[server_id] = handle

    def server_id(self, handle: str | None) -> str | None:
        """The server's id for ``handle``; unmapped values (literals) pass through."""
        if handle is None:
            return None
        return self._to_server.get(handle, handle)

    def handle(self, server_id: str | None) -> str | None:
        """The spec's handle for ``server_id``, or ``?<server_id>`` when unpaired."""
        if server_id is None:
            return None
        return self._to_spec.get(server_id, UNMAPPED_PREFIX + server_id)

    def to_server(self, action: Action) -> Action:
        """``action`` with every handle replaced by the server's id."""
        names = _FIELD_NAMES.get(type(action))
        if names is None:
            names = _FIELD_NAMES[type(action)] = tuple(f.name for f in fields(action))
        known = self._to_server
        if not any(getattr(action, name) in known for name in names):
            return action  # names no handle the server knows by another id
        return type(action)(**{name: self.server_id(getattr(action, name)) for name in names})  # all its constructor's

    def align(self, spec: Transition, observed: Observation) -> Observation:
        """Pair the entities created in this step, then translate ``observed`` to handles.

        New events the server delivered are paired with the spec's new events
        carrying the same server request, in order.
        """
        if observed.session is None and observed.stream is None and observed.event is None \
                and observed.request is None and not observed.events and not observed.closed:
            return observed  # names nothing (a refusal, an empty answer): nothing to pair or translate
        expected = spec.observation
        malformed = observed.session is not None and not is_well_formed(observed.session)
        for name in ("stream", "event", "request") if malformed else ("session", "stream", "event", "request"):
            self.pair(getattr(expected, name), getattr(observed, name))
        self._pair_new_events(spec, observed)
        return Observation(
            status=observed.status,
            session=observed.session if malformed else self.handle(observed.session),
            stream=self.handle(observed.stream),
            event=self.handle(observed.event),
            request=self.handle(observed.request),
            events=tuple(self._delivered(d) for d in observed.events),
            closed=tuple(self.handle(stream) for stream in observed.closed),
            error=observed.error,
            primed=observed.primed,
            version_refused=observed.version_refused,
            about=self.handle(observed.about),
            response=observed.response,
            version_unsupported=observed.version_unsupported,
            retry=observed.retry,
            cursor=observed.cursor,
        )

    def _delivered(self, item: Delivered) -> Delivered:
        return Delivered(self.handle(item.event), self.handle(item.request), self.handle(item.stream), self.handle(item.cancels))

    def copy(self) -> "IdMap":
        twin = IdMap()
        twin._to_server, twin._to_spec = dict(self._to_server), dict(self._to_spec)
        return twin

    def _pair_new_events(self, spec: Transition, observed: Observation) -> None:
        new_in_spec = [d for d in spec.observation.events if spec.before.event(d.event) is None]
        for item in observed.events:
            if item.event in self._to_spec:
                continue
            request = self._to_spec.get(item.request) if item.request is not None else None
            cancels = self._to_spec.get(item.cancels) if item.cancels is not None else None
            for candidate in new_in_spec:
                if (candidate.request, candidate.cancels) == (request, cancels) and candidate.event not in self._to_server:
                    self.pair(candidate.event, item.event)
                    break
