"""Traces (spec/trace.py): what a saved counterexample keeps and how a bad one is refused."""

import json

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.trace import TRACE_FORMAT, Failure, Trace, loads, trace_from_json


@pytest.mark.parametrize("failure", [{}, {"step": 1, "rule": "x"}, {"rule": "x", "message": "m"}, [1], "step 1",
                                     {"step": "one", "rule": "x", "message": "m"}])
def test_a_failure_without_step_rule_and_message_is_refused(failure):
    data = {"format": TRACE_FORMAT, "actions": [], "failure": failure}
    with pytest.raises(ValueError, match="'failure' must be null or"):
        trace_from_json(data)


def test_a_minimal_trace_takes_the_default_profile_and_keeps_only_an_object_as_meta():
    trace = trace_from_json({"format": TRACE_FORMAT, "actions": [{"kind": "initialize"}], "meta": ["x"]})
    assert trace.profile is DEFAULT_PROFILE is Profile.BOUNDARY
    assert trace.meta == {} and trace.failure is None and trace.source == ""
    assert trace.actions == (a.Initialize(),)


def test_the_json_form_names_its_format_profile_source_and_failing_step():
    trace = Trace((a.Initialize(), a.CallTool("S1")), Profile.MCP_2025_06_18, Failure(2, "r", "m"), "z3")
    data = json.loads(trace.dumps())
    assert data["format"] == "mcp-resume-trace/1" and data["profile"] == "mcp-2025-06-18"
    assert data["source"] == "z3" and data["failure"] == {"step": 2, "rule": "r", "message": "m"}
    assert data["actions"] == [{"kind": "initialize"}, {"kind": "call_tool", "session": "S1"}]
    assert trace.dumps().endswith("}\n")
    lines = trace.describe().splitlines()
    assert lines == ["  1. initialize()", "  2. call_tool(session=S1)  <-- r"]
    assert loads(trace.dumps()) == trace


def test_an_action_that_is_wrong_is_named_by_its_position():
    with pytest.raises(ValueError, match="trace action 2: unknown action kind 'fly'"):
        loads(json.dumps({"format": TRACE_FORMAT, "actions": [{"kind": "initialize"}, {"kind": "fly"}]}))
    with pytest.raises(ValueError, match="not an mcp-resume trace"):
        trace_from_json({"format": "other", "actions": []})
