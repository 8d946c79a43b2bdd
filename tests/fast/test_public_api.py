"""The small public API of ``mcp_resume.model``: each name resolves, loaded on first use."""

import pytest

import mcp_resume.model as model
from mcp_resume.model.harness.checker import replay
from mcp_resume.model.servers.adapter import ServerUnderTest


def test_every_public_name_resolves_to_its_implementation():
    assert model.replay is replay and model.ServerUnderTest is ServerUnderTest
    assert all(callable(getattr(model, name)) for name in model.__all__)
    assert {"ServerUnderTest", "run_machine", "replay", "explore_spec", "explore_server"} <= set(model.__all__)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        model.nothing_here
