"""The columns of the kill matrix, composed here because they come from both ``model`` and ``proofs``.

Two columns run today: the Hypothesis machine and the explorer (``model``). Two
are hooks for checkers being built elsewhere; until they exist their cells say
"not available" and do not count for or against the matrix:

- ``z3_bmc_column``: the Z3 bounded run of ``proofs`` (BMC over the spec's
  transitions) against each faulty design;
- ``http_verify_column``: ``mcp-resume verify`` against each faulty design
  served over Streamable HTTP.

To wire one in, make its function return an object with ``name``,
``unavailable() -> str | None`` and ``run(design: int, profile) -> Cell``
(``model.kill_matrix.Column``); everything else (table, JSON, Markdown,
``mcp-resume check``) follows.
"""

from __future__ import annotations

from mcp_resume.model.explore_space import Bounds
from mcp_resume.model.kill_matrix import Column, ExplorerColumn, HypothesisColumn, UnavailableColumn
from mcp_resume.model.machine import DEFAULT_EXAMPLES

Z3_BMC = "z3-bmc"
HTTP_VERIFY = "http-verify"


def z3_bmc_column() -> Column:
    """HOOK: the Z3 bounded model check of ``proofs`` against each faulty design."""
    return UnavailableColumn(Z3_BMC, "the Z3 bounded run (proofs BMC) is being built; no runner is wired here yet")


def http_verify_column() -> Column:
    """HOOK: ``mcp-resume verify`` against each faulty design served over Streamable HTTP."""
    return UnavailableColumn(HTTP_VERIFY, "the faulty designs are not served over HTTP yet; no runner is wired here")


def kill_columns(examples: int | None = None, bounds: Bounds | None = None) -> list[Column]:
    """Every column, in the order the matrix shows them."""
    explorer = ExplorerColumn(bounds) if bounds is not None else ExplorerColumn()
    return [HypothesisColumn(examples or DEFAULT_EXAMPLES), explorer, z3_bmc_column(), http_verify_column()]
