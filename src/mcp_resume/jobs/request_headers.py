"""The extra request headers of ``verify``, ``replay`` and the proxy's upstream (``--header``),
e.g. a server's ``Authorization``: read from the command line and from the environment
variable ``MCP_RESUME_HEADERS`` (one ``Name: value`` per line), so that a CI secret never
appears in a command line or a log. Their values are never printed or written: messages name
the header, not its value."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from mcp_resume.jobs.targets import UsageError

ENVIRONMENT_VARIABLE = "MCP_RESUME_HEADERS"

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""An HTTP field name (RFC 9110 §5.1)."""

PROTOCOL_HEADERS = frozenset({"accept", "content-type", "content-length", "host", "mcp-session-id",
                              "last-event-id", "mcp-protocol-version", "mcp-method", "mcp-name",
                              "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "trailer"})
"""Headers the client or HTTP itself sets for the exchange under test: ``--header`` cannot set them."""


def request_headers(options: list[str] | None, environ: Mapping[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """The ``(name, value)`` pairs of ``MCP_RESUME_HEADERS`` then of each ``--header NAME:VALUE``;
    a later one of the same name replaces an earlier one. ``UsageError`` (exit 2) naming the
    header, never its value, for a malformed one or one the client sets itself."""
    environ = os.environ if environ is None else environ
    lines = [line for line in environ.get(ENVIRONMENT_VARIABLE, "").splitlines() if line.strip()]
    found: dict[str, tuple[str, str]] = {}
    for where, text in [(ENVIRONMENT_VARIABLE, line) for line in lines] + [("--header", o) for o in options or ()]:
        name, value = _parse(text, where)
        found[name.lower()] = (name, value)
    return tuple(found.values())


def _parse(text: str, where: str) -> tuple[str, str]:
    name, colon, value = text.partition(":")
    name, value = name.strip(), value.strip()
    if not colon:  # the whole text may be a secret: never shown
        raise UsageError(f"{where}: expected NAME:VALUE, got text without ':'")
    if not _TOKEN.fullmatch(name):  # maybe a secret typed without its colon: never shown
        raise UsageError(f"{where}: expected NAME:VALUE; the text before the first ':' is no HTTP header name "
                         "(letters, digits and -, no spaces)")
    if not value or value.split()[-1].lower() in ("bearer", "basic", "token"):
        raise UsageError(f"{where}: the value of {name} is empty or holds only a scheme (an unset variable?)")
    if any(ch in value for ch in "\r\n\0"):
        raise UsageError(f"{where}: the value of {name} holds a line break or NUL")
    if not value.isascii():
        raise UsageError(f"{where}: the value of {name} is not ASCII; encode it as the server expects")
    if name.lower() in PROTOCOL_HEADERS:
        raise UsageError(f"{where}: {name} is set by mcp-resume itself for the protocol under test")
    return name, value
