"""Coverage of a checker's run: which actions fired and which decision branches were taken.

A run that finds nothing proves something only if it exercised what it claims
to check. Every checker (the Hypothesis machine, the explorer) counts, for each
step it judged, the action's kind and the branch of the spec's decision it
landed in; a run that holds while some action never fired or some branch was
never taken is *vacuous*, and counts as a failure.

The branches required are those the session-era actions can reach:
``REINITIALIZE`` cannot (``initialize`` carries no session id), and
``METHOD_NOT_ALLOWED`` and ``SESSIONLESS_REQUEST`` belong to the sessionless
revision, whose state machine the spec does not model.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from mcp_resume.spec.actions import ACTION_TYPES
from mcp_resume.spec.decision import NUMBERED_BRANCHES, Branch

REQUIRED_ACTIONS: tuple[str, ...] = tuple(ACTION_TYPES)
"""Every action kind of the spec."""

REQUIRED_BRANCHES: tuple[Branch, ...] = (
    Branch.STREAM_RESUMPTION,
    Branch.SESSION_RESUMPTION,
    Branch.REJECT_FOREIGN_EVENT_ID,
    Branch.REJECT_ORPHAN_EVENT_ID,
    Branch.NEW_SESSION,
    Branch.MISSING_SESSION,
    Branch.MALFORMED_SESSION,
    Branch.UNKNOWN_SESSION,
    Branch.SESSION_REQUEST,
    Branch.SESSION_TERMINATION,
)
"""The decision's branches that session-era actions reach: docs/design.md §2's five
(branch 5 is both ``new-session`` and ``missing-session``), its two guards, and
the ordinary requests in a live session."""


@dataclass
class Coverage:
    """Counts of steps per action kind and per decision branch (by value, e.g. ``stream-resumption``)."""

    actions: Counter = field(default_factory=Counter)
    branches: Counter = field(default_factory=Counter)

    def record(self, kind: str, branch: Branch | None, times: int = 1) -> None:
        self.actions[kind] += times
        if branch is not None:
            self.branches[branch.value] += times

    @property
    def missing_actions(self) -> list[str]:
        return [kind for kind in REQUIRED_ACTIONS if not self.actions.get(kind)]

    @property
    def missing_branches(self) -> list[str]:
        return [branch.value for branch in REQUIRED_BRANCHES if not self.branches.get(branch.value)]

    @property
    def complete(self) -> bool:
        return not self.missing_actions and not self.missing_branches

    def explain(self) -> str:
        """Why the coverage is incomplete, or ``"complete"``."""
        if self.complete:
            return "complete"
        parts = []
        if self.missing_actions:
            parts.append("actions never fired: " + ", ".join(self.missing_actions))
        if self.missing_branches:
            parts.append("branches never taken: " + ", ".join(self.missing_branches))
        return "; ".join(parts)

    def to_json(self) -> dict:
        return {
            "complete": self.complete,
            "actions": {kind: self.actions.get(kind, 0) for kind in REQUIRED_ACTIONS},
            "branches": {b.value: self.branches.get(b.value, 0) for b in Branch if self.branches.get(b.value) or b in REQUIRED_BRANCHES},
            "missing_actions": self.missing_actions,
            "missing_branches": self.missing_branches,
        }


def branch_label(branch: str) -> str:
    """``stream-resumption (1)`` for a numbered branch of docs/design.md §2, else the branch itself."""
    number = NUMBERED_BRANCHES.get(Branch(branch))
    return f"{branch} ({number})" if number else branch
