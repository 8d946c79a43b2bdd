"""Saved traces replayed: a hand-edited one is blamed on the edited step, a deeply nested
one is refused in one line, a step a server cannot play is named. (Replay time against
trace length is a benchmark's figure: benchmarks/bench_replay.py.)"""

import json

import pytest

from mcp_resume.cli import main
from mcp_resume.model.harness.checker import replay
from mcp_resume.model.harness.trace_edits import TraceStepError
from mcp_resume.model.servers.adapter import Unsupported
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec import actions as a
from mcp_resume.spec.trace import Trace, loads


RECORDED = (a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"), a.Reconnect("S1", "E1"))


def _edited(number: int, action: a.Action) -> Trace:
    actions = list(RECORDED)
    actions[number - 1] = action
    return Trace(tuple(actions))


def _replay_error(trace: Trace) -> TraceStepError:
    with pytest.raises(TraceStepError) as caught:
        replay(trace, ReferenceServer())
    return caught.value


def test_the_recorded_trace_replays():
    assert len(replay(Trace(RECORDED), ReferenceServer())) == len(RECORDED)


def test_a_step_edited_to_name_a_session_never_created_is_blamed_not_the_step_after_it():
    error = _replay_error(_edited(2, a.CallTool("S4")))
    assert (error.blamed, error.step) == (2, 3)
    assert str(error).startswith("trace step 2 (call_tool(session=S4))") and "session S4" in str(error)
    assert "trace step 3 (emit_event(stream=T1)) cannot be played" in str(error)


def test_an_edit_that_ends_a_stream_early_is_blamed_on_the_edited_step():
    error = _replay_error(_edited(3, a.Respond("T1")))
    assert (error.blamed, error.step) == (3, 4)
    assert str(error).startswith("trace step 3 (respond(stream=T1))")


def test_a_step_broken_by_nothing_before_it_is_named_itself():
    error = _replay_error(_edited(3, a.EmitEvent("T9")))
    assert (error.blamed, error.step) == (3, 3) and str(error).startswith("trace step 3 (emit_event(stream=T9))")


def _nested(depth: int) -> str:
    return json.dumps({"format": "mcp-resume-trace/1", "actions": [{"kind": "call_tool", "session": "X"}]}).replace(
        '"X"', "[" * depth + "]" * depth)


def test_deeply_nested_json_is_a_value_error_not_a_recursion_error():
    with pytest.raises(ValueError, match="nested too deeply"):
        loads(_nested(100_000))


def test_the_replay_command_refuses_deeply_nested_json_in_one_line(tmp_path, capsys):
    path = tmp_path / "deep.trace.json"
    path.write_text(_nested(100_000), encoding="utf-8")
    assert main(["replay", str(path), "reference"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(path) in err and "nested too deeply" in err


class _NoServerRequests(ReferenceServer):
    """A server that, like one over HTTP without the fixture tool, cannot issue server requests."""

    def apply(self, action):
        if isinstance(action, a.IssueServerRequest):
            raise Unsupported("no fixture tool issues server requests")
        return super().apply(action)


def test_a_step_the_server_cannot_be_driven_through_is_named():
    trace = Trace(RECORDED[:3] + (a.IssueServerRequest("T1"),))
    with pytest.raises(Unsupported, match=r"^step 4 \(issue_server_request\(stream=T1\)\) cannot be played: no fixture"):
        replay(trace, _NoServerRequests())
