"""no-stranded-request, the liveness rule: the spec holds under fair reconnects, and
designs 1 and 3 each give a lasso whose cycle, replayed, leaves the request stranded."""

import json

import pytest

from mcp_resume.cli import build_parser
from mcp_resume.model.explore import liveness_check
from mcp_resume.model.explore.liveness_check import DESIGN_BOUNDS, check, design_graph, replay_lasso, spec_graph, strongly_connected
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.spec import actions as a
from mcp_resume.spec.space import NAMED_BOUNDS, Bounds
from mcp_resume.spec.trace import loads

from tests.helpers.liveness import run_liveness
from tests.helpers.liveness import lassos  # noqa: F401 (fixtures)


def test_strongly_connected_needs_no_recursion_on_a_long_chain():
    size = 20_000
    components = strongly_connected(range(size), lambda n: [n + 1] if n + 1 < size else [0])
    assert [len(c) for c in components] == [size]


def test_the_spec_holds_within_tiny():
    result = check(spec_graph(NAMED_BOUNDS[liveness_check.SPEC_BOUND]))
    assert result.holds, [lasso.describe() for lasso in result.lassos]


def test_the_reference_server_holds_beside_the_spec():
    assert check(design_graph(ReferenceServer, DESIGN_BOUNDS)).holds


def _of_first_request(lassos):
    """The lasso of request R1 (with two requests a session can hold, design 1 strands each)."""
    (lasso,) = [lasso for lasso in lassos if lasso.request == "R1"]
    return lasso


@pytest.mark.parametrize("design", [1, 3])
def test_designs_1_and_3_give_a_lasso_through_a_session_resumption(lassos, design):
    lasso = _of_first_request(lassos[design])
    assert a.Reconnect("S1", None) in lasso.cycle
    assert lasso.prefix[0] == a.Initialize()


@pytest.mark.parametrize("design", [1, 3])
def test_replaying_a_lasso_on_its_design_leaves_the_request_stranded_after_each_round(lassos, design):
    lasso = _of_first_request(lassos[design])
    after = replay_lasso(loads(lasso.trace().dumps()), DESIGNS[design]())
    assert after == [{"R1"}, {"R1"}, {"R1"}]  # after the prefix, after round 1, after round 2


@pytest.mark.parametrize("design", [1, 3])
def test_the_same_steps_on_the_reference_deliver_the_request(lassos, design):
    lasso = _of_first_request(lassos[design])
    after = replay_lasso(lasso.trace(), ReferenceServer())
    assert after[0] == {"R1"} and after[1] == frozenset()


def test_liveness_on_design_1_exits_1_and_writes_a_lasso_replay_understands(tmp_path, capsys):
    code = run_liveness("1", "--quiet", "--traces", str(tmp_path), "--graph", str(tmp_path / "g"))
    assert code == 1
    path = tmp_path / "no-stranded-request.lasso.trace.json"
    data = json.loads(path.read_text())
    assert data["meta"]["lasso"]["cycle"] >= 1 and "twice" in data["meta"]["lasso"]["note"]
    assert "color=\"#d62728\"" in (tmp_path / "g" / "explored.dot").read_text()
    capsys.readouterr()
    args = build_parser().parse_args(["replay", str(path), "design-1"])
    assert args.handler(args) == 1
    assert "R1 stranded" in capsys.readouterr().out


def test_a_lasso_found_before_the_cap_is_reported_and_none_found_is_incomplete():
    bounds = Bounds(sessions=1, streams=2, events=1, requests=1, depth=8)
    found = check(design_graph(DESIGNS[3], bounds, max_states=800))  # the whole graph: 836 states
    assert found.graph.stopped and found.holds is False
    (lasso,) = found.lassos
    assert replay_lasso(lasso.trace(), DESIGNS[3]()) == [{"R1"}, {"R1"}, {"R1"}]
    early = check(design_graph(DESIGNS[3], bounds, max_states=50))
    assert early.graph.stopped and early.lassos == [] and early.holds is None


@pytest.mark.parametrize("narrowing", [["--requests", "0"], ["--depth", "2"]])
def test_liveness_where_no_request_can_be_stranded_is_vacuous(tmp_path, capsys, narrowing):
    code = run_liveness(*narrowing, "--quiet", "--json", str(tmp_path / "r.json"))
    assert code == 1
    data = json.loads((tmp_path / "r.json").read_text())
    assert (data["verdict"], data["vacuous"], data["holds"], data["stranded_states"]) == ("vacuous", True, False, 0)
    assert "VACUOUS" in capsys.readouterr().out


def test_liveness_builds_on_its_own_bound_when_one_number_is_given(tmp_path):
    assert run_liveness("1", "--depth", "8", "--quiet", "--json", str(tmp_path / "d.json")) == 1
    data = json.loads((tmp_path / "d.json").read_text())
    assert data["bound_name"] == "liveness" and data["bounds"]["sessions"] == DESIGN_BOUNDS.sessions
    assert run_liveness("--depth", "6", "--quiet", "--json", str(tmp_path / "s.json")) == 0
    assert json.loads((tmp_path / "s.json").read_text())["bounds"] == {**NAMED_BOUNDS["tiny"].to_json(), "depth": 6}


def test_the_liveness_bound_is_named_with_liveness_only(capsys):
    assert run_liveness("3", "--bound", "liveness", "--depth", "4", "--quiet") in (0, 1)  # a verdict, not a usage error
    capsys.readouterr()
    args = build_parser().parse_args(["explore", "--bound", "liveness", "--quiet"])
    assert args.handler(args) == 2
    assert "the liveness command's own" in capsys.readouterr().err
