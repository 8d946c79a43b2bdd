"""Write the whole documentation set into one folder."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from mcp_resume.proofs.diagrams.render import to_dot, to_mermaid
from mcp_resume.proofs.diagrams.graphviz import INSTALL_HINT, render

from .collect import NO_COVERAGE_HINT, collect
from .pages_commands import commands_page
from .pages_contributing import contributing_page
from .hooks import SECTIONS, contribute, load
from .pages_design import design_page
from .pages_fixtures import fixtures_page
from .pages_kit import ci_page, testing_page
from .pages_rules import index_page, rule_page
from .pages_spec import decision_page, lifecycles_page, profiles_page, sources_page
from .pages_traffic import traffic_page

DIAGRAMS = "diagrams"


@dataclass
class DocsResult:
    """``written``: every file, in writing order; ``notes``: what was left out and why;
    ``uncovered``: rule ids no test covers."""

    written: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    uncovered: list[str] = field(default_factory=list)


def build_docs(out_dir: Path, tests_dir: Path | None, dot_program: str | None,
               progress: Callable[[str], None] | None = None) -> DocsResult:
    """Generate the documentation set into ``out_dir`` (created if needed).

    ``tests_dir`` is scanned for ``covers`` markers; its parent is taken as the
    repository root. ``None`` (no test folder, as in an installed package): every page is
    written, the coverage is said to be not available there, and a note says so. SVG files are rendered by ``dot_program`` (Graphviz's
    ``dot``) and skipped, with a note, when it is ``None``. Raises
    ``CoverageError`` for a bad marker, ``HookError`` when an optional section's
    module breaks its contract, ``GraphvizError`` when ``dot`` fails and
    ``OSError`` when a file cannot be written. ``progress`` is called with the name of each
    stage as it starts: every optional section, then the diagrams and pages (``len(SECTIONS) + 1``).
    """
    progress = progress or (lambda stage: None)
    out = Path(out_dir)
    tests = None if tests_dir is None else Path(tests_dir)
    model = collect(tests, None if tests is None else tests.resolve().parent)
    result = DocsResult(uncovered=[rule.id for rule in model.uncovered()])
    if tests is None:
        result.notes.append(f"no test folder: the pages say the test coverage is not available ({NO_COVERAGE_HINT})")
    out.mkdir(parents=True, exist_ok=True)
    for section in SECTIONS:
        module = load(section)
        progress(f"section {section.folder} (as {section.command})")
        if module is not None:
            contribution = contribute(section, module, out, dot_program)
            model.contributions.append(contribution)
            result.written += [out / name for name in contribution.files]
    progress("diagrams and pages")
    result.written += _write_diagrams(model.diagrams, out / DIAGRAMS, dot_program)
    if dot_program is None:
        result.notes.append(f"SVG diagrams not written: Graphviz's dot is not installed ({INSTALL_HINT})")
    pages = {
        "README.md": index_page(model),
        "design.md": design_page(),
        "decision.md": decision_page(model),
        "lifecycles.md": lifecycles_page(model),
        "profiles.md": profiles_page(model),
        "sources.md": sources_page(model),
        "testing.md": testing_page(),
        "fixtures.md": fixtures_page(),
        "ci.md": ci_page(),
        "traffic.md": traffic_page(),
        "commands.md": commands_page(),
        "contributing.md": contributing_page(),
    }
    pages.update({f"rules/{rule.id}.md": rule_page(model, rule) for rule in model.rules})
    for name, text in pages.items():
        result.written.append(_write(out / name, text.encode("utf-8")))
    return result


def _write_diagrams(diagrams, folder: Path, dot_program: str | None) -> list[Path]:
    written = []
    for diagram in diagrams:
        dot_text = to_dot(diagram)
        written.append(_write(folder / f"{diagram.name}.dot", dot_text.encode("utf-8")))
        written.append(_write(folder / f"{diagram.name}.mmd", to_mermaid(diagram).encode("utf-8")))
        if dot_program is not None:
            written.append(_write(folder / f"{diagram.name}.svg", render(dot_text, "svg", dot_program)))
    return written


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
