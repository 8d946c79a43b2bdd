"""no-stranded-request, the liveness rule: the spec holds under fair reconnects, and
designs 1 and 3 each give a lasso whose cycle, replayed, leaves the request stranded."""

import json

import pytest

from mcp_resume.cli import build_parser
from mcp_resume.model.explore import liveness_check
from mcp_resume.model.explore.liveness_check import Lasso, check, fair_actions, replay_lasso, spec_graph, stranded, strongly_connected
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import Bounds
from mcp_resume.spec.transitions import step

from tests.helpers.liveness import run_liveness
from tests.helpers.liveness import lassos  # noqa: F401 (fixtures)
from tests.helpers.spec_steps import run



def test_a_request_sent_on_a_dropped_stream_is_stranded_until_a_session_resumption_re_emits_it():
    state = run(a.Initialize(), a.CallTool("S1"), a.DropConnection("T1"), a.IssueServerRequest("T1"))
    assert stranded(state) == {"R1"}
    assert fair_actions(state) == {a.Reconnect("S1", None)}
    assert stranded(step(state, a.Reconnect("S1", None)).after) == frozenset()


def test_a_request_on_an_open_connection_or_held_by_the_client_is_not_stranded():
    sent = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))
    assert stranded(sent) == frozenset()  # delivered on T1's open connection
    assert stranded(step(sent, a.DropConnection("T1")).after) == frozenset()  # the client holds it
    forgotten = run(a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"), a.DropConnection("T1"), a.RestartClient())
    assert stranded(forgotten) == {"R1"}


def test_strongly_connected_components_of_a_small_graph():
    edges = {1: [2], 2: [3], 3: [1, 4], 4: [5], 5: [4], 6: []}
    components = {frozenset(c) for c in strongly_connected(list(edges), lambda n: edges[n])}
    assert components == {frozenset({1, 2, 3}), frozenset({4, 5}), frozenset({6})}


def test_the_spec_holds_within_a_small_bound():
    graph = spec_graph(Bounds(sessions=1, streams=1, events=1, requests=1))
    assert any(stranded(state) for state in graph.states.values())  # strands exist; fairness resolves them
    assert check(graph).holds


def test_under_an_mcp_revision_the_spec_itself_may_strand_a_request():
    # MCP does not require re-emission (rules §3.7): a session resumption may leave the request
    (lasso,) = check(spec_graph(Bounds(sessions=1, streams=1, events=1, requests=1), Profile.MCP_2025_11_25)).lassos
    assert lasso.cycle == (a.Reconnect("S1", None),) and lasso.closing


def test_a_trace_without_a_lasso_is_refused_by_replay_lasso():
    lasso = Lasso("x", "R1", (a.Initialize(),), (a.RestartClient(),), False)
    trace = lasso.trace()
    bare = type(trace)(trace.actions, trace.profile, trace.failure, trace.source, {})
    with pytest.raises(ValueError, match="not a lasso"):
        replay_lasso(bare, ReferenceServer())


def _with_lasso(trace, **lasso):
    return type(trace)(trace.actions, trace.profile, trace.failure, trace.source,
                       {**trace.meta, "lasso": {**trace.meta["lasso"], **lasso}})


@pytest.mark.parametrize("lasso", [{"prefix": 0, "cycle": 0}, {"prefix": 5, "cycle": -1}, {"prefix": "x"},
                                   {"prefix": True}, {"prefix": 1, "cycle": 2}, {"prefix": 4}])
def test_a_lasso_whose_lengths_do_not_fit_its_actions_is_refused(lasso):
    """A tampered lasso must not replay as a pass (prefix 0, cycle 0 once did)."""
    trace = Lasso("x", "R1", (a.Initialize(), a.CallTool("S1")), (a.RestartClient(),), False).trace()  # 2 + 1 + 1
    with pytest.raises(ValueError, match="lasso"):
        replay_lasso(_with_lasso(trace, **lasso), ReferenceServer())


def test_replay_refuses_a_tampered_lasso_and_an_empty_trace_as_bad_input(tmp_path, capsys):
    trace = Lasso("x", "R1", (a.Initialize(), a.CallTool("S1")), (a.RestartClient(),), False).trace()
    for name, bad in (("lasso", _with_lasso(trace, prefix=0, cycle=0)),
                      ("empty", type(trace)((), trace.profile, None, trace.source, {}))):
        path = tmp_path / f"{name}.json"
        path.write_text(bad.dumps())
        args = build_parser().parse_args(["replay", str(path), "design-1"])
        assert args.handler(args) == 2, name
    err = capsys.readouterr().err
    assert "cycle >= 1" in err and "no action" in err


@pytest.mark.parametrize("lasso", [None, "prefix 2, cycle 1", [2, 1]])
def test_replay_refuses_a_lasso_that_is_not_one_instead_of_replaying_a_plain_trace(tmp_path, capsys, lasso):
    trace = Lasso("x", "R1", (a.Initialize(), a.CallTool("S1")), (a.RestartClient(),), False).trace()
    path = tmp_path / "t.json"
    path.write_text(type(trace)(trace.actions, trace.profile, trace.failure, trace.source, {"lasso": lasso}).dumps())
    args = build_parser().parse_args(["replay", str(path), "design-1"])
    assert args.handler(args) == 2
    assert "not a lasso trace" in capsys.readouterr().err


def test_liveness_holds_on_the_spec(tmp_path, capsys):
    code = run_liveness("--sessions", "1", "--streams", "1", "--events", "1", "--requests", "1",
                    "--depth", "6", "--quiet", "--json", str(tmp_path / "r.json"))
    assert code == 0
    assert json.loads((tmp_path / "r.json").read_text())["holds"] is True
    assert "spec holds" in capsys.readouterr().out


def test_liveness_is_the_liveness_command(capsys):
    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(["explore", "--liveness"])
    assert stopped.value.code == 2
    assert "use 'mcp-resume liveness [N]'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        build_parser().parse_args(["liveness", "--kill-matrix"])


def test_a_capped_walk_keeps_every_edge_of_each_state_it_expanded():
    """The walk stops before a state, never inside one: a capped graph's states with edges
    have exactly the edges of the whole graph, so its cycles are cycles of the whole."""
    bounds = Bounds(sessions=1, streams=2, events=1, requests=1, depth=6)
    whole, capped = spec_graph(bounds), spec_graph(bounds, max_states=200)
    assert whole.stopped is None and capped.stopped and "200" in capped.stopped
    assert 200 < len(capped.states) < len(whole.states)
    assert capped.edges and all(edges == whole.edges[key] for key, edges in capped.edges.items())


def test_liveness_stopped_without_a_lasso_exits_3_with_an_incomplete_verdict(tmp_path, capsys):
    code = run_liveness("3", "--max-states", "50", "--quiet", "--json", str(tmp_path / "r.json"))
    assert code == 3
    data = json.loads((tmp_path / "r.json").read_text())
    assert (data["holds"], data["verdict"]) == (None, "incomplete") and "--max-states 50" in data["stopped"]
    assert "INCOMPLETE" in capsys.readouterr().out


def test_liveness_stops_at_its_default_cap(monkeypatch, capsys):
    from mcp_resume.jobs import lassos

    monkeypatch.setattr(lassos, "LIVENESS_MAX_STATES", 100)
    assert run_liveness("--bound", "kill", "--quiet") == 3
    out = " ".join(capsys.readouterr().out.split())
    assert "--max-states 100" in out and "the default of liveness" in out


def test_a_design_s_liveness_is_judged_under_boundary_only(tmp_path, capsys):
    assert run_liveness("3", "--profile", "mcp-2025-03-26", "--quiet") == 2
    assert "judged under boundary" in capsys.readouterr().err
    assert run_liveness("--profile", "mcp-2025-11-25", "--quiet", "--json", str(tmp_path / "r.json")) == 0
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["profile"] == "mcp-2025-11-25" and data["lassos"][0]["profile"] == "mcp-2025-11-25"
    assert data["verdict"] == "allowed" and data["required"] is False and data["holds"] is False
    assert "as mcp-2025-11-25 allows" in capsys.readouterr().out


def test_the_rule_is_a_must_where_reemit_pending_is():
    assert liveness_check.required(Profile.BOUNDARY)
    assert not any(liveness_check.required(p) for p in Profile if p is not Profile.BOUNDARY)
    assert "D51" in liveness_check.requirement(Profile.MCP_2025_11_25) and "not a failure" in liveness_check.requirement(Profile.MCP_2025_11_25)


def _replay(tmp_path, trace, target, *options):
    path = tmp_path / "lasso.json"
    path.write_text(trace.dumps())
    args = build_parser().parse_args(["replay", str(path), target, *options])
    return args.handler(args)


STRANDING = Lasso("design-1", "R1", (a.Initialize(), a.CallTool("S1"), a.CallTool("S1"), a.DropConnection("T1"),
                                     a.IssueServerRequest("T1")), (a.Reconnect("S1", None),), False)
"""Design 1's lasso: its session resumption re-emits nothing, so R1 stays stranded."""


def test_replay_says_whether_a_lasso_reproduces_and_fails_only_where_the_rule_is_a_must(tmp_path, capsys):
    assert _replay(tmp_path, STRANDING.trace(), "design-1") == 1
    out = capsys.readouterr().out
    assert "after round 2: R1 stranded" in out and "the lasso reproduces on design-1" in out and "<--" not in out
    assert _replay(tmp_path, STRANDING.trace(), "reference") == 0
    assert "does not reproduce on reference: R1 is not stranded after round 1" in capsys.readouterr().out
    assert _replay(tmp_path, STRANDING.trace(), "design-1", "--profile", "mcp-2025-11-25") == 0
    out = capsys.readouterr().out
    assert "the lasso reproduces on design-1" in out and "not a failure" in out


def test_replay_judges_the_request_the_lasso_names(tmp_path, capsys):
    other = _with_lasso(STRANDING.trace(), request="R2")
    assert _replay(tmp_path, other, "design-1") == 0
    assert "R2 is not stranded after the prefix" in capsys.readouterr().out


def test_every_round_is_reported(tmp_path, capsys):
    trace = STRANDING.trace()
    thrice = type(trace)(trace.actions + STRANDING.cycle, trace.profile, None, trace.source, trace.meta)
    assert _replay(tmp_path, thrice, "design-1") == 1
    out = capsys.readouterr().out
    assert "cycle 3 times" in out and "after round 3: R1 stranded" in out


@pytest.mark.parametrize("change", ["round", "request", "rule"])
def test_a_lasso_that_is_not_what_it_says_is_refused(tmp_path, capsys, change):
    trace = STRANDING.trace()
    if change == "round":  # the second round is another action: no lasso repeats like that
        bad = type(trace)(trace.actions[:-1] + (a.DeleteSession("S1"),), trace.profile, None, trace.source, trace.meta)
        message = "repeats its cycle"
    elif change == "request":
        bad, message = _with_lasso(trace, request=5), "request must be"
    else:
        bad = type(trace)(trace.actions, trace.profile, type(trace.failure)(7, "nonsense", "x"), trace.source, trace.meta)
        message = "failure names 'nonsense'"
    with pytest.raises(ValueError, match=message):
        replay_lasso(bad, DESIGNS[1]())
    assert _replay(tmp_path, bad, "design-1") == 2
    assert message in capsys.readouterr().err
