"""The explorers pause the cyclic garbage collector while they run and give it back as it was."""

from __future__ import annotations

import gc

import pytest

from mcp_resume.model.explore.collector import collector_paused
from mcp_resume.model.explore.fast import explore_fast
from mcp_resume.spec.space import named_bound


def test_the_collector_is_paused_inside_and_restored_after_even_on_an_error():
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with collector_paused():
            assert not gc.isenabled()
            with collector_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()  # the inner block leaves the outer pause alone
            raise RuntimeError("an explorer failed")
    assert gc.isenabled()


def test_a_paused_collector_stays_paused_after_an_explorer():
    gc.disable()
    try:
        explore_fast(named_bound("graph"))
        assert not gc.isenabled()
    finally:
        gc.enable()
    explore_fast(named_bound("graph"))
    assert gc.isenabled()
