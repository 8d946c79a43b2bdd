"""``mcp-resume check``: the quick gate: every machine check of the spec, with its artifacts.

Stages, independent of each other, run side by side on the machine's cores
(``--workers``), each written under ``--out`` (``jobs.checking`` lists them): the Z3
queries over the decision table and the transition-system proofs with their
agreement with the spec, the Hypothesis machine against the spec and the
reference server, every faulty design explored beside the spec to its shortest
counterexample (confirmed by replay), the diagrams, and the kill bound exhausted
and compared with the manifest.
``--kill-matrix`` adds the matrix of ``mcp-resume kill-matrix``:
``kill-matrix.json``/``.md``.

Exit code 0 when everything holds, 1 otherwise, 2 when ``--out`` or ``--json``
cannot be written, 130 when interrupted: the worker processes are ended at once
and ``--out`` is left as it was.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rich.console import Console

from mcp_resume.jobs.checking import CHECK_EXAMPLES, print_summary, run_gate
from mcp_resume.jobs.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from mcp_resume.options import SESSION_PROFILE_NAMES, handler, output_path, positive_int, worker_count
from mcp_resume.outputs import output_paths_problem, write_output
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume check`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    check = subparsers.add_parser(
        "check",
        help=summary,
        description=(
            "Run every machine check of the spec, side by side on the cores: the Z3 queries over the decision "
            "table and the transition-system proofs with their agreement with the spec, the "
            "Hypothesis state machine against the spec and the in-process reference server, every faulty design "
            "explored beside the spec to its shortest counterexample (replayed to confirm it), the correct "
            "variations explored (each holds), liveness (under fair reconnection every pending server request is "
            "delivered, answered or cancelled) under boundary and mcp-2025-11-25, the spec explored under "
            "mcp-2025-11-25, the sessionless mcp-2026-07-28 machine with its reference and faulty servers, the "
            "diagrams, and the "
            "spec's kill bound exhausted and compared with the state-space manifest, in seconds (mcp-resume explore "
            "exhausts the default bound; mcp-resume prove adds the deep agreement run and refutes each design with "
            "Z3). --kill-matrix adds "
            "every faulty design against every checker. Writes proof results, counterexample traces and "
            "diagrams to --out, and one line per finished stage to stderr."
        ),
        epilog="Exit codes: 0 all holds, 1 something does not hold, 2 usage error, 130 interrupted.",
    )
    check.set_defaults(handler=handler("check", "run_check"))
    check.add_argument("--out", type=output_path, default=Path("mcp-resume-out"),
                       help="output folder for proof results, traces, diagrams and the kill matrix (default: %(default)s)")
    check.add_argument("--profile", choices=SESSION_PROFILE_NAMES, default=DEFAULT_PROFILE.value,
                       help="profile for the machine against the spec and the reference server; the faulty designs "
                            "always run under boundary (default: %(default)s)")
    check.add_argument("--examples", type=positive_int, default=None, metavar="N",
                       help=f"Hypothesis examples per machine run, at least 1 (default: {CHECK_EXAMPLES}, the derandomized CI "
                            "profile's; the kill matrix keeps its own unless given)")
    check.add_argument("--json", type=output_path, default=None, metavar="FILE", help="also write the summary as JSON")
    check.add_argument("--kill-matrix", action="store_true",
                       help="also run every faulty design against every checker (Hypothesis, explorer, Z3, HTTP verify) "
                            "under boundary and mcp-2025-11-25: minutes, not seconds")
    check.add_argument("--workers", type=worker_count, default=None, metavar="N",
                       help="processes to run the stages in (default: one per core; 1 runs them in this process)")
    check.add_argument("--quiet", action="store_true", help="no progress lines; print only the summary table")


def run_check(args) -> int:
    """Run every stage; print the summary; return 0 when all holds, 1 when not, 2 on unusable paths."""
    out = Path(args.out)
    problem = output_paths_problem(folders=[out], files=[args.json])
    if problem:
        print(f"mcp-resume check: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    summary = run_gate(out, Profile.parse(args.profile), args.examples, args.workers, args.kill_matrix, args.quiet)
    print_summary(summary, out, Console())
    if args.json:
        write_output(Path(args.json), json.dumps(summary.to_json(), indent=2) + "\n")
    return EXIT_OK if summary.holds else EXIT_FAILED
