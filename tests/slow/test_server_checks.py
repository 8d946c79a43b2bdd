"""Every server check of ``spec.invariants`` fails on a concrete wrong observation.

The slow tier's tests (whole runs, servers started); the fast tier's are in
``tests/fast/test_server_checks.py``, whose docstring says more.
"""

from mcp_resume.spec import invariants as inv


def test_every_server_check_is_shown_failing_by_a_test_of_this_module_or_of_the_spec_pins():
    from tests.fast import test_server_checks, test_spec_invariants, test_spec_pins_checks
    from tests.slow import test_spec_invariants as slow_invariants

    covered = set()
    for module in (test_server_checks, test_spec_invariants, slow_invariants, test_spec_pins_checks):
        for function in vars(module).values():
            for mark in getattr(function, "pytestmark", []):
                covered |= set(mark.args) if mark.name == "covers" else set()
    assert {rule for rule, _ in inv.SERVER_CHECKS if rule != "status"} <= covered
