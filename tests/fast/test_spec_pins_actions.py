"""Actions in their JSON form (spec/trace.py's format): every kind a trace may hold
parses back to the action it came from, and bad objects are refused with the reason."""

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.actions import ACTION_TYPES, action_from_json, action_to_json, describe

KINDS = {
    "initialize": (a.Initialize, ()),
    "call_tool": (a.CallTool, ("session",)),
    "reconnect": (a.Reconnect, ("session", "last_event_id")),
    "answer_request": (a.AnswerRequest, ("session", "request")),
    "delete_session": (a.DeleteSession, ("session",)),
    "drop_connection": (a.DropConnection, ("stream",)),
    "close_connection": (a.CloseConnection, ("stream",)),
    "evict_event": (a.EvictEvent, ("stream",)),
    "restart_client": (a.RestartClient, ()),
    "emit_event": (a.EmitEvent, ("stream",)),
    "issue_server_request": (a.IssueServerRequest, ("stream",)),
    "cancel_request": (a.CancelRequest, ("request",)),
    "end_stream": (a.EndStream, ("stream",)),
    "expire_stream": (a.ExpireStream, ("stream",)),
    "expire_session": (a.ExpireSession, ("session",)),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_of_action_a_trace_holds_parses_back_from_json(kind):
    cls, names = KINDS[kind]
    assert ACTION_TYPES[kind] is cls
    action = cls(**{name: f"{name}-1" for name in names})
    data = action_to_json(action)
    assert data == {"kind": kind, **{name: f"{name}-1" for name in names}}
    assert action_from_json(data) == action


def test_the_client_side_and_the_server_side_of_each_action():
    clients = {k for k, cls in ACTION_TYPES.items() if cls.side == "client"}
    assert {"initialize", "call_tool", "reconnect", "answer_request", "delete_session", "restart_client"} <= clients
    assert ACTION_TYPES["drop_connection"].side == "network"
    assert {"emit_event", "issue_server_request", "cancel_request", "end_stream", "expire_stream",
            "expire_session", "close_connection", "evict_event"} <= {k for k, cls in ACTION_TYPES.items() if cls.side == "server"}


def test_absent_headers_are_null_in_json_and_a_dash_in_the_description():
    action = a.Reconnect("S1", None)
    assert action_to_json(action) == {"kind": "reconnect", "session": "S1", "last_event_id": None}
    assert action_from_json({"kind": "reconnect", "session": None, "last_event_id": None}) == a.Reconnect(None, None)
    assert describe(action) == "reconnect(session=S1, last_event_id=-)"
    assert describe(a.Initialize()) == "initialize()"


@pytest.mark.parametrize(
    "data,message",
    [
        ([], "must be a JSON object, got list"),
        ("initialize", "must be a JSON object, got str"),
        ({}, "unknown action kind None"),
        ({"kind": "reconnect", "session": "S1"}, r"takes fields \['last_event_id', 'session'\], got \['session'\]"),
        ({"kind": "initialize", "session": "S1"}, r"takes fields \[\], got \['session'\]"),
        ({"kind": "emit_event", "stream": 1}, "field 'stream' of action 'emit_event' must be a string or null"),
        ({"kind": "cancel_request", "request": ["R1"]}, "must be a string or null"),
    ],
)
def test_a_bad_action_object_is_refused_with_what_is_wrong(data, message):
    with pytest.raises(ValueError, match=message):
        action_from_json(data)
