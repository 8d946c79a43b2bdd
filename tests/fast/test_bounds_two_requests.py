"""The bounds reach the real case: two server requests pending in one session.

The failure the project started from had two sampling requests pending on a stream
whose connection had dropped. Every bound an explorer walks unless told otherwise
(the default bound of ``check`` and ``explore``, the kill bound of ``explore --design N``,
of ``check``'s design stages and of the kill matrix, the liveness bound beside a design)
holds two server requests per session, and the default bound holds that state and the
session resumption that re-emits both requests."""

import inspect

from mcp_resume.jobs import checking as check
from mcp_resume.cli import build_parser
from mcp_resume.jobs.bounds import resolve_bounds
from mcp_resume.jobs.lassos import default_bound
from mcp_resume.model.explore import canonical, fast
from mcp_resume.model.explore.kill_cells import ExplorerColumn
from mcp_resume.model.explore.liveness_check import DESIGN_BOUND_NAME, DESIGN_BOUNDS
from mcp_resume.model.explore.plain import explore_spec
from mcp_resume.model.explore.server import explore_server
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.spec import actions as a
from mcp_resume.spec.decision import Branch
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import DEFAULT_BOUND, KILL_BOUND, NAMED_BOUNDS, Bounds, within
from mcp_resume.spec.state import INITIAL_STATE, RequestStatus
from mcp_resume.spec.transitions import step


SINGLE_SLOT = 27
"""The faulty design whose pending table keeps one request: a second overwrites the first."""

TWO_LEFT_ON_A_DROPPED_STREAM = (
    a.Initialize(), a.CallTool("S1"), a.DropConnection("T1"), a.IssueServerRequest("T1"), a.IssueServerRequest("T1"),
)
"""Two server requests sent on a stream whose connection dropped first: neither reached the client."""

RESUMED = TWO_LEFT_ON_A_DROPPED_STREAM + (a.Reconnect("S1", None),)


def _walk(actions):
    """Each transition of ``actions`` from the initial state, in order."""
    state, transitions = INITIAL_STATE, []
    for action in actions:
        transition = step(state, action, Profile.BOUNDARY)
        transitions.append(transition)
        state = transition.after
    return transitions


def _bounds_of(command, *argv, default=DEFAULT_BOUND) -> Bounds:
    return resolve_bounds(build_parser().parse_args([command, *argv]), default)[1]


def test_the_default_and_kill_bounds_hold_two_server_requests_per_session():
    assert NAMED_BOUNDS[DEFAULT_BOUND].requests >= 2
    assert NAMED_BOUNDS[KILL_BOUND].requests >= 2


def test_the_liveness_bound_holds_two_requests_on_one_stream_and_their_re_emission():
    assert DESIGN_BOUNDS.requests >= 2
    assert DESIGN_BOUNDS.events >= 2 and DESIGN_BOUNDS.streams >= 2
    args = build_parser().parse_args(["liveness", "3"])
    assert resolve_bounds(args, default_bound(args.design), liveness=True) == (DESIGN_BOUND_NAME, DESIGN_BOUNDS)


def test_every_bound_a_faulty_design_is_explored_in_by_default_holds_two_requests():
    from mcp_resume import explore, explore_design, kill_matrix

    assert _bounds_of("explore-design", "3", default=explore_design.KILL_BOUND).requests >= 2
    assert _bounds_of("kill-matrix", default=kill_matrix.KILL_BOUND).requests >= 2
    assert _bounds_of("explore", default=explore.DEFAULT_BOUND).requests >= 2  # the spec alone: the default bound
    assert ExplorerColumn().bounds.requests >= 2
    assert NAMED_BOUNDS[inspect.signature(check.design_stage).parameters["bound"].default].requests >= 2


def test_two_requests_pending_on_one_dropped_stream_lie_within_the_default_bound():
    bounds = NAMED_BOUNDS[DEFAULT_BOUND]
    transitions = _walk(RESUMED)
    assert len(transitions) <= bounds.depth
    assert all(within(t.after, bounds) for t in transitions)
    before = transitions[-2].after
    assert [(r.stream, r.status) for r in before.requests] == [("T1", RequestStatus.PENDING)] * 2
    assert not before.stream("T1").connected and not before.client[0].seen


def test_the_session_resumption_re_emits_both_requests_on_the_new_stream():
    resumption = _walk(RESUMED)[-1]
    assert resumption.outcome.branch is Branch.SESSION_RESUMPTION
    delivered = resumption.observation.events
    assert sorted(d.request for d in delivered) == ["R1", "R2"]
    assert {d.stream for d in delivered} == {"T2"}
    assert all(r.status is RequestStatus.PENDING and r.stream == "T2" for r in resumption.after.requests)


def test_the_fast_explorer_reaches_the_resumption_of_both_within_the_default_bound():
    """A shortest path the fast explorer's own moves take, within the default bound, to the
    state after the resumption: it ends with that resumption and re-emits both requests."""
    bounds = NAMED_BOUNDS[DEFAULT_BOUND]
    resumed = _walk(RESUMED)[-1].after
    assert within(resumed, bounds)  # else the walk below searches the whole bound in vain
    table = fast.SessionTable(bounds, Profile.BOUNDARY)
    fresh = fast._global_actions(table).fresh
    target = table.intern(canonical.session_form(resumed, "S1"), resumed)
    path = fast.concrete_path(table, fresh, bounds, (target,), Profile.BOUNDARY)
    assert len(path) == len(RESUMED)
    last = _walk(path)[-1]
    assert last.action == a.Reconnect("S1", None) and len(last.observation.events) == 2
    assert canonical.canonical_key(last.after) == canonical.canonical_key(resumed)


def test_the_canonical_form_of_a_session_with_two_requests_is_the_general_one():
    """The one-session shortcut (both numberings of two requests, one pass) gives the form
    ``_form`` gives by trying every permutation."""
    states = {}
    explore_spec(Bounds(sessions=1, streams=2, events=2, requests=2, depth=6), symmetry=False,
                 record=lambda source, t, target: states.setdefault(target, t.after))
    pairs = [s for s in states.values() if len(s.requests) == 2]
    assert len(pairs) > 400
    for state in pairs:
        assert canonical.session_form(state, "S1") == canonical._form(state, "S1", False)[0]


def test_a_form_decoded_beside_another_with_its_server_side_is_its_own_decoding():
    states = {}
    explore_spec(Bounds(sessions=1, streams=2, events=2, requests=2, depth=5), symmetry=False,
                 record=lambda source, t, target: states.setdefault(target, t.after))
    first = {}
    compared = 0
    for state in states.values():
        if not state.sessions:
            continue
        form = canonical.session_form(state, "S1")
        key = canonical.server_key(form)
        if key in first:
            assert canonical.decode_beside(form, first[key]) == canonical.decode([form])
            compared += 1
        first.setdefault(key, canonical.decode([form]))
    assert compared > 100


def test_explore_design_catches_the_single_slot_pending_table_within_its_bound():
    result = explore_server(DESIGNS[SINGLE_SLOT], NAMED_BOUNDS[KILL_BOUND], Profile.BOUNDARY)
    assert result.caught and result.first.rule == "reemit-pending"
    issued = [x for x in result.first.trace.actions if isinstance(x, a.IssueServerRequest)]
    assert len(issued) == 2
