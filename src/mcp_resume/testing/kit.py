"""``check_event_store``: hold an ``EventStore`` for the official Python SDK to the spec."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from hypothesis.errors import Flaky

from mcp_resume.model.servers.adapter import Unsupported
from mcp_resume.model.harness.checker import Counterexample, replay
from mcp_resume.model.harness.stateful import DEFAULT_STEPS, run_machine
from mcp_resume.spec.catalog import AGREEMENT
from mcp_resume.spec.profiles import DEFAULT_PROFILE, SESSION_ERA, Profile
from mcp_resume.spec.trace import Failure, Trace

from .probes import CONTRACT_PROBES, LIMIT_PROBES, run_probes
from .reference_store import ReferenceEventStore
from .kit_report import EventStoreReport
from .sdk import EventStore
from mcp_resume.event_store import session_store
from .transport import DEPLOYMENTS, SHARED, EventStoreTransport, Registry

DEFAULT_STORE_EXAMPLES = 150
"""Hypothesis examples per check: enough to catch every faulty store the tests hold it to."""


def check_event_store(
    factory: Callable[[], Any],
    *,
    examples: int = DEFAULT_STORE_EXAMPLES,
    profile: Profile | str = DEFAULT_PROFILE,
    deployment: str = SHARED,
    steps: int = DEFAULT_STEPS,
) -> EventStoreReport:
    """Drive the stores ``factory()`` makes through the spec's state machine; never raises on a finding.

    ``factory`` is a zero-argument callable returning a fresh
    ``mcp.server.streamable_http.EventStore`` (the class itself will do); every
    Hypothesis example starts from new stores. ``deployment`` is ``"shared"``
    (the default: one store for all sessions, as the SDK wires it when given
    ``streamable_http_app(event_store=...)``) or ``"per-session"`` (the factory is
    called once per session, for a server that gives every session's transport
    its own store). A plain store cannot keep sessions apart when shared: the
    leak probes then fail it. A store that hands out a view per session
    (``for_session()``, as ``mcp_resume.event_store.BoundedEventStore``) is used
    through a new view for every session in both deployments.
    ``profile`` sets the rule levels (a broken SHOULD is a warning); the run is
    derandomized, so the same store gets the same verdict every time.

    Checked: replay is exactly the later events of the cursor's own stream, in
    order (MCP B25-B27, D30); event ids are unique and each resolves to one
    stream (B23, D27, D28); one session's cursor never yields another session's
    events (B26, D50); a resumption from a priming event (D8) replays the stream.

    Called from a running event loop (an async test), the check runs in a
    worker thread, since the store's coroutines get an event loop of their own.

    Raises ``TypeError`` when ``factory`` is not a factory of stores and
    ``ValueError`` for a bad ``examples``, ``steps``, ``profile`` or ``deployment``.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _check(factory, examples, profile, deployment, steps)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-resume-store-check") as worker:
        return worker.submit(_check, factory, examples, profile, deployment, steps).result()


def _check(factory, examples, profile, deployment, steps) -> EventStoreReport:
    factory = _checked_factory(factory)
    profile = _checked_profile(profile)
    if deployment not in DEPLOYMENTS:
        raise ValueError(f"unknown deployment {deployment!r}; known: {', '.join(DEPLOYMENTS)}")
    for label, value in (("examples", examples), ("steps", steps)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{label} must be a positive integer, got {value!r}")
    name = _name(factory)
    report = EventStoreReport(name, deployment, profile, examples, steps)
    report.scoped = callable(getattr(factory(), "for_session", None))
    report.contract = run_probes(CONTRACT_PROBES, factory)
    report.limits = run_probes(LIMIT_PROBES, factory)
    registry = Registry()
    try:
        result = run_machine(lambda: EventStoreTransport(factory, deployment, registry, name), profile,
                             max_examples=examples, steps=steps)
    except Flaky as error:
        report.failure = Failure(0, AGREEMENT, "the store answered the same actions differently on a second run: "
                                 f"it keeps state beyond its instances or depends on time ({error})")
        return report
    report.actions_run, report.skipped = result.actions_run, dict(result.skipped)
    report.warnings = {rule: trace.failure.message for rule, trace in sorted(result.warnings.items())}
    if result.trace is not None:
        report.failure, report.trace = result.trace.failure, result.trace
        report.confirmed = _holds_on_reference(result.trace, deployment, profile)
    return report


def _holds_on_reference(trace: Trace, deployment: str, profile: Profile) -> bool | None:
    server = EventStoreTransport(ReferenceEventStore, deployment)
    try:
        replay(trace, server, profile)
        return True
    except Counterexample:
        return False
    except (Unsupported, ValueError):
        return None
    finally:
        server.close()


def _checked_factory(factory: Any) -> Callable[[], Any]:
    if isinstance(factory, EventStore) or not callable(factory):
        raise TypeError(
            f"check_event_store needs a factory of stores, such as the store's class or a function that returns "
            f"a new store, not {type(factory).__name__!r}: every example starts from empty stores"
        )
    sample = session_store(factory())
    missing = [m for m in ("store_event", "replay_events_after") if not callable(getattr(sample, m, None))]
    if missing:
        raise TypeError(f"{_name(factory)}() returned a {type(sample).__name__}, which lacks {' and '.join(missing)} "
                        "of mcp.server.streamable_http.EventStore")
    return factory


def _checked_profile(profile: Profile | str) -> Profile:
    profile = profile if isinstance(profile, Profile) else Profile.parse(str(profile))
    if profile not in SESSION_ERA:
        raise ValueError(f"profile {profile.value} has no sessions, no Last-Event-ID and so no event store to check")
    return profile


def _name(factory: Callable[[], Any]) -> str:
    module = getattr(factory, "__module__", None)
    qualname = getattr(factory, "__qualname__", None) or type(factory).__name__
    return f"{module}.{qualname}" if module else qualname
