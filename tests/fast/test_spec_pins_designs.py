"""The faulty designs as data (spec/designs.py), read through the catalog: a design is
caught under a profile where one of its rules is a MUST (docs/design.md §3, §5)."""

import pytest

from mcp_resume.spec import designs
from mcp_resume.spec.catalog import level
from mcp_resume.spec.profiles import Level, Profile


def test_a_design_is_caught_exactly_where_one_of_its_rules_is_a_must():
    for profile in Profile:
        expected = {d.number for d in designs.DESIGNS
                    if any(level(rule, profile) is Level.MUST for rule in d.rules)}
        if all(d.caught_under is None for d in designs.DESIGNS):
            assert designs.caught_under(profile) == expected
    assert designs.caught_under(Profile.BOUNDARY) == set(designs.NUMBERS)  # docs/design.md §5: all caught
    assert designs.caught_under(Profile.MCP_2026_07_28) == set()


def test_designs_are_named_and_found_by_number_and_by_target():
    first = designs.DESIGNS[0]
    assert first.name == f"design-{first.number}-{first.slug}" and first.target == f"design-{first.number}"
    assert designs.design(first.number) is first
    assert designs.target_number(first.target) == first.number
    assert designs.target_number(f"design-{max(designs.NUMBERS) + 1}") is None
    assert designs.target_number("reference") is None and designs.target_number("design-") is None
    assert designs.target_number("xdesign-1") is None
    with pytest.raises(KeyError, match=r"unknown design 999; designs are 1, 2"):
        designs.design(999)


def test_the_numbers_read_as_a_range_when_they_are_one():
    numbers = designs.NUMBERS
    assert designs.numbers_text() == f"{numbers[0]}-{numbers[-1]}"
    assert numbers == tuple(range(1, len(numbers) + 1))


def test_a_parameter_is_read_by_name_and_a_missing_one_is_named():
    with_status = [d for d in designs.DESIGNS if d.parameters]
    assert {d.parameter("status") for d in with_status} >= {404, 200}  # designs 10 and 11
    plain = next(d for d in designs.DESIGNS if not d.parameters)
    with pytest.raises(KeyError, match=f"design {plain.number} has no parameter 'status'"):
        plain.parameter("status")
    assert designs.PARAMETERS[designs.Deviation.FOREIGN_EVENT_ID_STATUS] == ("status",)


def test_profiles_stated_for_a_design_override_what_its_rules_would_say():
    d = designs.Design(99, "x", "stated", frozenset({"replay-suffix"}), (designs.Deviation.OFF_BY_ONE_REPLAY,),
                       caught_under=frozenset({Profile.MCP_2025_06_18}))
    assert [p for p in Profile if d.caught(p)] == [Profile.MCP_2025_06_18]
    derived = designs.Design(99, "x", "derived", frozenset({"replay-suffix"}), (designs.Deviation.OFF_BY_ONE_REPLAY,))
    assert derived.caught(Profile.BOUNDARY) and not derived.caught(Profile.MCP_2026_07_28)


RULES_OF = {
    1: {"replay-suffix", "reemit-pending", "event-id-unique", "no-cross-session"},
    2: {"reject-foreign-event-id", "server-request-ownership", "no-cross-session"},
    3: {"reemit-keeps-pending"},
    4: {"no-replay-on-session-resume"},
    5: {"reject-orphan-event-id"},
    6: {"no-reemit-on-stream-resume"},
    7: {"replay-suffix"},
    8: {"reject-foreign-event-id", "expiry-independent"},
    9: {"reject-foreign-event-id", "server-request-ownership", "no-cross-session"},
    10: {"reject-foreign-event-id"},
    11: {"reject-foreign-event-id"},
    12: {"server-request-ownership", "no-cross-session"},
    13: {"no-broadcast"},
    14: {"replay-suffix", "no-cross-session"},
    15: {"replay-suffix"},
    16: {"replay-suffix"},
    17: {"reject-orphan-event-id"},
    18: {"replay-suffix", "no-cross-session"},
    19: {"unknown-session-404"},
    20: {"reemit-pending"},
    21: {"server-request-ownership", "no-cross-session", "no-broadcast"},
    22: {"replay-suffix"},
    23: {"reject-foreign-event-id", "expiry-independent"},
    24: {"event-id-unique"},
    25: {"standalone-stream-scope"},
    26: {"reemit-pending"},
    27: {"reemit-pending"},
    28: {"replay-suffix"},
    29: {"unknown-session-404", "expiry-independent", "no-duplicate-tool-call", "session-identity-stable",
         "reject-foreign-event-id"},
    30: {"replay-suffix"},
    31: {"replay-suffix"},
    32: {"standalone-stream-scope"},
    33: {"call-answered", "replay-suffix"},
    34: {"call-answered", "replay-suffix"},
    35: {"reject-foreign-event-id", "replay-suffix"},
    36: {"replay-suffix"},
    37: {"replay-suffix"},
    38: {"reject-foreign-event-id"},
}
"""The rules each design breaks, as docs/design.md §5 lists them: a rule dropped from a design
leaves a checker's finding on it unexplained (the kill matrix files findings by these)."""

MUSTS_UNDER_MCP = {1, 2, 4, 6, 9, 12, 13, 14, 18, 19, 21, 24, 32, 36, 38}
"""The designs every MCP revision catches: those breaking one of its MUSTs."""


def test_the_rules_of_every_design_pinned():
    assert {d.number: set(d.rules) for d in designs.DESIGNS} == RULES_OF


def test_every_mcp_revision_catches_the_same_designs():
    for profile in (Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25):
        assert designs.caught_under(profile) == MUSTS_UNDER_MCP


def test_the_correct_variations_and_the_bounds_two_designs_need_pinned():
    assert [v.target for v in designs.VARIATIONS] == [
        "variation-cancel", "variation-ring-buffer", "variation-reserialised", "variation-json-response",
        "variation-second-get-400", "variation-ping-on-resume", "variation-evicted-cursor-exact"]
    assert designs.variation("ring-buffer") is designs.BY_TARGET["variation-ring-buffer"]
    with pytest.raises(KeyError, match="ring-buffer"):
        designs.variation("no-such-variation")
    assert {d.number: dict(d.needs) for d in designs.DESIGNS if d.needs} == {
        16: {"events": 3, "depth": 8}, 31: {"events": 3, "depth": 8}}
