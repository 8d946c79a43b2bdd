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
- ``ReferenceEventStore`` (``reference_store``): the kit's own correct store, one per session, against
  which it confirms every counterexample (a plain store: the shared deployment fails it);
- ``EventStoreTransport`` (``transport``): the server under test the machine drives;
- ``ISOLATION_STATEMENT``: why a store shared by all sessions cannot keep them apart.

Modules, one concern each: ``sdk`` (what is taken from the SDK), ``transport``,
``probes``, ``reference_store``, ``kit_report``, ``kit``, ``pytest_plugin``.

The store to ship is not here: ``mcp_resume.event_store.BoundedEventStore`` (with ``scope_sessions``)
passes the kit in both deployments. ``SharedEventStore``, ``SessionEventStore``, ``scope_sessions`` and
``ScopedSessionManager`` of earlier releases still resolve, with a ``DeprecationWarning``, to their
successors there.
"""

from __future__ import annotations

import importlib
import warnings

_HOMES = {
    "DEFAULT_STORE_EXAMPLES": "kit", "check_event_store": "kit",
    "ISOLATION_STATEMENT": "probes", "ProbeResult": "probes",
    "ReferenceEventStore": "reference_store",
    "EventStoreReport": "kit_report",
    "DEPLOYMENTS": "transport", "PER_SESSION": "transport", "SHARED": "transport", "EventStoreTransport": "transport",
}
"""The module of each public name. They are imported on first use (PEP 562), so that pytest,
which loads ``pytest_plugin`` in every run, does not import the SDK for suites that never
use the kit."""

_MOVED = {"SharedEventStore": "BoundedEventStore", "SessionEventStore": "SessionView",
          "scope_sessions": "scope_sessions", "ScopedSessionManager": "ScopedSessionManager"}
"""Names of earlier releases and their successors in ``mcp_resume.event_store``."""

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    if name in _MOVED:
        successor = _MOVED[name]
        warnings.warn(f"mcp_resume.testing.{name} moved: use mcp_resume.event_store.{successor}",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module("mcp_resume.event_store"), successor)
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
