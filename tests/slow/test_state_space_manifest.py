"""The state-space manifest: the bounds marked ``ci`` (the default bound among them) explored
again match it exactly, and a change to the spec that alters the state space shows up as a
difference."""

import pytest

from mcp_resume.model.explore import state_space
from mcp_resume.spec.profiles import Profile


ENTRIES = state_space.load_manifest()


@pytest.mark.timeout(600)  # the default bound: about a minute on two idle cores
@pytest.mark.parametrize("item", [e for e in ENTRIES if e["ci"]], ids=lambda e: f"{e['bound']}-{e['profile']}")
def test_exploring_a_named_bound_again_gives_the_manifests_counts(item):
    profile = Profile.parse(item["profile"])
    result = state_space.explore_named(item["bound"], profile)
    assert state_space.differences(item["bound"], result) == []
    assert result.holds and item["result"] == "holds"
