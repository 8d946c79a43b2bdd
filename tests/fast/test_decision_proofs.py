"""The Z3 queries over the decision: they hold, and they can fail."""

from __future__ import annotations

import pytest

from mcp_resume.proofs.decision import encoding as decision_encoding
from mcp_resume.proofs.decision.encoding import numbered_branches
from mcp_resume.proofs.decision.queries import run_decision_queries
from mcp_resume.proofs.decision.table import python_table, ranges
from mcp_resume.spec.decision import NUMBERED_BRANCHES, Branch, ClassDecision, Method
from mcp_resume.spec.headers import EventClass, SessionClass
from mcp_resume.spec.profiles import Profile


def test_the_encoding_numbers_branches_as_the_spec_does():
    assert numbered_branches() == NUMBERED_BRANCHES


def test_a_branch_unknown_to_the_encoding_is_reported(monkeypatch):
    monkeypatch.delitem(decision_encoding.RULES, Branch.REINITIALIZE)
    with pytest.raises(KeyError, match="reinitialize"):
        run_decision_queries()


def test_a_decide_class_that_returns_garbage_is_reported():
    with pytest.raises(TypeError, match="ClassDecision"):
        run_decision_queries(decide=lambda *args: None)


def test_rlimit_must_be_positive():
    with pytest.raises(ValueError, match="rlimit"):
        run_decision_queries(rlimit=0)


def test_ranges_compresses_statuses_exactly():
    assert ranges(frozenset({200, 400, 401, 402, 404})) == (200, (400, 402), 404)
    assert ranges(frozenset()) == ()


def test_python_table_covers_the_whole_class_domain():
    table = python_table()
    assert len(table) == len(Method) * len(SessionClass) * len(EventClass) * len(Profile)
    assert all(isinstance(entry, ClassDecision) for entry in table.values())
