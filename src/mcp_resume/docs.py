"""``mcp-resume docs``: write (or check) the documentation set generated from the spec."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from mcp_resume.docgen import CoverageError, HookError, build_docs, compare_sets, regenerate_command
from mcp_resume.outputs import prepare_output_folder
from mcp_resume.proofs.diagrams import graphviz
from mcp_resume.proofs.diagrams.graphviz import GraphvizError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def run_docs(args) -> int:
    """Generate into ``args.out``, or with ``args.check`` compare a fresh set with it.

    ``args.tests`` is the test folder scanned for ``covers`` markers (its parent
    is the repository root). Returns 0 when written (or up to date), 1 when the
    set differs from the spec or generation failed, 2 when the test folder is
    missing or ``args.out`` cannot be a folder (with ``--check``: is not one).
    Files already in ``args.out`` with the names of generated ones are overwritten.
    """
    tests = Path(args.tests)
    if not tests.is_dir():
        print(f"error: no test folder at {tests}; run from the repository root or pass --tests DIR", file=sys.stderr)
        return EXIT_USAGE
    out = Path(args.out)
    problem = (None if out.is_dir() else f"{out} is not a folder") if args.check else prepare_output_folder(out)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    dot_program = graphviz.find_dot()
    try:
        if args.check:
            return _check(Path(args.out), tests, dot_program)
        result = build_docs(Path(args.out), tests, dot_program)
    except (CoverageError, HookError, GraphvizError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILED
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"wrote {len(result.written)} files to {args.out}")
    if result.uncovered:
        print(f"rules no test covers: {', '.join(result.uncovered)}")
    return EXIT_OK


def _check(committed: Path, tests: Path, dot_program: str | None) -> int:
    with tempfile.TemporaryDirectory(prefix="mcp-resume-docs-") as scratch:
        result = build_docs(Path(scratch), tests, dot_program)
        differences = compare_sets(Path(scratch), committed, svg=dot_program is not None)
    for note in result.notes:
        print(f"note: {note}; SVG files not compared", file=sys.stderr)
    if not differences:
        print(f"{committed} is up to date with the spec")
        return EXIT_OK
    print(f"{committed} differs from the spec ({len(differences)} file(s)):")
    for difference in differences:
        print(f"  {difference}")
    print(f"regenerate it from the repository root with: {regenerate_command(committed.as_posix())}")
    return EXIT_FAILED
