"""Bounded model checking refutes every faulty design with a shortest run, and the run,
decoded into a trace, replays: it fails on the design's in-process server and passes
on the spec and the reference server. The proofs and the model check each other."""

import pytest

from mcp_resume.proofs.system.bmc import bmc_design
from mcp_resume.proofs.system.faulty_systems import CORRECT, needs_encoding
from mcp_resume.spec import designs
from mcp_resume.spec.profiles import Profile


ENCODED = tuple(d.number for d in designs.DESIGNS if needs_encoding(d) is None)
"""The designs the transition formulas can express (``proofs.system.faulty_systems.NEEDS_ENCODING``)."""


def test_every_design_and_every_correct_variation_has_a_z3_variation_but_four_the_formulas_cannot_state():
    assert [d.number for d in designs.DESIGNS if needs_encoding(d) is not None] == [30, 31, 33, 34]
    assert needs_encoding(designs.design(21)) is None and needs_encoding(designs.design(32)) is None
    assert "delivered twice in one step" in needs_encoding(designs.design(30))
    assert "order in which one step delivers them" in needs_encoding(designs.design(31))
    assert [v.target for v in designs.VARIATIONS if needs_encoding(v) is not None] == []
    assert "tells no response from another event" in needs_encoding(designs.design(33))
    assert set(ENCODED) == set(designs.NUMBERS) - {30, 31, 33, 34} and set(CORRECT) == {v.target for v in designs.VARIATIONS}


def test_bad_arguments_are_refused():
    with pytest.raises(KeyError, match="unknown design 99"):
        bmc_design(99)
    with pytest.raises(ValueError, match="max_depth"):
        bmc_design(1, max_depth=0)
    with pytest.raises(ValueError, match="not modelled"):
        bmc_design(1, Profile.MCP_2026_07_28)
