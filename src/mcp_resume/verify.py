"""``mcp-resume verify TARGET``: hold a real server to the spec over Streamable HTTP.

TARGET is the ``http://`` URL of a running server's MCP endpoint or the name of
an embedded target started here on 127.0.0.1 and stopped afterwards
(``model.targets.embedded``: ``python-sdk``, ``typescript-sdk``, ``reference``,
``design-<n>`` ...). Prints one row per catalog rule (rule, level, verdict,
one-line evidence) and optionally writes the report as JSON (``--json``),
JUnit XML (``--junit``, one test case per rule) and Markdown (``--markdown``).
For every FAIL and WARN it writes, next to the report (or into ``--out``), a
verify trace (``mcp-resume replay TRACE TARGET`` runs it again) and a curl
script that sends the same requests. A later run against the same TARGET and
``--profile`` replaces them (a passing run leaves none); a run against another
TARGET or profile into a folder holding them is refused at start (exit 2), so
that two runs never overwrite each other's traces.

``--profile auto`` (the default) applies the MCP profile of the revision the
server negotiates; ``--profile boundary`` is the stricter one. ``--stream-ttl S``
and ``--session-ttl S`` tell verify the server's expiry times, in seconds, so it
waits for them and checks ``expiry-independent``. ``--tool ROLE=NAME[:ARGUMENTS_JSON]``
(repeatable; roles ``notifications``, ``server-request``, ``long-running``) names a
server's own tool to call wherever verify would call a fixture tool of that role
(docs/fixtures.md defines the fixture tools). ``--sdk NAME`` (``python-sdk``,
``typescript-sdk``, ``fastmcp-python``, ``fastmcp-typescript``, ``tmcp``, ``mcp-lite``)
names the SDK the server is built with, whose remedies the fixes of FAIL and WARN give;
by default the SDK ``serverInfo``'s name mentions, and when it mentions none and a
finding has an SDK's remedy the summary says so. The summary ends with what would let
verify judge each rule it could not (a fixture tool, a GET stream, a TTL) and which
tool drove which rules. Exit codes:

- 0 when no rule got FAIL or INCONCLUSIVE, 1 when some rule got FAIL;
- 2 for bad usage (TARGET, ``--timeout``, a report path, a ``--tool`` with an unknown
  role, arguments that are not a JSON object, a tool the server does not list, or an
  unknown ``--sdk``) or a
  missing program (node);
- 3 when the target cannot be checked (down, silent, not an MCP server, or the
  embedded target did not start), or when no rule failed but some could not be
  driven (INCONCLUSIVE): a CI gate must not pass on what was never checked;
- 130 when interrupted (Ctrl-C): the verdicts made so far are printed and
  written, the rest are INCONCLUSIVE.

The JSON report is ``{"target", "url", "profile", "summary", "capabilities",
"note"?, "verdicts": [{"rule", "verdict", "level", "evidence": {"reason",
"checks", "exchanges"}, "fix"?: {"text", "sdk"?, "remedy"?}}]}``: every FAIL and
WARN carries its ``fix``, the rule's fix in the server author's terms and, when the
server's ``serverInfo`` names a known SDK, that SDK's remedy (printed as ``fix ...``
lines after the table, a "How to fix" paragraph in Markdown, a ``how to fix:`` line in
JUnit).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from rich.console import Console
from rich.table import Table

from mcp_resume.model.targets.embedded import EMBEDDED_HELP, ToolMissing, is_embedded, running_target
from mcp_resume.model.http.client import Timeouts
from mcp_resume.model.targets.process import TargetStartError
from mcp_resume.model.traffic.fixes import SDK_BY_TARGET, SHOWN_ORDER, remedies_for
from mcp_resume.model.verify.outputs import findings_clash, junit_xml, markdown, write_findings
from mcp_resume.model.verify.report import unreachable_report
from mcp_resume.model.verify.probe import TargetError
from mcp_resume.model.verify.report import Report, RuleVerdict, driver_line
from mcp_resume.model.verify.roles import ToolRoleError, parse_tool_option
from mcp_resume.model.verify.suite import RULES, VerifyRun, verify
from mcp_resume.outputs import OutputError, StageProgress, output_file_problem, prepare_output_folder, write_output, write_problem
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
TARGET_HINT = f"expected an http:// URL such as http://127.0.0.1:8000/mcp or one of: {EMBEDDED_HELP}"
FINDINGS_FOLDER = "mcp-resume-findings"
MAX_TIMEOUT = 600.0
"""Seconds: the longest wait ``--timeout`` may set for one response or event."""

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
    """Run ``verify`` for parsed ``args``; returns the exit code."""
    try:
        profile = None if args.profile == "auto" else Profile.parse(args.profile)
        if MAX_TIMEOUT < args.timeout < float("inf"):
            raise UsageError(f"--timeout must be at most {MAX_TIMEOUT:g} seconds, got {args.timeout:g}")
        bounds = Timeouts.from_timeout(args.timeout)
        run_seconds = _positive(getattr(args, "max_seconds", 600.0), "--max-seconds")
        ttls = {
            name: None if getattr(args, name, None) is None else _positive(getattr(args, name), "--" + name.replace("_", "-"))
            for name in ("stream_ttl", "session_ttl")
        }
        outputs = {kind: _check_path(getattr(args, kind, None), kind) for kind in ("json", "junit", "markdown")}
        if getattr(args, "out", None) is not None and (problem := prepare_output_folder(Path(args.out))):
            raise UsageError(f"--out {problem}")
        asked = getattr(args, "profile", "auto")
        folder = findings_folder(outputs, getattr(args, "out", None))
        if folder is not None and (clash := findings_clash(folder, args.target, asked)):
            raise UsageError(clash)
        url = None if is_embedded(args.target) else parse_target(args.target)
        tools = [parse_tool_option(text) for text in getattr(args, "tool", None) or []]
        sdk = parse_sdk(getattr(args, "sdk", None))
    except (UsageError, ValueError) as error:
        return _error(str(error), EXIT_USAGE)
    console = _console()
    progress = _progress(getattr(args, "progress", False))
    stopped = None
    try:
        run = _verify(args.target, url, profile, bounds, run_seconds, progress, ttls, tools, sdk)
        report = run.report()
    except KeyboardInterrupt:
        stopped = "interrupted (Ctrl-C) before this rule was judged"
        report = _PARTIAL.report(stopped) if _PARTIAL is not None else None
        if report is None:
            return _error("interrupted before the target answered", EXIT_INTERRUPTED)
    except (ToolMissing, ToolRoleError) as error:
        return _error(str(error), EXIT_USAGE)
    except (TargetError, TargetStartError) as error:
        report = unreachable_report(args.target, url, profile, str(error))
        try:
            _write_outputs(report, outputs, getattr(args, "out", None), console, asked=asked)
        except OSError as failure:
            return _error(f"cannot write a report to {failure.filename or 'its file'}: {failure.strerror or failure}",
                          EXIT_USAGE)
        return _error(str(error), EXIT_UNREACHABLE)
    print_report(report, console)
    try:
        _write_outputs(report, outputs, getattr(args, "out", None), console, partial=stopped is not None, asked=asked)
    except OutputError as error:
        return _error(str(error), EXIT_USAGE)
    except OSError as error:
        return _error(write_problem(error), EXIT_USAGE)
    if stopped:
        return _error("interrupted: the verdicts above are partial", EXIT_INTERRUPTED)
    if report.failed:
        return EXIT_FAILED
    inconclusive = [v.rule for v in report.verdicts if v.verdict is Verdict.INCONCLUSIVE]
    if inconclusive:
        return _error(f"{len(inconclusive)} rule(s) could not be checked: {', '.join(inconclusive)}", EXIT_UNREACHABLE)
    return EXIT_OK


_PARTIAL: VerifyRun | None = None
"""The run in progress, kept so that Ctrl-C can still report what it found."""


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
        raise UsageError(f"invalid TARGET {_short(target)} ({error}): {TARGET_HINT}") from None
    if not parts.scheme or "://" not in text:
        raise UsageError(f"invalid TARGET {_short(target)}: {TARGET_HINT}")
    if parts.scheme.lower() != "http":
        raise UsageError(f"unsupported scheme {parts.scheme!r} in TARGET {_short(target)}: only http:// URLs are supported")
    if not parts.hostname:
        raise UsageError(f"TARGET {_short(target)} names no host: {TARGET_HINT}")
    try:
        httpx.URL(text)
    except httpx.InvalidURL as error:
        raise UsageError(f"invalid TARGET {_short(target)}: {error}") from None
    return text


def parse_sdk(name: str | None) -> str | None:
    """The SDK ``verify --sdk NAME`` names (a target of ``model.traffic.fixes.SDKS``), or ``None``
    when none is given; ``UsageError`` (exit 2) listing the known ones for any other name."""
    if name is None:
        return None
    if name.strip().lower() not in SDK_BY_TARGET:
        raise UsageError(f"--sdk {_short(name)}: unknown SDK; the known ones are {', '.join(SHOWN_ORDER)}")
    return name.strip().lower()


def _short(text: str, limit: int = 120) -> str:
    """``text`` quoted, cut to ``limit`` characters for messages."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def print_report(report: Report, console: Console) -> None:
    """The verdict table and a summary line."""
    where = report.target if report.target == report.url else f"{report.target} ({report.url})"
    console.print(f"target {where}, profile {report.profile.value}", highlight=False)
    caps = report.capabilities
    if caps:
        # soft_wrap: one line, never broken between a label and its value ("fixture tools: none")
        console.print(capabilities_line(caps), highlight=False, markup=False, soft_wrap=True)
    if report.note:
        console.print(report.note, highlight=False)
    table = Table(show_lines=False)
    table.add_column("rule", no_wrap=True)
    table.add_column("level", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    beside = next((v.beside[0] for v in report.verdicts if v.beside), None)
    if beside:
        table.add_column(beside, no_wrap=True)
    table.add_column("evidence", overflow="fold")
    for verdict in report.verdicts:
        style = VERDICT_STYLES[verdict.verdict]
        row = [verdict.rule, verdict.level.value, f"[{style}]{verdict.verdict.value}[/]"]
        if beside:
            row.append(verdict.beside[1].value if verdict.beside else "")
        table.add_row(*row, _escape(verdict.reason))
    console.print(table)
    counts = ", ".join(f"{n} {name}" for name, n in report.summary().items() if n)
    console.print(f"summary: {counts}", highlight=False)
    for hint, rules in report.unlocks():
        console.print(f"to check {len(rules)} more rule(s) ({', '.join(rules)}): {hint}", highlight=False)
    for entry in report.drivers():
        console.print(driver_line(entry), highlight=False)
    print_fixes(report, console)
    if (hint := sdk_hint(report)) is not None:
        console.print(hint, highlight=False, markup=False)


def sdk_hint(report: Report) -> str | None:
    """When no SDK was recognised (``serverInfo`` names none, no ``--sdk``) and a FAIL or WARN has an
    SDK's remedy: the line saying ``--sdk NAME`` would give it; else ``None``."""
    if report.sdk is not None:
        return None
    rules = [v.rule for v in report.verdicts if report.fix(v) is not None and remedies_for(v.rule)]
    if not rules:
        return None
    name = ((report.capabilities or {}).get("server_info") or {}).get("name")
    named = f"serverInfo names {name!r}" if name else "serverInfo names no server"
    return (f"no SDK recognised ({named}): the fixes above are generic; {', '.join(rules)} have an SDK's remedy, "
            f"which verify --sdk NAME prints ({', '.join(SHOWN_ORDER)}); each rule's page, docs/rules/<rule>.md, "
            "lists every SDK's remedy")


def capabilities_line(caps: dict) -> str:
    """The header's capabilities (``Report.capabilities``), ``label value`` pairs joined by
    commas, printed as one line (soft wrap: the terminal folds it, rich inserts no break)."""
    tools = ", ".join(caps.get("fixture_tools") or []) or "none"
    pairs = [("session ids", _yes(caps.get("session_ids"))), ("event ids", _yes(caps.get("event_ids"))),
             ("priming", _yes(caps.get("priming"))),
             ("GET stream", f"{_yes(caps.get('get_stream'))} ({_status(caps.get('get_status'))})"),
             ("DELETE", _status(caps.get("delete_status"))), ("protocol", str(caps.get("protocol_version"))),
             ("fixture tools:", tools)]
    return "capabilities: " + ", ".join(f"{label} {value}" for label, value in pairs)


def print_fixes(report: Report, console: Console) -> None:
    """One ``fix <rule> (<verdict>): ...`` line per FAIL and WARN: the rule's fix and, when ``serverInfo``
    names a known SDK, its remedy (``model.traffic.fixes``); MCP rule ids stay bare."""
    for verdict in report.verdicts:
        fix = report.fix(verdict)
        if fix is not None:
            console.print(f"fix {verdict.rule} ({verdict.verdict.value}): {fix.text}", highlight=False, markup=False)
            if fix.remedy:
                console.print(f"  {fix.with_sdk()}", highlight=False, markup=False)


def _verify(target, url, profile, bounds, run_seconds, progress, ttls=None, tools=(), sdk=None) -> VerifyRun:
    global _PARTIAL
    ttls = ttls or {}
    if url is not None:
        _PARTIAL = VerifyRun(url, target, profile, bounds, run_seconds, **ttls, tools=list(tools), sdk=sdk)
        asyncio.run(verify(_PARTIAL, progress))
        return _PARTIAL
    with running_target(target) as started:
        _PARTIAL = VerifyRun(started, target, profile, bounds, run_seconds, **ttls, tools=list(tools), sdk=sdk)
        asyncio.run(verify(_PARTIAL, progress))
        return _PARTIAL


def findings_folder(outputs: dict[str, Path | None], out: Path | None) -> Path | None:
    """Where the reproducers go: ``--out``, else ``mcp-resume-findings`` beside the first report
    written, else nowhere (``None``)."""
    written = [p for p in outputs.values() if p is not None]
    return out or (written[0].parent / FINDINGS_FOLDER if written else None)


def _write_outputs(report: Report, outputs: dict[str, Path | None], out: Path | None, console: Console,
                   partial: bool = False, asked: str | None = None) -> None:
    """The reports and the reproducers; a ``partial`` (interrupted) run keeps an earlier run's reproducers;
    ``asked``: the ``--profile`` asked, recorded with them (``findings_clash``)."""
    folder = findings_folder(outputs, out)
    files = write_findings(report, folder, keep_earlier=partial, asked_profile=asked) if folder is not None else {}
    if files:
        console.print(f"reproducers (verify trace and curl script per finding) in {folder}", highlight=False)
    if outputs["json"] is not None:
        write_output(outputs["json"], json.dumps(report.to_json(), indent=2) + "\n")
    if outputs["junit"] is not None:
        write_output(outputs["junit"], junit_xml(report))
    if outputs["markdown"] is not None:
        write_output(outputs["markdown"], markdown(report, files, outputs["markdown"].parent))


def _progress(enabled: bool):
    """One line per rule judged on stderr, on a terminal and in a CI log alike (``enabled``,
    ``--progress``, is kept for old scripts: it is the default). Every rule but the last is
    judged again with the traffic of the scenarios after it, so its line says provisional,
    ``verify: rule 7 of 28: replay-suffix: PASS (provisional)``; a verdict that changes then
    gets a final line, ``verify: final: replay-suffix: FAIL (was PASS): <reason>``."""
    progress = StageProgress("verify", terminal=False)
    done = iter(range(1, len(RULES) + 1))
    shown: dict[str, str] = {}

    def show(verdict: RuleVerdict) -> None:
        number = next(done, None)
        if number is None:  # judged again with the later scenarios' traffic
            was = shown.get(verdict.rule)
            progress.stage(f"final: {verdict.rule}: {verdict.verdict.value}"
                           + (f" (was {was})" if was else "") + f": {verdict.reason}")
        else:
            shown[verdict.rule] = verdict.verdict.value
            note = " (provisional)" if number < len(RULES) else ""
            progress.stage(f"rule {number} of {len(RULES)}: {verdict.rule}: {verdict.verdict.value}{note}")

    return show


def _positive(value: float, name: str) -> float:
    if not (isinstance(value, (int, float)) and value == value and 0 < value < float("inf")):
        raise UsageError(f"{name} must be a positive number of seconds, got {value!r}")
    return float(value)


def _console() -> Console:
    """A console as wide as the terminal, or 140 columns when output is not one."""
    console = Console()
    return console if console.is_terminal else Console(width=140)


def _check_path(path: Path | None, kind: str) -> Path | None:
    problem = output_file_problem(path) if path is not None else None
    if problem:
        raise UsageError(f"--{kind} {problem}")
    return path


def _error(message: str, code: int) -> int:
    print(f"mcp-resume verify: error: {message}", file=sys.stderr)
    return code


def _yes(value) -> str:
    return "yes" if value else "no"


def _status(status) -> str:
    return "no answer" if status is None else f"HTTP {status}"


def _escape(text: str) -> str:
    return text.replace("[", "\\[")
