"""Graphviz's ``dot`` program: finding it and rendering DOT text with it."""

from __future__ import annotations

import shutil
import subprocess

INSTALL_HINT = "install Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz)"

RENDERED_FORMATS = ("svg", "png")


class GraphvizError(RuntimeError):
    """``dot`` ran and failed; the message carries its stderr."""


def find_dot() -> str | None:
    """The path of Graphviz's ``dot`` on ``PATH``, or ``None`` when it is not installed."""
    return shutil.which("dot")


def render(dot_text: str, fmt: str, dot_program: str) -> bytes:
    """``dot_text`` rendered by ``dot_program -T<fmt>``.

    ``fmt`` is one of ``RENDERED_FORMATS``. Raises ``ValueError`` for another
    format and ``GraphvizError`` when ``dot`` exits non-zero.
    """
    if fmt not in RENDERED_FORMATS:
        raise ValueError(f"cannot render {fmt!r}; renderable formats: {', '.join(RENDERED_FORMATS)}")
    done = subprocess.run([dot_program, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True, check=False)
    if done.returncode != 0:
        raise GraphvizError(f"dot -T{fmt} failed ({done.returncode}): {done.stderr.decode(errors='replace').strip()}")
    return done.stdout
