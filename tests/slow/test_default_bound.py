"""The spec's default bound exhausted and compared with the state-space manifest: what
``mcp-resume explore`` runs by default, too large for ``check``'s seconds (about 13 times
the kill bound's transitions), so the whole suite runs it."""

import json

import pytest

from mcp_resume.jobs.check_explorer import explore_bound
from mcp_resume.model.explore import state_space
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import DEFAULT_BOUND


@pytest.mark.timeout(600)
def test_the_default_bound_holds_and_matches_the_manifest(tmp_path):
    line = explore_bound(tmp_path, DEFAULT_BOUND)
    assert line["holds"], line["detail"]
    written = json.loads((tmp_path / "explorer" / f"{DEFAULT_BOUND}.json").read_text())
    assert written["manifest_differences"] == []
    assert written["states"] == state_space.expected(DEFAULT_BOUND, Profile.BOUNDARY)["states"]
