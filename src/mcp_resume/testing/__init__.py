"""A test kit for authors of an ``EventStore`` for the official MCP Python SDK.

In a test suite (the pytest plugin is registered when ``mcp-resume`` is installed)::

    from my_server.store import MyEventStore

    def test_my_event_store(event_store_check):
        report = event_store_check(MyEventStore)
        assert report.passed, report.explain()

or, without pytest: ``check_event_store(MyEventStore) -> EventStoreReport``.

Public names:

- ``check_event_store(factory, *, examples, profile, deployment, steps)``
  (``kit``): probes, then the Hypothesis state machine over stores made by
  ``factory``, played by a transport that uses the SDK's stream keys;
- ``EventStoreReport`` (``report``): ``passed``, ``failure``, ``trace``,
  ``explain()``, ``to_json()``; ``ProbeResult`` (``probes``);
- ``ReferenceEventStore`` (``reference_store``): a correct in-memory store, one per session;
- ``SharedEventStore``, ``scope_sessions``, ``ScopedSessionManager`` (``shared_store``): one store for
  all sessions of the SDK's ``StreamableHTTPSessionManager``, each session through its own view,
  whose event ids carry the session (it passes ``deployment="shared"``);
- ``EventStoreTransport`` (``transport``): the server under test the machine drives;
- ``ISOLATION_STATEMENT``: why a store shared by all sessions cannot keep them apart.

Modules, one concern each: ``sdk`` (what is taken from the SDK), ``transport``,
``probes``, ``reference_store``, ``shared_store``, ``report``, ``kit``, ``pytest_plugin``.
"""

from .kit import DEFAULT_STORE_EXAMPLES, check_event_store
from .probes import ISOLATION_STATEMENT, ProbeResult
from .reference_store import ReferenceEventStore
from .kit_report import EventStoreReport
from .shared_store import ScopedSessionManager, SessionEventStore, SharedEventStore, scope_sessions
from .transport import DEPLOYMENTS, PER_SESSION, SHARED, EventStoreTransport

__all__ = [
    "DEFAULT_STORE_EXAMPLES", "DEPLOYMENTS", "EventStoreReport", "EventStoreTransport", "ISOLATION_STATEMENT",
    "PER_SESSION", "ProbeResult", "ReferenceEventStore", "SHARED", "ScopedSessionManager", "SessionEventStore",
    "SharedEventStore", "check_event_store", "scope_sessions",
]
