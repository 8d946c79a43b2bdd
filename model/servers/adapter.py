"""The adapter interface: how a checker drives a *server under test*.

A server under test applies one of the spec's actions at a time and reports what
was observed, as a ``spec.transitions.Observation`` written in *its own* ids
(session ids, stream keys, event ids, JSON-RPC request ids). The checker keeps an
``IdMap`` between those ids and the spec's handles (``model.servers.idmap``), so a server
is free to mint ids its own way.

Actions name entities by the server's ids too: the checker translates the spec's
handles before calling ``apply``. Header values that name nothing (malformed,
unknown) pass through unchanged.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from mcp_resume.spec.actions import Action
from mcp_resume.spec.transitions import Observation


class Unsupported(Exception):
    """The server under test cannot be driven through this action (e.g. a server
    action on a server reached over HTTP). The machine skips such an action."""


class Violation(Exception):
    """A rule the server under test was seen, from inside, to break where no
    observation can show it (e.g. a store that returned one event id twice).

    ``rule`` is a catalog rule id; the checker files ``message`` under it.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"[{rule}] {message}")
        self.rule = rule
        self.message = message


@runtime_checkable
class ServerUnderTest(Protocol):
    name: str

    def apply(self, action: Action) -> Observation:
        """Apply ``action`` and return what was observed, in the server's ids.

        Raises ``Unsupported`` when the action cannot be driven on this server.
        """

    def close(self) -> None:
        """Release what the server holds (connections, processes)."""
