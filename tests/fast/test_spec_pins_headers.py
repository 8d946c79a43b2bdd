"""Header values at the edges of MCP B30/D35 (visible ASCII, 0x21-0x7E) and the class
each one gets against a concrete state (docs/design.md §2: the guards, then branches 1-4)."""

import pytest

from mcp_resume.spec import actions as a
from mcp_resume.spec.headers import (
    EVENT_LITERALS,
    MALFORMED_EVENT,
    MALFORMED_SESSION,
    SESSION_LITERALS,
    UNKNOWN_EVENT,
    UNKNOWN_SESSION,
    EventClass,
    SessionClass,
    classify_event,
    classify_session,
    is_well_formed,
)
from mcp_resume.spec.transitions import step

from tests.helpers.spec_steps import run



@pytest.mark.covers("malformed-session-400")
@pytest.mark.parametrize("value", ["!", "~", "S1", "a-b_c.d", "!~" * 64, "\x21\x7e"])
def test_visible_ascii_from_0x21_to_0x7e_is_well_formed(value):
    assert is_well_formed(value)


@pytest.mark.covers("malformed-session-400")
@pytest.mark.parametrize(
    "value",
    ["", " ", "a b", "\x20", "\x7f", "a\x7f", "\t", "a\nb", "\x00", "é", "session-é", "\u00a0", "日本", "\U0001f600"],
    ids=repr,
)
def test_empty_space_control_del_and_non_ascii_values_are_malformed(value):
    assert not is_well_formed(value)


@pytest.mark.covers("malformed-session-400", "unknown-session-404")
def test_a_session_header_is_classified_absent_malformed_unknown_live_or_ended():
    state = run(a.Initialize(), a.Initialize(), a.DeleteSession("S2"))
    assert classify_session(state, None) is SessionClass.ABSENT
    assert classify_session(state, "") is SessionClass.MALFORMED
    assert classify_session(state, "S\u00e91") is SessionClass.MALFORMED
    assert classify_session(state, "S3") is SessionClass.UNKNOWN
    assert classify_session(state, "S1") is SessionClass.LIVE
    assert classify_session(state, "S2") is SessionClass.ENDED
    expired = step(state, a.ExpireSession("S1")).after
    assert classify_session(expired, "S1") is SessionClass.ENDED


@pytest.mark.covers("reject-foreign-event-id", "reject-orphan-event-id")
def test_an_event_header_is_classified_against_the_session_header():
    state = run(a.Initialize(), a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"),
                a.CallTool("S2"), a.EmitEvent("T2"), a.CallTool("S1"), a.EmitEvent("T3"), a.ExpireStream("T3"))
    assert classify_event(state, "S1", None) is EventClass.ABSENT
    assert classify_event(state, "S1", "") is EventClass.MALFORMED
    assert classify_event(state, "S1", "E\u00e91") is EventClass.MALFORMED
    assert classify_event(state, "S1", "E9") is EventClass.UNKNOWN
    assert classify_event(state, "S1", "E1") is EventClass.RETAINED
    assert classify_event(state, "S1", "E3") is EventClass.EXPIRED
    assert classify_event(state, "S1", "E2") is EventClass.FOREIGN
    assert classify_event(state, "S2", "E1") is EventClass.FOREIGN
    assert classify_event(state, None, "E1") is EventClass.FOREIGN


@pytest.mark.covers("reject-foreign-event-id")
def test_an_event_of_an_ended_stream_is_still_retained_for_replay():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.Respond("T1"))
    assert classify_event(state, "S1", "E1") is EventClass.RETAINED


def test_the_literals_name_nothing_and_cover_absent_malformed_and_unknown():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"))
    assert [classify_session(state, v) for v in SESSION_LITERALS] == [
        SessionClass.UNKNOWN, SessionClass.MALFORMED, SessionClass.ABSENT]
    assert [classify_event(state, "S1", v) for v in EVENT_LITERALS] == [
        EventClass.UNKNOWN, EventClass.MALFORMED, EventClass.ABSENT]
    assert not is_well_formed(MALFORMED_SESSION) and not is_well_formed(MALFORMED_EVENT)
    assert is_well_formed(UNKNOWN_SESSION) and is_well_formed(UNKNOWN_EVENT)


@pytest.mark.covers("reject-foreign-event-id", "replay-suffix")
def test_a_cursor_a_ring_buffer_discarded_is_evicted_and_the_next_one_still_retained():
    state = run(a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.EmitEvent("T1"), a.EmitEvent("T1"),
                a.EvictEvent("T1"))
    assert classify_event(state, "S1", "E1") is EventClass.EVICTED
    assert classify_event(state, "S1", "E2") is EventClass.RETAINED
    twice = step(state, a.EvictEvent("T1")).after
    assert [classify_event(twice, "S1", e) for e in ("E1", "E2", "E3")] == [
        EventClass.EVICTED, EventClass.EVICTED, EventClass.RETAINED]
    assert classify_event(twice, "S2", "E1") is EventClass.FOREIGN


@pytest.mark.parametrize("version", ["1999-01-01", "2024-11-04", "0000-00-00"])
def test_a_date_before_the_first_revision_names_no_revision(version):
    from mcp_resume.spec.headers import names_no_revision

    assert names_no_revision(version)  # C40, D45: 400


@pytest.mark.parametrize("version", [
    "2024-11-05", "2025-06-18", "2026-07-28", "9999-12-31",  # the first revision and later: maybe supported
    "draft", "", "1999-01", "1999-01-01-01", "199-001-01", "19999-1-01", "1999-1-001", "19990-01-1",
    "1999-0a-01", "1a99-01-01", "01-01", "abcd-ef-gh", "\uff11999-01-01", "1999-01-0\u00b2",  # not YYYY-MM-DD in ASCII digits
])
def test_anything_else_is_not_judged_unsupported(version):
    from mcp_resume.spec.headers import names_no_revision

    assert not names_no_revision(version)
