"""``mcp-resume diagram``: draw the decision and the lifecycles from the spec."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp_resume.options import handler, output_path
from mcp_resume.outputs import output_folder_problem, prepare_output_folder
from mcp_resume.proofs.diagrams import graphviz
from mcp_resume.proofs.diagrams.render import write_diagrams
from mcp_resume.proofs.diagrams.graphviz import INSTALL_HINT, RENDERED_FORMATS, GraphvizError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

DEFAULT_FORMATS = ("dot", "mermaid", "svg")


def add_parser(subparsers, summary: str) -> None:
    """Register ``mcp-resume diagram`` and its options on ``subparsers``; ``summary`` is its
    line in ``mcp-resume --help`` (``cli.COMMANDS``)."""
    diagram = subparsers.add_parser(
        "diagram",
        help=summary,
        description="Write diagrams generated from the spec: the decision as a flowchart and the lifecycles as state diagrams.",
    )
    diagram.set_defaults(handler=handler("diagram", "run_diagram"))
    diagram.add_argument("--out", type=output_path, required=True, help="output folder")
    diagram.add_argument(
        "--format",
        action="append",
        choices=["dot", "svg", "png", "mermaid"],
        help="format to write, repeatable (default: dot, mermaid, and svg when Graphviz is installed)",
    )


def run_diagram(args) -> int:
    """Write the spec's diagrams into ``args.out``; return the exit code.

    ``args.out`` is a folder (created if needed); ``args.format`` a list of
    ``dot``/``svg``/``png``/``mermaid`` or ``None`` for the default (DOT,
    Mermaid, and SVG when Graphviz's ``dot`` is installed). DOT is always
    written. Returns 0 when every file was written, 1 when writing or rendering
    failed, 2 when SVG or PNG was asked for and ``dot`` is not installed (then
    nothing is written).
    """
    problem = output_folder_problem(Path(args.out))
    if problem:
        print(f"mcp-resume diagram: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    dot_program = graphviz.find_dot()
    formats = _formats(args.format, dot_program)
    if formats is None:
        asked = "/".join(f for f in RENDERED_FORMATS if f in args.format)
        print(f"mcp-resume diagram: error: {asked} output needs Graphviz's dot, which is not on PATH; {INSTALL_HINT}", file=sys.stderr)
        return EXIT_USAGE
    problem = prepare_output_folder(Path(args.out))
    if problem:
        print(f"mcp-resume diagram: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        written = write_diagrams(Path(args.out), formats, dot_program)
    except (OSError, GraphvizError) as error:
        print(f"mcp-resume diagram: error: {error}", file=sys.stderr)
        return EXIT_FAILED
    for path in written:
        print(path)
    return EXIT_OK


def _formats(requested: list[str] | None, dot_program: str | None) -> list[str] | None:
    """The formats to write, or ``None`` when SVG/PNG were asked for without Graphviz."""
    if requested is None:
        if dot_program is None:
            print(f"note: Graphviz's dot not found, SVG skipped ({INSTALL_HINT})", file=sys.stderr)
            return [f for f in DEFAULT_FORMATS if f not in RENDERED_FORMATS]
        return list(DEFAULT_FORMATS)
    if dot_program is None and any(f in RENDERED_FORMATS for f in requested):
        return None
    return list(dict.fromkeys(["dot", *requested]))
