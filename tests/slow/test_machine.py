"""The Hypothesis machine finds every faulty design quickly, by a margin, with a short trace.

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_machine.py``, whose docstring says more.
"""

import subprocess
import sys

import pytest

from mcp_resume.model.explore.kill_cells import KILL_PROFILES
from mcp_resume.model.harness.stateful import DEFAULT_EXAMPLES, DEFAULT_STEPS, run_machine
from mcp_resume.model.servers.inprocess import server_factory
from mcp_resume.spec import designs
from mcp_resume.spec.profiles import Profile


CAUGHT_CELLS = [(number, profile) for profile in KILL_PROFILES for number in designs.NUMBERS
                if designs.design(number).caught(profile)]

MARGIN = DEFAULT_EXAMPLES * DEFAULT_STEPS // 4
"""A design must be found within a quarter of the actions the default budget allows."""

DEEP_MARGIN = DEFAULT_EXAMPLES * DEFAULT_STEPS // 2
"""A design whose shortest counterexample lies beyond the kill bound (``Design.needs``: three
events and two evictions for a gap) within half of it."""

LONGEST_TRACE = 12

_RUN_DESIGN_12 = """
import sys
if sys.argv[1] == "all":
    import mcp_resume.model.explore.fast, mcp_resume.proofs.system.bmc, mcp_resume.model.verify.suite
from mcp_resume.model.harness.stateful import run_machine
from mcp_resume.model.servers.faulty import DESIGNS
print(run_machine(DESIGNS[12]).actions_run)
"""


def test_the_machine_generates_the_same_examples_whatever_else_is_imported():
    """Hypothesis draws some integers from the literals of loaded local modules; the
    machine's examples must not depend on which of ours a process has imported."""
    counts = {subprocess.run([sys.executable, "-c", _RUN_DESIGN_12, which], capture_output=True, text=True,
                             check=True, timeout=120).stdout.strip() for which in ("machine", "all")}
    assert len(counts) == 1, f"actions to design 12's counterexample differ: {counts}"


@pytest.mark.parametrize(("number", "profile"), CAUGHT_CELLS, ids=[f"{n}-{p.value}" for n, p in CAUGHT_CELLS])
def test_each_design_is_found_by_a_margin_with_a_short_trace(machine_run, number, profile):
    result = machine_run(f"design-{number}", profile).result  # found within the suite's examples, hence the default's
    assert not result.passed, f"design {number} not found under {profile.value}"
    assert result.trace.failure.rule in designs.design(number).rules
    margin = DEEP_MARGIN if designs.design(number).needs else MARGIN
    assert result.actions_to_first <= margin, f"found only after {result.actions_to_first} actions"
    assert len(result.trace.actions) <= LONGEST_TRACE, result.counterexample.explain()


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("number", designs.NUMBERS)
def test_each_design_is_found_under_other_seeds_too(number, seed):
    result = run_machine(server_factory(f"design-{number}"), Profile.BOUNDARY, seed=seed)
    assert not result.passed, f"design {number} not found with seed {seed}"
    assert result.trace.failure.rule in designs.design(number).rules


# Correct servers (the reference and every variation) giving no counterexample with full coverage under the
# suite's examples: tests/slow/test_faulty_designs.py (test_the_reference_server_agrees_with_the_spec,
# test_the_machine_blames_no_correct_variation), from the session's one ``machine_run`` of each.
