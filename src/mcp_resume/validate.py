"""``mcp-resume validate FILE``: judge recorded traffic with a server against the spec.

FILE is a HAR 1.2 file (browser devtools, mitmproxy) or the JSON lines that
``mcp-resume proxy --record`` writes (``--format auto`` tells them apart). Each
exchange is mapped onto the spec's actions and judged by every rule's server
check (``model.traffic.validate``); one row per rule is printed (rule, level,
verdict, the same traffic's verdict under the profile beside it, the first
exchange that broke it), and ``--json``, ``--junit`` and ``--markdown`` write the
same as files. Beside an MCP revision of the session era stands ``boundary``,
beside ``boundary`` the revision the traffic negotiated; the exit code follows
``--profile`` alone. What the log cannot show is left open:
a rule that only unjudged exchanges touched is INCONCLUSIVE, one that no
exchange touched is SKIP.

Exit codes: 0 no rule FAILed and none is INCONCLUSIVE; 1 some rule FAILed; 2 bad
usage, a file that cannot be read or holds no exchange (one line naming it); 3 no
FAIL but some rule INCONCLUSIVE.

The JSON report is ``{"file", "profile", "beside_profile", "exchanges", "summary", "open",
"assumed", "verdicts": [{"rule", "verdict", "level", "reason", "exchanges", "steps",
"beside": {"profile", "verdict"}, "fix": {"text"}}]}`` (``beside`` and ``beside_profile`` only where a
profile stands beside; ``fix``, what the server must do differently, on every FAIL and WARN,
also printed as ``fix <rule> (<verdict>): ...`` lines, in Markdown and in JUnit).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from xml.etree import ElementTree

from rich.console import Console
from rich.table import Table

from mcp_resume.model.traffic.fixes import generic_fix
from mcp_resume.model.traffic.gists import cited, gists_section, in_page, link_ids
from mcp_resume.model.traffic.records import RecordError, read
from mcp_resume.outputs import OutputError, short_ids, write_output
from mcp_resume.model.traffic.judge import judge, judge_beside
from mcp_resume.model.traffic.validate import RuleResult, Validation
from mcp_resume.model.verify.outputs import add_verdict
from mcp_resume.spec.catalog import level
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.verdicts import Verdict

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INCONCLUSIVE = 0, 1, 2, 3
FINDINGS = (Verdict.FAIL, Verdict.WARN)


def fix_of(r: RuleResult) -> str | None:
    """The fix of a FAIL or WARN (``model.traffic.fixes``: what the server must do differently), else ``None``."""
    return generic_fix(r.rule) if r.verdict in FINDINGS else None


def run(args) -> int:
    """The ``validate`` command; ``args`` has ``file``, ``format``, ``profile``, ``json``, ``junit``, ``markdown``."""
    try:
        records = read(Path(args.file), args.format)
    except RecordError as error:
        print(f"mcp-resume validate: {error}", file=sys.stderr)
        return EXIT_USAGE
    if not records:
        print(f"mcp-resume validate: {args.file}: no exchanges recorded: nothing to judge", file=sys.stderr)
        return EXIT_USAGE
    profile = None if args.profile == "auto" else Profile.parse(args.profile)
    result = judge(records, profile)
    beside = judge_beside(records, result)
    print_report(result, f"validate {args.file}: {len(records)} exchanges, profile {result.profile.value}", beside)
    for path, text in _outputs(args, result, len(records), beside):
        try:
            write_output(Path(path), text)
        except OutputError as error:
            print(f"mcp-resume validate: {error}", file=sys.stderr)
            return EXIT_USAGE
    return exit_code(result)


def exit_code(result: Validation) -> int:
    verdicts = {r.verdict for r in result.results}
    if Verdict.FAIL in verdicts:
        return EXIT_FAILED
    return EXIT_INCONCLUSIVE if Verdict.INCONCLUSIVE in verdicts else EXIT_OK


def report_json(result: Validation, file: str, exchanges: int, beside: Validation | None = None) -> dict:
    report = {
        "file": file,
        "profile": result.profile.value,
        "exchanges": exchanges,
        "summary": _summary(result),
        "open": result.open,
        "assumed": result.assumed,
        "verdicts": [_verdict_json(r, result.profile) for r in result.results],
    }
    if beside is not None:
        report["beside_profile"] = beside.profile.value
        for verdict in report["verdicts"]:
            verdict["beside"] = {"profile": beside.profile.value, "verdict": beside.result(verdict["rule"]).verdict.value}
    return report


def _verdict_json(r: RuleResult, profile: Profile) -> dict:
    item = {**r.to_json(), "level": _level(r, profile)}
    if (fix := fix_of(r)) is not None:
        item["fix"] = {"text": fix}
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


def _outputs(args, result: Validation, exchanges: int, beside: Validation | None):
    if args.json:
        yield args.json, json.dumps(report_json(result, args.file, exchanges, beside), indent=2) + "\n"
    if args.junit:
        yield args.junit, junit(result, args.file)
    if args.markdown:
        yield args.markdown, markdown(result, args.file, beside)


def print_report(result: Validation, title: str, beside: Validation | None = None) -> None:
    """``title``, the verdict table (with the verdicts under the profile ``beside`` stands for, when
    given), what the log left open and what was assumed, and the summary, on stdout (shared with
    ``mcp-resume proxy``)."""
    console = Console(highlight=False)
    console.print(title, soft_wrap=True)
    columns = ("rule", "level", "verdict") + ((f"under {beside.profile.value}",) if beside else ()) + ("evidence",)
    table = Table(*columns)
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
