"""MCP rule ids in Markdown: each id a known source (``spec/sources.py``) made a link to its gist.

``link_ids(text, href)`` makes every MCP rule id of ``text`` that ``spec/sources.py`` lists (``B26``,
``D8``, ``C22-C27``, ``§3.7``) a Markdown link ``[B26](href("B26"))``; other ids stay as they are.
``cited(texts)`` lists the known ids the texts cite, first citation first; ``gists_section(ids)`` is
a report's closing section listing them, each under the anchor ``spec.sources.anchor`` names, so a
report links its ids inside itself. Plain text output keeps ids bare. No I/O.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from mcp_resume.spec.sources import SOURCES, anchor

_ID = re.compile(r"(?<![\w\[#-])(§\d+(?:\.\d+)*|[A-F]\d+(?:-[A-F]\d+)?)(?![\w\]-])")


def _known(match: re.Match) -> str | None:
    found = match.group(1).rstrip(".")
    return found if found in SOURCES else None


def link_ids(text: str, href: Callable[[str], str]) -> str:
    """``text`` with every known MCP rule id a Markdown link to ``href(id)``."""
    def replace(match: re.Match) -> str:
        found = _known(match)
        if found is None:
            return match.group(0)
        return f"[{found}]({href(found)})" + match.group(1)[len(found):]

    return _ID.sub(replace, text)


def in_page(source_id: str) -> str:
    """The link to ``source_id``'s gist inside the same Markdown document."""
    return "#" + anchor(source_id)


def cited(texts: Iterable[str]) -> list[str]:
    """The known MCP rule ids the ``texts`` cite, first citation first."""
    found = [name for text in texts for m in _ID.finditer(text) if (name := _known(m)) is not None]
    return list(dict.fromkeys(found))


def gists_section(ids: Iterable[str]) -> list[str]:
    """Markdown lines of a report's ``MCP rule ids`` section: one line per id, with its anchor,
    revision, section and gist (empty when ``ids`` is)."""
    ids = list(ids)
    if not ids:
        return []
    lines = ["", "## MCP rule ids", "", "The gist of each MCP rule id cited above, in this project's words "
             "(docs/sources.md lists them all).", ""]
    for name in ids:
        entry = SOURCES[name]
        lines.append(f'- <a id="{anchor(name)}"></a>`{name}` ({entry.kind}, {entry.section}): {entry.gist}')
    return lines
