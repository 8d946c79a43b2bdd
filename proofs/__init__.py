"""Evidence from the spec: Z3 queries, proof artifacts and diagrams.

Public entry points:

- ``run_decision_queries(rlimit=..., random_seed=..., decide=None) -> list[QueryResult]``
  (``decision_queries``): the decision is total, exclusive, every branch is
  reachable, and the Python table agrees with an independent Z3 encoding;
- ``write_decision_artifacts(results, out_dir) -> list[Path]`` (``artifacts``):
  ``<query>.smt2``, ``<query>.json`` and ``DECISION.md``;
- ``write_diagrams(out_dir, formats, dot_program) -> list[Path]`` (``diagrams``):
  the decision flowchart and the stream and session lifecycles, derived from
  the spec, as DOT, SVG/PNG (Graphviz) and Mermaid.

- ``run_proofs(profile, rlimit, random_seed) -> list[ProofResult]`` (``ts_proofs``):
  the spec's state machine in many-sorted EPR; initiation and consecution of
  every invariant of DESIGN.md §4 per action, for any number of entities, with
  unsat cores and counterexamples to induction;
- ``bmc_design(number, profile, max_depth) -> BmcResult`` (``ts_bmc``): a
  shortest run of faulty design ``number`` breaking a MUST, as a ``spec.trace.Trace``
  (source ``z3``); ``bmc_designs`` for all twelve;
- ``check_agreement(bounds, profile) -> AgreementReport`` (``ts_agreement``): the
  encoding read on every step a bounded exploration of ``spec.transitions`` takes;
- ``write_prove_artifacts(...)`` (``ts_artifacts``): SMT-LIB2, certificates, ``REPORT.md``.

Modules, one concern each: ``smt_domain`` (enum sorts), ``decision_encoding``
(the design in Z3), ``decision_table`` (the Python table as a Z3 lookup),
``solving`` (seeded, rlimit-bounded solving), ``decision_queries``,
``spec_hash``, ``artifacts``; ``decision_flow``, ``exploration``,
``lifecycle``, ``diagram_model``, ``diagrams``, ``graphviz``; the transition
system: ``ts_logic`` (one vocabulary, three backends), ``ts_vocabulary``,
``ts_decision``, ``ts_transitions``, ``ts_invariants``, ``ts_designs``,
``ts_fragment``, ``ts_solve``, ``ts_picture``, ``ts_proofs``, ``ts_bmc``,
``ts_agreement``, ``ts_artifacts``.
Nothing here imports ``mcp_resume.model``.
"""

from mcp_resume.proofs.artifacts import write_decision_artifacts
from mcp_resume.proofs.decision.queries import decision_queries, run_decision_queries
from mcp_resume.proofs.diagrams.render import spec_diagrams, write_diagrams
from mcp_resume.proofs.solving import QueryResult
from mcp_resume.proofs.system.agreement import check_agreement
from mcp_resume.proofs.system.bmc import BmcResult, bmc_design, bmc_designs
from mcp_resume.proofs.system.proofs import ProofResult, run_proofs

__all__ = [
    "BmcResult", "ProofResult", "bmc_design", "bmc_designs", "check_agreement", "run_proofs",
    "QueryResult", "decision_queries", "run_decision_queries", "spec_diagrams",
    "write_decision_artifacts", "write_diagrams",
]
