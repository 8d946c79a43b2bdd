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

import argparse
import json
import sys
from pathlib import Path

from mcp_resume.jobs.exits import EXIT_USAGE
from mcp_resume.jobs.proving import exit_code, print_outcome, prove_profiles
from mcp_resume.options import SESSION_PROFILE_NAMES, handler, output_path, whole_number
from mcp_resume.outputs import output_paths_problem, write_output
from mcp_resume.spec.profiles import SESSION_ERA, Profile


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume prove`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    def positive(text: str) -> int:
        value = whole_number(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
        return value

    prove = subparsers.add_parser(
        "prove",
        help=summary,
        description=(
            "Prove, with Z3, that every safety invariant of the rule catalog holds initially and is kept by "
            "every action of the spec, for any number of sessions, streams, events and server requests; "
            "find a shortest run for every faulty design of spec/designs.py and replay it. The summary counts "
            "the obligations proven, trivial (unsat from the action's effect equations alone), not applicable "
            "and vacuous apart; only the proven count as proofs. The encoding is checked against the spec both "
            "ways, wide (two sessions, depth 4) and deep (one session to depth 5, where a request is re-emitted, "
            "two server requests). Writes, per "
            "profile, results.json (every query, its result, unsat core and fragment), the traces and REPORT.md "
            "to OUT/<profile>/; with --smt2 also one SMT-LIB2 file per query in OUT/<profile>/smt2/."
        ),
        epilog=("Exit codes: 0 all holds, 1 something is refuted (a counterexample) or does not replay, 2 usage "
                "error or an output that cannot be written, 3 nothing refuted but some query unknown (Z3 ran out "
                "of resource units: raise --rlimit), 130 interrupted (nothing written to --out)."),
    )
    prove.set_defaults(handler=handler("prove", "run_prove"))
    prove.add_argument("--profile", action="append", choices=SESSION_PROFILE_NAMES, metavar="PROFILE",
                       help="profile to prove, repeatable: mcp-2025-03-26, mcp-2025-06-18, mcp-2025-11-25 or "
                            "boundary (default: boundary; mcp-2026-07-28 has no state machine)")
    prove.add_argument("--out", type=output_path, default=Path("mcp-resume-proofs"), help="output folder (default: %(default)s)")
    prove.add_argument("--json", type=output_path, default=None, metavar="FILE", help="also write the summary as JSON")
    prove.add_argument("--smt2", action="store_true", help="also write each query as an SMT-LIB2 file, replayable with z3")
    prove.add_argument("--rlimit", type=positive, default=20_000_000, help="Z3 resource units per query (default: %(default)s)")
    prove.add_argument("--seed", type=whole_number, default=0, help="Z3 random seed (default: %(default)s)")
    prove.add_argument("--max-depth", type=positive, default=8, help="longest run searched per faulty design (default: %(default)s)")
    prove.add_argument("--quiet", action="store_true", help="print only the summary")


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
