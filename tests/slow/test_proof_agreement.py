"""The Z3 encoding and the executable spec agree both ways: every step the spec takes
satisfies its action's transition formula, and every state the invariants; and every
successor the formulas allow from a reached state is a step the spec takes.

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_proof_agreement.py``, whose docstring says more.
"""

from dataclasses import replace

import pytest

from mcp_resume.proofs.system import agreement as ts_agreement

from mcp_resume.proofs.system import transitions as ts_transitions
from mcp_resume.proofs.system.agreement import AGREEMENT_BOUNDS, check_agreement
from mcp_resume.proofs.system.vocabulary import ActionKind
from mcp_resume.spec.profiles import Profile


BOUNDS = AGREEMENT_BOUNDS


@pytest.mark.parametrize("profile", [Profile.BOUNDARY, Profile.MCP_2025_11_25])
def test_every_step_of_the_spec_satisfies_the_encoding(profile):
    report = check_agreement(BOUNDS, profile)
    assert report.agrees, "\n".join(report.problems)
    assert report.transitions > 4000 and report.states > 500
    assert set(report.actions) == {k.value for k in ActionKind}
    for branch in ("stream-resumption", "session-resumption", "reject-foreign-event-id", "reject-orphan-event-id",
                   "unknown-session", "malformed-session", "missing-session", "session-termination"):
        assert report.branches[branch] > 0, branch


def test_a_frame_missing_from_the_encoding_is_a_disagreement(monkeypatch):
    emit = ts_transitions._EFFECTS[ActionKind.EMIT_EVENT]

    def connects_too(the_step, semantics):  # an encoding bug: emitting reconnects every stream
        effect = emit(the_step, semantics)
        effect.updates["t_connected"] = lambda t: the_step.X.t_issued(t)
        return effect

    monkeypatch.setitem(ts_transitions._EFFECTS, ActionKind.EMIT_EVENT, connects_too)
    report = check_agreement(replace(AGREEMENT_BOUNDS, depth=4), Profile.BOUNDARY)
    assert any("tr.emit_event.t_connected" in p for p in report.problems), report.problems[:3]


def test_from_every_state_within_the_prove_bound_the_formulas_allow_only_the_specs_steps(prove_outcome):
    figures = prove_outcome(Profile.BOUNDARY).agreement.wide
    assert figures.agrees, figures.forward.problems + figures.converse.problems
    bounds = figures.bounds
    assert (bounds.sessions, bounds.streams, bounds.requests) >= (2, 2, 2)
    reached = figures.forward.reached
    assert max(len(s.requests) for s in reached) == 2 and max(len(s.sessions) for s in reached) == 2
    assert max(len(s.streams) for s in reached) >= 2
    assert figures.converse.states >= 30 and figures.converse.successors > 1000
    assert figures.forward.transitions > 1000


def test_the_converse_holds_from_every_state_within_depth_4():
    figures = ts_agreement.agreement_both_ways(ts_agreement.PROVE_BOUNDS, Profile.BOUNDARY, converse_depth=None)
    assert figures.agrees, figures.converse.problems
    assert figures.converse.states == figures.forward.states > 150
