"""The small public APIs of ``mcp_resume.model`` and ``mcp_resume.testing``: each name
resolves, loaded on first use."""

import subprocess
import sys

import pytest

import mcp_resume.testing as testing

import mcp_resume.model as model
from mcp_resume.model.harness.checker import replay
from mcp_resume.model.servers.adapter import ServerUnderTest


def test_every_public_name_resolves_to_its_implementation():
    assert model.replay is replay and model.ServerUnderTest is ServerUnderTest
    assert all(callable(getattr(model, name)) for name in model.__all__)
    assert {"ServerUnderTest", "run_machine", "replay", "explore_spec", "explore_server"} <= set(model.__all__)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = model.nothing_here


def test_every_name_of_the_test_kit_resolves_and_an_unknown_one_is_an_attribute_error():
    from mcp_resume.testing.kit import check_event_store
    from mcp_resume.testing.transport import SHARED

    assert testing.check_event_store is check_event_store and testing.SHARED is SHARED
    assert all(getattr(testing, name) is not None for name in testing.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = testing.nothing_here


def test_the_pytest_plugin_imports_no_sdk_until_a_test_uses_its_fixture():
    """pytest loads the plugin in every run of every suite where mcp-resume is installed."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, mcp_resume.testing.pytest_plugin; print(sorted(m for m in sys.modules "
         "if m == 'mcp' or m.startswith(('mcp.', 'hypothesis', 'mcp_resume.testing.'))))"],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout.strip()
    assert loaded == "['mcp_resume.testing.pytest_plugin']"
