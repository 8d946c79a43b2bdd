"""``mcp-resume check``: the quick gate: every machine check of the spec, with its artifacts.

Stages, independent of each other, run side by side on the machine's cores
(``--workers``), each written under ``--out`` (``jobs.checking`` lists them): the Z3
queries over the decision table and the transition-system proofs, the Hypothesis
machine against the spec and the reference server, every faulty design explored
beside the spec to its shortest counterexample (confirmed by replay), the
diagrams, and the default bound exhausted and compared with the manifest.
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

from mcp_resume.jobs.checking import print_summary, run_gate
from mcp_resume.jobs.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from mcp_resume.outputs import output_paths_problem, write_output
from mcp_resume.spec.profiles import Profile


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
