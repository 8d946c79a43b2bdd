"""What ``mcp-resume verify`` writes besides the terminal table: JUnit XML, Markdown,
a verify trace per finding and a curl reproducer per finding.

- ``junit_xml(report)``: one ``testcase`` per rule (FAIL = ``failure``, SKIP =
  ``skipped``, INCONCLUSIVE = ``error``; a WARN passes with the finding in
  ``system-out``; a FAIL's and a WARN's text carries its ``how to fix:`` line), for
  CI dashboards;
- ``markdown(report, files)``: the verdict table and, for every FAIL and WARN,
  how to fix it (``model.traffic.fixes``: the rule's fix and the remedy of the server's
  SDK, or of every known SDK when ``serverInfo`` names none), its checks and the files
  that reproduce it; MCP rule ids link to a closing section of their gists;
- ``verify_trace(report, verdict)``: a JSON document (``VERIFY_TRACE_FORMAT``)
  naming the rule, the profile, the tools given for a role (``tools``: the
  ``verify --tool`` uses, ``ToolUse.to_json``) and the exchanges seen, which
  ``mcp-resume replay TRACE TARGET`` runs again;
- ``curl_script(report, verdict)``: a bash script that sends the same HTTP
  requests with curl, carrying the session ids, event ids and server request
  ids the server hands out from one request to the next.

Nothing here does network I/O; ``write_findings`` writes the per-finding files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from mcp_resume.spec.verdicts import Verdict

from mcp_resume.model.http.curl import exchanges_script
from mcp_resume.model.traffic.fixes import Fix, remedies_for, SDK_BY_TARGET
from mcp_resume.model.traffic.gists import cited, gists_section, in_page, link_ids
from mcp_resume.model.verify.report import FINDINGS, Report, RuleVerdict, driver_line, tools_text, unplayed_lines

VERIFY_TRACE_FORMAT = "mcp-resume-verify-trace/1"
UNREACHABLE_CASE = "target-reachable"
GATE_CASE = "gate"
"""The JUnit test case of ``--require``/``--fail-on``: failed when the run did not meet them."""
"""The JUnit test case of a run whose target could not be reached: an ``error`` saying why."""
MANIFEST = ".mcp-resume-findings.json"
"""The file in the findings folder listing what the last run wrote there (and so may remove)."""


# -- JUnit ------------------------------------------------------------------------------


def junit_xml(report: Report) -> str:
    """The report as a JUnit XML document, one test case per rule."""
    counts = report.summary()
    suite = ElementTree.Element(
        "testsuite",
        name=f"mcp-resume verify {report.target}",
        tests=str(len(report.verdicts)),
        failures=str(counts[Verdict.FAIL.value]),
        errors=str(counts[Verdict.INCONCLUSIVE.value]),
        skipped=str(counts[Verdict.SKIP.value]),
        time=f"{report.seconds if report.seconds is not None else _seconds(report.verdicts):.3f}",
    )
    properties = ElementTree.SubElement(suite, "properties")
    ElementTree.SubElement(properties, "property", name="profile", value=report.profile.value)
    if report.partial:
        ElementTree.SubElement(properties, "property", name="partial", value=report.partial)
    if report.unreachable:
        suite.set("tests", "1")
        suite.set("errors", "1")
        case = ElementTree.SubElement(suite, "testcase", classname=f"mcp-resume.{report.profile.value}",
                                      name=UNREACHABLE_CASE, time="0.000")
        ElementTree.SubElement(case, "error", message=report.unreachable, type="unreachable").text = report.unreachable
    for verdict in report.verdicts:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=f"mcp-resume.{report.profile.value}",
            name=verdict.rule,
            time=f"{sum(x.seconds for x in verdict.exchanges):.3f}",
        )
        add_verdict(case, verdict.verdict, verdict.reason, _details(verdict, report.fix(verdict)), verdict.level.value)
    if report.gate is not None:
        _add_gate(suite, report)
    ElementTree.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suite, encoding="unicode") + "\n"


def _add_gate(suite: ElementTree.Element, report: Report) -> None:
    """The CI gate (``--require``, ``--fail-on``) as one more test case, failed when it was not met, so
    that a test view shows the job's outcome."""
    gate = report.gate
    suite.set("tests", str(int(suite.get("tests", "0")) + 1))
    case = ElementTree.SubElement(suite, "testcase", classname=f"mcp-resume.{report.profile.value}", name=GATE_CASE,
                                  time="0.000")
    if not gate["met"]:
        suite.set("failures", str(int(suite.get("failures", "0")) + 1))
        text = "\n".join(gate["unmet"])
        ElementTree.SubElement(case, "failure", message=gate["unmet"][0], type="gate").text = text


def add_verdict(case: ElementTree.Element, verdict: Verdict, reason: str, details: str, level: str | None = None) -> None:
    """A rule's verdict inside its JUnit ``testcase``: FAIL = ``failure`` (of type ``level``),
    INCONCLUSIVE = ``error``, SKIP = ``skipped``; a PASS adds nothing, a WARN passes with the
    finding in ``system-out``. ``details`` is the element's text. Shared by verify and validate."""
    if verdict is Verdict.FAIL:
        failure = ElementTree.SubElement(case, "failure", message=reason)
        if level is not None:
            failure.set("type", level)
        failure.text = details
    elif verdict is Verdict.INCONCLUSIVE:
        ElementTree.SubElement(case, "error", message=reason, type="inconclusive").text = details
    elif verdict is Verdict.SKIP:
        ElementTree.SubElement(case, "skipped", message=reason)
    elif verdict is Verdict.WARN:
        ElementTree.SubElement(case, "system-out").text = f"WARN ({level} broken): {details}" if level else f"WARN: {details}"


def _details(verdict: RuleVerdict, fix: Fix | None = None) -> str:
    lines = [verdict.reason, ""]
    if fix is not None:
        lines += [f"how to fix: {fix.line()}", ""]
    lines += [f"[{'held' if c.held else 'BROKEN'}] {c.what}: expected {c.expected}, observed {c.observed}" for c in verdict.checks]
    lines += ["", "exchanges:"] + [f"  {x.one_line()}" for x in verdict.exchanges]
    return "\n".join(lines)


def _seconds(verdicts: list[RuleVerdict]) -> float:
    return sum(x.seconds for v in verdicts for x in v.exchanges)


# -- Markdown -----------------------------------------------------------------------------


def markdown(report: Report, files: dict[str, list[Path]] | None = None, folder: Path | None = None) -> str:
    """The report as Markdown; ``files`` maps a rule to the reproducer files written for it,
    linked relative to ``folder`` (the Markdown file's folder; default: as given)."""
    files = files or {}
    lines = [f"# mcp-resume verify: {report.target}", ""]
    lines += [f"- endpoint: `{report.url}`", f"- profile: `{report.profile.value}`"]
    if report.unreachable:
        lines.append(f"- **not verified**: {report.unreachable}")
    if report.partial:
        lines.append(f"- **partial**: the run stopped early ({report.partial}); the rules not judged are INCONCLUSIVE")
    if report.note:
        lines.append(f"- note: {report.note}")
    caps = report.capabilities
    if caps:
        lines.append(
            f"- capabilities: session ids {_yes(caps.get('session_ids'))}, event ids {_yes(caps.get('event_ids'))}, "
            f"priming {_yes(caps.get('priming'))}, GET stream {_yes(caps.get('get_stream'))} (HTTP {caps.get('get_status')}), "
            f"DELETE HTTP {caps.get('delete_status')}, protocol {caps.get('protocol_version')}, "
            f"fixture tools: {tools_text(caps)}"
        )
    counts = ", ".join(f"{n} {name}" for name, n in report.summary().items() if n)
    lines.append(f"- summary: {counts}")
    if report.gate is not None:
        lines.append("- gate (--require, --fail-on): " + ("met" if report.gate["met"] else
                                                          "**not met**: " + "; ".join(report.gate["unmet"])))
    lines += [f"- to check {', '.join(f'`{r}`' for r in rules)}: {hint}" for hint, rules in report.unlocks()]
    lines += [f"- {driver_line(entry)}" for entry in report.drivers()]
    lines += [f"- {line}" for line in unplayed_lines(caps or {})]
    beside = next((v.beside[0] for v in report.verdicts if v.beside), None)
    head = f" {beside} |" if beside else ""
    lines += ["", f"| rule | level | verdict |{head} evidence |", "|---|---|---|" + ("---|" if beside else "") + "---|"]
    for v in report.verdicts:
        shown = f"**{v.verdict.value}**" if v.verdict in FINDINGS else v.verdict.value
        cell = (f" {v.beside[1].value if v.beside else ''} |") if beside else ""
        lines.append(f"| `{v.rule}` | {v.level.value} | {shown} |{cell} {_cell(v.reason)} |")
    fixes = []
    for v in report.verdicts:
        if v.verdict not in FINDINGS:
            continue
        fix = report.fix(v)
        fixes += [v.reason] + _fix_texts(fix, report.sdk)
        lines += ["", f"## {v.rule}: {v.verdict.value}", "", link_ids(v.reason, in_page), ""]
        lines += _fix_lines(fix, report.sdk) + [""]
        lines += ["| check | expected | observed | held |", "|---|---|---|---|"]
        lines += [f"| {_cell(c.what)} | {_cell(c.expected)} | {_cell(c.observed)} | {'yes' if c.held else '**no**'} |" for c in v.checks]
        if v.rule in files:
            lines += ["", "Reproduce: " + ", ".join(_link(p, folder) for p in files[v.rule])]
    for v, fix in report.beside_findings():
        profile, other = v.beside
        fixes += [v.beside_reason or ""] + _fix_texts(fix, report.sdk)
        lines += ["", f"## {v.rule}: {v.verdict.value}, {other.value} under {profile}", "",
                  link_ids(v.beside_reason or "", in_page), ""] + _fix_lines(fix, report.sdk)
    lines += gists_section(cited(fixes))
    return "\n".join(lines) + "\n"


def _fix_texts(fix: Fix, sdk: str | None) -> list[str]:
    """The texts ``_fix_lines`` shows for ``fix``: the fix, then the remedy of the server's SDK or,
    when the SDK is not known, every known SDK's remedy."""
    if fix.remedy or sdk is not None:
        return [fix.text] + ([fix.remedy] if fix.remedy else [])
    return [fix.text] + [r.text for r in remedies_for(fix.rule)]


def _fix_lines(fix: Fix, sdk: str | None) -> list[str]:
    """The "How to fix" lines of a finding, its MCP rule ids linked to the report's gists section."""
    lines = [f"**How to fix:** {link_ids(fix.text, in_page)}"]
    if fix.remedy:
        return lines + ["", f"**With {fix.sdk_label}:** {link_ids(fix.remedy, in_page)}"]
    known = remedies_for(fix.rule) if sdk is None else []
    if known:
        lines += ["", "Where the server is built with a known SDK or framework:", ""]
        lines += [f"- {SDK_BY_TARGET[r.sdk].label}: {link_ids(r.text, in_page)}" for r in known]
    return lines


def _link(path: Path, folder: Path | None) -> str:
    shown = Path(os.path.relpath(Path(path).resolve(), Path(folder).resolve())) if folder is not None else Path(path)
    return f"[`{path.name}`]({shown.as_posix()})"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _yes(value) -> str:
    return "yes" if value else "no"


# -- verify traces ---------------------------------------------------------------------------


def verify_trace(report: Report, verdict: RuleVerdict) -> dict[str, Any]:
    """The JSON trace of one verdict: enough for ``mcp-resume replay`` to run it again."""
    return {
        "format": VERIFY_TRACE_FORMAT,
        "rule": verdict.rule,
        "profile": report.profile.value,
        "target": report.target,
        "url": report.url,
        "verdict": verdict.verdict.value,
        "reason": verdict.reason,
        **({"tools": list(uses)} if (uses := report.capabilities.get("tool_roles")) else {}),
        **({"headers": list(names)} if (names := report.capabilities.get("headers")) else {}),
        **({"fix": fix.to_json()} if (fix := report.fix(verdict)) is not None else {}),
        "checks": [c.to_json() for c in verdict.checks],
        "exchanges": [x.to_json() for x in verdict.exchanges],
    }


def write_findings(report: Report, folder: Path, keep_earlier: bool = False,
                   asked_profile: str | None = None) -> dict[str, list[Path]]:
    """Write ``<rule>.trace.json`` and ``<rule>.curl.sh`` into ``folder`` for every
    FAIL and WARN; returns the files per rule. The files an earlier run listed in
    ``folder/MANIFEST`` are removed first (a later passing run leaves none behind),
    unless ``keep_earlier`` (a partial run, interrupted: it cannot tell that they are
    stale), which adds its files to theirs; no other file of ``folder`` is touched.
    The manifest names the run that wrote them: ``report.target`` and ``asked_profile``
    (the ``--profile`` asked, ``auto`` included; default: the report's), which
    ``earlier_run`` reads back. Raises ``OSError`` when it cannot."""
    earlier = _earlier(folder)
    if not keep_earlier:
        _remove(folder, earlier)
        earlier = []
    written: dict[str, list[Path]] = {}
    for verdict in report.verdicts:
        if verdict.verdict not in FINDINGS:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        trace = folder / f"{verdict.rule}.trace.json"
        trace.write_text(json.dumps(verify_trace(report, verdict), indent=2) + "\n", encoding="utf-8")
        script = folder / f"{verdict.rule}.curl.sh"
        script.write_text(curl_script(report, verdict), encoding="utf-8")
        script.chmod(0o755)
        written[verdict.rule] = [trace, script]
    if written:
        names = sorted(set(earlier) | {p.name for paths in written.values() for p in paths})
        owner = {"target": report.target, "profile": asked_profile or report.profile.value}
        (folder / MANIFEST).write_text(json.dumps({"written_by": "mcp-resume verify", **owner, "files": names},
                                                  indent=2) + "\n", encoding="utf-8")
    return written


def earlier_run(folder: Path) -> tuple[str, str] | None:
    """``(target, profile)`` of the verify run whose reproducers ``folder/MANIFEST`` lists, or
    ``None`` when it lists none, names no target (older versions) or cannot be read."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not data.get("files") or not isinstance(data.get("target"), str):
        return None
    return data["target"], str(data.get("profile"))


def _earlier(folder: Path) -> list[str]:
    """The files an earlier run listed in ``folder/MANIFEST`` (its own: plain names with its suffixes)."""
    try:
        names = json.loads((folder / MANIFEST).read_text(encoding="utf-8")).get("files", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [name for name in names if isinstance(name, str) and Path(name).name == name
            and name.endswith(_OWNED_SUFFIXES)] if isinstance(names, list) else []


def _remove(folder: Path, names: list[str]) -> None:
    """Remove the files ``names`` of ``folder`` (an earlier run's) and its manifest, then ``folder``
    itself when nothing else is left in it."""
    for name in names:
        (folder / name).unlink(missing_ok=True)
    (folder / MANIFEST).unlink(missing_ok=True)
    if names and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()


_OWNED_SUFFIXES = (".trace.json", ".curl.sh")


# -- curl reproducers ------------------------------------------------------------------------------


def curl_script(report: Report, verdict: RuleVerdict) -> str:
    """A bash script that replays ``verdict``'s exchanges with curl (cleanup deletes left out)."""
    comments = [f"mcp-resume reproducer: rule {verdict.rule} is {verdict.verdict.value} ({verdict.level.value} under {report.profile.value})",
                f"target {report.target}; run as: bash {verdict.rule}.curl.sh [URL]"]
    comments += [f"{c.what}: expected {c.expected}; observed {c.observed}" for c in verdict.checks if not c.held]
    if (fix := report.fix(verdict)) is not None:
        comments.append(f"how to fix: {fix.line()}")
    broken = [f"  {c.what}: expected {c.expected}; observed {c.observed}" for c in verdict.checks if not c.held]
    closing = [f"== {verdict.rule} was {verdict.verdict.value} when recorded; compare the answers above with:", *broken,
               "This script shows the answers and judges none (exit 0 says only that it ran): for a verdict, run "
               f"mcp-resume replay {verdict.rule}.trace.json [URL]"]
    return exchanges_script(comments, report.url, [x for x in verdict.exchanges if not x.label.startswith("cleanup")],
                            report.capabilities.get("headers") or [], closing)
