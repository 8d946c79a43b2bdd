"""Compare a freshly generated documentation set with a committed one.

Every file must match byte for byte, except SVG: Graphviz lays graphs out
differently across versions and installed fonts (coordinates, sizes, its version
comment), so an SVG is compared by its text content only: the sequence of
``<title>`` and ``<text>`` elements, which carry every node and edge label.
"""

from __future__ import annotations

import shlex
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

EXTERNAL_PAGES = frozenset({"compatibility.md"})
"""Pages of ``docs/`` another command writes (``mcp-resume compat``): linked from the
index, never generated here, left out of the comparison."""

def regenerate_command(folder: str = "docs") -> str:
    """The shell command, run from the repository root, that brings the set in
    ``folder`` up to date (it keeps the pages of ``EXTERNAL_PAGES``)."""
    quoted = shlex.quote(folder)
    keep = " ".join(f"! -name {name}" for name in sorted(EXTERNAL_PAGES))
    return f"find {quoted} -type f {keep} -delete && mcp-resume docs --out {quoted}"


REGENERATE = regenerate_command()
"""The command that brings the repository's ``docs/`` up to date."""


@dataclass(frozen=True)
class Difference:
    path: str  # relative to the set
    kind: str  # "missing" (generated, not committed), "extra" (committed, not generated), "differs"

    def __str__(self) -> str:
        return f"{self.kind}: {self.path}"


def compare_sets(generated: Path, committed: Path, *, svg: bool = True) -> list[Difference]:
    """Every difference between two sets, sorted by path.

    ``svg=False`` leaves SVG files out of the comparison (no Graphviz to make them).
    """
    fresh, kept = _files(Path(generated), svg), _files(Path(committed), svg)
    differences = [Difference(p, "missing") for p in sorted(fresh.keys() - kept.keys())]
    differences += [Difference(p, "extra") for p in sorted(kept.keys() - fresh.keys())]
    for name in sorted(fresh.keys() & kept.keys()):
        if not _same(fresh[name], kept[name]):
            differences.append(Difference(name, "differs"))
    return sorted(differences, key=lambda d: d.path)


def svg_text(data: bytes) -> list[tuple[str, str]]:
    """The ``<title>`` and ``<text>`` contents of an SVG, in document order."""
    found = []
    for element in ET.fromstring(data).iter():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag in ("title", "text"):
            found.append((tag, (element.text or "").strip()))
    return found


def _files(root: Path, svg: bool) -> dict[str, Path]:
    if not root.is_dir():
        return {}
    return {
        p.relative_to(root).as_posix(): p
        for p in sorted(root.rglob("*"))
        if p.is_file() and (svg or p.suffix != ".svg") and p.relative_to(root).as_posix() not in EXTERNAL_PAGES
    }


def _same(a: Path, b: Path) -> bool:
    left, right = a.read_bytes(), b.read_bytes()
    if left == right:
        return True
    if a.suffix == ".svg":
        try:
            return svg_text(left) == svg_text(right)
        except ET.ParseError:
            return False
    return False
