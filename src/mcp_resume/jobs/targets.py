"""A target named on the command line: an ``http://`` or ``https://`` URL of an MCP endpoint (or an embedded
target's name, ``model.targets.embedded``), shared by ``mcp-resume verify`` and ``replay``."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx

from mcp_resume.model.targets.embedded import EMBEDDED_HELP

TARGET_HINT = f"expected an http:// or https:// URL such as http://127.0.0.1:8000/mcp or one of: {EMBEDDED_HELP}"


class UsageError(ValueError):
    """Bad command-line input; the message is one line."""


def parse_target(target: str) -> str:
    """The MCP endpoint URL named by ``target``; ``UsageError`` unless it is an
    ``http://`` or ``https://`` URL with a host (and a valid port, if any)."""
    text = target.strip()
    if not text:
        raise UsageError(f"empty TARGET: {TARGET_HINT}")
    try:
        parts = urlsplit(text)
        _ = parts.port  # raises ValueError for a port out of range or not a number
    except ValueError as error:
        raise UsageError(f"invalid TARGET {_short(target)} ({error}): {TARGET_HINT}") from None
    if not parts.scheme or "://" not in text:
        raise UsageError(f"invalid TARGET {_short(target)}: {_did_you_mean(text) or TARGET_HINT}")
    if parts.scheme.lower() not in ("http", "https"):
        raise UsageError(f"unsupported scheme {parts.scheme!r} in TARGET {_short(target)}: only http:// and https:// "
                         "URLs are supported")
    if parts.username is not None or parts.password is not None:  # never echoed: it holds a credential
        raise UsageError("TARGET holds credentials (user:password@): drop them from the URL and give them with "
                         "--header 'Authorization: Basic ...' or MCP_RESUME_HEADERS, which no report keeps")
    if not parts.hostname:
        raise UsageError(f"TARGET {_short(target)} names no host: {TARGET_HINT}")
    if text.split("://", 1)[1].split("/", 1)[0].endswith(":"):
        raise UsageError(f"TARGET {_short(target)} has a ':' with no port after it: write the port "
                         "(http://127.0.0.1:8000/mcp), or no ':' for the scheme's default")
    try:
        httpx.URL(text)
    except httpx.InvalidURL as error:
        raise UsageError(f"invalid TARGET {_short(target)}: {error}") from None
    return text


def _did_you_mean(text: str) -> str | None:
    """For a TARGET written without its scheme (``localhost:8000`` or ``127.0.0.1:8000/mcp``),
    the URL it most likely means; ``None`` for anything else."""
    host, _, rest = text.partition("/")
    name, colon, port = host.rpartition(":")
    if not (colon and name and port.isdigit()) or "@" in host or " " in text:
        return None
    return f"an http:// or https:// URL; did you mean http://{host}/{rest or 'mcp'}?"


def _short(text: str, limit: int = 120) -> str:
    """``text`` quoted, cut to ``limit`` characters for messages."""
    return repr(text if len(text) <= limit else text[:limit] + "...")
