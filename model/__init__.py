"""Implementations held to the spec, one folder per concern, in pipeline order:

- ``servers/``: the adapter interface (``ServerUnderTest``), the spec as an adapter,
  the in-process reference server and the faulty designs;
- ``harness/``: the Hypothesis machine (``stateful``), the checker that drives a server
  beside the spec one action at a time (``checker``, ``replay``), coverage, the worker processes;
- ``explore/``: exhaustive breadth-first exploration of the spec and of a server beside it,
  symmetry reduction, the state-space manifest, the explored graph, liveness, the kill matrix;
- ``http/``: the bounded Streamable HTTP client, its evidence and curl scripts;
- ``traffic/``: recorded exchanges of the session era mapped onto the spec's actions
  (``trace_validation``), the recording proxy;
- ``sessionless/``: the 2026-07-28 revision: its server, checker, explorer and
  traffic judge, and an endpoint that serves both eras;
- ``oracle/``: the one judge of recorded exchanges of either era (``verify``,
  ``validate`` and the proxy all call it);
- ``verify/``: the scenarios, verdicts and reports of ``mcp-resume verify``, the machine over HTTP;
- ``serving/``: in-process servers served over HTTP;
- ``targets/``: real servers started here on 127.0.0.1 (the official SDKs).

The public API, imported from here (each loaded on first use, so importing one
subpackage does not pull in the others' dependencies):

- ``ServerUnderTest``: the protocol an adapter implements;
- ``run_machine(factory, profile, max_examples, steps) -> MachineResult``;
- ``replay(trace, server, profile=None) -> list[StepReport]`` (every step's report),
  raising ``Counterexample`` where the server departs;
- ``explore_spec(bounds, profile) -> ExplorationResult`` and
  ``explore_server(factory, bounds, profile) -> ExplorationResult``.
"""

from __future__ import annotations

import importlib

_PUBLIC = {
    "ServerUnderTest": "mcp_resume.model.servers.adapter",
    "run_machine": "mcp_resume.model.harness.stateful",
    "MachineResult": "mcp_resume.model.harness.stateful",
    "replay": "mcp_resume.model.harness.checker",
    "Counterexample": "mcp_resume.model.harness.checker",
    "explore_spec": "mcp_resume.model.explore.plain",
    "explore_server": "mcp_resume.model.explore.server",
    "ExplorationResult": "mcp_resume.model.explore.result",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
