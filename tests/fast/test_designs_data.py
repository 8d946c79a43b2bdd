"""The faulty designs and the correct variations as data (``spec/designs.py``): every
server and Z3 variation is built from it, and the expectations it gives are the ones
docs/design.md §5 states."""

import pickle

import pytest

from mcp_resume.model.explore.kill_cells import CAUGHT_UNDER_MCP
from mcp_resume.model.servers import faulty, variations as correct_servers
from mcp_resume.model.servers.inprocess import server_factory
from mcp_resume.proofs.system import faulty_systems as variations
from mcp_resume.spec import designs
from mcp_resume.spec.catalog import RULES_BY_ID
from mcp_resume.spec.profiles import Profile


def test_the_current_expectations_pinned():
    """A wrong edit of the data shows here: these are docs/design.md §5's thirty-eight designs."""
    assert designs.NUMBERS == tuple(range(1, 39))
    assert designs.caught_under(Profile.MCP_2025_11_25) == {1, 2, 4, 6, 9, 12, 13, 14, 18, 19, 21, 24, 32, 36, 38} \
        == CAUGHT_UNDER_MCP
    assert designs.caught_under(Profile.BOUNDARY) == set(range(1, 39))
    # ending a session at will is MCP-correct (B33): designs 23 and 29 tell the profiles apart
    assert not designs.design(23).caught(Profile.MCP_2025_11_25) and "expiry-independent" in designs.design(23).rules
    assert designs.design(20).rules == designs.design(26).rules == designs.design(27).rules == {"reemit-pending"}
    assert designs.design(25).rules == {"standalone-stream-scope"}
    assert designs.design(1).name == "design-1-per-session-cursor"
    assert designs.design(11).name == "design-11-foreign-event-id-empty-200"
    assert designs.design(3).rules == {"reemit-keeps-pending"}
    assert designs.design(13).rules == {"no-broadcast"}
    assert designs.design(14).rules == designs.design(18).rules == {"no-cross-session", "replay-suffix"}
    assert designs.design(15).rules == designs.design(16).rules == {"replay-suffix"}
    assert designs.design(17).rules == {"reject-orphan-event-id"}
    assert [v.target for v in designs.VARIATIONS] == [
        "variation-cancel", "variation-ring-buffer", "variation-reserialised", "variation-json-response",
        "variation-second-get-400", "variation-ping-on-resume", "variation-evicted-cursor-exact"]


@pytest.mark.parametrize("design", designs.DESIGNS + designs.VARIATIONS, ids=lambda d: d.target)
def test_each_design_is_well_formed(design):
    assert design.rules <= set(RULES_BY_ID)
    assert bool(design.rules) is (design.number is not None) is (not design.correct)
    assert design.deviations and designs.by_target(design.target) is design
    assert design.slug and design.summary and "\n" not in design.summary
    wanted = {name for deviation in design.deviations for name in designs.PARAMETERS.get(deviation, ())}
    assert {name for name, _ in design.parameters} == wanted
    assert design.caught_under is None or design.caught_under <= set(Profile)


def test_every_deviation_has_a_server_and_a_z3_variation():
    assert set(faulty.BEHAVIOUR) | set(correct_servers.BEHAVIOUR) == set(designs.Deviation)
    assert set(variations.VARIATIONS) | set(variations.NEEDS_ENCODING) == set(designs.Deviation)
    assert not set(faulty.BEHAVIOUR) & set(correct_servers.BEHAVIOUR)
    assert not set(variations.VARIATIONS) & set(variations.NEEDS_ENCODING)
    assert set(variations.DESIGNS) == {d.number for d in designs.DESIGNS if variations.needs_encoding(d) is None}


def test_a_correct_variation_is_never_caught_and_is_named_by_its_slug():
    for variation in designs.VARIATIONS:
        assert variation.correct and not any(variation.caught(p) for p in Profile)
        assert variation.name == variation.target == f"variation-{variation.slug}"
        assert designs.target_number(variation.target) is None
    assert designs.variation("cancel").deviations == (designs.Deviation.CANCEL_ON_SESSION_RESUME,)
    with pytest.raises(KeyError, match="variations are cancel, ring-buffer"):
        designs.variation("nothing")


@pytest.mark.parametrize("variation", designs.VARIATIONS, ids=lambda d: d.target)
def test_the_variation_server_and_its_z3_variation_are_built_from_the_data(variation):
    cls = correct_servers.VARIATIONS[variation.target]
    assert server_factory(variation.target) is cls and cls.design is variation
    server = cls()
    assert server.name == variation.target
    assert type(pickle.loads(pickle.dumps(server))) is cls
    for deviation in variation.deviations:
        assert isinstance(server, correct_servers.BEHAVIOUR[deviation])
    if variations.needs_encoding(variation) is None:
        assert variations.CORRECT[variation.target].spec is variation
        wire_only = set(variation.deviations) <= designs.WIRE_ONLY
        assert wire_only is (not variations.CORRECT[variation.target].overrides)
    else:
        assert variation.target not in variations.CORRECT


@pytest.mark.parametrize("design", designs.DESIGNS, ids=lambda d: d.target)
def test_the_server_and_the_variation_are_built_from_the_data(design):
    cls = faulty.DESIGNS[design.number]
    assert server_factory(design.target) is cls
    server = cls()
    assert server.name == design.name and cls.design is design
    assert type(pickle.loads(pickle.dumps(server))) is cls
    for deviation in design.deviations:
        assert isinstance(server, faulty.BEHAVIOUR[deviation])
    if variations.needs_encoding(design) is None:
        variation = variations.DESIGNS[design.number]
        assert variation.spec is design and variation.summary == design.summary and variation.overrides


def test_a_parameter_reaches_the_server():
    assert faulty.DESIGNS[10].foreign_status == 404 and faulty.DESIGNS[11].foreign_status == 200
    assert designs.design(10).deviations == designs.design(11).deviations


def test_an_explicit_profile_set_overrides_the_derivation():
    derived = designs.Design(99, "x", "only boundary's MUSTs", frozenset({"replay-suffix"}), (designs.Deviation.OFF_BY_ONE_REPLAY,))
    assert derived.caught(Profile.BOUNDARY) and not derived.caught(Profile.MCP_2025_11_25)
    explicit = designs.Design(99, "x", "stated", derived.rules, derived.deviations,
                              caught_under=frozenset({Profile.MCP_2025_11_25}))
    assert explicit.caught(Profile.MCP_2025_11_25) and not explicit.caught(Profile.BOUNDARY)


def test_unknown_designs_are_named():
    with pytest.raises(KeyError, match="designs are 1, 2"):
        designs.design(39)
    assert designs.target_number("design-38") == 38
    assert designs.target_number("design-39") is None and designs.target_number("design-1x") is None
    with pytest.raises(ValueError, match="design-38, variation-cancel"):
        server_factory("design-39")
    assert designs.numbers_text() == "1-38"


# -- designs 13-38 and the correct variations, each on a short run of its own ---------------

from mcp_resume.model.harness.checker import Counterexample, Checker, replay  # noqa: E402
from mcp_resume.model.servers.reference import ReferenceServer  # noqa: E402
from mcp_resume.spec import actions as a  # noqa: E402
from mcp_resume.spec.trace import Trace  # noqa: E402
from mcp_resume.spec.transitions import Observation  # noqa: E402

_OPEN = [a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1")]
RUNS = {
    13: ([a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.Reconnect("S1", None)], "no-broadcast"),
    14: (_OPEN + [a.CallTool("S1"), a.EmitEvent("T2"), a.DropConnection("T1"), a.Reconnect("S1", "E1")], "no-cross-session"),
    15: (_OPEN + [a.DropConnection("T1"), a.Reconnect("S1", "E1")], "replay-suffix"),
    16: (_OPEN + [a.EmitEvent("T1"), a.EmitEvent("T1"), a.EvictEvent("T1"), a.EvictEvent("T1"), a.Reconnect("S1", "E1")],
         "replay-suffix"),
    17: ([a.Reconnect(None, "unknown-event")], "reject-orphan-event-id"),
    18: ([a.Initialize(), a.Reconnect("S1", None), a.EmitEvent("T1"), a.CallTool("S1"), a.EmitEvent("T2"),
          a.DropConnection("T1"), a.Reconnect("S1", "E1")], "no-cross-session"),
    19: ([a.Initialize(), a.DeleteSession("S1"), a.CallTool("S1")], "unknown-session-404"),
    20: ([a.Initialize(), a.Reconnect("S1", None), a.IssueServerRequest("T1"), a.DropConnection("T1"),
          a.Reconnect("S1", None)], "reemit-pending"),
    21: ([a.Initialize(), a.CallTool("S1"), a.Reconnect("S1", None), a.EmitEvent("T1")], "no-broadcast"),
    22: (_OPEN + [a.DropConnection("T1"), a.EmitEvent("T1"), a.Reconnect("S1", "E1")], "replay-suffix"),
    23: ([a.Initialize(), a.Reconnect("S1", None), a.DropConnection("T1"), a.Reconnect("S1", None)],
         "expiry-independent"),
    24: ([a.Initialize(), a.CallTool("S1"), a.EmitEvent("T1"), a.CallTool("S1"), a.EmitEvent("T2")], "event-id-unique"),
    25: ([a.Initialize(), a.CallTool("S1"), a.Reconnect("S1", None), a.IssueServerRequest("T1")],
         "standalone-stream-scope"),
    26: ([a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"),
          a.Reconnect("S1", None)], "reemit-pending"),
    27: ([a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.IssueServerRequest("T1"),
          a.DropConnection("T1"), a.Reconnect("S1", None)], "reemit-pending"),
    28: (_OPEN + [a.EmitEvent("T1"), a.DropConnection("T1"), a.Reconnect("S1", "E1")], "replay-suffix"),
    29: ([a.Initialize(), a.Initialize(), a.DeleteSession("S1"), a.CallTool("S2")], "session-identity-stable"),
    30: (_OPEN + [a.EmitEvent("T1"), a.DropConnection("T1"), a.Reconnect("S1", "E1")], "replay-suffix"),
    31: (_OPEN + [a.EmitEvent("T1"), a.EmitEvent("T1"), a.DropConnection("T1"), a.Reconnect("S1", "E1")],
         "replay-suffix"),
    32: ([a.Initialize(), a.CallTool("S1"), a.CallTool("S1"), a.Respond("T1")], "standalone-stream-scope"),
    33: ([a.Initialize(), a.CallTool("S1"), a.DropConnection("T1"), a.Respond("T1")], "call-answered"),
    34: (_OPEN + [a.DropConnection("T1"), a.Respond("T1")], "call-answered"),
    35: (_OPEN + [a.DropConnection("T1"), a.Reconnect("S1", "unknown-event")], "reject-foreign-event-id"),
    36: (_OPEN + [a.DropConnection("T1"), a.Reconnect("S1", "E1")], "replay-suffix"),
    37: (_OPEN + [a.Respond("T1"), a.Reconnect("S1", "E1")], "replay-suffix"),
    38: ([a.Initialize(), a.Reconnect("S1", "unknown-event")], "reject-foreign-event-id"),
}


@pytest.mark.parametrize("number", sorted(RUNS))
def test_a_short_run_shows_each_new_design_under_its_rule_and_holds_on_the_reference(number):
    actions, rule = RUNS[number]
    trace = Trace(tuple(actions), Profile.BOUNDARY)
    assert len(replay(trace, ReferenceServer())) == len(actions)
    with pytest.raises(Counterexample) as caught:
        replay(trace, faulty.DESIGNS[number]())
    assert caught.value.trace.failure.rule == rule and caught.value.trace.failure.step == len(actions)
    assert rule in designs.design(number).rules


def test_the_cancel_variation_cancels_what_the_reference_re_emits_and_the_checker_accepts_it():
    actions = [a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"),
               a.Reconnect("S1", None), a.Reconnect("S1", None)]
    checker = Checker(server_factory("variation-cancel")())
    reports = [checker.apply(action) for action in actions]
    first, second = reports[4].observed, reports[5].observed
    assert [d.cancels for d in first.events] == ["R1"] and not any(d.request for d in first.events)
    assert not second.events  # cancelled: nothing pending is left to re-emit
    assert not any(r.findings for r in reports)
    on_reference = Checker(ReferenceServer())
    reference = [on_reference.apply(action) for action in actions[:5]][-1].observed
    assert [d.request for d in reference.events] == ["R1"]


@pytest.mark.parametrize("number", [23, 29])
def test_ending_a_session_at_will_is_no_finding_under_mcp_and_lives_again_is(number):
    # MCP B33: a server may end a session at any time, then 404 for good
    actions, _ = RUNS[number]
    checker = Checker(faulty.DESIGNS[number](), Profile.MCP_2025_11_25)
    reports = [checker.apply(action) for action in actions + [a.CallTool(actions[-1].session)]]
    assert not any(r.findings for r in reports) and reports[-1].observed.status == 404
    # the reference answering 200 after a 404 for the same session: the session lived again
    class Flapping(ReferenceServer):
        answered = 0

        def on_call_tool(self, action):
            self.answered += 1
            return Observation(404) if self.answered == 1 else super().on_call_tool(action)

    flapping = Checker(Flapping(), Profile.MCP_2025_11_25)
    flapping.apply(a.Initialize())
    assert flapping.apply(a.CallTool("S1")).findings == ()
    with pytest.raises(Counterexample) as lived:
        flapping.apply(a.CallTool("S1"))
    assert lived.value.trace.failure.rule == "unknown-session-404"


@pytest.mark.parametrize("target, actions", [
    ("variation-second-get-400", [a.Initialize(), a.Reconnect("S1", None), a.Reconnect("S1", None)]),
    ("variation-ping-on-resume", _OPEN + [a.DropConnection("T1"), a.Reconnect("S1", "E1"), a.DropConnection("T1"),
                                          a.Reconnect("S1", "E2"), a.Reconnect("S1", None)]),
    ("variation-evicted-cursor-exact", _OPEN + [a.EmitEvent("T1"), a.DropConnection("T1"), a.EvictEvent("T1"),
                                                a.Reconnect("S1", "E1"), a.EmitEvent("T1")]),
])
def test_the_third_round_variations_are_blamed_for_nothing_under_any_profile(target, actions):
    for profile in (Profile.BOUNDARY, Profile.MCP_2025_11_25, Profile.MCP_2025_03_26):
        checker = Checker(server_factory(target)(), profile)
        reports = [checker.apply(action) for action in actions]
        assert not any(r.findings for r in reports), (profile, [r.findings for r in reports])
    # and each departs from the reference where it says it does
    last = Checker(server_factory(target)()), Checker(ReferenceServer())
    seen = [[c.apply(action).observed for action in actions] for c in last]
    assert seen[0] != seen[1]


def test_the_ring_buffer_variation_refuses_an_evicted_cursor_as_branch_3():
    actions = _OPEN + [a.EmitEvent("T1"), a.EvictEvent("T1"), a.Reconnect("S1", "E1"), a.Reconnect("S1", "E2")]
    checker = Checker(server_factory("variation-ring-buffer")())
    reports = [checker.apply(action) for action in actions]
    evicted, kept = reports[-2].observed, reports[-1].observed
    assert (evicted.status, evicted.events) == (400, ()) and evicted.error is not None
    assert kept.status == 200 and not any(r.findings for r in reports)
