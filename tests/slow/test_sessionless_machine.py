"""The 2026-07-28 revision as a state machine (spec/sessionless/machine.py), its server checks,
its exploration, and a server serving both eras on one endpoint."""

from __future__ import annotations


from mcp_resume.spec.sessionless import machine as s

from mcp_resume.model.sessionless.sessionless_explore import explore_sessionless
from mcp_resume.model.sessionless.dual_era_checker import run_dual_era_machine
from mcp_resume.model.sessionless.dual_era_server import DualEraServer

from tests.helpers.sessionless_machine import run


def test_the_exhaustive_exploration_finds_no_problem_and_reaches_every_status():
    result = explore_sessionless(s.SessionlessBounds(calls=3, notifications=1))
    assert result.problems == []
    assert result.transitions > result.states > 1 and result.depth >= 6
    smaller = explore_sessionless(s.SessionlessBounds(calls=2, notifications=1))
    assert smaller.states < result.states
    deep = run(s.SendRequest("Q1"), s.RequireInput("Q1"), s.RetryWithInput("Q1", "Q2"), s.RequireInput("Q2"),
               s.RetryWithInput("Q2", "Q3"), s.SendResult("Q3"))
    assert deep.retried_ids("Q3") == ("Q2", "Q1") and s.SessionlessBounds(3, 1).within(deep)


def test_the_dual_era_server_holds_against_both_machines():
    result = run_dual_era_machine(DualEraServer, max_examples=25, steps=25)
    assert result.passed, result.counterexample
    for kind in ("initialize", "reconnect", "issue_server_request", "send_request", "legacy_get",
                 "legacy_delete", "retry_with_input", "close_stream"):
        assert result.action_counts.get(kind, 0) > 0, kind


def test_the_dual_era_server_holds_on_a_long_run():
    result = run_dual_era_machine(DualEraServer, max_examples=300, steps=40)
    assert result.passed, result.counterexample
