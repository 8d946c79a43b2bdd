"""Run the Hypothesis machine against servers and confirm what it finds.

``run_server`` runs the machine against one in-process server; for a faulty
design it also confirms the counterexample: the saved trace, replayed from
JSON, must fail on the design at the same step and pass on the reference server
(so the trace shows the design's fault, not a quirk of the harness).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from mcp_resume.spec import designs
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.trace import Trace, loads

from mcp_resume.model.harness.checker import Counterexample, replay
from mcp_resume.model.servers.inprocess import server_factory
from mcp_resume.model.harness.stateful import DEFAULT_EXAMPLES, MachineResult, run_machine
from mcp_resume.model.servers.reference import ReferenceServer


@dataclass
class ServerRun:
    """One machine run: the result, and for a caught design the confirmation."""

    server: str
    profile: Profile
    result: MachineResult
    seconds: float
    replays_on_server: bool | None = None  # the JSON trace fails again at the same step
    passes_on_reference: bool | None = None  # ... and holds on the reference server

    @property
    def caught(self) -> bool:
        return not self.result.passed

    @property
    def rule(self) -> str | None:
        trace = self.result.trace
        return trace.failure.rule if trace and trace.failure else None

    @property
    def design(self) -> int | None:
        return designs.target_number(self.server)

    @property
    def confirmed(self) -> bool:
        return bool(self.replays_on_server and self.passes_on_reference)


def run_server(name: str, profile: Profile, examples: int = DEFAULT_EXAMPLES) -> ServerRun:
    """Run the machine against the in-process server ``name`` (see ``server_factory``)."""
    factory = server_factory(name)
    started = time.perf_counter()
    result = run_machine(factory, profile, max_examples=examples)
    run = ServerRun(name, profile, result, time.perf_counter() - started)
    if result.trace is not None:
        run.replays_on_server, run.passes_on_reference = confirm(result.trace, factory)
    return run


def confirm(trace: Trace, factory) -> tuple[bool, bool]:
    """Replay ``trace`` (through its JSON form) on ``factory()`` and on the reference server.

    Returns (fails on the server at the trace's failing step, holds on the reference).
    """
    reloaded = loads(trace.dumps())
    try:
        replay(reloaded, factory())
        fails_again = False
    except Counterexample as found:
        fails_again = reloaded.failure is not None and found.trace.failure.step == reloaded.failure.step
    try:
        replay(reloaded, ReferenceServer())
        holds_on_reference = True
    except Counterexample:
        holds_on_reference = False
    return fails_again, holds_on_reference


def design_names() -> list[str]:
    """``design-<n>`` for every design of ``spec.designs``."""
    return [design.target for design in designs.DESIGNS]
