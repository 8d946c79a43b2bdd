"""Proof artifacts of the decision queries: SMT-LIB2 problems, JSON certificates, a report.

For every query ``<id>``, ``write_decision_artifacts`` writes

- ``<id>.smt2``: the exact problem, with the seed and the resource limit as
  ``set-option`` lines, replayable with ``z3 <id>.smt2``;
- ``<id>.json``: the certificate (see ``certificate``);

and one ``DECISION.md`` table of all queries. The bytes depend only on the
queries, the spec, the Z3 version, the seed and the limit: no timestamps, no
wall-clock figures, keys sorted, results in query order.
"""

from __future__ import annotations

import json
from pathlib import Path

from mcp_resume.proofs.solving import QueryResult
from mcp_resume.proofs.spec_hash import spec_hash

REPORT_NAME = "DECISION.md"


def certificate(result: QueryResult, spec_digest: str) -> dict:
    """The JSON certificate of one query.

    ``{query, description, expected, result, holds, witness, reason_unknown,
    sources, smt2, z3_version, rlimit, rlimit_used, random_seed, spec_hash}``:
    ``witness`` is the model (example or counterexample) or ``null``, ``smt2``
    the name of the problem file next to the certificate, ``rlimit`` and
    ``rlimit_used`` Z3 resource units, ``spec_hash`` the sha256 of the spec's
    sources (``spec_hash.spec_hash``).
    """
    return {
        "query": result.query,
        "description": result.description,
        "expected": result.expected,
        "result": result.result,
        "holds": result.holds,
        "witness": result.witness,
        "reason_unknown": result.reason_unknown,
        "sources": list(result.sources),
        "smt2": f"{result.query}.smt2",
        "z3_version": result.z3_version,
        "rlimit": result.rlimit,
        "rlimit_used": result.rlimit_used,
        "random_seed": result.random_seed,
        "spec_hash": spec_digest,
    }


def write_decision_artifacts(results: list[QueryResult], out_dir: Path) -> list[Path]:
    """Write the ``.smt2`` and ``.json`` of every result and ``DECISION.md`` into ``out_dir``.

    Creates ``out_dir`` (and parents) if needed and overwrites files of the same
    names. Returns the paths written: per query its ``.smt2`` then its ``.json``,
    in ``results`` order, then the report. Raises ``ValueError`` when two results
    share a query id, ``OSError`` when the folder cannot be written.
    """
    ids = [r.query for r in results]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate query ids: {', '.join(duplicates)}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    digest = spec_hash()
    written = []
    for result in results:
        written.append(_write(out_dir / f"{result.query}.smt2", result.smt2))
        text = json.dumps(certificate(result, digest), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        written.append(_write(out_dir / f"{result.query}.json", text))
    written.append(_write(out_dir / REPORT_NAME, decision_report(results, digest)))
    return written


def decision_report(results: list[QueryResult], spec_digest: str) -> str:
    """The Markdown summary: run parameters, then one table row per query."""
    held = sum(r.holds for r in results)
    first = results[0] if results else None
    lines = [
        "# Decision proofs",
        "",
        "Z3 queries over the reconnect decision (docs/decision.md), checked against "
        "`mcp_resume.spec.decision.decide_class`.",
        "",
        f"- queries holding: {held} of {len(results)}",
        f"- spec sha256: `{spec_digest}`",
    ]
    if first is not None:
        lines += [
            f"- Z3 {first.z3_version}, random seed {first.random_seed}, "
            f"rlimit {first.rlimit} resource units per query",
        ]
    lines += [
        "",
        "| query | expected | result | holds | rlimit used | witness | what it shows | sources |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        cells = [
            f"`{r.query}`", r.expected, r.result, "yes" if r.holds else "**NO**",
            "" if r.rlimit_used is None else str(r.rlimit_used),
            _witness_text(r), r.description, ", ".join(r.sources),
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _witness_text(result: QueryResult) -> str:
    if result.witness is None:
        return result.reason_unknown or "-"
    return ", ".join(f"{k}={v}" for k, v in result.witness.items())


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path
