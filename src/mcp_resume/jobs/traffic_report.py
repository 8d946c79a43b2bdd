"""The report on judged traffic, shared by ``mcp-resume validate`` and ``mcp-resume proxy``: the
recording read and judged (``judge_recording``), the verdict table printed (``print_report``), the
exit code (``exit_code``), and the same as JSON, JUnit XML and Markdown.

A JSON-lines file is read line by line into compact records (``model.traffic.compact``) and judged
lean (``judge(..., lean=True)``), the profile beside first and kept as verdicts only, the JSON
report written piece by piece: the memory grows with the number of exchanges and events, not with
the file's bytes.

The JSON report is ``{"file", "profile", "beside_profile", "exchanges", "summary", "open",
"assumed", "verdicts": [{"rule", "verdict", "level", "reason", "exchanges", "steps",
"beside": {"profile", "verdict"}, "fix": {"text"}}]}`` (``beside`` and ``beside_profile`` only where a
profile stands beside; ``fix``, what the server must do differently, on every FAIL and WARN,
also printed as ``fix <rule> (<verdict>): ...`` lines, in Markdown and in JUnit).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from rich.table import Table

from mcp_resume.model.traffic.fixes import generic_fix
from mcp_resume.model.traffic.gists import cited, gists_section, in_page, link_ids
from mcp_resume.model.traffic.records import RecordError, read
from mcp_resume.outputs import Streamed, json_pieces, short_ids, wide_console
from mcp_resume.model.oracle.judge import beside_profile, judge, negotiated_profile, profile_of
from mcp_resume.model.traffic.trace_validation import RuleResult, Validation
from mcp_resume.model.verify.formats import add_verdict
from mcp_resume.spec.catalog import level
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

from mcp_resume.jobs.exits import EXIT_FAILED, EXIT_OK, EXIT_UNCHECKED as EXIT_INCONCLUSIVE
FINDINGS = (Verdict.FAIL, Verdict.WARN)


@dataclass
class JudgedRecording:
    """A recording judged: ``exchanges`` read, the ``result`` under the profile asked for (or the one
    the traffic shows), and the verdicts under the profile ``beside`` it (``None`` when none stands beside)."""

    exchanges: int
    result: Validation
    beside: Validation | None


class NothingToJudge(RecordError):
    """A recording that holds no exchange."""


def judge_recording(file: Path, file_format: str = "auto", profile: Profile | None = None) -> JudgedRecording:
    """Read ``file`` (HAR 1.2 or the proxy's JSON lines, ``file_format`` ``auto``, ``har`` or ``jsonl``)
    into compact records and judge it, lean, under the profile beside ``profile`` first and then under
    ``profile`` (``None``: the profile of the revision the traffic shows). ``RecordError`` for a file
    that cannot be read, ``NothingToJudge`` for one with no exchange."""
    records = read(Path(file), file_format, compact=True)
    if not records:
        raise NothingToJudge(f"{file}: no exchanges recorded: nothing to judge")
    beside = _beside(records, profile)
    return JudgedRecording(len(records), judge(records, profile, lean=True), beside)


def fix_of(r: RuleResult) -> str | None:
    """The fix of a FAIL or WARN (``model.traffic.fixes``: what the server must do differently), else ``None``."""
    return generic_fix(r.rule) if r.verdict in FINDINGS else None


def _beside(records: list, profile: Profile | None) -> Validation | None:
    """The verdicts of ``records`` under the profile shown beside ``profile``'s judgement (``None``
    when none stands beside), judged first and kept alone (``Validation.verdicts_only``), so that a
    long recording's two judgements are never held at once."""
    other = beside_profile(profile_of(records, profile), negotiated_profile(records))
    return judge(records, other, lean=True).verdicts_only() if other is not None else None


def exit_code(result: Validation) -> int:
    verdicts = {r.verdict for r in result.results}
    if Verdict.FAIL in verdicts:
        return EXIT_FAILED
    return EXIT_INCONCLUSIVE if Verdict.INCONCLUSIVE in verdicts else EXIT_OK


def report_json(result: Validation, file: str, exchanges: int, beside: Validation | None = None, *,
                streamed: bool = False) -> dict:
    """The JSON report (the module docstring's shape); ``streamed``: its verdicts and their steps as
    ``outputs.Streamed`` arrays, made while ``outputs.json_pieces`` writes them (a long recording's
    steps are never held as JSON all at once)."""
    verdicts = (_verdict_json(r, result.profile, beside, streamed) for r in result.results)
    report = {
        "file": file,
        "profile": result.profile.value,
        "exchanges": exchanges,
        "summary": _summary(result),
        "open": result.open,
        "assumed": result.assumed,
        "verdicts": Streamed(verdicts, len(result.results)) if streamed else list(verdicts),
    }
    if beside is not None:
        report["beside_profile"] = beside.profile.value
    return report


def _verdict_json(r: RuleResult, profile: Profile, beside: Validation | None, streamed: bool) -> dict:
    item = r.to_json(steps=not streamed)
    if streamed:
        item["steps"] = Streamed((r.step_json(s) for s in r.steps), len(r.steps))
    item["level"] = _level(r, profile)
    if (fix := fix_of(r)) is not None:
        item["fix"] = {"text": fix}
    if beside is not None:
        item["beside"] = {"profile": beside.profile.value, "verdict": beside.result(r.rule).verdict.value}
    return item


def junit(result: Validation, file: str) -> str:
    """JUnit XML, one test case per rule, as ``verify`` writes it: FAIL = ``failure``,
    INCONCLUSIVE = ``error``, SKIP = ``skipped``, a WARN passes with the finding in ``system-out``."""
    count = lambda verdict: str(sum(r.verdict is verdict for r in result.results))
    suite = ElementTree.Element("testsuite", name=f"mcp-resume validate {file}", tests=str(len(result.results)),
                                failures=count(Verdict.FAIL), errors=count(Verdict.INCONCLUSIVE), skipped=count(Verdict.SKIP))
    for r in result.results:
        add_verdict(ElementTree.SubElement(suite, "testcase", classname="mcp-resume.validate", name=r.rule),
                    r.verdict, r.reason, r.reason + (f"\n\nhow to fix: {fix}" if (fix := fix_of(r)) else ""))
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suite, encoding="unicode") + "\n"


def markdown(result: Validation, file: str, beside: Validation | None = None) -> str:
    other = f" | under `{beside.profile.value}`" if beside else ""
    lines = [f"# mcp-resume validate: {file}", "", f"Profile `{result.profile.value}`; {_summary(result)}.", "",
             f"| rule | level | verdict{other} | evidence |", "|---|---|---|" + ("---|" if beside else "") + "---|"]
    for r in result.results:
        also = f" | {beside.result(r.rule).verdict.value}" if beside else ""
        lines.append(f"| `{r.rule}` | {_level(r, result.profile)} | {r.verdict.value}{also} | {r.reason.replace('|', '/')} |")
    found = [r for r in result.results if r.verdict in FINDINGS]
    if found:
        lines += ["", "## How to fix", ""]
        lines += [f"- `{r.rule}` ({r.verdict.value}): {link_ids(fix_of(r), in_page)}" for r in found]
    if result.open or result.assumed:
        lines += ["", "## What the log left open", ""] + [f"- {line}" for line in result.open + result.assumed]
    lines += gists_section(cited(fix_of(r) for r in found))
    return "\n".join(lines) + "\n"


def outputs(args, result: Validation, exchanges: int, beside: Validation | None):
    """``(path, text)`` of each report ``args`` asks for: ``--json``, ``--junit``, ``--markdown``."""
    if args.json:
        yield args.json, json_pieces(report_json(result, args.file, exchanges, beside, streamed=True))
    if args.junit:
        yield args.junit, junit(result, args.file)
    if args.markdown:
        yield args.markdown, markdown(result, args.file, beside)


def print_report(result: Validation, title: str, beside: Validation | None = None) -> None:
    """``title``, the verdict table (with the verdicts under the profile ``beside`` stands for, when
    given), what the log left open and what was assumed, and the summary, on stdout (shared with
    ``mcp-resume proxy``)."""
    console = wide_console(highlight=False)
    console.print(title, soft_wrap=True)
    table = Table()
    table.add_column("rule", no_wrap=True)
    for column in ("level", "verdict") + ((f"under {beside.profile.value}",) if beside else ()) + ("evidence",):
        table.add_column(column)
    for r in result.results:
        also = (beside.result(r.rule).verdict.value,) if beside else ()
        table.add_row(r.rule, _level(r, result.profile), r.verdict.value, *also, short_ids(r.reason))
    console.print(table)
    for r in result.results:
        if (fix := fix_of(r)) is not None:
            console.print(f"fix {r.rule} ({r.verdict.value}): {fix}", soft_wrap=True, markup=False)
    for line in result.open:
        console.print(f"open: {short_ids(line)}", soft_wrap=True)
    for line in result.assumed:
        console.print(f"assumed: {short_ids(line)}", soft_wrap=True)
    console.print(f"summary: {_summary(result)}", soft_wrap=True)


def _summary(result: Validation) -> str:
    counts = {}
    for r in result.results:
        counts[r.verdict.value] = counts.get(r.verdict.value, 0) + 1
    return ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))


def _level(r: RuleResult, profile: Profile) -> str:
    try:
        return level(r.rule, profile).value
    except KeyError:
        return "-"
