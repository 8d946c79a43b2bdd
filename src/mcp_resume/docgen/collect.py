"""Everything the pages say, gathered from the spec, the model, the proofs and the tests.

``collect(tests_dir, root)`` reads; nothing here writes or renders. Without a test
folder (``tests_dir`` ``None``: an installed package has no ``tests/``) the coverage is
not known (``DocsModel.tests`` ``None``) and the pages say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mcp_resume.model.verify.suite import SCENARIOS
from mcp_resume.proofs.diagrams.model import Diagram
from mcp_resume.proofs.diagrams.render import spec_diagrams
from mcp_resume.spec.catalog import RULES, Rule
from mcp_resume.spec.designs import DESIGNS, Design
from mcp_resume.spec.decision import BRANCH_RULE, NUMBERED_BRANCHES, Branch
from mcp_resume.spec.invariants import GENERIC_CHECKS, SANITY_CHECKS, SERVER_CHECKS, STATE_INVARIANTS

from .rule_coverage import TestRef, scan_tests, tests_by_rule
from .hooks import Contribution
from .obligations import Obligation, decision_obligations

NO_COVERAGE_HINT = ("run `mcp-resume docs --out DIR` from a checkout of the repository, or pass `--tests DIR`, "
                    "for the tests that cover each rule")
"""What gives a documentation set its coverage when it was written without a test folder."""

KIT_RULES = ("replay-suffix", "no-cross-session", "event-id-unique")
"""The rules ``mcp_resume.testing`` checks for an SDK ``EventStore``."""


@dataclass(frozen=True)
class Check:
    kind: str  # "state invariant", "transition check", ...
    function: str
    module: str  # repository path of its module


@dataclass
class DocsModel:
    rules: tuple[Rule, ...]
    tests: dict[str, list[TestRef]] | None  # None: no test folder was scanned, coverage not known
    decision_wide: list[Obligation]
    obligations: dict[str, list[Obligation]]
    designs: dict[str, list[Design]]
    scenarios: frozenset[str]
    diagrams: list[Diagram]
    contributions: list[Contribution] = field(default_factory=list)

    @property
    def coverage_known(self) -> bool:
        return self.tests is not None

    def tests_of(self, rule_id: str) -> list[TestRef]:
        """The tests covering ``rule_id`` (none when the coverage is not known)."""
        return (self.tests or {}).get(rule_id, [])

    def uncovered(self) -> list[Rule]:
        """The rules no test covers; none when the coverage is not known."""
        return [rule for rule in self.rules if not self.tests_of(rule.id)] if self.coverage_known else []


def collect(tests_dir: Path | None, root: Path | None) -> DocsModel:
    """The model of the documentation set; ``CoverageError`` on a bad ``covers`` marker.
    ``tests_dir`` ``None``: no test folder, the coverage is not known."""
    refs = None if tests_dir is None else scan_tests(tests_dir, root, [rule.id for rule in RULES])
    wide, by_rule = decision_obligations()
    return DocsModel(
        rules=RULES,
        tests=None if refs is None else tests_by_rule(refs),
        decision_wide=wide,
        obligations=by_rule,
        designs=_designs_by_rule(),
        scenarios=frozenset(SCENARIOS),
        diagrams=spec_diagrams(),
    )


def checks_of(rule: Rule) -> list[Check]:
    """The predicates of ``spec/invariants.py`` that check ``rule``."""
    found = []
    for invariant in rule.invariants:
        for rule_id, check in SERVER_CHECKS:
            if rule_id == invariant:
                kind = "status check (filed under the rule that judges the branch)" if rule_id == "status" else "server check"
                found.append(Check(kind, check.__name__, "spec/invariants.py"))
        for rule_id, check in GENERIC_CHECKS:
            if rule_id == invariant:
                found.append(Check("server check, when no specific check explains the step", check.__name__,
                                   "spec/invariants.py"))
        if invariant in STATE_INVARIANTS:
            found.append(Check("sanity check of the spec (state invariant)", STATE_INVARIANTS[invariant].__name__,
                               "spec/invariants.py"))
        for rule_id, check in SANITY_CHECKS:
            if rule_id == invariant:
                found.append(Check("sanity check of the spec (transition)", check.__name__, "spec/invariants.py"))
    return found


def branches_judged_by(rule_id: str) -> list[Branch]:
    """The decision branches whose answer ``rule_id`` judges, numbered ones first."""
    branches = [b for b, r in BRANCH_RULE.items() if r == rule_id]
    return sorted(branches, key=lambda b: (NUMBERED_BRANCHES.get(b, 99), list(Branch).index(b)))


def _designs_by_rule() -> dict[str, list[Design]]:
    by_rule: dict[str, list[Design]] = {}
    for design in sorted(DESIGNS, key=lambda d: d.number):
        for rule_id in sorted(design.rules):
            by_rule.setdefault(rule_id, []).append(design)
    return by_rule
