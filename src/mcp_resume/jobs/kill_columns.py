"""The columns of the kill matrix, composed here because they come from both ``model`` and ``proofs``.

Each runs against a row of the matrix: a faulty design's number or a correct
variation's target (``variation-<slug>``).

Four columns, each a ``model.explore.kill_cells.Column``:

- ``hypothesis`` and ``explorer`` (``model``);
- ``z3-bmc``: the shortest violating run Z3 finds over the transition system
  with the design's changes (``proofs.system.bmc``), decoded into a trace and
  confirmed by replaying it on the design's in-process server and the reference;
- ``http-verify``: ``mcp-resume verify`` against the design served over real
  Streamable HTTP on 127.0.0.1 (``model.serving.designs_over_http``); its evidence is the
  exchanges themselves, so a caught cell counts as confirmed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from mcp_resume.model.serving.designs_over_http import verify_server_over_http
from mcp_resume.model.harness.runs import confirm
from mcp_resume.spec.space import Bounds
from mcp_resume.model.servers.inprocess import server_factory
from mcp_resume.model.explore.kill_cells import CAUGHT, PASSED, UNAVAILABLE, Cell, Column, ExplorerColumn, HypothesisColumn, Row, entry, target
from mcp_resume.spec.verdicts import Verdict
from mcp_resume.model.harness.stateful import DEFAULT_EXAMPLES
from mcp_resume.proofs.system.bmc import DEFAULT_MAX_DEPTH, bmc_design
from mcp_resume.proofs.system.faulty_systems import needs_encoding
from mcp_resume.spec.profiles import Profile

Z3_BMC = "z3-bmc"
HTTP_VERIFY = "http-verify"


@dataclass
class Z3BmcColumn:
    """Z3 bounded model checking of each design, to ``max_depth`` steps."""

    max_depth: int = DEFAULT_MAX_DEPTH
    name: str = Z3_BMC

    @property
    def note(self) -> str:
        return f"shortest violating run over the transition formulas with the design's changes, to depth {self.max_depth}"

    def unavailable(self) -> str | None:
        return None

    def run(self, design: Row, profile: Profile) -> Cell:
        missing = needs_encoding(entry(design))
        if missing is not None:
            return Cell(self.name, design, profile, UNAVAILABLE, detail=missing)
        started = time.perf_counter()
        result = bmc_design(design, profile, self.max_depth)
        if not result.caught:
            return Cell(self.name, design, profile, PASSED, detail=f"no violating run up to depth {self.max_depth}",
                        seconds=time.perf_counter() - started)
        fails_again, holds_on_reference = confirm(result.trace, server_factory(target(design)))
        return Cell(self.name, design, profile, CAUGHT, result.rule, result.depth, fails_again and holds_on_reference,
                    f"shortest run of depth {result.depth}", time.perf_counter() - started, result.trace)


@dataclass
class HttpVerifyColumn:
    """``mcp-resume verify`` against each design served over Streamable HTTP."""

    name: str = HTTP_VERIFY
    note: str = "every verify scenario against the design served over Streamable HTTP on 127.0.0.1"

    def unavailable(self) -> str | None:
        return None

    def run(self, design: Row, profile: Profile) -> Cell:
        started = time.perf_counter()
        report = verify_server_over_http(target(design), profile)
        rules = [v.rule for v in report.verdicts if v.verdict is Verdict.FAIL]
        seconds = time.perf_counter() - started
        if not rules:
            return Cell(self.name, design, profile, PASSED, detail="no rule got FAIL", seconds=seconds)
        expected = [rule for rule in rules if rule in entry(design).rules]
        rule = (expected or rules)[0]
        return Cell(self.name, design, profile, CAUGHT, rule, None, True, f"FAIL: {', '.join(rules)}", seconds)


def z3_bmc_column() -> Column:
    return Z3BmcColumn()


def http_verify_column() -> Column:
    return HttpVerifyColumn()


def kill_columns(examples: int | None = None, bounds: Bounds | None = None) -> list[Column]:
    """Every column, in the order the matrix shows them."""
    explorer = ExplorerColumn(bounds) if bounds is not None else ExplorerColumn()
    return [HypothesisColumn(examples or DEFAULT_EXAMPLES), explorer, z3_bmc_column(), http_verify_column()]
