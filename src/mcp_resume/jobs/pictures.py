"""The state graph drawn for a command: ``mcp-resume graph`` (the spec within a bound, a faulty
design's shortest counterexample in red) and ``mcp-resume liveness --graph`` (a lasso's cycle in
red), written as DOT, and SVG when Graphviz is installed (``graph_drawing.write_graph``)."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console

from mcp_resume.jobs.bounds import UsageError
from mcp_resume.jobs.exits import EXIT_FAILED, EXIT_OK
from mcp_resume.jobs.graph_drawing import DrawnGraph, draw_graph, drawing, write_graph
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import GRAPH_BOUND, Bounds, named_bound


def draw(bounds: Bounds, profile: Profile, design: int | None = None) -> DrawnGraph:
    """The spec's states within ``bounds`` drawn, with ``design``'s shortest counterexample in red
    (found within ``bounds``, else within the kill bound; a note on stderr when there is none).
    ``UsageError`` for a bound with too many states to draw."""
    from mcp_resume.model.explore.state_graph import GraphTooLarge

    try:
        drawn = draw_graph(bounds, profile, design)
    except GraphTooLarge as error:
        raise UsageError(f"cannot draw: {error}; use --bound {GRAPH_BOUND} or smaller numbers") from None
    if design is not None and drawn.trace is None:
        print(f"note: design {design} is not caught within the drawn bound ({bounds.describe()}) "
              f"nor the kill bound: the picture has no red path", file=sys.stderr)
    return drawn


def write_picture(folder: Path, drawn: DrawnGraph, console: Console, summary: str = "", command: str = "graph") -> int:
    """Write ``drawn`` (DOT, and SVG when Graphviz is installed) into ``folder``; the exit code
    (1 when Graphviz fails)."""
    from mcp_resume.proofs.diagrams import graphviz

    dot_program = graphviz.find_dot()
    if dot_program is None:
        console.print(f"note: no SVG ({graphviz.INSTALL_HINT})")
    try:
        written = write_graph(folder, drawn, dot_program)
    except graphviz.GraphvizError as error:
        print(f"mcp-resume {command}: error: {error}", file=sys.stderr)
        return EXIT_FAILED
    console.print(f"graph: {summary}" + ", ".join(map(str, written)))
    return EXIT_OK


def lasso_drawing(profile: Profile, lasso=None, design: int | None = None) -> DrawnGraph:
    """The spec's states within the ``graph`` bound, with ``lasso``'s cycle in red (when given):
    ``liveness --graph``'s picture."""
    from mcp_resume.model.explore.state_graph import add_lasso

    drawn = draw_graph(named_bound(GRAPH_BOUND), profile)
    if lasso is None:
        return drawn
    add_lasso(drawn.data, lasso, DESIGNS[design]() if design is not None else None)
    title = f"spec states within {named_bound(GRAPH_BOUND).describe()}; red: the cycle of {lasso.server}'s lasso"
    return drawing(drawn.data, title)
