"""``prove --rlimit 1``: an unknown answer is its own verdict, neither a proof nor a
counterexample; the summary names its one cause and the fix once; exit code 3."""

from __future__ import annotations

from pathlib import Path

from mcp_resume.jobs.proving import EXIT_FAILED, EXIT_OK, EXIT_UNKNOWN, ProfileOutcome, exit_code
from mcp_resume.spec.profiles import Profile


def _outcome(problems=(), unknown=()) -> ProfileOutcome:
    outcome = ProfileOutcome(Profile.BOUNDARY, Path("."), [], [], {}, 0.0)
    outcome.problems, outcome.unknown = list(problems), list(unknown)
    return outcome


def test_unknown_alone_has_its_own_exit_code_and_a_refutation_wins():
    assert exit_code([_outcome()]) == EXIT_OK
    assert exit_code([_outcome(unknown=["q"])]) == EXIT_UNKNOWN
    assert exit_code([_outcome(unknown=["q"]), _outcome(problems=["refuted"])]) == EXIT_FAILED
    assert EXIT_UNKNOWN not in (EXIT_OK, EXIT_FAILED, 2, 130)
