"""Curl reproducers: a bash script that sends recorded HTTP exchanges again with curl.

``exchanges_script(comments, url, exchanges)`` writes one curl command per exchange
(``model.http.evidence.Exchange``), in order, each followed by what came back; the
session ids, event ids and server request ids the server hands out are captured
into shell variables and carried into the later requests, so the script works on a
fresh server, which mints ids of its own. A stream that did not end by itself is
read for ``$MCP_RESUME_WAIT`` seconds (2), any other request for at most
``$MCP_RESUME_LONG`` (15). Used by ``verify`` (a finding's exchanges) and the
proxy (the recorded exchanges up to a finding). No I/O.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from typing import Any

from mcp_resume.model.http.evidence import End, Exchange

OPEN_ENDS = (End.IDLE, End.DROPPED, End.DEADLINE)
"""How an exchange ends when its stream did not end by itself (read it for ``$WAIT`` only)."""
TRANSPORT_HEADERS = frozenset({"host", "content-length", "connection", "accept-encoding", "user-agent"})
"""Request headers curl sets itself, left out of the commands."""

_HELPERS = r'''
WAIT=${MCP_RESUME_WAIT:-2}   # seconds to read a stream that does not end by itself
LONG=${MCP_RESUME_LONG:-15}  # seconds at most for any other request
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

show() { echo; echo "== $1"; sed -n '1p' "$DIR/h$2"; grep -i -E '^(mcp-session-id|content-type):' "$DIR/h$2"; cat "$DIR/b$2" 2>/dev/null; echo; }
header() { grep -i "^$2:" "$DIR/h$1" | head -1 | cut -d' ' -f2- | tr -d '\r'; }
event_id() { grep '^id:' "$DIR/b$1" | sed -n "$2p" | sed 's/^id: \{0,1\}//' | tr -d '\r'; }
request_id() {
  python3 - "$DIR/b$1" "$2" <<'PY'
import json, sys
found = [m for line in open(sys.argv[1]) if line.startswith("data:")
         for m in [json.loads(line[5:].strip() or "null")] if isinstance(m, dict) and "method" in m and "id" in m]
print(json.dumps(found[int(sys.argv[2]) - 1]["id"]))
PY
}
'''



def exchanges_script(comments: list[str], url: str, exchanges: list[Exchange], secret_headers: Sequence[str] = (),
                     closing: Sequence[str] = ()) -> str:
    """The bash script for ``exchanges``, in order; ``comments`` (one line each, without
    ``#``) open it; ``url`` is the default target, the script's first argument another.
    ``secret_headers``: the names of headers the run sent whose values it never kept
    (``--header``): every curl reads them from the file ``MCP_RESUME_HEADERS_FILE`` names.
    ``closing``: lines the script prints when it has sent everything (what to look for)."""
    lines = ["#!/usr/bin/env bash", *(f"# {comment(line)}" for line in comments)]
    if secret_headers:
        lines.append(f"# the run sent {', '.join(secret_headers)} (values not written): put them in a file, one "
                     "'Name: value' per line, and run with MCP_RESUME_HEADERS_FILE=that-file")
    lines += ["set -u", f"URL=${{1:-{url}}}", 'HEADERS_FILE="${MCP_RESUME_HEADERS_FILE:-/dev/null}"'] \
        if secret_headers else ["set -u", f"URL=${{1:-{url}}}"]
    lines.append(_HELPERS.strip())
    names = _Names()
    for number, exchange in enumerate(exchanges, start=1):
        lines.append("")
        lines.append(f"# {number}. {comment(exchange.label)} (seen: {comment(exchange.one_line())})")
        lines.append(_curl(number, exchange, names, header_file=bool(secret_headers)))
        lines.append(f"show {shlex.quote(f'{number}. {exchange.label}')} {number}")
        lines += names.capture(number, exchange)
    if closing:
        lines += ["", "echo"] + [f"echo {shlex.quote(line)}" for line in closing]
    return "\n".join(lines) + "\n"


def comment(text: str) -> str:
    """``text`` on one line, for a shell comment."""
    return re.sub(r"\s+", " ", text)


class _Names:
    """Shell variables for the ids the server handed out."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}  # literal -> shell variable
        self.requests: dict[str, str] = {}  # JSON-encoded server request id -> shell variable

    def capture(self, number: int, exchange: Exchange) -> list[str]:
        lines = []
        session = exchange.session_header
        if session and session not in self.values:
            self.values[session] = f"SID{number}"
            lines.append(f"SID{number}=$(header {number} mcp-session-id)")
        position = 0
        for event in exchange.events:
            if event.id is None:
                continue
            position += 1
            if event.id not in self.values:
                name = f"E{number}_{position}"
                self.values[event.id] = name
                lines.append(f"{name}=$(event_id {number} {position})")
        requests = [e for e in exchange.events if e.is_server_request]
        for index, event in enumerate(requests, start=1):
            key = json.dumps(event.request_id)
            if key not in self.requests:
                self.requests[key] = f"R{number}_{index}"
                lines.append(f"R{number}_{index}=$(request_id {number} {index})")
        return lines


def _curl(number: int, exchange: Exchange, names: _Names, header_file: bool = False) -> str:
    wait = "$WAIT" if exchange.end in OPEN_ENDS else "$LONG"
    parts = [f"curl -s -N --max-time {wait} -D \"$DIR/h{number}\" -o \"$DIR/b{number}\" -X {exchange.method} \"$URL\""]
    for name, value in exchange.request_headers.items():
        if name in TRANSPORT_HEADERS:
            continue
        variable = names.values.get(value) if name in ("mcp-session-id", "last-event-id") else None
        parts.append(f'-H "{name}: ${variable}"' if variable else f"-H {shlex.quote(f'{name}: {value}')}")
    if header_file:
        parts.append('-H @"$HEADERS_FILE"')
    if exchange.request_body is not None:
        parts.append("--data-binary " + _body(exchange.request_body, names))
    return " \\\n  ".join(parts) + " || true"


def _body(body: Any, names: _Names) -> str:
    """The JSON body quoted for bash; a response to a server request takes its id
    from the variable that captured it."""
    if isinstance(body, dict) and "method" not in body and "id" in body:
        variable = names.requests.get(json.dumps(body["id"]))
        if variable is not None:
            text = json.dumps({**body, "id": "@@ID@@"})
            before, after = text.split('"@@ID@@"')
            return f"{shlex.quote(before)}\"${variable}\"{shlex.quote(after)}"
    return shlex.quote(body if isinstance(body, str) else json.dumps(body))  # a body that is not JSON: as sent
