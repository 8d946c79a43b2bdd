"""``EventStoreReport``: what ``check_event_store`` found, as text and as JSON."""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.trace import Failure, Trace

from .probes import DOCS_PAGE, ISOLATION_STATEMENT, SHARING_PROBES, ProbeResult
from .transport import SHARED

REPORT_FORMAT = "mcp-resume-event-store-report/1"


@dataclass
class EventStoreReport:
    """The verdict on one ``EventStore``.

    - ``passed``: no counterexample in the machine run, every contract probe held and
      no leak between sessions observed (``leaks``);
    - ``leaks``: under ``deployment="shared"``, the probes that saw one session sent another
      session's events (MCP B26, rule no-cross-session): a leak of the deployment checked;
    - ``failure`` / ``trace``: the first rule broken and the shrunk action sequence
      (spec handles ``S1``, ``T1``, ``E1``; replay it with ``mcp_resume.model.harness.checker.replay``);
    - ``confirmed``: the same trace holds with the kit's ``ReferenceEventStore``
      (``None`` when there is no trace or it could not be replayed);
    - ``warnings``: SHOULD-level rules of ``profile`` seen broken, with what was seen;
    - ``contract`` / ``limits``: the probes (``probes``); limits never fail the store;
    - ``isolation``: whether one session's cursor can yield another's events here:
      ``held (a store per session)``, ``held (a view per session)`` (a store that hands each session
      its own view, ``BoundedEventStore``), ``broken``, ``not judged`` or ``cannot be guaranteed``
      (shared store, no leak observed).
    """

    store: str
    deployment: str
    profile: Profile
    examples: int
    steps: int
    failure: Failure | None = None
    trace: Trace | None = None
    confirmed: bool | None = None
    warnings: dict[str, str] = field(default_factory=dict)
    contract: tuple[ProbeResult, ...] = ()
    limits: tuple[ProbeResult, ...] = ()
    actions_run: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    scoped: bool = False
    """The store hands out a view per session (``for_session``), each session using its own."""

    @property
    def passed(self) -> bool:
        return self.failure is None and all(probe.held for probe in self.contract) and not self.leaks

    @property
    def leaks(self) -> tuple[ProbeResult, ...]:
        if self.deployment != SHARED:
            return ()
        return tuple(p for p in self.limits if p.name in SHARING_PROBES and not p.held)

    @property
    def isolation(self) -> str:
        if self.deployment == SHARED and (self.leaks or not self.scoped):
            return "broken" if self.leaks else "cannot be guaranteed"
        if self.scoped and self.failure is None:
            return "held (a view per session)"
        if self.failure is None:
            return "held (a store per session)"
        return "broken" if self.failure.rule == "no-cross-session" else "not judged"

    def notes(self) -> list[str]:
        """Plain sentences on what the run could not check, and why."""
        notes = []
        skipped = self.skipped.get("reconnect", 0)
        if skipped and self.deployment == SHARED:
            notes.append(f"{skipped} reconnect(s) presenting another session's event id were not driven: a store "
                         "shared by all sessions is never told which session asks.")
        elif skipped:
            notes.append(f"{skipped} reconnect(s) presenting another session's event id were not driven: that id "
                         "also names an event of the asking session's own store (event ids repeat across store "
                         "instances). MCP asks ids to be unique only within a session (B23), but ids that repeat "
                         "are guessable (D50); uuid4-based ids avoid both.")
        return notes

    def findings(self) -> list[str]:
        """One line per finding that fails the store, the first the one ``explain`` leads with."""
        found = []
        if self.failure is not None:
            found.append(f"[{self.failure.rule}] state machine, step {self.failure.step}: {self.failure.message}")
        found += [f"[{p.rule}] contract {p.name}: {p.observed}" for p in self.contract if not p.held]
        found += [f"[no-cross-session] leak between sessions ({p.name}): {p.title}, {p.observed} "
                  "(MCP B26: never another stream's messages)" for p in self.leaks]
        return found

    def explain(self) -> str:
        """A multi-line account, the finding first in one line, the SDK's background once at the end."""
        findings = self.findings()
        lines = [f"EventStore check of {self.store}: " + (f"FAIL: {findings[0]}" if findings else "PASS")]
        lines.append(f"  deployment {self.deployment} ({_DEPLOYMENT_TEXT[self.deployment]}), profile "
                     f"{self.profile.value}, {self.examples} examples of up to {self.steps} steps, "
                     f"{self.actions_run} actions driven")
        if len(findings) > 1:
            lines += ["findings:"] + [f"  {n}. {line}" for n, line in enumerate(findings, start=1)]
        if self.trace is not None and self.failure is not None:
            lines.append(f"counterexample (step {self.failure.step} breaks {self.failure.rule}):")
            lines += ["  " + line for line in self.trace.describe().splitlines()]
            lines.append("  " + _CONFIRMED_TEXT[self.confirmed])
        if self.leaks:
            lines.append(f"what to do: {_SHARED_REMEDY}")
        lines += [f"warning [{rule}]: {message}" for rule, message in sorted(self.warnings.items())]
        lines += ["note: " + note for note in self.notes()]
        lines += ["contract:"] + [f"  [{'held' if p.held else 'BROKEN'}] {p.name} ({p.rule})" for p in self.contract]
        lines.append(f"session isolation: {self.isolation}")
        return "\n".join(lines + self._background())

    def _background(self) -> list[str]:
        lines = ["background: the SDK's limits (once per report; under per-session they never fail the store)",
                 "  " + ISOLATION_STATEMENT]
        for probe in self.limits:
            state = "not exposed" if probe.held else ("LEAKED" if probe in self.leaks else "exposed")
            lines.append(f"  [{state}] {probe.name}: {probe.title}: {probe.observed}")
            lines.append(f"      why: {probe.why} What to do: {probe.remedy}")
        lines.append(f"  more: {DOCS_PAGE}")
        return lines

    def to_json(self) -> dict:
        """The report as a JSON object (``format``: ``REPORT_FORMAT``)."""
        return {
            "format": REPORT_FORMAT,
            "store": self.store,
            "passed": self.passed,
            "deployment": self.deployment,
            "profile": self.profile.value,
            "examples": self.examples,
            "steps": self.steps,
            "actions_run": self.actions_run,
            "skipped": dict(self.skipped),
            "failure": None if self.failure is None else dict(self.failure.__dict__),
            "findings": self.findings(),
            "leaks": [p.name for p in self.leaks],
            "trace": None if self.trace is None else self.trace.to_json(),
            "confirmed": self.confirmed,
            "warnings": dict(self.warnings),
            "contract": [p.to_json() for p in self.contract],
            "isolation": {"status": self.isolation, "statement": ISOLATION_STATEMENT},
            "limits": [p.to_json() for p in self.limits],
            "notes": self.notes(),
        }


_DEPLOYMENT_TEXT = {
    "per-session": "the factory is called once per session",
    "shared": "one store for all sessions, as StreamableHTTPSessionManager does",
}

_SHARED_REMEDY = ("hand every session its own view of one store: ship mcp_resume.event_store.BoundedEventStore "
                  "with scope_sessions(server.session_manager), or give your store a for_session() that does the "
                  "same; or deploy a store per session (give every session's transport its own instance, with all "
                  "state inside it) and check it with deployment=\"per-session\" (docs/testing.md)")

_CONFIRMED_TEXT = {
    True: "confirmed: the same trace holds with the kit's ReferenceEventStore, so the fault is the store's",
    False: "not confirmed: the same trace also fails with the kit's ReferenceEventStore (a fault of the kit?)",
    None: "not confirmed: the trace could not be replayed with the kit's ReferenceEventStore",
}
