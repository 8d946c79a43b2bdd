"""``verify`` on servers that act as real ones do (docs/design.md §7, issue 10): each
behaviour, correct or faulty, is a switch of ``tests/helpers/servers/variants.py``, a
real server started here on 127.0.0.1 and stopped when the test ends."""

from __future__ import annotations

import asyncio

import pytest

from mcp_resume.model.http.client import StreamableHttpClient
from mcp_resume.model.serving.facade import serving_design
from mcp_resume.model.verify.probe import probe
from mcp_resume.model.verify.scenarios import Context
from mcp_resume.model.verify.suite import SCENARIOS, judge_rule, resolve_profile
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict
from tests.helpers.servers.variants import Variant, serving_variant

from tests.helpers.bounds import SHORT_BOUNDS
from tests.helpers.verify_real import full_run


PASS, FAIL, SKIP = Verdict.PASS, Verdict.FAIL, Verdict.SKIP

pytestmark = [pytest.mark.timeout(120)]


def judged(variant_or_url, *rules, profile=Profile.BOUNDARY, stream_ttl=None, session_ttl=None):
    """The verdicts of ``rules`` on a variant served here (or a URL), after the probe."""
    if isinstance(variant_or_url, str):
        return asyncio.run(_judge(variant_or_url, rules, profile, stream_ttl, session_ttl))
    with serving_variant(variant_or_url) as url:
        return asyncio.run(_judge(url, rules, profile, stream_ttl, session_ttl))


async def _judge(url, rules, requested, stream_ttl, session_ttl):
    async with StreamableHttpClient(url, SHORT_BOUNDS) as client:
        caps = await probe(client)
    profile, _ = resolve_profile(requested, caps.protocol_version)
    ctx = Context(profile, SHORT_BOUNDS, caps, stream_ttl, session_ttl)
    return {rule: await judge_rule(SCENARIOS[rule], url, ctx, 120.0) for rule in rules}


def verdicts_of(found) -> dict[str, Verdict]:
    return {rule: v.verdict for rule, v in found.items()}


@pytest.mark.parametrize("status", [400, 431])
@pytest.mark.covers("malformed-session-400")
def test_a_server_that_caps_long_session_ids_passes_malformed_session_400(status):
    """An oversized session id no server issued may be refused with any 4xx (a cap on ids)."""
    found = judged(Variant(cap_session=status), "malformed-session-400")
    verdict = found["malformed-session-400"]
    assert verdict.verdict is PASS, verdict.reason
    assert any("oversized" in x.label and x.status == status for x in verdict.exchanges)
    assert all(c.held for c in verdict.checks)


@pytest.mark.parametrize("revision", ["2025-03-26", "2025-06-18"])
def test_the_negotiated_revision_goes_on_every_later_request(revision):
    rules = ("unknown-session-404", "session-identity-stable", "replay-suffix", "priming-event")
    found = judged(Variant(version=revision), *rules)
    for rule in rules[:3]:
        assert found[rule].verdict is PASS, (rule, found[rule].reason)
        later = [x for x in found[rule].exchanges if (x.request_body or {}).get("method") != "initialize"]
        sent = [x.request_headers.get("mcp-protocol-version") for x in later]
        assert set(sent) == {revision}, sent
    # boundary holds every revision to 2025-11-25's priming SHOULD (D8); the revision's own profile has none
    assert found["priming-event"].verdict in (PASS, Verdict.WARN)
    assert found["priming-event"].beside == (f"mcp-{revision}", SKIP)


@pytest.mark.covers("replay-suffix", "expiry-independent")
def test_a_store_that_reserialises_replayed_json_passes():
    found = judged(Variant(reserialise=True), "replay-suffix", "expiry-independent")
    # the session kept answering after its streams ended (a server that ends sessions with streams would not)
    assert verdicts_of(found) == {"replay-suffix": PASS, "expiry-independent": PASS}, found


@pytest.mark.covers("unknown-session-404", "session-identity-stable", "no-replay-on-session-resume")
def test_json_answers_to_posts_are_judged_not_inconclusive():
    rules = ("unknown-session-404", "session-identity-stable", "no-replay-on-session-resume")
    found = judged(Variant(json_answers=True), *rules)
    # a JSON answer is a message of its stream too, known by its request's id: a session resumption could replay it
    expected = {"unknown-session-404": PASS, "session-identity-stable": PASS, "no-replay-on-session-resume": PASS}
    assert verdicts_of(found) == expected, {r: v.reason for r, v in found.items()}


@pytest.mark.covers("reject-orphan-event-id", "reject-foreign-event-id")
def test_invented_event_ids_need_no_ids_from_the_server():
    found = judged(Variant(json_answers=True), "reject-orphan-event-id", "reject-foreign-event-id")
    assert verdicts_of(found) == {"reject-orphan-event-id": PASS, "reject-foreign-event-id": PASS}
    assert all(v.checks for v in found.values())


@pytest.mark.covers("replay-suffix", "no-cross-session")
def test_event_ids_only_on_the_get_stream_are_resumed_there():
    found = judged(Variant(ids_on_get_only=True, version="2025-06-18"), "replay-suffix", "no-cross-session", "event-id-unique")
    assert verdicts_of(found) == dict.fromkeys(found, PASS), {r: v.reason for r, v in found.items()}
    assert any(c.what.startswith("resume the GET stream") for c in found["replay-suffix"].checks)


@pytest.mark.covers("reemit-pending", "reemit-keeps-pending", "no-duplicate-tool-call")
def test_cancelling_pending_requests_instead_of_re_emitting_them_passes():
    rules = ("reemit-pending", "reemit-keeps-pending", "no-duplicate-tool-call", "server-request-ownership")
    found = judged(Variant(cancel_on_resume=True), *rules)
    assert found["reemit-pending"].verdict is PASS and "(cancels " in found["reemit-pending"].checks[0].observed
    assert FAIL not in verdicts_of(found).values() and Verdict.WARN not in verdicts_of(found).values(), found


@pytest.mark.covers("reemit-pending")
def test_a_re_emission_within_the_grace_period_counts():
    found = judged(Variant(delay_reemit=0.5), "reemit-pending")
    assert found["reemit-pending"].verdict is PASS, found["reemit-pending"].reason


@pytest.mark.covers("reemit-pending")
def test_a_ping_before_the_re_emission_is_no_re_emission_and_no_pending_request():
    # docs/design.md §2: only a request sent again (same JSON-RPC id) is a re-emission; a ping is nobody's pending request
    found = judged(Variant(ping_first=True), "reemit-pending", "reemit-keeps-pending")
    assert found["reemit-pending"].verdict is PASS, found["reemit-pending"].reason
    assert FAIL not in verdicts_of(found).values(), {r: v.reason for r, v in found.items()}


@pytest.mark.covers("replay-suffix")
def test_a_ring_buffer_that_refuses_an_evicted_cursor_passes_and_one_that_replays_past_a_gap_fails():
    refused = judged(Variant(ring=3), "replay-suffix")["replay-suffix"]
    assert refused.verdict is PASS, refused.reason
    # the refused cursor is read as evicted (judged by reject-foreign-event-id), never as a bad replay
    assert any(x.status == 400 and "last-event-id" in x.request_headers for x in refused.exchanges)
    gap = judged(Variant(ring=3, ring_gap=True), "replay-suffix")["replay-suffix"]
    assert gap.verdict is FAIL and gap.reason.startswith("resume the complete stream")


@pytest.mark.covers("expiry-independent")
def test_stream_and_session_ttl_are_waited_for():
    found = judged(Variant(stream_ttl=1.0, session_ttl=2.5), "expiry-independent", stream_ttl=1.0, session_ttl=2.5)
    verdict = found["expiry-independent"]
    assert verdict.verdict is PASS, verdict.reason
    whats = " ".join(c.what for c in verdict.checks)
    assert "--stream-ttl" in whats and "--session-ttl" in whats


def test_a_2026_07_28_server_without_initialize_is_discovered_and_judged(tmp_path):
    code, report = full_run(Variant(era_2026=True, no_initialize=True), tmp_path)
    verdicts = {v["rule"]: v["verdict"] for v in report["verdicts"]}
    assert code == 0 and report["profile"] == "mcp-2026-07-28", report.get("unreachable")
    assert verdicts["sessionless-get-405"] == verdicts["sessionless-ignores-headers"] == "PASS"
    assert "FAIL" not in verdicts.values()


@pytest.mark.parametrize("options", [(), ("--profile", "mcp-2026-07-28")], ids=["auto", "forced"])
def test_a_2026_07_28_server_is_spoken_to_in_its_own_request_shape(tmp_path, options):
    code, report = full_run(Variant(era_2026=True), tmp_path, *options)
    verdicts = {v["rule"]: v for v in report["verdicts"]}
    assert code == 0 and report["profile"] == "mcp-2026-07-28"
    for rule in ("sessionless-get-405", "sessionless-ignores-headers"):
        assert verdicts[rule]["verdict"] == "PASS", verdicts[rule]["evidence"]["reason"]
    posts = [x for x in verdicts["sessionless-ignores-headers"]["evidence"]["exchanges"] if x["request"]["method"] == "POST"]
    assert posts and all(x["request"]["headers"].get("mcp-method") == "tools/list" for x in posts)


@pytest.mark.parametrize("status, expected", [(405, "PASS"), (204, "WARN")])
def test_an_endpoint_serving_both_eras_is_judged_on_the_era_asked_for(tmp_path, status, expected):
    code, report = full_run(Variant(dual_era=True, era_2026_get_status=status), tmp_path)
    verdicts = {v["rule"]: v for v in report["verdicts"]}
    note = report.get("note") or ""
    assert report["profile"] == "mcp-2025-11-25" and "also serves 2026-07-28" in note and "--profile mcp-2026-07-28" in note
    assert verdicts["sessionless-get-405"]["verdict"] == "SKIP"  # auto: the revision it negotiated
    assert verdicts["replay-suffix"]["verdict"] == "PASS" and code == 0
    code, report = full_run(Variant(dual_era=True, era_2026_get_status=status), tmp_path, "--profile", "mcp-2026-07-28")
    verdicts = {v["rule"]: v for v in report["verdicts"]}
    assert verdicts["sessionless-get-405"]["verdict"] == expected, verdicts["sessionless-get-405"]["evidence"]["reason"]
    assert verdicts["sessionless-ignores-headers"]["verdict"] == "PASS"
    assert code == 0  # a broken SHOULD of 2026-07-28 (F17) is a WARN


@pytest.mark.parametrize("status", [406, 200])
@pytest.mark.covers("unknown-session-404")
def test_json_servers_answering_unknown_sessions_with_406_or_200_fail(status):
    found = judged(Variant(json_answers=True, unknown_session_status=status), "unknown-session-404")
    assert found["unknown-session-404"].verdict is FAIL and str(status) in found["unknown-session-404"].reason


@pytest.mark.covers("no-cross-session", "replay-suffix")
def test_a_get_stream_replay_of_post_messages_under_new_ids_is_judged_by_where_not_by_text():
    # the copies carry the GET stream's own ids: only their text says they came from POST streams,
    # and a message is known by where it went, never by its text (a tool may repeat its texts)
    variant = Variant(ids_on_get_only=True, leak_replay=True, version="2025-06-18")
    found = judged(variant, "replay-suffix", "no-cross-session")
    assert verdicts_of(found) == {"replay-suffix": PASS, "no-cross-session": PASS}


@pytest.mark.covers("reject-orphan-event-id")
def test_an_orphan_event_id_answered_with_a_new_session_fails_without_server_ids():
    found = judged(Variant(json_answers=True, orphan_mints=True), "reject-orphan-event-id")
    verdict = found["reject-orphan-event-id"]
    assert verdict.verdict is FAIL and any(not c.held for c in verdict.checks)


@pytest.mark.covers("reject-orphan-event-id", "reject-foreign-event-id")
def test_a_malformed_event_id_answered_500_fails():
    found = judged(Variant(json_answers=True, malformed_event_500=True), "reject-orphan-event-id", "reject-foreign-event-id")
    assert verdicts_of(found) == {"reject-orphan-event-id": FAIL, "reject-foreign-event-id": FAIL}
    assert all("500" in v.reason for v in found.values())


@pytest.mark.covers("malformed-session-400")
def test_a_malformed_session_id_echoed_back_fails():
    verdict = judged(Variant(echo_malformed_session=True), "malformed-session-400")["malformed-session-400"]
    assert verdict.verdict is FAIL and "Mcp-Session-Id" in verdict.reason


@pytest.mark.covers("no-cross-session")
def test_a_replay_of_the_sessions_other_streams_fails_no_cross_session_only():
    rules = ("no-cross-session", "event-id-unique", "expiry-independent")
    found = judged(Variant(leak_replay=True), *rules)
    assert verdicts_of(found) == {"no-cross-session": FAIL, "event-id-unique": PASS, "expiry-independent": PASS}, found


@pytest.mark.covers("replay-suffix")
def test_a_notification_replayed_twice_fails_replay_suffix_not_no_duplicate_tool_call():
    found = judged(Variant(repeat_replayed=True), "replay-suffix", "no-duplicate-tool-call")
    assert verdicts_of(found) == {"replay-suffix": FAIL, "no-duplicate-tool-call": PASS}


@pytest.mark.covers("unknown-session-404", "session-delete")
def test_delete_of_a_deleted_session_answered_200_fails_unknown_session_404():
    found = judged(Variant(delete_again_200=True), "unknown-session-404", "session-delete")
    assert verdicts_of(found) == {"unknown-session-404": FAIL, "session-delete": PASS}
    assert found["unknown-session-404"].reason.startswith("DELETE deleted session E again: ")
    assert "answered 200, expected 404" in found["unknown-session-404"].reason


@pytest.mark.parametrize(
    "variant", [Variant(get_status=406), Variant(get_silent=True)], ids=["406", "silent"]
)
@pytest.mark.covers("session-identity-stable")
def test_a_get_answered_406_or_never_is_never_a_pass(variant):
    verdict = judged(variant, "session-identity-stable")["session-identity-stable"]
    # B15 allows a GET only an SSE stream or 405: no answer at all is a wrong answer too
    assert verdict.verdict is FAIL and "GET with the session id alone" in verdict.reason
    if variant.get_silent:
        assert "gave no answer" in verdict.reason


@pytest.mark.covers("no-broadcast")
def test_re_emitting_a_request_whose_connection_is_open_fails_no_broadcast():
    verdict = judged(Variant(broadcast=True), "no-broadcast")["no-broadcast"]
    assert verdict.verdict is FAIL and "while its stream" in verdict.reason and "still connected" in verdict.reason


@pytest.mark.covers("no-cross-session")
def test_one_stream_key_for_every_sessions_get_stream_fails_no_cross_session_over_http():
    with serving_design("design-12") as url:
        found = judged(url, "no-cross-session")
    assert found["no-cross-session"].verdict is FAIL, found["no-cross-session"].reason


@pytest.mark.timeout(240)
def test_verdicts_are_the_same_twice_in_a_row(tmp_path):
    runs = []
    for number in (1, 2):
        folder = tmp_path / str(number)
        folder.mkdir()
        _, report = full_run(Variant(ring=3, reserialise=True), folder, "--profile", "boundary")
        runs.append({v["rule"]: v["verdict"] for v in report["verdicts"]})
    assert runs[0] == runs[1]


def test_the_summary_says_what_would_unlock_each_rule_not_judged(tmp_path):
    code, report = full_run(Variant(json_answers=True), tmp_path, "--profile", "boundary")
    unlocks = {item["needs"]: item["to_check"] for item in report["unlock"]}
    tool = next(hint for hint in unlocks if "test_elicitation" in hint)
    # (no-broadcast is judged on every new message sent while other connections are open: no tool needed)
    assert {"reemit-pending", "reemit-keeps-pending"} <= set(unlocks[tool])
    expiry = next(v for v in report["verdicts"] if v["rule"] == "expiry-independent")
    assert (expiry["verdict"] == "SKIP") == any("--stream-ttl" in hint for hint in unlocks)
    assert {r for rules in unlocks.values() for r in rules} <= {v["rule"] for v in report["verdicts"] if v["verdict"] == "SKIP"}


@pytest.mark.parametrize("profile", [Profile.MCP_2025_03_26, Profile.MCP_2025_06_18, Profile.MCP_2025_11_25, Profile.BOUNDARY],
                         ids=lambda p: p.value)
@pytest.mark.covers("no-cross-session", "server-request-ownership")
def test_a_server_that_sends_every_message_to_every_open_stream_fails(profile):
    # a stream opened before another session's traffic is watched too (real frameworks broadcast)
    found = judged(Variant(broadcast_all=True), "no-cross-session", "server-request-ownership", profile=profile)
    assert verdicts_of(found) == {"no-cross-session": FAIL, "server-request-ownership": FAIL}, found


def test_a_slow_server_broadcasting_after_the_idle_bound_is_still_watched():
    """Session W's GET stream is read for as long as the other sessions' traffic goes on: here
    the first message that reaches it comes more than the idle bound after it opened: three POSTs
    (session A's initialize, initialized and first call) answered 0.9 s late each."""
    slow = 0.9
    assert 3 * slow > SHORT_BOUNDS.idle
    found = judged(Variant(broadcast_all=True, slow_posts=slow), "no-cross-session")
    assert verdicts_of(found) == {"no-cross-session": FAIL}, found
    watched = [x for x in found["no-cross-session"].exchanges if x.label.startswith("session W: its GET stream")]
    assert watched and any(e.message for e in watched[0].events), watched  # the broadcasts reached W and were read
