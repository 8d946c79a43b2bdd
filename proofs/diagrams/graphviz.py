"""Graphviz's ``dot`` program: finding it and rendering DOT text with it.

``render(dot_text, fmt, dot_program)`` goes through pydot (``pydot.Dot.create``), which
starts ``dot`` itself: ``proofs/`` starts no process of its own (the project's programs
are started by ``model.targets.process``, its workers by ``model.harness.workers``).
"""

from __future__ import annotations

import contextlib
import io
import shutil

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
    return run_dot(dot_text, fmt, dot_program)


def run_dot(dot_text: str, fmt: str, dot_program: str) -> bytes:
    """What ``dot_program -T<fmt>`` prints for ``dot_text`` (any Graphviz output format), run by
    pydot. Raises ``GraphvizError`` with ``dot``'s complaint when it fails, ``OSError`` when
    ``dot_program`` is not there."""
    import pydot  # here: its parser takes a while to import, and most commands draw nothing

    class Text(pydot.Dot):
        """A graph that pydot writes out as the DOT text it was given (no parse, no rewriting)."""

        def to_string(self, indent="", indent_level: int = 1) -> str:
            return dot_text

    said = io.StringIO()
    try:
        with contextlib.redirect_stdout(said):  # pydot prints a failing dot's stderr
            return Text().create(prog=dot_program, format=fmt, encoding="utf-8")
    except AssertionError as error:  # pydot's word for a non-zero exit
        detail = said.getvalue().strip() or str(error)
        raise GraphvizError(f"dot -T{fmt} failed: {detail}") from None
