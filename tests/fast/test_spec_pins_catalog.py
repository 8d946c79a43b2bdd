"""The catalog's levels where the MCP text fixes them (rule ids of
shared/reference/mcp-transport-rules.md), verdicts from levels (docs/design.md §3), and the
sources every rule cites."""

import pytest

from mcp_resume.spec.catalog import AGREEMENT, DESIGN_RULE_IDS, RULES, RULES_BY_ID, level, rule
from mcp_resume.spec.profiles import MCP_SESSION_REVISIONS, PROFILE_NOTES, SESSION_ERA, Level, Profile
from mcp_resume.spec.sources import REVISIONS, SOURCES, source
from mcp_resume.spec.verdicts import SEVERITY_ORDER, Verdict, verdict_for_broken, worst

MUST, SHOULD, MAY, NA = Level.MUST, Level.SHOULD, Level.MAY, Level.NOT_APPLICABLE
MCP = sorted(MCP_SESSION_REVISIONS)
DESIGN_IDS = (
    "replay-suffix", "no-cross-session", "no-replay-on-session-resume", "no-reemit-on-stream-resume",
    "reemit-pending", "reemit-keeps-pending", "reject-orphan-event-id", "reject-foreign-event-id",
    "unknown-session-404", "session-identity-stable", "expiry-independent", "event-id-unique",
    "server-request-ownership", "no-duplicate-tool-call",
)


def test_the_first_fourteen_rules_are_design_md_section_4s_in_its_order():
    assert DESIGN_RULE_IDS[:14] == DESIGN_IDS
    assert [r.id for r in RULES[:14]] == list(DESIGN_IDS)
    assert set(RULES_BY_ID) == {r.id for r in RULES} and len(RULES_BY_ID) == len(RULES)


@pytest.mark.parametrize("rule_id", DESIGN_IDS)
def test_boundary_holds_every_design_rule_as_a_must(rule_id):
    # docs/design.md §3: boundary is mcp-2025-11-25 plus the five-way decision as MUSTs
    assert level(rule_id, Profile.BOUNDARY) is MUST


@pytest.mark.parametrize("rule_id", DESIGN_IDS)
def test_the_sessionless_revision_applies_no_rule_of_sessions_and_streams(rule_id):
    # F10, F17: no Mcp-Session-Id, no Last-Event-ID, no server requests on streams (F7)
    assert level(rule_id, Profile.MCP_2026_07_28) is NA


@pytest.mark.parametrize("profile", MCP + [Profile.BOUNDARY])
def test_levels_the_mcp_text_fixes_in_every_session_revision(profile):
    assert level("no-cross-session", profile) is MUST  # B26 MUST NOT replay another stream's messages
    assert level("event-id-unique", profile) is MUST  # B23/D27 MUST: unique across the session's streams
    assert level("unknown-session-404", profile) is MUST  # B33 MUST answer an ended session's id with 404
    assert level("no-replay-on-session-resume", profile) is MUST  # B26: nothing of another stream
    assert level("sessionless-get-405", profile) is NA
    assert level("sessionless-ignores-headers", profile) is NA


@pytest.mark.parametrize("profile", MCP)
def test_levels_of_the_mcp_revisions_follow_their_keywords(profile):
    assert level("missing-session-400", profile) is SHOULD  # B32 SHOULD
    assert level("new-session-on-initialize", profile) is MAY  # B28 MAY
    assert level("session-delete", profile) is MAY  # B36 MAY (405), success status unspecified
    # MCP is silent on branch 3 (rules §3.2) and on pending requests (§3.7): no FAIL there
    assert level("reject-foreign-event-id", profile) is not MUST
    assert level("reemit-pending", profile) is not MUST


def test_the_boundary_makes_the_mcp_shoulds_of_the_decision_musts():
    for rule_id in ("missing-session-400", "malformed-session-400", "new-session-on-initialize"):
        assert level(rule_id, Profile.BOUNDARY) is MUST
    assert level("session-delete", Profile.BOUNDARY) is MAY  # B36: a server may refuse DELETE


def test_priming_events_are_new_in_2025_11_25_and_a_should_there():
    # D8 SHOULD; absent before 2025-11-25; no SSE streams to prime in the sessionless revision's model
    assert [level("priming-event", p) for p in Profile] == [NA, NA, SHOULD, SHOULD, NA]


def test_the_sessionless_rules_are_shoulds_of_2026_07_28_only():
    for rule_id in ("sessionless-get-405", "sessionless-ignores-headers"):
        assert level(rule_id, Profile.MCP_2026_07_28) is SHOULD  # F17 SHOULD
        assert [p for p in Profile if level(rule_id, p) is not NA] == [Profile.MCP_2026_07_28]


def test_agreement_with_the_reference_is_a_pseudo_rule_and_unknown_ids_are_named():
    # docs/design.md §3: a difference no rule names is a note, never a FAIL
    assert {level(AGREEMENT, p) for p in Profile} == {NA}
    assert rule("replay-suffix") is RULES_BY_ID["replay-suffix"]
    with pytest.raises(KeyError, match="unknown rule 'no-such-rule'.*replay-suffix"):
        level("no-such-rule", Profile.BOUNDARY)


def test_each_rule_has_a_level_per_profile_and_names_what_checks_it():
    for r in RULES:
        assert len(r.levels) == len(Profile)
        assert r.origin in ("design", "mcp")
        assert r.sources
    assert RULES_BY_ID["replay-suffix"].invariants == ("replay-suffix",)
    assert RULES_BY_ID["missing-session-400"].invariants == ("status",)


def test_every_cited_source_has_an_entry_with_its_revision():
    cited = {s for r in RULES for s in r.sources}
    assert cited <= set(SOURCES)
    assert [source(i).revision.letter for i in ("B26", "C22-C27", "D8", "F17")] == ["B", "C", "D", "F"]
    assert source("C22-C27").revision.profile is Profile.MCP_2025_06_18
    assert source("B26").revision.profile is Profile.MCP_2025_03_26
    assert source("D8").revision.profile is Profile.MCP_2025_11_25
    assert source("F17").revision.profile is Profile.MCP_2026_07_28
    assert source("§3.7").is_open_question and source("§3.7").revision is None
    assert not source("B26").is_open_question
    assert REVISIONS["A"].profile is None and REVISIONS["E"].profile is None
    with pytest.raises(KeyError, match="no source entry for 'Z9'"):
        source("Z9")


@pytest.mark.parametrize("profile", list(Profile))
def test_a_broken_must_fails_a_broken_should_warns_what_a_may_allows_passes(profile):
    # docs/profiles.md, one grading rule: FAIL for a MUST broken, WARN for a SHOULD, PASS (with a note)
    # for what a MAY allows; an answer outside everything the profile accepts (a 5xx) is never a PASS
    expected = {MUST: Verdict.FAIL, SHOULD: Verdict.WARN, MAY: Verdict.PASS, NA: Verdict.PASS}
    outside = {MUST: Verdict.FAIL, SHOULD: Verdict.WARN, MAY: Verdict.WARN, NA: Verdict.PASS}
    for r in RULES:
        assert verdict_for_broken(r.id, profile) is expected[r.level(profile)]
        assert verdict_for_broken(r.id, profile, outside=True) is outside[r.level(profile)]


def test_the_worst_verdict_wins_in_design_md_order():
    assert SEVERITY_ORDER == (Verdict.FAIL, Verdict.INCONCLUSIVE, Verdict.WARN, Verdict.SKIP, Verdict.PASS)
    assert worst([]) is Verdict.PASS
    assert worst([Verdict.PASS, Verdict.SKIP]) is Verdict.SKIP
    assert worst([Verdict.SKIP, Verdict.WARN, Verdict.PASS]) is Verdict.WARN
    assert worst([Verdict.WARN, Verdict.INCONCLUSIVE]) is Verdict.INCONCLUSIVE
    assert worst(iter([Verdict.INCONCLUSIVE, Verdict.FAIL, Verdict.PASS])) is Verdict.FAIL


def test_profiles_are_parsed_by_name_and_grouped_by_era():
    assert Profile.parse("mcp-2025-06-18") is Profile.MCP_2025_06_18
    with pytest.raises(ValueError, match="unknown profile 'mcp-2024'.*boundary"):
        Profile.parse("mcp-2024")
    assert MCP_SESSION_REVISIONS == {Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25}
    assert SESSION_ERA == set(MCP) | {Profile.BOUNDARY}
    assert Profile.MCP_2026_07_28 not in SESSION_ERA
    assert set(PROFILE_NOTES) == set(Profile) and all(PROFILE_NOTES.values())  # each profile's docs page
