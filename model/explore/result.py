"""What an exploration reports: counts, coverage, and the shortest trace per broken rule."""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.trace import Trace

from mcp_resume.model.harness.coverage import Coverage
from mcp_resume.spec.space import Bounds


@dataclass
class Violation:
    """The first (so shortest) trace found that breaks ``rule``."""

    rule: str
    message: str
    trace: Trace

    @property
    def steps(self) -> int:
        return len(self.trace.actions)

    def to_json(self) -> dict:
        return {"rule": self.rule, "message": self.message, "steps": self.steps, "trace": self.trace.to_json()}


@dataclass
class ExplorationResult:
    """One exploration of the spec (``server == "spec"``) or of a server beside it.

    - ``states``: distinct states (up to symmetry when ``symmetry``) reached within bounds;
    - ``transitions``: enabled actions taken from every explored state whose target
      stays within bounds; ``pruned``: those whose target breaks a bound;
    - ``depth``: the largest distance from the initial state of a state reached;
    - ``exhausted``: every state within bounds was explored (False when the run
      stopped at its first counterexample or at a budget);
    - ``stopped``: why a run stopped before exploring every state within bounds
      (``--max-states``, ``--max-memory``), None when it did not: its counts are
      then those of the states explored so far, and it does not hold;
    - ``violations``: per rule broken (a FAIL under ``profile``), the shortest trace;
    - ``warnings``: per rule broken without failing the run (a SHOULD or MAY);
    - ``seconds``: wall time (reported, never asserted on).
    """

    server: str
    profile: Profile
    bounds: Bounds
    engine: str
    symmetry: bool
    states: int = 0
    transitions: int = 0
    pruned: int = 0
    depth: int = 0
    exhausted: bool = True
    stopped: str | None = None
    seconds: float = 0.0
    levels: list[int] = field(default_factory=list)
    coverage: Coverage = field(default_factory=Coverage)
    violations: dict[str, Violation] = field(default_factory=dict)
    warnings: dict[str, Violation] = field(default_factory=dict)
    notes: dict[str, object] = field(default_factory=dict)

    @property
    def holds(self) -> bool:
        """No rule broken, the run was not vacuous, and it was not stopped at a budget."""
        return not self.violations and self.coverage.complete and self.stopped is None

    @property
    def verdict(self) -> str:
        """``"broken"`` (a rule broken), ``"incomplete"`` (stopped early, nothing broken so far),
        ``"vacuous"`` (some action or branch never exercised) or ``"holds"``."""
        if self.violations:
            return "broken"
        if self.stopped is not None:
            return "incomplete"
        return "vacuous" if self.vacuous else "holds"

    @property
    def caught(self) -> bool:
        return bool(self.violations)

    @property
    def vacuous(self) -> bool:
        """Nothing was found but some action or branch was never exercised (in a complete run)."""
        return not self.violations and not self.coverage.complete and self.stopped is None

    @property
    def complete(self) -> bool:
        """Every state within bounds was explored, or the run stopped at its first counterexample."""
        return self.stopped is None

    @property
    def first(self) -> Violation | None:
        """The shortest violation of all (ties: the first found)."""
        if not self.violations:
            return None
        return min(self.violations.values(), key=lambda v: v.steps)

    @property
    def states_per_second(self) -> float:
        return self.states / self.seconds if self.seconds > 0 else 0.0

    def record(self, registry: dict[str, Violation], rule: str, message: str, trace: Trace) -> bool:
        """Keep ``trace`` as ``rule``'s violation unless one was found before; True when kept."""
        if rule in registry:
            return False
        registry[rule] = Violation(rule, message, trace)
        return True

    def to_json(self) -> dict:
        return {
            "server": self.server,
            "profile": self.profile.value,
            "bounds": self.bounds.to_json(),
            "engine": self.engine,
            "symmetry": self.symmetry,
            "states": self.states,
            "transitions": self.transitions,
            "pruned": self.pruned,
            "depth": self.depth,
            "levels": self.levels,
            "exhausted": self.exhausted,
            "complete": self.complete,
            "stopped": self.stopped,
            "seconds": round(self.seconds, 3),
            "states_per_second": round(self.states_per_second),
            "verdict": self.verdict,
            "holds": None if self.verdict == "incomplete" else self.holds,  # unknown: not explored to the end
            "vacuous": self.vacuous,
            "coverage": self.coverage.to_json(),
            "violations": {rule: v.to_json() for rule, v in self.violations.items()},
            "warnings": {rule: v.to_json() for rule, v in self.warnings.items()},
            "notes": self.notes,
        }
