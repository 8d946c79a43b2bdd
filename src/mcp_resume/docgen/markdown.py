"""Small Markdown helpers: tables, links and escaping, for pages GitHub renders."""

from __future__ import annotations

from typing import Iterable, Sequence


def cell(text: object) -> str:
    """``text`` made safe for one table cell: pipes escaped, line breaks as ``<br>``."""
    return str(text).replace("|", "\\|").replace("\n", "<br>")


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A GitHub Markdown table (no trailing newline)."""
    lines = ["| " + " | ".join(cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def link(text: str, target: str) -> str:
    return f"[{text}]({target})"


def code(text: str) -> str:
    return f"`{text}`"


def bullets(items: Iterable[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def page(*blocks: str) -> str:
    """Blocks joined by blank lines, ending in exactly one newline; empty blocks dropped."""
    return "\n\n".join(block.strip("\n") for block in blocks if block and block.strip()) + "\n"


def details(summary: str, body: str) -> str:
    """A collapsed ``<details>`` block (GitHub renders Markdown, Mermaid included, inside it)."""
    return f"<details>\n<summary>{summary}</summary>\n\n{body.strip()}\n\n</details>"
