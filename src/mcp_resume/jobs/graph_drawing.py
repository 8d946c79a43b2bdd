"""The explored state graph as a section of ``mcp-resume docs`` (see ``docgen.hooks``).

``draw_graph`` is shared with ``mcp-resume graph``: the spec's states
within a bound as DOT (and SVG when Graphviz is installed), with a faulty
design's shortest counterexample in red: ``explored.*`` the one-screen overview
(``state_graph.to_dot``), ``explored-<n>.*`` its parts with every arrow
labelled (``graph_parts.split_parts``). The documentation page says how to read
them and adds the state-space manifest, whose counts CI holds the spec to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mcp_resume.model.explore import state_space
from mcp_resume.model.explore.server import explore_server
from mcp_resume.spec.space import GRAPH_BOUND, KILL_BOUND, Bounds, named_bound
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.model.explore.graph_parts import GraphPart, split_parts
from mcp_resume.model.explore.state_graph import GraphData, add_counterexample, explore_graph, to_dot
from mcp_resume.proofs.diagrams import graphviz
from mcp_resume.spec.catalog import RULES
from mcp_resume.spec.invariants import GENERIC_CHECKS, STATE_INVARIANTS, SERVER_CHECKS
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.trace import Trace

DOCS_DESIGN = 4
"""The design whose counterexample the documentation draws in red: a replay on session resumption."""


@dataclass
class DrawnGraph:
    data: GraphData
    dot_text: str  # the overview
    trace: Trace | None  # the red counterexample, when a design was asked for and caught
    parts: list[GraphPart] = field(default_factory=list)  # the overview's arrows, labelled, one screen each


def drawing(data: GraphData, title: str, trace: Trace | None = None) -> DrawnGraph:
    """``data`` drawn: the overview and its parts, under ``title``."""
    return DrawnGraph(data, to_dot(data, title), trace, split_parts(data, title))


def counterexample(design: int, profile: Profile, bounds: Bounds) -> Trace | None:
    """The shortest counterexample of ``design``: within ``bounds``, else within the kill bound."""
    for attempt in (bounds, named_bound(KILL_BOUND)):
        result = explore_server(DESIGNS[design], attempt, profile)
        if result.first is not None:
            return result.first.trace
    return None


def draw_graph(bounds: Bounds, profile: Profile, design: int | None = None) -> DrawnGraph:
    """Explore the spec within ``bounds`` and draw it; raises ``GraphTooLarge`` past the drawing limit."""
    data = explore_graph(bounds, profile)
    title = f"spec states within {bounds.describe()} ({profile.value})"
    trace = counterexample(design, profile, bounds) if design is not None else None
    if trace is not None:
        add_counterexample(data, trace, DESIGNS[design]())
        title += f"; red: shortest counterexample of design {design} ({trace.failure.rule})"
    return drawing(data, title, trace)


def part_name(part: GraphPart) -> str:
    """The file stem of a part: ``explored-<n>``."""
    return f"explored-{part.number}"


def write_graph(folder: Path, drawn: DrawnGraph, dot_program: str | None) -> list[Path]:
    """Write ``explored.dot`` and ``explored-<n>.dot`` per part and, with ``dot_program``, their
    ``.svg``; returns the paths written. The parts of an earlier, larger drawing in ``folder``
    are removed. ``GraphvizError`` when rendering fails."""
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("explored-*.*"):
        number = stale.stem.removeprefix("explored-")
        if stale.suffix in (".dot", ".svg") and number.isdigit() and int(number) > len(drawn.parts):
            stale.unlink()
    written = []
    pictures = [("explored", drawn.dot_text)] + [(part_name(part), part.dot_text) for part in drawn.parts]
    for stem, dot_text in pictures:
        written.append(folder / f"{stem}.dot")
        written[-1].write_text(dot_text, encoding="utf-8")
        if dot_program is not None:
            written.append(folder / f"{stem}.svg")
            written[-1].write_bytes(graphviz.render(dot_text, "svg", dot_program))
    return written


def covered_rules() -> dict[str, tuple[str, ...]]:
    """Catalog rule id -> the explorer evidence: its invariants checked in every state and step of every bound."""
    checked = set(STATE_INVARIANTS) | {name for name, _ in SERVER_CHECKS + GENERIC_CHECKS}
    return {rule.id: ("explorer: every state and transition within every manifest bound",)
            for rule in RULES if checked & set(rule.invariants)}


def write_docs(out_dir: Path, dot_program: str | None = None) -> list[Path]:
    """Write ``README.md`` and the pictures of ``write_graph`` into ``out_dir``."""
    out_dir = Path(out_dir)
    drawn = draw_graph(named_bound(GRAPH_BOUND), DEFAULT_PROFILE, DOCS_DESIGN)
    files = write_graph(out_dir, drawn, dot_program)
    page = out_dir / "README.md"
    page.write_text(_page(drawn), encoding="utf-8")
    return [page, *files]


def _page(drawn: DrawnGraph) -> str:
    bounds = named_bound(GRAPH_BOUND)
    lines = [
        "# Explored state graph of the spec",
        "",
        "Generated by `mcp-resume docs` from the spec; do not edit by hand. The same pictures come from",
        f"`mcp-resume graph --out DIR --design {DOCS_DESIGN}`.",
        "",
        f"Every state of the `{DEFAULT_PROFILE.value}` profile within {bounds.describe()}: "
        f"{len(drawn.data.states)} states (up to symmetry), {len(drawn.data.edges)} distinct edges, labelled and",
        "coloured by action, with the decision branch of each reconnect.",
    ]
    if drawn.trace is not None:
        lines += ["", f"In red: the shortest counterexample of faulty design {DOCS_DESIGN}, "
                  f"which breaks `{drawn.trace.failure.rule}`:", "", "```", drawn.trace.describe(), "```"]
    lines += _pictures(drawn)
    return "\n".join(lines + _manifest_table())


def _pictures(drawn: DrawnGraph) -> list[str]:
    """How the pictures are drawn and read, the overview, then each part under its caption."""
    lines = [
        "", "## How to read the pictures", "",
        "The whole graph does not read on one screen with its labels, so it is drawn twice (each picture fits",
        "1920x1080 px at 100%, and no label covers a state; the project's tests measure both):",
        "",
        "- **The overview** (first picture): every state as a small box named `s<i>` (i: the order in which the",
        "  explorer reached it; `s0` the initial state), top to bottom by the number of steps from `s0`, filled by",
        "  its session's status (white live, grey deleted, orange expired). Arrows carry no text: their colour is",
        "  the action (legend), bold a numbered branch of the decision ([design](../design.md) §2), red the",
        "  counterexample. Opened on its own in a browser (the SVG link), it shows a state's lines or an arrow's",
        "  labels when the pointer rests on it.",
        "- **The parts** (the pictures after it): the same arrows with their labels, a few source states at a time,",
        "  left to right: the source states, the action(s) on each arrow, the states they lead to. A state's box",
        "  gives its session (`S1 live`), its stream (`T1 post open connected`), the stream's events in brackets",
        "  (`E1(R1)`: event E1 carries server request R1; `*`: the client's cursor, its last event id) and its",
        "  server requests (`R1 pending held`: the client holds it); the grey line counts the requests that change",
        "  nothing (loops), with the numbered branches they take. A dashed box is a state drawn again because it",
        "  is no deeper than the state that steps to it (e.g. one expiry that two states share): every arrow runs",
        "  left to right. Arrows of several actions between the same two states are one arrow with one label line",
        "  per action (`×k`: k transitions).",
        "",
        "![explored state graph: overview](explored.svg)",
        "",
        "Source: [DOT](explored.dot) · [SVG](explored.svg)",
    ]
    for part in drawn.parts:
        stem = part_name(part)
        lines += ["", f"### Part {part.number}: the steps from {', '.join(part.sources)}", "",
                  f"![explored state graph, {part.caption}]({stem}.svg)", "",
                  f"Source: [DOT]({stem}.dot) · [SVG]({stem}.svg)"]
    return lines + [""]


def _manifest_table() -> list[str]:
    lines = [
        "## State-space manifest",
        "",
        "Distinct states (up to symmetry) and transitions of every named bound; CI reruns the bounds",
        "marked CI and fails when a count changes (`model/explore/state_space.json`).",
        "",
        "| bound | profile | sessions | streams | events | requests | states | transitions | depth | CI |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for entry in state_space.load_manifest():
        b = entry["bounds"]
        lines.append(f"| {entry['bound']} | {entry['profile']} | {b['sessions']} | {b['streams']} | {b['events']} | "
                     f"{b['requests']} | {entry['states']:,} | {entry['transitions']:,} | {entry['depth']} | "
                     f"{'yes' if entry['ci'] else 'no'} |")
    return lines + [""]
