"""The explored graph as a picture: every state and transition at a small bound, the
five branches visible, a faulty design's counterexample in red."""

from mcp_resume.model.explore.server import explore_server
from mcp_resume.spec.space import NAMED_BOUNDS, Bounds
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.model.explore.state_graph import add_counterexample, explore_graph
from mcp_resume.spec.profiles import Profile


def test_a_counterexample_beyond_the_bound_adds_its_states():
    data = explore_graph(Bounds(sessions=1, streams=1, events=1, requests=1, depth=2))
    before = len(data.states)
    trace = explore_server(DESIGNS[9], NAMED_BOUNDS["kill"], Profile.BOUNDARY).first.trace
    add_counterexample(data, trace, DESIGNS[9]())
    assert len(data.states) > before
    assert len(data.path) == len(trace.actions) - 1
