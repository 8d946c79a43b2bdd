"""Traces round-trip through JSON, and bad traces are refused with a clear error."""

import json
from dataclasses import fields

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.trace import Failure, Trace, loads


def test_a_trace_round_trips_through_json_with_every_action_kind():
    actions = tuple(
        cls(**{f.name: "S1" for f in fields(cls)}) for cls in a.ACTION_TYPES.values()
    )
    trace = Trace(actions, Profile.MCP_2025_11_25, Failure(3, "replay-suffix", "why"), "hypothesis", {"server": "x"})
    again = loads(trace.dumps())
    assert again == trace and again.meta == {"server": "x"}


def test_describe_marks_the_failing_step():
    trace = Trace((a.Initialize(), a.Reconnect("S1", None)), failure=Failure(2, "reemit-pending", "m"))
    lines = trace.describe().splitlines()
    assert lines[1].endswith("<-- reemit-pending") and "reconnect(session=S1, last_event_id=-)" in lines[1]


@pytest.mark.parametrize(
    "text,message",
    [
        ("not json", "not valid JSON"),
        ("[]", "not an mcp-resume trace"),
        (json.dumps({"format": "mcp-resume-trace/1", "actions": {}}), "'actions' must be a list"),
        (json.dumps({"format": "mcp-resume-trace/1", "actions": [{"kind": "fly"}]}), "unknown action kind 'fly'"),
        (json.dumps({"format": "mcp-resume-trace/1", "actions": [{"kind": "call_tool"}]}), "takes fields"),
        (json.dumps({"format": "mcp-resume-trace/1", "actions": [{"kind": "call_tool", "session": 3}]}), "string or null"),
        (json.dumps({"format": "mcp-resume-trace/1", "actions": [], "profile": "mcp-1999"}), "unknown profile"),
        (json.dumps({"format": "mcp-resume-trace/1", "actions": [], "failure": {"step": "x"}}), "'failure' must be"),
    ],
)
def test_bad_traces_are_refused_with_a_message_that_says_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        loads(text)
