"""The run of ``mcp-resume verify`` (``run_suite``) and what it prints and writes: the verdict table
(``print_report``, with the fixes), the reports (``write_outputs``: JSON, JUnit XML, Markdown) and
the reproducers of each finding, beside the first report or in the folder asked for.

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
import re
from pathlib import Path

from rich.console import Console
from rich.table import Table

from mcp_resume.jobs.targets import UsageError
from mcp_resume.model.targets.embedded import running_target
from mcp_resume.model.traffic.fixes import SDK_BY_TARGET, SHOWN_ORDER, remedies_for
from mcp_resume.model.verify.formats import earlier_run, junit_xml, markdown, write_findings
from mcp_resume.model.verify.report import Report, RuleVerdict, driver_line, tools_text, unplayed_lines
from mcp_resume.model.verify.suite import CONCURRENCY, RULES, VerifyRun, verify
from mcp_resume.outputs import StageProgress, is_standard_output, short_ids, write_output
from mcp_resume.spec.verdicts import Verdict

FINDINGS_FOLDER = "mcp-resume-findings"

VERDICT_STYLES = {
    Verdict.PASS: "green",
    Verdict.FAIL: "bold red",
    Verdict.WARN: "yellow",
    Verdict.SKIP: "dim",
    Verdict.INCONCLUSIVE: "magenta",
}




_PARTIAL: VerifyRun | None = None
"""The run in progress, kept so that Ctrl-C can still report what it found."""


def partial_report(stopped: str) -> Report | None:
    """The report of the run in progress, the rules not yet judged INCONCLUSIVE for ``stopped``
    (the reason); ``None`` before the target answered."""
    return _PARTIAL.report(stopped) if _PARTIAL is not None else None


def print_report(report: Report, console: Console) -> None:
    """The verdict table and a summary line. The evidence shortens ids longer than 64 characters
    (``outputs.short_ids``); the JSON, JUnit and Markdown reports keep them whole."""
    where = report.target if report.target == report.url else f"{report.target} ({report.url})"
    console.print(f"target {where}, profile {report.profile.value}", highlight=False)
    caps = report.capabilities
    if caps:
        # soft_wrap: one line, never broken between a label and its value ("fixture tools: none")
        console.print(capabilities_line(caps), highlight=False, markup=False, soft_wrap=True)
    if report.note:
        console.print(report.note, highlight=False, markup=False, soft_wrap=True)  # sentences, never cut by rich
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
        table.add_row(*row, _escape(short_ids(verdict.reason)))
    console.print(table)
    counts = ", ".join(f"{n} {name}" for name, n in report.summary().items() if n)
    console.print(f"summary: {counts}", highlight=False)
    for hint, rules in report.unlocks():
        console.print(f"to check {len(rules)} more rule(s) ({', '.join(rules)}): {hint}", highlight=False)
    for entry in report.drivers():
        console.print(driver_line(entry), highlight=False)
    for line in unplayed_lines(report.capabilities or {}):
        console.print(line, highlight=False, markup=False)
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
    return (f"no SDK recognised ({named}): the fixes above are generic; {', '.join(rules)} {'has' if len(rules) == 1 else 'have'} an SDK's remedy, "
            f"which verify --sdk NAME prints ({', '.join(SHOWN_ORDER)}); each rule's page, docs/rules/<rule>.md, "
            "lists every SDK's remedy")


def capabilities_line(caps: dict) -> str:
    """The header's capabilities (``Report.capabilities``), ``label value`` pairs joined by
    commas, printed as one line (soft wrap: the terminal folds it, rich inserts no break)."""
    tools = tools_text(caps)
    pairs = [("session ids", _yes(caps.get("session_ids"))), ("event ids", _yes(caps.get("event_ids"))),
             ("priming", _yes(caps.get("priming"))),
             ("GET stream", f"{_yes(caps.get('get_stream'))} ({_status(caps.get('get_status'))})"),
             ("DELETE", _status(caps.get("delete_status"))), ("protocol", str(caps.get("protocol_version"))),
             ("fixture tools:", tools)]
    return "capabilities: " + ", ".join(f"{label} {value}" for label, value in pairs)


def parse_sdk(name: str | None) -> str | None:
    """The SDK ``verify --sdk NAME`` names (a target of ``model.traffic.fixes.SDKS``), or ``None``
    when none is given; ``UsageError`` (exit 2) listing the known ones for any other name."""
    if name is None:
        return None
    if name.strip().lower() not in SDK_BY_TARGET:
        shown = name if len(name) <= 120 else name[:120] + "..."
        raise UsageError(f"--sdk {shown!r}: unknown SDK; the known ones are {', '.join(SHOWN_ORDER)}")
    return name.strip().lower()


def print_fixes(report: Report, console: Console) -> None:
    """One ``fix <rule> (<verdict>): ...`` line per FAIL and WARN: the rule's fix and, when ``serverInfo``
    names a known SDK, its remedy (``model.traffic.fixes``); MCP rule ids stay bare. Then, for each
    rule that only the profile beside the run's finds broken, its evidence there and its fix."""
    for verdict in report.verdicts:
        fix = report.fix(verdict)
        if fix is not None:
            console.print(f"fix {verdict.rule} ({verdict.verdict.value}): {fix.text}", highlight=False, markup=False)
            if fix.remedy:
                console.print(f"  {fix.with_sdk()}", highlight=False, markup=False)
    beside = report.beside_findings()
    for verdict, fix in beside:
        profile, other = verdict.beside
        console.print(f"under {profile}, {verdict.rule} would {other.value}: {short_ids(verdict.beside_reason or '')}",
                      highlight=False, markup=False)
        console.print(f"  fix: {fix.text}", highlight=False, markup=False)
    if beside:
        console.print(f"  (reproducers of these: verify --profile {beside[0][0].beside[0]}, which writes one per "
                      "finding)", highlight=False, markup=False)


def run_suite(target, url, profile, bounds, run_seconds, progress, ttls=None, tools=(), sdk=None,
              headers=(), concurrency: int = CONCURRENCY) -> VerifyRun:
    """Run every verify scenario against ``url`` (``None``: start the embedded ``target`` here and stop it
    after), ``concurrency`` scenarios at once; the run in progress is kept for ``partial_report``."""
    global _PARTIAL
    ttls = ttls or {}
    if url is not None:
        _PARTIAL = VerifyRun(url, target, profile, bounds, run_seconds, **ttls, tools=list(tools), sdk=sdk,
                             headers=tuple(headers), concurrency=concurrency)
        asyncio.run(verify(_PARTIAL, progress))
        return _PARTIAL
    with running_target(target) as started:
        _PARTIAL = VerifyRun(started, target, profile, bounds, run_seconds, **ttls, tools=list(tools), sdk=sdk,
                             headers=tuple(headers), concurrency=concurrency)
        asyncio.run(verify(_PARTIAL, progress))
        return _PARTIAL


def findings_folder(outputs: dict[str, Path | None], out: Path | None, target: str, profile: str) -> Path:
    """Where the reproducers go: ``--out`` as given; else this run's own folder, ``<target>.<profile>``
    (``run_folder_name``), in ``mcp-resume-findings`` beside the report file (``--json``, else ``--junit``, else
    ``--markdown``), or in the working folder when none is: runs against other targets or profiles keep theirs."""
    if out is not None:
        return Path(out)
    written = [p for p in outputs.values() if p is not None and not is_standard_output(p)]
    base = written[0].parent if written else Path(".")
    return base / FINDINGS_FOLDER / run_folder_name(target, profile)


def run_folder_name(target: str, profile: str) -> str:
    """A folder name for a run against ``target`` (a URL or an embedded target's name) under
    ``profile`` (as asked, ``auto`` included): ``127.0.0.1_8000_mcp.boundary``, ``python-sdk.auto``."""
    bare = re.sub(r"^[a-z]+://", "", target)
    return f"{re.sub(r'[^A-Za-z0-9.@-]+', '_', bare).strip('_.') or 'target'}.{profile}"


def write_outputs(report: Report, outputs: dict[str, Path | None], folder: Path, console: Console,
                  asked: str | None = None) -> None:
    """The reports, and the reproducers in ``folder`` (``findings_folder``), saying where they went. A
    run that reached no server (``report.unreachable``) leaves ``folder`` as it was; an interrupted
    run (``report.partial``) keeps an earlier run's reproducers; another run's reproducers in ``folder``
    (only with ``--out``) are replaced, with a line that says so. ``asked``: the ``--profile`` asked,
    recorded with them (``formats.earlier_run``)."""
    files: dict[str, list[Path]] = {}
    if not report.unreachable:
        files = _write_reproducers(report, folder, console, report.partial is not None, asked or report.profile.value)
    if outputs["json"] is not None:
        write_output(outputs["json"], json.dumps(report.to_json(), indent=2) + "\n")
    if outputs["junit"] is not None:
        write_output(outputs["junit"], junit_xml(report))
    if outputs["markdown"] is not None:
        write_output(outputs["markdown"], markdown(report, files, outputs["markdown"].parent))


def _write_reproducers(report: Report, folder: Path, console: Console, partial: bool,
                       asked: str) -> dict[str, list[Path]]:
    earlier = earlier_run(folder)
    files = write_findings(report, folder, keep_earlier=partial, asked_profile=asked)
    lines = [f"reproducers (verify trace and curl script per finding) in {folder}"] if files else []
    if earlier is not None and not partial:
        if earlier != (report.target, asked):
            lines.append(f"the reproducers of an earlier run against {earlier[0]} (profile {earlier[1]}) in {folder} "
                         "were removed: give each target and profile its own --out to keep them")
        elif not files:
            lines.append(f"no finding: this run's earlier reproducers in {folder} were removed")
    for line in lines:
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    return files


def progress_printer(enabled: bool):
    """One line per rule judged on stderr, ``verify: rule 7 of 21: replay-suffix: PASS``, on a terminal
    and in a CI log alike (``enabled``, ``--progress``, is kept for old scripts: it is the default)."""
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


def _yes(value) -> str:
    return "yes" if value else "no"


def _status(status) -> str:
    return "no answer" if status is None else f"HTTP {status}"


def _escape(text: str) -> str:
    return text.replace("[", "\\[")
