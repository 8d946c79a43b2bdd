"""Time the transition-system proofs: ``python benchmarks/bench_prove.py [--profile P] [--all]``.

Prints the wall time of building the encoding, of every proof query (initiation,
consecution, inductive-alone, enabled, vacuity; a not-applicable obligation is
decided without solving, or with one query on the action alone), of the agreement
check both ways (wide and deep), and of every faulty design's bounded
search (one query per design: depths 1, 2, ... on one solver), then the time of
a whole ``mcp-resume prove`` run (proofs, searches, trace replays, artifacts
written to a temporary folder). Targets on a 2-core machine: every query under
1 s, the whole default run under 20 s (about a third of it the deep agreement run, one
session to depth 5, where re-emissions happen). Wall times appear here only; the proof
artifacts never record them.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from mcp_resume.proofs.system.bmc import DEFAULT_SCOPE, SpecUnrolling, bmc_design
from mcp_resume.proofs.system.faulty_systems import DESIGNS
from mcp_resume.proofs.system.agreement import prove_agreement
from mcp_resume.proofs.system.proofs import Encoding, obligations, run_obligation, tally
from mcp_resume.jobs.proving import prove_profile
from mcp_resume.spec.profiles import Profile


def _timed(action):
    started = time.perf_counter()
    value = action()
    return time.perf_counter() - started, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default=Profile.BOUNDARY.value, help="session-era profile (default: boundary)")
    parser.add_argument("--all", action="store_true", help="print every query, not only the slowest 15")
    args = parser.parse_args()
    profile = Profile.parse(args.profile)

    build, encoding = _timed(lambda: Encoding(profile))
    rows, results = [], []
    for obligation in obligations():
        seconds, result = _timed(lambda obligation=obligation: run_obligation(encoding, obligation))
        results.append(result)
        rows.append((obligation.id, str(result.result or result.verdict), result.rlimit_used, seconds))
    agreement_seconds, figures = _timed(lambda: prove_agreement(profile))
    unrolling_started = time.perf_counter()
    spec = SpecUnrolling(profile, DEFAULT_SCOPE)
    for number in DESIGNS:
        seconds, result = _timed(lambda number=number: bmc_design(number, profile, spec=spec))
        rows.append((result.query, f"depth {result.depth}" if result.caught else "escaped", result.rlimit_used, seconds))
    bmc_total = time.perf_counter() - unrolling_started

    shown = rows if args.all else sorted(rows, key=lambda r: -r[3])[:15]
    width = max(len(r[0]) for r in shown)
    print(f"{'query':<{width}}  {'result':<14}  {'rlimit used':>11}  {'ms':>8}")
    for query, result, used, seconds in shown:
        print(f"{query:<{width}}  {result:<14}  {used if used is not None else '-':>11}  {seconds * 1000:8.1f}")
    proofs = [r for r in rows if not r[0].startswith("bmc.")]
    print(f"\nencoding built in {build * 1000:.0f} ms")
    print(f"obligations: {tally(results).describe()}")
    print(f"{figures.describe()}: {agreement_seconds:.2f} s")
    print(f"proof queries: {len(proofs)}, {sum(r[3] for r in proofs):.2f} s in all, slowest {max(r[3] for r in proofs) * 1000:.0f} ms")
    print(f"bounded searches: {len(DESIGNS)}, {bmc_total:.2f} s in all (unrolling included), "
          f"slowest {max(r[3] for r in rows if r[0].startswith('bmc.')) * 1000:.0f} ms")
    print(f"queries over 1 s: {sum(1 for r in rows if r[3] > 1.0)} of {len(rows)}")

    with tempfile.TemporaryDirectory() as folder:
        whole_wall = time.perf_counter()
        whole_cpu = time.process_time()
        outcome = prove_profile(profile, Path(folder))
        wall, cpu = time.perf_counter() - whole_wall, time.process_time() - whole_cpu
    print(f"whole `mcp-resume prove --profile {profile.value}` run: {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"({'holds' if outcome.holds else 'DOES NOT HOLD'})")


if __name__ == "__main__":
    main()
