"""The Hypothesis machine finds every faulty design quickly, by a margin, with a short trace.

``run_machine`` generates examples until the first failing one and then shortens
its trace (``checker.shorten``); these tests hold it to the figures issue 13
asks for, to the kill matrix's profiles, and to the correct servers.
"""

import pytest

from mcp_resume.model.harness.checker import Counterexample, replay, shorten
from mcp_resume.model.harness.stateful import run_machine
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.model.servers.inprocess import server_factory
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.trace import Trace


def _padded_off_by_one_trace() -> Trace:
    """Design 7's fault (a stream resumption replays its cursor's event) behind steps that do not matter."""
    actions = (
        a.Initialize(), a.Initialize(), a.CallTool("S2"), a.EmitEvent("T1"), a.RestartClient(),
        a.CallTool("S1"), a.EmitEvent("T2"), a.DropConnection("T2"), a.Reconnect("S1", "E2"),
    )
    return Trace(actions, Profile.BOUNDARY, source="test")


def test_shorten_deletes_the_steps_that_do_not_matter_and_keeps_the_rule():
    with pytest.raises(Counterexample) as failed:
        replay(_padded_off_by_one_trace(), DESIGNS[7]())
    found = failed.value
    short = shorten(found, DESIGNS[7])
    assert short.trace.failure.rule == found.trace.failure.rule == "replay-suffix"
    assert len(short.trace.actions) < len(found.trace.actions)
    assert not any(isinstance(action, a.RestartClient) for action in short.trace.actions)
    with pytest.raises(Counterexample) as again:
        replay(short.trace, DESIGNS[7]())
    assert again.value.trace.failure.step == len(short.trace.actions)
    assert len(replay(short.trace, ReferenceServer())) == len(short.trace.actions)


def _tool_call_padded_trace() -> Trace:
    """Design 12's fault (GET streams share one buffer) behind a tool call whose server
    request the session resumption re-emits: deleting the call alone leaves its
    request and its drop naming a stream that no longer exists."""
    actions = (
        a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"),
        a.CallTool("S1"), a.IssueServerRequest("T2"), a.DropConnection("T2"),
        a.Reconnect("S1", None), a.CloseConnection("T3"), a.Reconnect("S1", None), a.Reconnect("S1", "E4"),
    )
    return Trace(actions, Profile.BOUNDARY, source="test")


def test_shorten_deletes_a_step_with_the_steps_that_name_what_it_created():
    with pytest.raises(Counterexample) as failed:
        replay(_tool_call_padded_trace(), DESIGNS[12]())
    short = shorten(failed.value, DESIGNS[12])
    kinds = [action.kind for action in short.trace.actions]
    assert short.trace.failure.rule == failed.value.trace.failure.rule
    assert kinds.count("call_tool") == 1 and kinds.count("issue_server_request") == 1, kinds
    with pytest.raises(Counterexample):
        replay(short.trace, DESIGNS[12]())


def test_the_result_says_how_many_actions_found_the_counterexample():
    result = run_machine(server_factory("design-11"), Profile.BOUNDARY)  # found in 0.05 CPU-s (design 8: 1.2)
    assert not result.passed
    assert result.actions_to_first is not None and result.actions_to_first <= result.actions_run
    assert result.seconds_to_first is not None and result.seconds_to_first > 0


def test_a_result_keeps_nothing_of_hypothesis_s_search():
    """The counterexample Hypothesis raised is returned without its traceback, whose frames
    held the whole search (28 runs in ``check``): with it kept, design 10's short run (0.05 CPU-s)
    leaves about 700 of Hypothesis's objects alive, design 3's about 20,000."""
    import gc

    def conjecture_objects() -> int:
        gc.collect()
        return sum(type(o).__module__.startswith("hypothesis.internal.conjecture") for o in gc.get_objects())

    before = conjecture_objects()
    result = run_machine(DESIGNS[10], Profile.BOUNDARY)
    assert result.counterexample is not None
    assert conjecture_objects() - before < 50
