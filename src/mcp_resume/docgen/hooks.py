"""Optional sections of the documentation set, contributed by modules that may not exist.

Each ``OptionalSection`` names a module. When that module is importable and
exposes the hook function, the generator calls it and links what it wrote from
the index; when the module does not exist, the section is left out, silently.

The contract a contributing module implements (both functions pure and
deterministic, so the committed set can be compared byte for byte):

- ``write_docs(out_dir: Path, dot_program: str | None) -> Sequence[Path]``: write
  the section's files into ``out_dir`` (an empty folder the generator made) and
  return their paths, the first being the Markdown page the index links to;
  ``dot_program`` is Graphviz's ``dot`` to render SVG with, ``None`` for no SVG;
- optionally ``covered_rules() -> Mapping[str, Sequence[str]]``: catalog rule id
  -> names of the proof obligations (or other evidence) of this section that
  cover it; they are listed on each rule's page.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType


@dataclass(frozen=True)
class OptionalSection:
    folder: str  # under the documentation set
    title: str
    module: str
    command: str  # the command that produces the same evidence


SECTIONS: tuple[OptionalSection, ...] = (
    OptionalSection("proofs", "Proof report: the invariants proved for every state with Z3",
                    "mcp_resume.jobs.proving", "mcp-resume prove"),
    OptionalSection("state-graph", "Explored state graph of the spec",
                    "mcp_resume.jobs.graph_drawing", "mcp-resume graph"),
)

WRITE = "write_docs"
COVERED = "covered_rules"


@dataclass
class Contribution:
    section: OptionalSection
    page: str  # relative to the documentation set
    files: list[str]
    covered: dict[str, tuple[str, ...]] = field(default_factory=dict)


class HookError(RuntimeError):
    """A contributing module broke the contract (raised, wrote nothing, wrote outside its folder)."""


def load(section: OptionalSection) -> ModuleType | None:
    """The section's module, or ``None`` when it does not exist or has no ``write_docs``.

    A module that exists but fails to import is an error, not an absence.
    """
    try:
        module = importlib.import_module(section.module)
    except ModuleNotFoundError as error:
        if error.name is not None and section.module.startswith(error.name):
            return None
        raise
    return module if callable(getattr(module, WRITE, None)) else None


def contribute(section: OptionalSection, module: ModuleType, docs_dir: Path, dot_program: str | None) -> Contribution:
    """Run the module's hook into ``docs_dir/<folder>``; ``HookError`` on a broken contract."""
    folder = Path(docs_dir) / section.folder
    folder.mkdir(parents=True, exist_ok=True)
    try:
        written = [Path(p) for p in getattr(module, WRITE)(folder, dot_program)]
    except Exception as error:
        raise HookError(f"{section.module}.{WRITE} failed: {error}") from error
    if not written:
        raise HookError(f"{section.module}.{WRITE} wrote nothing")
    files = []
    for path in written:
        try:
            files.append(path.resolve().relative_to(Path(docs_dir).resolve()).as_posix())
        except ValueError:
            raise HookError(f"{section.module}.{WRITE} wrote {path} outside {folder}") from None
    covered = {}
    if callable(getattr(module, COVERED, None)):
        covered = {rule: tuple(names) for rule, names in sorted(getattr(module, COVERED)().items())}
    return Contribution(section, files[0], files, covered)
