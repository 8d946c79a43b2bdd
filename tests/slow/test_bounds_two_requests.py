"""The bounds reach the real case: two server requests pending in one session.

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_bounds_two_requests.py``, whose docstring says more.
"""


from mcp_resume.model.explore.liveness_check import DESIGN_BOUNDS, check as check_liveness, design_graph
from mcp_resume.model.explore.server import explore_server
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.spec import actions as a
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import KILL_BOUND, NAMED_BOUNDS, Bounds


SINGLE_SLOT = 27
"""The faulty design whose pending table keeps one request: a second overwrites the first."""


def test_one_request_per_session_hides_the_single_slot_pending_table():
    one = Bounds(**{**NAMED_BOUNDS[KILL_BOUND].to_json(), "requests": 1})
    assert not explore_server(DESIGNS[SINGLE_SLOT], one, Profile.BOUNDARY).caught


def test_the_single_slot_pending_table_strands_a_request_within_the_liveness_bound():
    result = check_liveness(design_graph(DESIGNS[SINGLE_SLOT], DESIGN_BOUNDS))
    (lasso,) = result.lassos
    issued = [x for x in lasso.prefix if isinstance(x, a.IssueServerRequest)]
    assert len(issued) == 2 and len({x.stream for x in issued}) == 1  # both on one stream
    assert a.Reconnect("S1", None) in lasso.cycle
