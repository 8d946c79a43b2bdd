"""``mcp-resume prove``: the transition system proven by Z3, with its artifacts.

For each profile asked for (default ``boundary``):

1. every proof obligation of ``proofs.system.proofs`` (initiation and consecution
   of every invariant per action, inductiveness alone, every action enabled),
   an obligation the action cannot touch reported as not applicable, and one
   vacuity query per applicable consecution;
1b. the agreement of the encoding with ``spec.transitions`` both ways
   (``proofs.system.agreement.agreement_both_ways``, within ``PROVE_BOUNDS``);
2. bounded model checking of every faulty design (``proofs.ts_bmc``), each
   shortest trace replayed here against the design's in-process server (must
   raise a counterexample), the spec and the reference server (must pass);
3. ``<out>/<profile>/``: ``results.json`` (every query, its result, core and
   fragment), the traces ``traces/design-<n>.json``, ``REPORT.md`` and, with
   ``--smt2``, one ``smt2/<query>.smt2`` per query (``proofs.artifacts``).

Exit code 0 when every obligation the profile requires holds, none is vacuous,
the encoding agrees with the spec both ways, every design is caught under
``boundary`` and every trace replays as it must; 1 otherwise (an unknown answer,
Z3's resource limit, is never a proof);
2 for a profile whose state machine is not modelled.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rich.console import Console

from mcp_resume.model.harness.checker import Counterexample, replay
from mcp_resume.model.servers.faulty import DESIGNS as SERVERS
from mcp_resume.model.servers.inprocess import SpecAdapter
from mcp_resume.model.servers.reference import ReferenceServer
from mcp_resume.proofs.artifacts import write_prove_artifacts
from mcp_resume.proofs.solving import DEFAULT_RLIMIT, DEFAULT_SEED, SatResult, Verdict
from mcp_resume.proofs.system.bmc import DEFAULT_MAX_DEPTH, BmcResult, Replay, bmc_designs
from mcp_resume.proofs.system.agreement import AgreementFigures, agreement_both_ways
from mcp_resume.proofs.system.proofs import VACUITY, ProofResult, required, run_proofs, tally
from mcp_resume.outputs import output_paths_problem
from mcp_resume.spec.profiles import SESSION_ERA, Profile
from mcp_resume.spec.trace import Trace, loads

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


@dataclass
class ProfileOutcome:
    """Everything one profile's run found, and the folder it was written to."""

    profile: Profile
    folder: Path
    proofs: list[ProofResult]
    bmc: list[BmcResult]
    replays: dict[int, Replay]
    seconds: float
    agreement: AgreementFigures | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return not self.problems

    def summary(self) -> dict:
        held = [r for r in self.proofs if required(r) and r.kind != VACUITY]
        return {
            "profile": self.profile.value,
            "folder": str(self.folder),
            "holds": self.holds,
            "obligations_required": len(held),
            "obligations_holding": sum(1 for r in held if r.holds),
            "tally": asdict(tally(self.proofs)),
            "agreement": self.agreement.to_json() if self.agreement else None,
            "designs_caught": sorted(b.design for b in self.bmc if b.caught),
            "designs": {str(b.design): {"caught": b.caught, "depth": b.depth, "rule": b.rule,
                                        "replay_confirmed": b.design in self.replays and self.replays[b.design].confirmed}
                        for b in self.bmc},
            "problems": self.problems,
        }


def prove_profile(profile: Profile, out: Path, rlimit: int = DEFAULT_RLIMIT, random_seed: int = DEFAULT_SEED,
                  max_depth: int = DEFAULT_MAX_DEPTH, progress=None, smt2: bool = False) -> ProfileOutcome:
    """Prove, search, replay and write the artifacts of ``profile`` into ``out/<profile>``
    (``smt2``: also one SMT-LIB2 file per query).

    Raises ``ValueError`` for a sessionless profile or a bad limit, ``OSError`` when
    ``out`` cannot be written.
    """
    started = time.perf_counter()
    proofs = run_proofs(profile, rlimit, random_seed, progress, smt2=smt2)
    if progress:
        progress("agreement both ways")
    agreement = agreement_both_ways(profile=profile)
    bmc = bmc_designs(profile, max_depth, rlimit, random_seed, progress=progress, smt2=smt2)
    replays = {b.design: replay_trace(b.trace, b.design) for b in bmc if b.trace is not None}
    folder = Path(out) / profile.value
    write_prove_artifacts(profile, proofs, bmc, replays, folder, smt2=smt2, agreement=agreement.to_json())
    outcome = ProfileOutcome(profile, folder, proofs, bmc, replays, time.perf_counter() - started, agreement)
    outcome.problems = _problems(outcome)
    return outcome


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


def _proof_problems(outcome: ProfileOutcome) -> list[str]:
    problems = []
    for r in outcome.proofs:
        if not required(r) or r.holds:
            continue
        if r.kind == VACUITY and r.result is SatResult.UNSAT:
            problems.append(f"{r.of} is vacuous: no step from a state the invariants allow meets its antecedent")
        else:
            problems.append(f"{r.query}: {r.result.value}, expected {r.expected.value}")
    agreement = outcome.agreement
    if agreement is not None:
        problems += [f"agreement (spec -> formulas): {p}" for p in agreement.forward.problems]
        problems += [f"agreement (formulas -> spec): {p}" for p in agreement.converse.problems]
    return problems


def _design_problems(outcome: ProfileOutcome) -> list[str]:
    problems = []
    for b in outcome.bmc:
        if not b.caught and outcome.profile is Profile.BOUNDARY:
            problems.append(f"design {b.design} was not caught within {b.max_depth} steps")
        replayed = outcome.replays.get(b.design)
        if replayed is not None and not replayed.confirmed:
            problems.append(f"design {b.design}: the Z3 trace did not replay as it must "
                            f"(fails on design: {replayed.on_design}, passes on spec: {replayed.on_spec}, "
                            f"passes on reference: {replayed.on_reference})")
    return problems


def prove_stage(folder: Path) -> list[tuple[str, bool, str]]:
    """The ``boundary`` run as ``(item, holds, detail)`` lines for ``mcp-resume check``."""
    outcome = prove_profile(Profile.BOUNDARY, folder)
    summary = outcome.summary()
    detail = (f"{tally(outcome.proofs).describe()} (initiation and consecution per action, any number of "
              f"entities); {outcome.agreement.describe()}")
    caught = f"{len(summary['designs_caught'])} of {len(outcome.bmc)} designs refuted by a shortest run, replays confirmed"
    design_problems = _design_problems(outcome)
    if design_problems:
        caught += "; " + "; ".join(design_problems)
    return [("transition-system invariants", not _proof_problems(outcome), detail),
            ("faulty designs (bounded model checking)", not design_problems, caught)]


def run_prove(args) -> int:
    """The command: prove each ``--profile``; print a summary; 0 when all holds, else 1."""
    profiles = [Profile.parse(name) for name in (args.profile or [Profile.BOUNDARY.value])]
    unmodelled = [p.value for p in profiles if p not in SESSION_ERA]
    if unmodelled:
        print(f"error: the state machine is not modelled for {', '.join(unmodelled)} (only its decision is); "
              f"choose one of {', '.join(p.value for p in Profile if p in SESSION_ERA)}", file=sys.stderr)
        return EXIT_USAGE
    problem = output_paths_problem(folders=[Path(args.out)], files=[args.json])
    if problem:
        print(f"mcp-resume prove: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    console = Console(stderr=True)
    outcomes = []
    for profile in profiles:
        with console.status(f"proving {profile.value}", spinner="dots") as status:
            show = None if args.quiet else (lambda item, status=status, p=profile: status.update(f"{p.value}: {item}"))
            outcomes.append(prove_profile(profile, Path(args.out), args.rlimit, args.seed, args.max_depth, show,
                                          smt2=args.smt2))
    for outcome in outcomes:
        _print(outcome)
    if args.json:
        Path(args.json).write_text(json.dumps([o.summary() for o in outcomes], indent=2) + "\n")
    return EXIT_OK if all(o.holds for o in outcomes) else EXIT_FAILED


def _print(outcome: ProfileOutcome) -> None:
    summary = outcome.summary()
    print(f"{outcome.profile.value}: {summary['obligations_holding']} of {summary['obligations_required']} "
          f"required obligations hold; {len(summary['designs_caught'])} of {len(outcome.bmc)} faulty designs "
          f"refuted; {outcome.seconds:.1f} s; artifacts in {outcome.folder}/")
    print(f"  obligations: {tally(outcome.proofs).describe()}")
    if outcome.agreement is not None:
        print(f"  {outcome.agreement.describe()}")
    for b in outcome.bmc:
        replayed = outcome.replays.get(b.design)
        state = (f"caught at depth {b.depth} ({b.rule}), replay {'confirmed' if replayed and replayed.confirmed else 'NOT CONFIRMED'}"
                 if b.caught else f"not caught within {b.max_depth} steps")
        print(f"  design {b.design:2}: {state}")
    for problem in outcome.problems:
        print(f"  FAILS: {problem}")
    for result in outcome.proofs:
        if required(result) and result.holds is False and result.counterexample:
            print("\n".join("    " + line for line in result.counterexample.splitlines()))


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


def write_docs(out_dir: Path, dot_program: str | None = None) -> list[Path]:
    """Write ``README.md`` into ``out_dir``: the ``boundary`` proofs, solved now (no diagram, so no ``dot``).

    One row per catalog rule with the obligations that state it, how many are
    proven (applicable, not vacuous) and how many are not applicable, then the faulty designs bounded model checking refutes, with the depth
    of each shortest run. Deterministic (fixed seed and rlimit). Takes about as
    long as ``mcp-resume prove`` without writing its artifacts.
    """
    proofs = run_proofs(Profile.BOUNDARY)
    bmc = bmc_designs(Profile.BOUNDARY)
    lines = [
        "# Proof report: the invariants proved for every state with Z3",
        "",
        "Generated by `mcp-resume docs` from the transition-system encoding in `proofs/`; do not edit by hand.",
        f"Every obligation below was solved for the `boundary` profile for any number of sessions, streams,",
        "events and server requests (many-sorted EPR; see the full report with unsat cores, fragments and",
        f"counterexamples to induction in [{COMMITTED}/REPORT.md](../../{COMMITTED}/REPORT.md),",
        "written by `mcp-resume prove --out proofs/results`).",
        "",
        "| rule | obligations | proven | not applicable |",
        "|---|---|---|---|",
    ]
    by_rule: dict[str, list[ProofResult]] = {}
    for result in proofs:
        if result.rule is not None and required(result) and result.kind != VACUITY:
            by_rule.setdefault(result.rule, []).append(result)
    for rule, results in sorted(by_rule.items()):
        proven = sum(1 for r in results if r.proven)
        skipped = sum(1 for r in results if r.verdict is Verdict.NOT_APPLICABLE)
        lines.append(f"| [`{rule}`](../rules/{rule}.md) | {len(results)} | {proven} | {skipped} |")
    lines += ["", "## Faulty designs refuted by bounded model checking", "", "| design | caught | depth | rule |", "|---|---|---|---|"]
    for result in bmc:
        lines.append(f"| {result.design} | {'yes' if result.caught else 'no'} | {result.depth or '-'} | {result.rule or '-'} |")
    page = Path(out_dir) / "README.md"
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [page]
