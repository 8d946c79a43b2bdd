"""Evidence from the spec: Z3 queries, proof artifacts and diagrams.

Public entry points:

- ``run_decision_queries(rlimit=..., random_seed=..., decide=None, smt2=False) -> list[QueryResult]``
  (``decision.queries``): the decision is total, exclusive, every branch is
  reachable, and the Python table agrees with an independent Z3 encoding;
- ``run_proofs(profile, rlimit, random_seed, smt2=False) -> list[ProofResult]`` (``system.proofs``):
  the spec's state machine in many-sorted EPR; initiation and consecution of
  every invariant of docs/design.md §4 per action, for any number of entities, with
  unsat cores and counterexamples to induction; an obligation the action cannot
  touch is ``not applicable`` (never proven), each applicable consecution has
  a vacuity query (``system.vacuity``), and one that is unsat from its action's
  effect equations alone is ``trivial`` (``system.triviality``; never proven);
  ``tally`` counts them;
- ``bmc_design(number, profile, max_depth) -> BmcResult`` (``system.bmc``): a
  shortest run of faulty design ``number`` breaking a MUST, as a ``spec.trace.Trace``
  (source ``z3``); ``bmc_designs`` for every design the formulas can state
  (``system.faulty_systems.LEFT_OUT`` names the others and why);
- ``check_agreement(bounds, profile) -> AgreementReport`` (``system.agreement``): the
  encoding read on every step a bounded exploration of ``spec.transitions`` takes;
  ``agreement_both_ways`` adds the converse (``system.converse``): every successor
  the formulas allow from a reached state is a step the spec takes;
  ``prove_agreement`` runs both ways wide (two sessions, depth 4) and deep (one
  session, depth 5, two server requests: re-emissions), as ``prove`` does;
- ``write_decision_artifacts(results, out_dir, smt2=False)`` and
  ``write_prove_artifacts(profile, proofs, bmc, replays, out_dir, smt2=False)``
  (``artifacts``): a results file, a report, traces, SMT-LIB2 on request;
- ``write_diagrams(out_dir, formats, dot_program) -> list[Path]`` (``diagrams.render``):
  the decision flowchart and the stream and session lifecycles, derived from
  the spec, as DOT, SVG/PNG (Graphviz) and Mermaid.

Modules in pipeline order: ``solving`` (the one solver wrapper: seeded,
rlimit-bounded checks, tracked conjuncts and unsat cores, ``SatResult`` and
``ProofStatus``); ``decision/`` (``domain``: enum sorts, ``encoding``: the design in
Z3, ``table``: the Python table as a Z3 lookup, ``queries``); ``system/`` (``logic``:
one vocabulary, three backends, ``vocabulary``, ``decision``, ``transitions``,
``invariants``, ``faulty_systems``, ``fragment``, ``picture``, ``vacuity``, ``triviality``, ``proofs``,
``bmc``, ``converse``, ``agreement``); ``spec_hash``, ``report_page`` (the Markdown reports) and
``artifacts`` (the one writer); ``diagrams/``.
Nothing here imports ``mcp_resume.model``.
"""

from mcp_resume.proofs.artifacts import write_decision_artifacts, write_prove_artifacts
from mcp_resume.proofs.decision.queries import decision_queries, run_decision_queries
from mcp_resume.proofs.diagrams.render import spec_diagrams, write_diagrams
from mcp_resume.proofs.decision.queries import QueryResult
from mcp_resume.proofs.solving import SatResult, ProofStatus
from mcp_resume.proofs.system.agreement import check_agreement
from mcp_resume.proofs.system.bmc import BmcResult, bmc_design, bmc_designs
from mcp_resume.proofs.system.proofs import ProofResult, run_proofs

__all__ = [
    "BmcResult", "ProofResult", "bmc_design", "bmc_designs", "check_agreement", "run_proofs",
    "QueryResult", "SatResult", "ProofStatus", "decision_queries", "run_decision_queries", "spec_diagrams",
    "write_decision_artifacts", "write_diagrams", "write_prove_artifacts",
]
