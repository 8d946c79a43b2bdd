"""The explorers: the reference one and the fast one find the same state space, every
step of the fast one is ``spec.transitions.step``'s, and broken rules come with
shortest traces that replay."""

import pytest

from mcp_resume.model.explore import fast
from mcp_resume.model.explore.fast import explore_fast
from mcp_resume.spec.space import NAMED_BOUNDS, Bounds
from mcp_resume.model.explore.plain import explore_spec

from tests.helpers.explorer import counts, expanded_forms


AGREEMENT_BOUNDS = [
    NAMED_BOUNDS["graph"],
    NAMED_BOUNDS["tiny"],
    NAMED_BOUNDS["small"],
    Bounds(sessions=2, streams=2, events=2, requests=1, depth=5),
    Bounds(sessions=1, streams=2, events=2, requests=2, depth=6),
    Bounds(sessions=3, streams=1, events=2, requests=1, depth=6),  # two: a request and its cancellation
]


@pytest.mark.parametrize("bounds", AGREEMENT_BOUNDS, ids=lambda b: b.describe())
def test_the_fast_explorer_finds_what_the_reference_explorer_finds(bounds):
    reference = explore_spec(bounds)
    quick = explore_fast(bounds)
    assert counts(quick) == counts(reference)
    assert reference.holds and quick.holds


def test_forms_with_one_server_side_are_stepped_once_and_expand_as_if_each_were_stepped(monkeypatch):
    """A form whose server's side an earlier form had (``canonical.server_key``) reuses
    that form's steps: the same forms, moves, counts and findings as stepping each form."""
    bounds = Bounds(sessions=2, streams=2, events=2, requests=1, depth=7)
    reusing, expanded = expanded_forms(bounds)
    monkeypatch.setattr(fast, "server_key", lambda form: form)  # every form its own server's side
    stepping, expected = expanded_forms(bounds)
    assert reusing.forms == stepping.forms and expanded == expected
    assert stepping.stepped == stepping.steps and reusing.steps == stepping.steps
    assert reusing.stepped < 0.8 * reusing.steps and reusing.reused > 0
