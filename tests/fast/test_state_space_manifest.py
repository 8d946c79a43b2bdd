"""The state-space manifest: the small bounds explored again match it exactly, and a
change to the spec that alters the state space shows up as a difference."""

import json

import pytest

from mcp_resume.model.explore import state_space
from mcp_resume.spec.space import NAMED_BOUNDS
from mcp_resume.spec import actions as a
from mcp_resume.spec import transitions
from mcp_resume.spec.profiles import Profile


ENTRIES = state_space.load_manifest()


def test_the_manifest_covers_every_entry_and_the_default_bound_holds():
    names = {(e["bound"], e["profile"]) for e in ENTRIES}
    assert names == {(name, profile.value) for name, profile in state_space.MANIFEST_ENTRIES}
    default = state_space.expected("default", Profile.BOUNDARY)
    assert default["result"] == "holds" and default["bounds"] == NAMED_BOUNDS["default"].to_json()
    assert default["states"] > 100_000
    assert default["bounds"]["sessions"] >= 2 and default["bounds"]["streams"] >= 2
    assert default["bounds"]["events"] >= 3 and default["bounds"]["requests"] >= 1


def test_a_change_to_the_spec_that_alters_the_state_space_is_a_difference(monkeypatch):
    def drop_leaves_the_connection_up(state, action, profile):
        return None, transitions.Observation(), state

    monkeypatch.setitem(transitions._HANDLERS, a.DropConnection, drop_leaves_the_connection_up)
    monkeypatch.setitem(transitions._HANDLERS, a.CloseConnection, drop_leaves_the_connection_up)
    result = state_space.explore_named("tiny")
    found = state_space.differences("tiny", result)
    assert any(line.startswith("states:") for line in found)


def test_a_bound_or_profile_the_manifest_does_not_list_is_a_difference(tmp_path):
    result = state_space.explore_named("graph", Profile.MCP_2025_06_18)
    assert "no entry" in state_space.differences("graph", result)[0]
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(ValueError, match="not a state-space manifest"):
        state_space.load_manifest(path)


def test_a_changed_count_in_the_manifest_is_reported(tmp_path):
    data = json.loads(state_space.MANIFEST_PATH.read_text())
    for item in data["entries"]:
        if item["bound"] == "graph":
            item["transitions"] += 1
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(data))
    found = state_space.differences("graph", state_space.explore_named("graph"), path)
    assert len(found) == 1 and found[0].startswith("transitions: manifest")
