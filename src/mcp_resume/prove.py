"""``mcp-resume prove``: the transition system proven by Z3, with its artifacts
(``jobs.proving`` says what is proven and written).

Exit code 0 when no required obligation is refuted, none is vacuous, the encoding agrees with the
spec both ways, every design is caught under ``boundary`` and every trace replays as it must; 1
when something is refuted or does not replay; 3 when nothing is refuted but some query is unknown
(Z3 ran out of its ``--rlimit`` resource units: never a proof, never a counterexample); 2 for a
profile whose state machine is not modelled or an output that cannot be written; 130 when
interrupted, with nothing written to ``--out``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp_resume.jobs.exits import EXIT_USAGE
from mcp_resume.jobs.proving import exit_code, print_outcome, prove_profiles
from mcp_resume.outputs import output_paths_problem, write_output
from mcp_resume.spec.profiles import SESSION_ERA, Profile


def run_prove(args) -> int:
    """The command: prove each ``--profile``; print a summary; exit code as in the module docstring."""
    profiles = [Profile.parse(name) for name in (args.profile or [Profile.BOUNDARY.value])]
    unmodelled = [p.value for p in profiles if p not in SESSION_ERA]
    if unmodelled:
        print(f"error: the state machine is not modelled for {', '.join(unmodelled)} (only its decision is); "
              f"choose one of {', '.join(p.value for p in Profile if p in SESSION_ERA)}", file=sys.stderr)
        return EXIT_USAGE
    out = Path(args.out)
    problem = output_paths_problem(folders=[out], files=[args.json])
    if problem:
        print(f"mcp-resume prove: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    outcomes = prove_profiles(profiles, out, args.rlimit, args.seed, args.max_depth, args.smt2, args.quiet)
    for outcome in outcomes:
        print_outcome(outcome)
    if args.json:
        write_output(Path(args.json), json.dumps([o.summary() for o in outcomes], indent=2) + "\n")
    return exit_code(outcomes)
