"""The transition system proven by Z3, with its artifacts: the library of ``mcp-resume prove``,
shared with ``check`` (``prove_stage``), the documentation (``write_docs``) and the tests.

For each profile asked for (default ``boundary``):

1. every proof obligation of ``proofs.system.proofs`` (initiation and consecution
   of every invariant per action, inductiveness alone, every action enabled),
   an obligation the action cannot touch reported as not applicable, one
   vacuity query per applicable consecution, and each obligation answered unsat
   read again with its action's effect equations alone: *trivial* when they
   suffice (``proofs.system.triviality``), *proven* only when they do not;
1b. the agreement of the encoding with ``spec.transitions`` both ways
   (``proofs.system.agreement.prove_agreement``): wide, two sessions to depth 4
   (``PROVE_BOUNDS``), and deep, one session to depth 5 with two server requests
   (``PROVE_DEEP_BOUNDS``), where a session resumption re-emits;
2. bounded model checking of every faulty design (``proofs.system.bmc``), each
   shortest trace replayed here against the design's in-process server (must
   raise a counterexample), the spec and the reference server (must pass);
3. ``<out>/<profile>/``: ``results.json`` (every query, its result, core and
   fragment), the traces ``traces/design-<n>.json``, ``REPORT.md`` and, with
   ``--smt2``, one ``smt2/<query>.smt2`` per query (``proofs.artifacts``).

The summary (printed, ``--json``, ``REPORT.md``) counts the required obligations
proven, trivial, not applicable, vacuous, refuted and unknown apart; only the
proven ones count as proofs (``exit_code``: 0, 1, or 3 for an unknown query).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mcp_resume.model.harness.checker import Counterexample, replay
from mcp_resume.model.servers.faulty import DESIGNS as SERVERS
from mcp_resume.model.servers.inprocess import SpecAdapter
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.proofs.artifacts import write_prove_artifacts
from mcp_resume.proofs.solving import DEFAULT_RLIMIT, DEFAULT_SEED, SatResult, ProofStatus
from mcp_resume.proofs.system.bmc import DEFAULT_MAX_DEPTH, DESIGNS as BMC_DESIGNS, BmcResult, Replay, bmc_designs
from mcp_resume.proofs.system.faulty_systems import LEFT_OUT
from mcp_resume.proofs.system.agreement import ProveAgreement, prove_agreement
from mcp_resume.proofs.system.invariants import NOT_ENCODED
from mcp_resume.proofs.system.proofs import (
    INDUCTION, INITIATION, INVARIANT_FREE, VACUITY, ProofResult, obligations, required, run_proofs, tally,
)
from mcp_resume.outputs import StageProgress, staged_folder
from mcp_resume.spec.catalog import RULES
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.trace import Trace, loads

from mcp_resume.jobs.exits import EXIT_FAILED, EXIT_OK, EXIT_UNCHECKED as EXIT_UNKNOWN


@dataclass
class ProfileOutcome:
    """Everything one profile's run found, and the folder it was written to."""

    profile: Profile
    folder: Path
    proofs: list[ProofResult]
    bmc: list[BmcResult]
    replays: dict[int, Replay]
    seconds: float
    agreement: ProveAgreement | None = None
    problems: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    rlimit: int = DEFAULT_RLIMIT

    @property
    def holds(self) -> bool:
        return not self.problems and not self.unknown

    def summary(self) -> dict:
        """The run as a JSON-ready dict: ``obligations_<class>`` counts the required obligations
        of each class of ``proofs.system.proofs.Tally`` (only ``obligations_proven`` are proofs)."""
        counted = tally(self.proofs)
        return {
            "profile": self.profile.value,
            "folder": str(self.folder),
            "holds": self.holds,
            "obligations_required": counted.required,
            "obligations_proven": counted.proven,
            "obligations_invariant_free": counted.invariant_free,
            "obligations_initiations": counted.initiations,
            "obligations_witnesses": counted.witnesses,
            "obligations_trivial": counted.trivial,
            "obligations_not_applicable": counted.not_applicable,
            "obligations_vacuous": counted.vacuous,
            "obligations_refuted": counted.refuted,
            "obligations_unknown": counted.unknown,
            "tally": asdict(counted),
            "agreement": self.agreement.to_json() if self.agreement else None,
            "designs_caught": sorted(b.design for b in self.bmc if b.caught),
            "designs": {str(b.design): {"caught": b.caught, "depth": b.depth, "rule": b.rule,
                                        "replay_confirmed": b.design in self.replays and self.replays[b.design].confirmed}
                        for b in self.bmc},
            "problems": self.problems,
            "unknown": self.unknown,
        }


def prove_profile(profile: Profile, out: Path, rlimit: int = DEFAULT_RLIMIT, random_seed: int = DEFAULT_SEED,
                  max_depth: int = DEFAULT_MAX_DEPTH, progress: StageProgress | None = None,
                  smt2: bool = False, quick: bool = False) -> ProfileOutcome:
    """Prove, search, replay and write the artifacts of ``profile`` into ``out/<profile>``
    (``smt2``: also one SMT-LIB2 file per query). ``progress`` is told each of the four
    stages (obligations, agreement, bounded model checking, replays) and each query.
    ``quick`` (``check``'s gate of seconds) leaves out the deep agreement run and the last
    two stages, the outcome's ``bmc`` then empty: ``check`` finds each design's shortest
    run with the explorer instead.

    Raises ``ValueError`` for a sessionless profile or a bad limit, ``OSError`` when
    ``out`` cannot be written, ``KeyboardInterrupt`` when interrupted (before writing).
    """
    started = time.perf_counter()
    progress = progress or StageProgress("prove", quiet=True)
    name = profile.value
    progress.stage(f"{name}: stage 1 of 4: proof obligations", total=len(obligations()))
    proofs = run_proofs(profile, rlimit, random_seed, progress.advance, smt2=smt2)
    progress.stage(f"{name}: stage 2 of 4: agreement of the formulas with the spec, both ways")
    agreement = prove_agreement(profile, deep=not quick)
    bmc, replays = ([], {}) if quick else _refute_designs(profile, max_depth, rlimit, random_seed, progress, smt2)
    folder = Path(out) / profile.value
    write_prove_artifacts(profile, proofs, bmc, replays, folder, smt2=smt2, agreement=agreement.to_json())
    outcome = ProfileOutcome(profile, folder, proofs, bmc, replays, time.perf_counter() - started, agreement,
                             rlimit=rlimit)
    outcome.problems = _problems(outcome)
    outcome.unknown = _unknown(outcome)
    return outcome


def _refute_designs(profile: Profile, max_depth: int, rlimit: int, random_seed: int, progress: StageProgress,
                    smt2: bool) -> tuple[list[BmcResult], dict[int, Replay]]:
    """Stages 3 and 4 of ``prove_profile``: each faulty design's shortest run by bounded model
    checking, then each run found replayed (``replay_trace``), by design number."""
    name = profile.value
    progress.stage(f"{name}: stage 3 of 4: bounded model checking of the faulty designs", total=len(BMC_DESIGNS))
    bmc = bmc_designs(profile, max_depth, rlimit, random_seed, progress=progress.advance, smt2=smt2)
    traced = [b for b in bmc if b.trace is not None]
    progress.stage(f"{name}: stage 4 of 4: replaying the designs' shortest runs", total=len(traced))
    replays = {}
    for b in traced:
        replays[b.design] = replay_trace(b.trace, b.design)
        progress.advance(f"design {b.design}")
    return bmc, replays


def replay_trace(trace: Trace, design: int) -> Replay:
    """Replay a design's trace, through its JSON form, on the design, the spec and the reference."""
    reloaded = loads(trace.dumps())
    rule = step = None
    try:
        replay(reloaded, SERVERS[design]())
        on_design = False
    except Counterexample as found:
        on_design, rule, step = True, found.trace.failure.rule, found.trace.failure.step
    return Replay(on_design, _passes(reloaded, SpecAdapter(reloaded.profile)), _passes(reloaded, ReferenceServer()), rule, step)


def _passes(trace: Trace, server) -> bool:
    try:
        replay(trace, server)
    except Counterexample:
        return False
    return True


def _problems(outcome: ProfileOutcome) -> list[str]:
    return _proof_problems(outcome) + _design_problems(outcome)


def _unknown(outcome: ProfileOutcome) -> list[str]:
    """The queries Z3 answered unknown (required obligations, designs' searches): neither a proof nor a
    counterexample."""
    proofs = [r.query for r in outcome.proofs if required(r) and r.verdict is ProofStatus.UNKNOWN]
    return proofs + [b.query for b in outcome.bmc if b.verdict is ProofStatus.UNKNOWN]


def unknown_cause(outcome: ProfileOutcome) -> str:
    """The one line that says why queries are unknown and what to do."""
    return (f"{len(outcome.unknown)} queries unknown, neither proven nor refuted: Z3 ran out of resource units "
            f"(--rlimit {outcome.rlimit:,} per query); raise --rlimit (default {DEFAULT_RLIMIT:,})")


def _proof_problems(outcome: ProfileOutcome) -> list[str]:
    problems = []
    for r in outcome.proofs:
        if not required(r) or r.holds or r.verdict is ProofStatus.UNKNOWN:
            continue
        if r.kind == VACUITY and r.result is SatResult.UNSAT:
            problems.append(f"{r.of} is vacuous: no step from a state the invariants allow meets its antecedent")
        else:
            problems.append(f"{r.query}: {r.result.value}, expected {r.expected.value}")
    if outcome.agreement is not None:
        problems += outcome.agreement.problems()
    return problems


def _design_problems(outcome: ProfileOutcome) -> list[str]:
    problems = []
    for b in outcome.bmc:
        if not b.caught and b.verdict is not ProofStatus.UNKNOWN and outcome.profile is Profile.BOUNDARY:
            problems.append(f"design {b.design} was not caught within {b.max_depth} steps")
        replayed = outcome.replays.get(b.design)
        if replayed is not None and not replayed.confirmed:
            problems.append(f"design {b.design}: the Z3 trace did not replay as it must "
                            f"(fails on design: {replayed.on_design}, passes on spec: {replayed.on_spec}, "
                            f"passes on reference: {replayed.on_reference})")
    return problems


def prove_stage(folder: Path) -> list[tuple[str, bool, str]]:
    """The ``boundary`` proofs and their wide agreement with the spec, without the deep
    agreement run and the designs' bounded model checking (``prove_profile(quick=True)``:
    ``check`` explores each design instead; ``prove`` runs both, ``check --kill-matrix`` the
    model checking), as ``(item, holds, detail)`` lines for ``mcp-resume check``; an unknown
    query holds nothing."""
    outcome = prove_profile(Profile.BOUNDARY, folder, quick=True)
    detail = (f"{tally(outcome.proofs).describe()} (initiation and consecution per action, any number of "
              f"entities); {outcome.agreement.describe()}")
    if outcome.unknown:
        detail += "; " + unknown_cause(outcome)
    return [("transition-system invariants", not _proof_problems(outcome) and not outcome.unknown, detail)]


def prove_profiles(profiles: list[Profile], out: Path, rlimit: int = DEFAULT_RLIMIT, random_seed: int = DEFAULT_SEED,
                   max_depth: int = DEFAULT_MAX_DEPTH, smt2: bool = False, quiet: bool = False) -> list[ProfileOutcome]:
    """``prove_profile`` for each of ``profiles``, their artifacts written into a scratch folder inside
    ``out`` and moved into ``out/<profile>`` once every profile is done: an interrupt
    (``KeyboardInterrupt``, exit 130 in ``cli.main``) leaves ``out`` as it was."""
    outcomes = []
    with StageProgress("prove", quiet=quiet, unit="queries") as progress, staged_folder(out) as scratch:
        for profile in profiles:
            outcomes.append(prove_profile(profile, scratch, rlimit, random_seed, max_depth, progress, smt2=smt2))
    for outcome in outcomes:
        outcome.folder = out / outcome.profile.value
    return outcomes


def exit_code(outcomes: list[ProfileOutcome]) -> int:
    """1 when something is refuted or fails to replay, else 3 when some query is unknown, else 0."""
    if any(o.problems for o in outcomes):
        return EXIT_FAILED
    return EXIT_UNKNOWN if any(o.unknown for o in outcomes) else EXIT_OK


def headline(outcome: ProfileOutcome) -> str:
    """The first line ``prove`` prints for a profile: the required obligations by class
    (proven, trivial, not applicable, vacuous, refuted, unknown), the designs refuted, the
    time and the folder."""
    counted = tally(outcome.proofs)
    caught = sum(1 for b in outcome.bmc if b.caught)
    left_out = f", {len(LEFT_OUT)} left out (below)" if LEFT_OUT else ""
    return (f"{outcome.profile.value}: {counted.describe().split('; ')[0]}; {caught} of the {len(outcome.bmc)} "
            f"faulty designs searched refuted{left_out}; {outcome.seconds:.1f} s; artifacts in {outcome.folder}/")


def print_outcome(outcome: ProfileOutcome) -> None:
    """What ``prove`` prints for one profile: the headline, the designs, what is unknown or fails."""
    counted = tally(outcome.proofs)
    print(headline(outcome))
    print(f"  only those proven by induction count as proofs of the steps: an invariant-free step rests on the "
          f"encodings alone, a trivial obligation on its action's effect equations; {counted.witnessed} of "
          f"{counted.vacuity} vacuity queries witnessed")
    if outcome.agreement is not None:
        print(f"  {outcome.agreement.describe()}")
    for b in outcome.bmc:
        print(f"  design {b.design:2}: {_design_state(b, outcome.replays.get(b.design))}")
    for number, why in LEFT_OUT.items():
        print(f"  design {number:2}: not searched by Z3 ({why}; the other checkers catch it)")
    if outcome.unknown:
        print(f"  UNKNOWN: {unknown_cause(outcome)}")
    for problem in outcome.problems:
        print(f"  FAILS: {problem}")
    for result in outcome.proofs:
        if required(result) and result.holds is False and result.counterexample:
            print("\n".join("    " + line for line in result.counterexample.splitlines()))


def _design_state(b: BmcResult, replayed: Replay | None) -> str:
    if b.caught:
        return (f"caught at depth {b.depth} ({b.rule}), "
                f"replay {'confirmed' if replayed and replayed.confirmed else 'NOT CONFIRMED'}")
    if b.verdict is ProofStatus.UNKNOWN:
        return f"unknown at depth {len(b.depths)}"
    return f"not caught within {b.max_depth} steps"


# -- the documentation hook (``mcp-resume docs``, see ``docgen.hooks``) -------------------

COMMITTED = "proofs/results/boundary"
"""The committed results of the default profile, relative to the repository root."""


def covered_rules() -> dict[str, tuple[str, ...]]:
    """Catalog rule id -> the obligations of the ``boundary`` proof that state it
    (initiation and consecution of each invariant of that rule), without solving."""
    from mcp_resume.proofs.system.invariants import STEP
    from mcp_resume.proofs.system.proofs import INITIATION, obligations

    covered: dict[str, list[str]] = {}
    for obligation in obligations():
        rule = obligation.invariant.rule if obligation.invariant is not None else None
        step_initiation = obligation.kind == INITIATION and obligation.invariant.kind == STEP
        if rule is not None and obligation.kind != VACUITY and not step_initiation:
            covered.setdefault(rule, []).append(obligation.id)
    return {rule: tuple(sorted(ids)) for rule, ids in sorted(covered.items())}


def _rule_row(rule: str, proofs: list[ProofResult]) -> str:
    """One rule's row of the proof report: its required obligations by class, and why none of
    them is proven by induction when none is (``NOT_ENCODED`` for a rule with no invariant)."""
    results = [r for r in proofs if r.rule == rule and required(r) and r.kind != VACUITY]
    grounds = [r.grounds for r in results]
    counts = [grounds.count(INDUCTION), grounds.count(INVARIANT_FREE), grounds.count(INITIATION),
              sum(1 for r in results if r.trivial),
              sum(1 for r in results if r.verdict is ProofStatus.NOT_APPLICABLE)]
    why = "" if counts[0] else why_no_induction(rule, results)
    return f"| [`{rule}`](../rules/{rule}.md) | {len(results)} | " + " | ".join(map(str, counts)) + f" | {why} |"


def why_no_induction(rule: str, results: list[ProofResult]) -> str:
    """Why no obligation of ``rule`` among ``results`` (its required ones) is proven by induction."""
    if rule in NOT_ENCODED:
        return NOT_ENCODED[rule]
    if not results:
        return "the profile does not make it a MUST, so its obligations are not required"
    free = any(r.grounds == INVARIANT_FREE for r in results)
    trivial = any(r.trivial for r in results)
    if not (free or trivial):
        return "no applicable consecution"
    reasons = (["some follow from the step's encoding and the property's with no invariant, so Z3 shows only "
                "that two hand encodings agree"] if free else []) + \
              (["some from the action's effect equations alone (trivial)"] if trivial else [])
    return ("no consecution rests on an invariant: " + "; ".join(reasons)
            + " (the explorer and the Hypothesis machine check the rule against the spec's Python)")


def write_docs(out_dir: Path, dot_program: str | None = None) -> list[Path]:
    """Write ``README.md`` into ``out_dir``: the ``boundary`` proofs, solved now (no diagram, so no ``dot``).

    One row per catalog rule with the obligations that state it, how many are
    proven (applicable, resting on more than the action's effect equations, not
    vacuous), trivial and not applicable, then the faulty designs bounded model checking refutes, with the depth
    of each shortest run. Deterministic (fixed seed and rlimit). Takes about as
    long as ``mcp-resume prove`` without writing its artifacts.
    """
    proofs = run_proofs(Profile.BOUNDARY)
    bmc = bmc_designs(Profile.BOUNDARY)
    lines = [
        "# Proof report: the invariants proved for every state with Z3",
        "",
        "Generated by `mcp-resume docs` from the transition-system encoding in `proofs/`; do not edit by hand.",
        "Every obligation below was solved for the `boundary` profile for any number of sessions, streams,",
        "events and server requests (many-sorted EPR; see the full report with unsat cores, fragments and",
        f"counterexamples to induction in [{COMMITTED}/REPORT.md](../../{COMMITTED}/REPORT.md),",
        "written by `mcp-resume prove --out proofs/results`).",
        "",
        "A *trivial* obligation is unsat from its action's effect equations alone (no invariant, no axiom, no",
        "guard): it holds of every step, reachable or not, and is not counted as proven. A consecution proven",
        "*by induction* rests on an invariant assumed before the step (its unsat core names one); an",
        "*invariant-free* one is unsat from the step's encoding and the property's encoding alone, two hand",
        "encodings agreeing, which shows no more than that they say the same.",
        "",
        "| rule | obligations | by induction | invariant-free | initiations | trivial | not applicable | "
        "no proof by induction, because |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [_rule_row(rule.id, proofs) for rule in RULES]
    lines += ["", "## Faulty designs refuted by bounded model checking", "", "| design | caught | depth | rule |", "|---|---|---|---|"]
    for result in bmc:
        lines.append(f"| {result.design} | {'yes' if result.caught else 'no'} | {result.depth or '-'} | {result.rule or '-'} |")
    page = Path(out_dir) / "README.md"
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [page]
