"""``mcp-resume docs``: write (or check) the documentation set generated from the spec.

The set is built in a scratch folder inside ``--out`` and merged into it only when
complete, so an interrupt (exit 130) leaves ``--out`` as it was. Each stage (every
optional section, then the diagrams and pages) is one line on stderr in a CI log,
one redrawn line on a terminal (``outputs.StageProgress``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from mcp_resume.docgen import CoverageError, HookError, build_docs, compare_sets, regenerate_command
from mcp_resume.docgen.hooks import SECTIONS
from mcp_resume.options import handler, output_path
from mcp_resume.outputs import StageProgress, prepare_output_folder, staged_folder, write_problem
from mcp_resume.proofs.diagrams import graphviz
from mcp_resume.proofs.diagrams.graphviz import GraphvizError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_TESTS = Path("tests")


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume docs`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    docs = subparsers.add_parser(
        "docs",
        help=summary,
        description=(
            "Write Markdown pages readable on GitHub, generated entirely from the spec: an index, the decision "
            "and the lifecycles as diagrams (DOT, Mermaid, SVG when Graphviz is installed), one page per rule "
            "with its MCP sources, checks, covering tests (@pytest.mark.covers) and proof obligations, and the "
            "profile comparison. With --check, write nothing and exit 1 when DIR differs from what would be written."
        ),
    )
    docs.set_defaults(handler=handler("docs", "run_docs"))
    docs.add_argument("--out", type=output_path, required=True, metavar="DIR", help="output folder, e.g. docs")
    docs.add_argument("--tests", type=Path, default=None, metavar="DIR",
                      help="test folder scanned for covers markers; its parent is the repository root (default: tests "
                           "when it is a folder; without one, as from an installed package, every page is written and "
                           "says the test coverage is not available)")
    docs.add_argument("--check", action="store_true", help="compare a fresh set with DIR instead of writing it")


def run_docs(args) -> int:
    """Generate into ``args.out``, or with ``args.check`` compare a fresh set with it.

    ``args.tests`` is the test folder scanned for ``covers`` markers (its parent
    is the repository root); ``None`` (not given) takes ``tests`` when it is a folder,
    else writes every page without the coverage (an installed package has no
    ``tests/``: the pages say it is not available, and a note says so). Returns 0
    when written (or up to date), 1 when the set differs from the spec or generation
    failed, 2 when a test folder given with ``--tests`` (or, with ``--check``, the
    default one) is missing, ``args.out`` cannot be a folder (with ``--check``: is not
    one) or a file cannot be written (one line naming it). An interrupt leaves ``args.out``
    as it was (``KeyboardInterrupt``, exit 130 in ``cli.main``).
    Files already in ``args.out`` with the names of generated ones are overwritten.
    """
    tests = Path(args.tests) if args.tests is not None else DEFAULT_TESTS
    if not tests.is_dir():
        if args.tests is not None or args.check:  # asked for, or needed to compare with a committed set
            print(f"mcp-resume docs: error: no test folder at {tests}; run from the repository root or pass --tests DIR", file=sys.stderr)
            return EXIT_USAGE
        tests = None
    out = Path(args.out)
    problem = (None if out.is_dir() else f"{out} is not a folder") if args.check else prepare_output_folder(out)
    if problem:
        print(f"mcp-resume docs: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    dot_program = graphviz.find_dot()
    try:
        if args.check:
            return _check(Path(args.out), tests, dot_program)
        result = _build(out, tests, dot_program)
    except (CoverageError, HookError, GraphvizError) as error:
        print(f"mcp-resume docs: error: {error}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as error:
        print(f"mcp-resume docs: error: {write_problem(error)}", file=sys.stderr)
        return EXIT_USAGE
    for note in result.notes:
        print(f"mcp-resume docs: note: {note}", file=sys.stderr)
    print(f"wrote {len(result.written)} files to {args.out}")
    if result.uncovered:
        print(f"rules no test covers: {', '.join(result.uncovered)}")
    return EXIT_OK


def _build(out: Path, tests: Path | None, dot_program: str | None):
    """Build into a scratch folder inside ``out``, merged into ``out`` when complete; paths as in ``out``."""
    with _progress() as progress, staged_folder(out) as scratch:
        result = build_docs(scratch, tests, dot_program, progress.stage)
    result.written = [out / path.relative_to(scratch) for path in result.written]
    return result


def _progress() -> StageProgress:
    return StageProgress("docs", stages=len(SECTIONS) + 1)


def _check(committed: Path, tests: Path, dot_program: str | None) -> int:
    with tempfile.TemporaryDirectory(prefix="mcp-resume-docs-") as scratch, _progress() as progress:
        result = build_docs(Path(scratch), tests, dot_program, progress.stage)
        differences = compare_sets(Path(scratch), committed, svg=dot_program is not None)
    for note in result.notes:
        print(f"mcp-resume docs: note: {note}; SVG files not compared", file=sys.stderr)
    if not differences:
        print(f"{committed} is up to date with the spec")
        return EXIT_OK
    print(f"{committed} differs from the spec ({len(differences)} file(s)):")
    for difference in differences:
        print(f"  {difference}")
    print(f"regenerate it from the repository root with: {regenerate_command(committed.as_posix())}")
    return EXIT_FAILED
