"""Canonical forms: states that differ only in names get one form, states that differ
in anything an action could notice get two, and a form decodes back to a state of it."""

from mcp_resume.model.explore.canonical import canonical_key, decode, session_form, session_naming
from mcp_resume.spec.space import Bounds
from mcp_resume.model.explore.plain import explore_spec
from mcp_resume.spec import actions as a
from mcp_resume.spec.invariants import check_state

from tests.helpers.spec_steps import run



def test_which_session_was_created_first_does_not_matter():
    busy_first = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"))
    busy_second = run(a.Initialize(), a.Initialize(), a.CallTool("S2"), a.EmitEvent("T1"))
    assert busy_first != busy_second
    assert canonical_key(busy_first) == canonical_key(busy_second)


def test_the_order_of_events_across_streams_and_of_stream_creation_does_not_matter():
    one = run(a.Initialize(), a.CallTool("S1"), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T2"), a.EmitEvent("T1"))
    other = run(a.Initialize(), a.CallTool("S1"), a.CallTool("S1"), a.EmitEvent("T2"), a.EmitEvent("T2"), a.EmitEvent("T1"))
    assert one != other
    assert canonical_key(one) == canonical_key(other)


def test_what_an_action_could_notice_makes_two_forms():
    base = (a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"))
    variants = [
        run(*base),
        run(*base, a.DropConnection("T1")),  # connection
        run(*base, a.Respond("T1")),  # stream status
        run(*base, a.ExpireStream("T1")),  # retention
        run(*base, a.RestartClient()),  # the client's cursor
        run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.IssueServerRequest("T1")),  # which event carries a request
        run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.EmitEvent("T1")),
        run(*base, a.ExpireSession("S1")),
        run(*base, a.DeleteSession("S1")),  # expired and deleted sessions are told apart
    ]
    keys = [canonical_key(state) for state in variants]
    assert len(set(keys)) == len(keys)


def test_a_request_first_sent_differs_from_its_reemission():
    state = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"), a.Reconnect("S1", None))
    form = session_form(state, "S1")
    codes = sorted(code for stream in form[2] for code in stream[4])
    # request 1: its first sending on T1 (4r + 1) and its re-emission on T2, now its carrier (4r + 2)
    assert codes == [5, 6]


def test_every_explored_form_decodes_to_a_state_with_that_form():
    seen = {}
    explore_spec(Bounds(sessions=2, streams=2, events=2, requests=2, depth=5),
                 record=lambda source, t, target: seen.setdefault(target, t.after))
    assert len(seen) > 500
    for key, state in seen.items():
        decoded = decode(key)
        assert canonical_key(decoded) == key
        assert check_state(decoded) == check_state(state) == []


def test_a_naming_maps_the_decoded_handles_to_the_states_own():
    state = run(a.Initialize(), a.Initialize(), a.CallTool("S2"), a.EmitEvent("T1"), a.IssueServerRequest("T1"))
    form, naming = session_naming(state, "S2")
    mapping = naming.handles("S1", 1, 1, 1)
    assert mapping == {"S1": "S2", "T1": "T1", "E1": "E1", "E2": "E2", "R1": "R1"}
    decoded = decode([form])
    assert [e.request for e in decoded.events] == [None, "R1"]
