"""Proof artifacts of the transition system: SMT-LIB2 problems, JSON certificates, a report.

``write_prove_artifacts`` writes, for one profile, into one folder:

- ``<query>.smt2``: the exact problem of every query (seed, resource limit and,
  for proofs, the tracked conjunct names as ``check-sat-assuming``);
- ``<query>.json``: its certificate (``proof_certificate``, ``bmc_certificate``);
- ``traces/design-<n>.json``: the counterexample trace of each faulty design
  (``spec.trace`` format, source ``z3``);
- ``REPORT.md``: every obligation and its result, the facts each guarantee rests
  on, the strengthening, the bounded runs and their replays.

The bytes depend only on the spec, the encoding, the Z3 version, the seed and
the limit: no times, no paths, keys sorted.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from mcp_resume.spec.catalog import level
from mcp_resume.spec.profiles import Level, Profile

from mcp_resume.proofs.spec_hash import spec_hash
from mcp_resume.proofs.system.bmc import BmcResult
from mcp_resume.proofs.system.invariants import INDUCTIVE, STEP_PROPERTIES, STRENGTHENING_INVARIANTS
from mcp_resume.proofs.system.proofs import ALONE, CONSECUTION, ENABLED, INITIATION, ProofResult
from mcp_resume.proofs.system.vocabulary import ActionKind

REPORT_NAME = "REPORT.md"

ENCODING_MODULES = (
    "decision/domain.py", "decision/encoding.py", "system/logic.py", "system/vocabulary.py", "system/decision.py",
    "system/transitions.py", "system/invariants.py", "system/designs.py", "system/proofs.py", "system/bmc.py",
    "system/solve.py",
)
"""The modules whose text decides what the queries are."""


@dataclass(frozen=True)
class Replay:
    """How a design's Z3 trace fared when replayed (done outside ``proofs``):
    ``on_design`` it raised a counterexample (and ``rule`` is the rule it reported),
    ``on_spec`` / ``on_reference`` it passed on the correct servers."""

    on_design: bool
    on_spec: bool
    on_reference: bool
    rule: str | None = None
    step: int | None = None

    @property
    def confirmed(self) -> bool:
        return self.on_design and self.on_spec and self.on_reference


def encoding_hash() -> str:
    """The sha256 (hex) of the encoding's modules, in ``ENCODING_MODULES`` order."""
    digest = hashlib.sha256()
    package = resources.files("mcp_resume.proofs")
    for name in ENCODING_MODULES:
        digest.update(name.encode() + b"\0" + package.joinpath(*name.split("/")).read_bytes() + b"\0")
    return digest.hexdigest()


def required(result: ProofResult) -> bool:
    """Whether the profile requires the obligation: every state and strengthening
    invariant, every ``enabled`` witness, and each step property whose rule is a MUST."""
    if result.kind == ALONE:
        return False
    if result.rule is None or result.invariant not in {p.id for p in STEP_PROPERTIES}:
        return True
    return level(result.rule, Profile.parse(result.profile)) is Level.MUST


def proof_certificate(result: ProofResult, digests: dict[str, str]) -> dict:
    """``{query, kind, invariant, rule, action, profile, description, expected, result,
    holds, required, unsat_core, counterexample, reason_unknown, fragment, smt2,
    z3_version, rlimit, rlimit_used, random_seed, spec_hash, encoding_hash}``."""
    return {
        "query": result.query, "kind": result.kind, "invariant": result.invariant, "rule": result.rule,
        "action": result.action, "profile": result.profile, "description": result.description,
        "expected": result.expected, "result": result.result, "holds": result.holds,
        "required": required(result), "unsat_core": list(result.core),
        "counterexample": result.counterexample, "reason_unknown": result.reason_unknown,
        "fragment": result.fragment, "smt2": f"{result.query}.smt2", "z3_version": result.z3_version,
        "rlimit": result.rlimit, "rlimit_used": result.rlimit_used, "random_seed": result.random_seed,
        **digests,
    }


def bmc_certificate(result: BmcResult, digests: dict[str, str]) -> dict:
    """The certificate of one design's bounded search: ``result`` is ``sat`` when a run
    shows the fault (``depth``: the shortest), ``unsat`` when none of at most
    ``max_depth`` steps does, ``unknown`` when the resource limit cut the search;
    ``depths`` lists each check of the script."""
    last = result.depths[-1] if result.depths else None
    return {
        "query": result.query, "kind": "bmc", "design": result.design, "summary": result.summary,
        "profile": result.profile.value, "result": last.result if last else "unknown", "caught": result.caught,
        "depth": result.depth, "max_depth": result.max_depth, "rule": result.rule,
        "trace": f"traces/design-{result.design}.json" if result.trace else None,
        "depths": [{"depth": q.depth, "result": q.result, "rlimit_used": q.rlimit_used, "reason_unknown": q.reason_unknown}
                   for q in result.depths],
        "scope": result.scope, "fragment": result.fragment, "smt2": f"{result.query}.smt2",
        "z3_version": result.z3_version, "rlimit": result.rlimit, "rlimit_used": result.rlimit_used,
        "random_seed": result.random_seed, **digests,
    }


def write_prove_artifacts(profile: Profile, proofs: list[ProofResult], bmc: list[BmcResult],
                          replays: dict[int, Replay], out_dir: Path) -> list[Path]:
    """Write every artifact of one profile into ``out_dir`` (created if needed).

    Returns the paths written: per query its ``.smt2`` then its ``.json``, then the
    traces, then ``REPORT.md``. Raises ``ValueError`` when two queries share an id,
    ``OSError`` when the folder cannot be written.
    """
    ids = [r.query for r in proofs] + [b.query for b in bmc]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate query ids: {', '.join(duplicates)}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    digests = {"spec_hash": spec_hash(), "encoding_hash": encoding_hash()}
    written = []
    for result in proofs:
        written.append(_write(out_dir / f"{result.query}.smt2", result.smt2))
        written.append(_write(out_dir / f"{result.query}.json", _json(proof_certificate(result, digests))))
    for design in bmc:
        written.append(_write(out_dir / f"{design.query}.smt2", design.smt2))
        written.append(_write(out_dir / f"{design.query}.json", _json(bmc_certificate(design, digests))))
    for design in bmc:
        if design.trace is not None:
            (out_dir / "traces").mkdir(exist_ok=True)
            written.append(_write(out_dir / "traces" / f"design-{design.design}.json", design.trace.dumps()))
    written.append(_write(out_dir / REPORT_NAME, report(profile, proofs, bmc, replays, digests)))
    return written


# -- the report ---------------------------------------------------------------------------


def report(profile: Profile, proofs: list[ProofResult], bmc: list[BmcResult], replays: dict[int, Replay],
           digests: dict[str, str]) -> str:
    """``REPORT.md``: summary, the obligation matrix, what each guarantee rests on, the
    strengthening, non-vacuity, the bounded runs of the faulty designs."""
    first = proofs[0] if proofs else None
    failing = [r for r in proofs if r.holds is False and required(r)]
    waived = [r for r in proofs if r.holds is False and not required(r)]
    lines = [
        f"# Transition-system proofs ({profile.value})",
        "",
        "Z3 proves the invariants of the rule catalog (spec/catalog.py) for the state machine of `spec.transitions`, for any",
        "number of sessions, streams, events and server requests (unbounded: uninterpreted sorts,",
        "many-sorted EPR), and finds a shortest run for every faulty design of model/servers/faulty.py by bounded",
        "model checking. Regenerate with `mcp-resume prove --out proofs/certificates`.",
        "",
        f"- obligations required by `{profile.value}` that hold: "
        f"{sum(1 for r in proofs if r.holds and required(r))} of {sum(1 for r in proofs if required(r))}",
        f"- faulty designs caught: {sum(1 for b in bmc if b.caught)} of {len(bmc)}; traces confirmed by replay: "
        f"{sum(1 for b in bmc if b.design in replays and replays[b.design].confirmed)}",
        f"- spec sha256 `{digests['spec_hash']}`; encoding sha256 `{digests['encoding_hash']}`",
    ]
    if first is not None:
        lines.append(f"- Z3 {first.z3_version}, random seed {first.random_seed}, rlimit {first.rlimit} resource units per query")
    if failing:
        lines += ["", "**Required obligations that do not hold:** " + ", ".join(f"`{r.query}`" for r in failing)]
    lines += _matrix(proofs)
    lines += _fragments(proofs, bmc)
    lines += _rests_on(proofs)
    lines += _strengthening(proofs)
    lines += _enabled(proofs)
    if waived:
        lines += _waived(profile, waived)
    lines += _bmc(profile, bmc, replays)
    lines += _statements()
    return "\n".join(lines) + "\n"


def _matrix(proofs: list[ProofResult]) -> list[str]:
    by_query = {r.query: r for r in proofs}
    kinds = list(ActionKind)
    lines = [
        "", "## Initiation and consecution, per action", "",
        "`yes`: unsat as expected (the invariant holds); `NO`: a counterexample to induction (below); "
        "`no (not required)`: the profile does not make the rule a MUST.", "",
        "Actions: " + ", ".join(f"{i + 1} `{k.value}`" for i, k in enumerate(kinds)), "",
        "| invariant | rule | kind | initiation | " + " | ".join(str(i + 1) for i in range(len(kinds))) + " |",
        "|---|---|---|---|" + "---|" * len(kinds),
    ]
    for invariant in INDUCTIVE + STEP_PROPERTIES:
        init = by_query.get(f"{INITIATION}.{invariant.id}")
        cells = [_mark(by_query.get(f"{CONSECUTION}.{invariant.id}.{k.value}")) for k in kinds]
        lines.append(f"| `{invariant.id}` | {invariant.rule or '(strengthening)'} | {invariant.kind} | {_mark(init)} | " + " | ".join(cells) + " |")
    return lines


def _mark(result: ProofResult | None) -> str:
    if result is None:
        return "-"
    if result.holds:
        return "yes"
    return "no (not required)" if not required(result) else "**NO**"


def _fragments(proofs: list[ProofResult], bmc: list[BmcResult]) -> list[str]:
    counts: dict[str, int] = {}
    for r in proofs:
        counts[r.fragment] = counts.get(r.fragment, 0) + 1
    for b in bmc:
        counts[b.fragment] = counts.get(b.fragment, 0) + 1
    lines = ["", "## Decidable fragment of each query", "", "| fragment | queries |", "|---|---|"]
    lines += [f"| {name} | {n} |" for name, n in sorted(counts.items())]
    lines += ["", "Per query in its certificate (`fragment`). The proof queries use only functions "
              "RequestId -> EventId -> StreamId -> SessionId (and RequestId -> SessionId, StreamId) and "
              "quantifier alternations that follow those edges, so Skolemization closes no cycle; bounded "
              "model checking expands every quantifier over its finite scope."]
    return lines


def _rests_on(proofs: list[ProofResult]) -> list[str]:
    lines = ["", "## What each guarantee rests on (unsat cores)", "",
             "The union, over the actions, of the named facts the consecution proofs used (`goal`, the "
             "negated invariant, omitted). `inv.*` are invariants assumed before the step, `tr.<action>.*` "
             "conjuncts of the transition formulas, `def.*` definitions of the step's header classes and "
             "statuses, `axiom.*` facts about event order.", "",
             "| invariant | invariants used | axioms used | transition conjuncts used (by action) |", "|---|---|---|---|"]
    for invariant in INDUCTIVE + STEP_PROPERTIES:
        used = [r for r in proofs if r.kind == CONSECUTION and r.invariant == invariant.id and r.holds]
        names = sorted({n for r in used for n in r.core if n != "goal"})
        invariants = [n[4:] for n in names if n.startswith("inv.")]
        axioms = [n[6:] for n in names if n.startswith("axiom.")]
        by_action = []
        for r in used:
            parts = [n for n in r.core if n.startswith(("tr.", "def."))]
            if parts:
                by_action.append(f"{r.action}: " + ", ".join(_short(n, r.action) for n in parts))
        lines.append(f"| `{invariant.id}` | {', '.join(invariants) or '-'} | {', '.join(axioms) or '-'} | "
                     + ("; ".join(by_action) or "-") + " |")
    return lines


def _short(name: str, action: str | None) -> str:
    prefix = f"tr.{action}."
    return name[len(prefix):] if action and name.startswith(prefix) else name


def _strengthening(proofs: list[ProofResult]) -> list[str]:
    lines = ["", "## Inductive alone? The strengthening", "",
             "Each state invariant assuming only itself, against every action at once. When it is not "
             "inductive alone, the counterexample to induction shows why; the strengthening written down for it "
             "(`ts_invariants`, `needs`) is what its consecution proofs assume besides itself.", ""]
    for invariant in INDUCTIVE:
        alone = next((r for r in proofs if r.kind == ALONE and r.invariant == invariant.id), None)
        if alone is None:
            continue
        declared = ", ".join(f"`{n}`" for n in invariant.needs) or "nothing"
        if alone.result == "unsat":
            lines.append(f"- `{invariant.id}`: inductive alone (its consecution proofs assume {declared} besides).")
            continue
        lines += [f"- `{invariant.id}`: **not** inductive alone ({alone.result}); its strengthening: {declared}.",
                  "", "```text", alone.counterexample or alone.reason_unknown or "", "```", ""]
    lines += ["", "Strengthening invariants (proven like the others):", ""]
    lines += [f"- `{i.id}`: {i.statement}" for i in STRENGTHENING_INVARIANTS]
    return lines


def _enabled(proofs: list[ProofResult]) -> list[str]:
    lines = ["", "## Non-vacuity", "",
             "Every action can happen from some state satisfying the inductive invariant (sat), and both "
             "resumptions can succeed and deliver something, so no consecution proof above holds vacuously.", "",
             "| query | result | holds |", "|---|---|---|"]
    lines += [f"| `{r.query}` | {r.result} | {'yes' if r.holds else '**NO**'} |" for r in proofs if r.kind == ENABLED]
    return lines


def _waived(profile: Profile, waived: list[ProofResult]) -> list[str]:
    lines = ["", f"## Where {profile.value} differs from boundary", "",
             f"These step properties do not hold for the transition system of `{profile.value}`, whose level "
             "for the rule is not MUST; each counterexample is a step this profile allows.", ""]
    for r in waived:
        lines += [f"### `{r.query}` ({r.rule}: {level(r.rule, profile).value} under {profile.value})", "", "```text",
                  r.counterexample or r.reason_unknown or "", "```", ""]
    return lines


def _bmc(profile: Profile, bmc: list[BmcResult], replays: dict[int, Replay]) -> list[str]:
    lines = ["", "## Faulty designs: shortest violating runs (bounded model checking)", "",
             "One query per design: a script that checks depths 1, 2, ... in order on one incremental "
             "solver; every depth below the one reported has no violating run (unsat, within the scope). Each trace is replayed against the design's in-process server (it "
             "must raise a counterexample), the spec and the reference server (both must pass).", "",
             "| design | caught | depth | rule (Z3) | rule (replay) | replay on design | on spec | on reference | "
             "rlimit used (all depths) | scope |", "|---|---|---|---|---|---|---|---|---|---|"]
    for b in bmc:
        replay = replays.get(b.design)
        yes = lambda flag: "-" if replay is None else ("yes" if flag else "**NO**")
        used = b.rlimit_used
        scope = ", ".join(f"{v} {k}" for k, v in b.scope.items())
        lines.append(
            f"| {b.design} | {'yes' if b.caught else 'no'} | {b.depth or '-'} | {b.rule or '-'} | "
            f"{replay.rule if replay and replay.rule else '-'} | {yes(replay and replay.on_design)} | "
            f"{yes(replay and replay.on_spec)} | {yes(replay and replay.on_reference)} | {used} | {scope} |")
    for b in bmc:
        if b.trace is None:
            continue
        lines += ["", f"### Design {b.design}", "", "```text", b.trace.describe(), "```", "", "<details><summary>the run, "
                  "step by step (what the faulty server showed)</summary>", "", "```text", b.run or "", "```", "", "</details>"]
    return lines


RULE_NOTES: dict[str, str] = {
    "replay-suffix": "step property; delivery is a set in the encoding, read in event order (`lt`), so a reorder "
                     "is not expressible and not claimed here (the Hypothesis checks compare sequences)",
    "no-cross-session": "state invariant on the client's cursors and step property on every delivery",
    "no-replay-on-session-resume": "step property",
    "no-reemit-on-stream-resume": "step property",
    "reemit-pending": "step property (boundary only: the MCP revisions let a session resumption re-emit nothing)",
    "reemit-keeps-pending": "step property: a re-emitted request is re-emitted again while pending, a session "
                            "resumption resolves nothing, and only an answer or a cancellation ends a pending request",
    "reject-orphan-event-id": "step property: 400, nothing delivered, state unchanged",
    "reject-foreign-event-id": "step property: a non-404 4xx, nothing delivered, state unchanged (boundary only)",
    "unknown-session-404": "step property: 404, nothing delivered, state unchanged",
    "session-identity-stable": "step property; its state half (one session per id) holds by construction, a "
                               "session being one element of `SessionId`",
    "expiry-independent": "state invariant (an ended session's streams are expired) and step property (expiring a "
                          "stream ends no session, closes no other connection)",
    "event-id-unique": "state invariant (every event id resolves to one stream and one session) and step property "
                       "(every delivered id resolves); uniqueness itself holds by construction, an event being one "
                       "element of `EventId` with one `stream_of`",
    "server-request-ownership": "three state invariants (first stream, carrying events, the client's holdings) and "
                                "a step property on every delivery",
    "no-duplicate-tool-call": "end to end, stated as what the state machine can say: a request naming a live session "
                              "is never answered 404 (the only answer after which a client following B34 re-runs "
                              "its tools/call in a new session)",
}
"""How each rule of DESIGN.md §4 is stated in the encoding."""


def _statements() -> list[str]:
    lines = ["", "## How each rule of the catalog is stated", "", "| rule | stated as |", "|---|---|"]
    lines += [f"| {rule} | {note} |" for rule, note in RULE_NOTES.items()]
    lines += ["", "Modelling notes: the unbounded encoding lets a session resumption's new stream carry, besides "
              "one fresh event per pending server request, events that carry no request (padding, like the "
              "priming events of D8); saying \"no other event\" would need a function from events back to "
              "requests and leave EPR. Bounded model checking adds that constraint. Agreement of the encoding "
              "with `spec.transitions` is checked by `tests/test_ts_agreement.py` on every step of a bounded "
              "exploration.",
              "", "## The invariants", "", "| id | rule | kind | statement |", "|---|---|---|---|"]
    lines += [f"| `{i.id}` | {i.rule or '-'} | {i.kind} | {i.statement} |" for i in INDUCTIVE + STEP_PROPERTIES]
    return lines


def _json(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path
