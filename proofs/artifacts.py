"""The one writer of proof artifacts: results files, reports, traces and, on request, SMT-LIB2.

The decision queries (``write_decision_artifacts``) write into one folder:

- ``decision.json``: every query's result (``decision_results``);
- ``DECISION.md``: the report (``report.decision_report``);
- ``smt2/<query>.smt2`` when asked for: the exact problem, replayable with ``z3``.

The transition system of one profile (``write_prove_artifacts``) writes into one folder:

- ``results.json``: every proof obligation and every design's bounded search
  (``system_results``);
- ``REPORT.md``: the report (``report.system_report``);
- ``traces/design-<n>.json``: the counterexample trace of each faulty design caught
  (``spec.trace`` format, source ``z3``);
- ``smt2/<query>.smt2`` when asked for (seed, resource limit and, for proofs, the
  tracked conjunct names as ``check-sat-assuming``).

A results file holds what a proof says, never what it cost: query ids, expected
and actual answers, verdicts, unsat cores, fragments, witnesses, the spec's hash
once at the top; no resource counts, no times, no absolute paths. Keys come in a
fixed order and queries in run order, so the bytes follow the results, and two
results files can be compared by meaning (``differences``).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from mcp_resume.spec.profiles import Profile

from mcp_resume.proofs.decision.queries import QueryResult
from mcp_resume.proofs.report_page import decision_report, system_report
from mcp_resume.proofs.spec_hash import spec_hash
from mcp_resume.proofs.system.bmc import BmcResult, Replay
from mcp_resume.proofs.system.proofs import ProofResult, required, tally

DECISION_RESULTS, DECISION_REPORT = "decision.json", "DECISION.md"
RESULTS, REPORT = "results.json", "REPORT.md"
SMT2_FOLDER, TRACES_FOLDER = "smt2", "traces"


# -- what a results file holds ----------------------------------------------------------------


def decision_results(results: list[QueryResult], spec_digest: str | None = None) -> dict:
    """The decision results as a JSON-ready dict: ``{spec_hash, z3_version, random_seed,
    rlimit, queries: [{id, description, expected, result, verdict, witness,
    reason_unknown, sources}]}``; answers and verdicts as their enum values
    (``"sat"``, ``"proven"`` ...), ``rlimit`` the limit in Z3 resource units per query."""
    first = results[0] if results else None
    return {
        "spec_hash": spec_digest or spec_hash(),
        "z3_version": first.z3_version if first else None,
        "random_seed": first.random_seed if first else None,
        "rlimit": first.rlimit if first else None,
        "queries": [{
            "id": r.query, "description": r.description, "expected": r.expected.value, "result": r.result.value,
            "verdict": r.verdict.value, "witness": r.witness, "reason_unknown": r.reason_unknown,
            "sources": list(r.sources),
        } for r in results],
    }


def system_results(profile: Profile, proofs: list[ProofResult], bmc: list[BmcResult],
                   spec_digest: str | None = None, agreement: dict | None = None) -> dict:
    """One profile's results as a JSON-ready dict: ``{profile, spec_hash, z3_version,
    random_seed, rlimit, queries}``.

    A proof obligation is ``{id, kind, invariant, rule, action, description,
    expected, result, verdict, required, applicability, vacuous, of, unsat_core,
    effect_only, effect_core, reason_unknown, fragment}`` (``expected`` and ``verdict`` are ``null`` for an
    informative query; ``result`` is ``null`` and ``verdict`` ``"not applicable"``
    when no query was asked, ``applicability`` saying why; ``vacuous`` whether a
    consecution's vacuity query answered unsat, ``null`` when none answered; ``of``
    the consecution a vacuity query is about; ``effect_only`` the answer of the
    effect-only reading of an unsat initiation or consecution, ``null`` when not
    read, and ``effect_core`` the effect equations a trivial one used: ``verdict``
    is then ``"trivial"``, ``proofs.system.triviality``); ``tally`` counts the required
    obligations (``proofs.system.proofs.tally``) and ``agreement`` holds the figures
    of the agreement check both ways when given (``{"wide": ..., "deep": ...}`` from
    ``prove``); a design's
    bounded search ``{id, kind: "bmc", design, summary, expected: "sat", result,
    verdict, caught, depth, max_depth, depths, rule, scope, fragment, trace}``
    (``depths`` the answer at each depth tried, ``trace`` the trace file's path
    relative to the folder, or ``null``).
    """
    first = proofs[0] if proofs else None
    queries = [{
        "id": r.query, "kind": r.kind, "invariant": r.invariant, "rule": r.rule, "action": r.action,
        "description": r.description, "expected": _value(r.expected), "result": _value(r.result),
        "verdict": _value(r.verdict), "required": required(r), "applicability": r.applicability,
        "vacuous": r.vacuous, "of": r.of, "unsat_core": list(r.core),
        "effect_only": _value(r.effect_only), "effect_core": list(r.effect_core),
        "reason_unknown": r.reason_unknown, "fragment": r.fragment,
    } for r in proofs]
    queries += [{
        "id": b.query, "kind": "bmc", "design": b.design, "summary": b.summary, "expected": "sat",
        "result": b.result.value, "verdict": b.verdict.value, "caught": b.caught, "depth": b.depth,
        "max_depth": b.max_depth, "depths": [q.result.value for q in b.depths], "rule": b.rule,
        "scope": b.scope, "fragment": b.fragment,
        "trace": f"{TRACES_FOLDER}/design-{b.design}.json" if b.trace else None,
    } for b in bmc]
    return {
        "profile": profile.value,
        "spec_hash": spec_digest or spec_hash(),
        "z3_version": first.z3_version if first else None,
        "random_seed": first.random_seed if first else None,
        "rlimit": first.rlimit if first else None,
        "tally": asdict(tally(proofs)),
        "agreement": agreement,
        "queries": queries,
    }


def differences(fresh: dict, committed: dict, limit: int = 5) -> list[str]:
    """How two results documents differ, by meaning, as short sentences (empty when
    they agree): queries only in one, queries whose fields differ (at most ``limit``
    named), and differing top-level fields."""
    found = []
    for key in sorted(set(fresh) | set(committed)):
        if key != "queries" and fresh.get(key) != committed.get(key):
            found.append(f"{key}: {committed.get(key)!r} committed, {fresh.get(key)!r} now")
    new = {q["id"]: q for q in fresh.get("queries", [])}
    old = {q["id"]: q for q in committed.get("queries", [])}
    if set(new) - set(old):
        found.append(f"{len(set(new) - set(old))} new queries, e.g. {sorted(set(new) - set(old))[:limit]}")
    if set(old) - set(new):
        found.append(f"{len(set(old) - set(new))} queries gone, e.g. {sorted(set(old) - set(new))[:limit]}")
    changed = [i for i in new if i in old and new[i] != old[i]]
    for query in changed[:limit]:
        fields = sorted(k for k in set(new[query]) | set(old[query]) if new[query].get(k) != old[query].get(k))
        found.append(f"{query}: " + "; ".join(f"{k} {old[query].get(k)!r} -> {new[query].get(k)!r}" for k in fields))
    if len(changed) > limit:
        found.append(f"... and {len(changed) - limit} more queries changed")
    if not changed and [q["id"] for q in fresh.get("queries", [])] != [q["id"] for q in committed.get("queries", [])]:
        found.append("the queries are in another order")
    return found


# -- writing ---------------------------------------------------------------------------------


def write_decision_artifacts(results: list[QueryResult], out_dir: Path, smt2: bool = False) -> list[Path]:
    """Write ``decision.json``, ``DECISION.md`` and, with ``smt2``, ``smt2/<query>.smt2``
    into ``out_dir`` (created with its parents if needed; files of the same names
    are overwritten).

    Returns the paths written in that order (SMT-LIB2 files in ``results`` order).
    Raises ``ValueError`` when two results share a query id or when ``smt2`` is
    asked for but a result was solved without its text
    (``run_decision_queries(smt2=True)``), ``OSError`` when the folder cannot be written.
    """
    _unique([r.query for r in results])
    problems = _smt2_texts([(r.query, r.smt2) for r in results]) if smt2 else []
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    digest = spec_hash()
    written = [_write(out_dir / DECISION_RESULTS, _json(decision_results(results, digest))),
               _write(out_dir / DECISION_REPORT, decision_report(results, digest))]
    if not smt2:
        _remove(out_dir / SMT2_FOLDER, [f"{r.query}.smt2" for r in results])
    return written + _write_smt2(out_dir, problems)


def write_prove_artifacts(profile: Profile, proofs: list[ProofResult], bmc: list[BmcResult],
                          replays: dict[int, Replay], out_dir: Path, smt2: bool = False,
                          agreement: dict | None = None) -> list[Path]:
    """Write one profile's ``results.json``, its traces, ``REPORT.md`` and, with
    ``smt2``, ``smt2/<query>.smt2`` into ``out_dir`` (created if needed).

    ``replays`` maps a design number to how its trace replayed; ``agreement`` the
    figures of the agreement check both ways (``AgreementFigures.to_json``, or
    ``ProveAgreement.to_json`` for the wide and deep runs of ``prove``). An earlier run's
    files of the same queries that this run does not write (the trace of a design
    no longer caught, SMT-LIB2 files when not asked for) are removed, nothing else.
    Returns the paths written in that order. Raises ``ValueError`` when two queries share an id or
    when ``smt2`` is asked for but a query was solved without its text
    (``run_proofs(smt2=True)``, ``bmc_designs(smt2=True)``), ``OSError`` when the
    folder cannot be written.
    """
    _unique([r.query for r in proofs] + [b.query for b in bmc])
    solved = [(r.query, r.smt2) for r in proofs if r.result is not None]
    problems = _smt2_texts(solved + [(b.query, b.smt2) for b in bmc]) if smt2 else []
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [_write(out_dir / RESULTS, _json(system_results(profile, proofs, bmc, agreement=agreement)))]
    for design in bmc:
        if design.trace is not None:
            (out_dir / TRACES_FOLDER).mkdir(exist_ok=True)
            written.append(_write(out_dir / TRACES_FOLDER / f"design-{design.design}.json", design.trace.dumps()))
    _remove(out_dir / TRACES_FOLDER, [f"design-{b.design}.json" for b in bmc if b.trace is None])
    written.append(_write(out_dir / REPORT, system_report(profile, proofs, bmc, replays, RESULTS, agreement)))
    if not smt2:
        _remove(out_dir / SMT2_FOLDER, [f"{r.query}.smt2" for r in proofs] + [f"{b.query}.smt2" for b in bmc])
    return written + _write_smt2(out_dir, problems)


def _unique(ids: list[str]) -> None:
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate query ids: {', '.join(duplicates)}")


def _smt2_texts(problems: list[tuple[str, str | None]]) -> list[tuple[str, str]]:
    missing = [query for query, text in problems if text is None]
    if missing:
        raise ValueError(f"no SMT-LIB2 text kept for {len(missing)} queries (first {missing[0]}); "
                         "solve them with smt2=True")
    return problems  # type: ignore[return-value]


def _write_smt2(out_dir: Path, problems: list[tuple[str, str]]) -> list[Path]:
    if not problems:
        return []
    (out_dir / SMT2_FOLDER).mkdir(exist_ok=True)
    return [_write(out_dir / SMT2_FOLDER / f"{query}.smt2", text) for query, text in problems]


def _remove(folder: Path, names: list[str]) -> None:
    """Remove ``folder/<name>`` for each name, then ``folder`` if that left it empty."""
    if not folder.is_dir():
        return
    for name in names:
        (folder / name).unlink(missing_ok=True)
    if not any(folder.iterdir()):
        folder.rmdir()


def _value(member) -> str | None:
    return None if member is None else member.value


def _json(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path
