"""``mcp-resume verify TARGET``: hold a real server to the spec over Streamable HTTP.

TARGET is ``python-sdk`` (the official MCP Python SDK, started here on
127.0.0.1 and stopped afterwards) or the ``http://`` URL of a running server's
MCP endpoint. Prints one row per rule (rule, level, verdict, one-line evidence),
optionally writes the report as JSON (``--json FILE``) and exits with

- 0 when no rule got FAIL, 1 when some did;
- 2 for bad usage (TARGET, ``--timeout``, ``--json`` path, profile);
- 3 when the target cannot be checked (down, silent, not an MCP server, or the
  embedded target did not start).

The JSON report is ``{"target", "url", "profile", "summary", "capabilities",
"verdicts": [{"rule", "verdict", "level", "evidence": {"reason", "checks",
"exchanges"}}]}``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from urllib.parse import urlsplit

from rich.console import Console
from rich.table import Table

from mcp_resume.model.http_client import Bounds
from mcp_resume.model.targets import TargetStartError, running_python_sdk
from mcp_resume.model.verify_probe import TargetError
from mcp_resume.model.verify_report import Report
from mcp_resume.model.verify_scenarios import verify_url
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3
EMBEDDED_TARGETS = ("python-sdk",)
TARGET_HINT = "expected 'python-sdk' or an http:// URL such as http://127.0.0.1:8000/mcp"

VERDICT_STYLES = {
    Verdict.PASS: "green",
    Verdict.FAIL: "bold red",
    Verdict.WARN: "yellow",
    Verdict.SKIP: "dim",
    Verdict.INCONCLUSIVE: "magenta",
}


class UsageError(ValueError):
    """Bad command-line input; the message is one line."""


def run_verify(args) -> int:
    """Run ``verify`` for parsed ``args`` (``target``, ``profile``, ``json``, ``timeout``);
    returns the exit code."""
    try:
        profile = Profile.parse(args.profile)
        bounds = Bounds.from_timeout(args.timeout)
        json_path = _check_json_path(args.json)
        url = None if args.target in EMBEDDED_TARGETS else parse_target(args.target)
    except (UsageError, ValueError) as error:
        return _error(str(error), EXIT_USAGE)
    try:
        report = _verify(args.target, url, profile, bounds)
    except (TargetError, TargetStartError) as error:
        return _error(str(error), EXIT_UNREACHABLE)
    print_report(report, _console())
    if json_path is not None:
        try:
            json_path.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
        except OSError as error:
            return _error(f"cannot write {json_path}: {error.strerror or error}", EXIT_USAGE)
    return EXIT_FAILED if report.failed else EXIT_OK


def parse_target(target: str) -> str:
    """The MCP endpoint URL named by ``target``; ``UsageError`` unless it is an
    ``http://`` URL with a host (and a valid port, if any)."""
    text = target.strip()
    if not text:
        raise UsageError(f"empty TARGET: {TARGET_HINT}")
    try:
        parts = urlsplit(text)
        _ = parts.port  # raises ValueError for a port out of range or not a number
    except ValueError as error:
        raise UsageError(f"invalid TARGET {target!r} ({error}): {TARGET_HINT}") from None
    if not parts.scheme or "://" not in text:
        raise UsageError(f"invalid TARGET {target!r}: {TARGET_HINT}")
    if parts.scheme.lower() != "http":
        raise UsageError(f"unsupported scheme {parts.scheme!r} in TARGET {target!r}: only http:// URLs are supported")
    if not parts.hostname:
        raise UsageError(f"TARGET {target!r} names no host: {TARGET_HINT}")
    return text


def print_report(report: Report, console: Console) -> None:
    """The verdict table and a summary line."""
    console.print(f"target {report.target} ({report.url}), profile {report.profile.value}")
    caps = report.capabilities
    if caps:
        tools = ", ".join(caps.get("fixture_tools") or []) or "none"
        console.print(
            f"capabilities: session ids {_yes(caps.get('session_ids'))}, event ids {_yes(caps.get('event_ids'))}, "
            f"priming {_yes(caps.get('priming'))}, GET stream {_yes(caps.get('get_stream'))} "
            f"(HTTP {caps.get('get_status')}), fixture tools: {tools}",
            highlight=False,
        )
    if report.note:
        console.print(report.note, highlight=False)
    table = Table(show_lines=False)
    table.add_column("rule", no_wrap=True)
    table.add_column("level", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("evidence", overflow="fold")
    for verdict in report.verdicts:
        style = VERDICT_STYLES[verdict.verdict]
        table.add_row(
            verdict.rule, verdict.level.value, f"[{style}]{verdict.verdict.value}[/]", _escape(verdict.reason)
        )
    console.print(table)
    counts = ", ".join(f"{n} {name}" for name, n in report.summary().items() if n)
    console.print(f"summary: {counts}", highlight=False)


def _verify(target: str, url: str | None, profile: Profile, bounds: Bounds) -> Report:
    if url is not None:
        return asyncio.run(verify_url(url, profile, bounds, target=target))
    with running_python_sdk() as started:
        return asyncio.run(verify_url(started, profile, bounds, target=target))


def _console() -> Console:
    """A console as wide as the terminal, or 140 columns when output is not one."""
    console = Console()
    return console if console.is_terminal else Console(width=140)


def _check_json_path(path: Path | None) -> Path | None:
    if path is None:
        return None
    if path.is_dir():
        raise UsageError(f"--json {path} is a directory, expected a file name")
    if not path.parent.is_dir():
        raise UsageError(f"--json {path}: folder {path.parent} does not exist")
    return path


def _error(message: str, code: int) -> int:
    print(f"mcp-resume verify: error: {message}", file=sys.stderr)
    return code


def _yes(value) -> str:
    return "yes" if value else "no"


def _escape(text: str) -> str:
    return text.replace("[", "\\[")
