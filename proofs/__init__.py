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

Modules, one concern each: ``smt_domain`` (enum sorts), ``decision_encoding``
(the design in Z3), ``decision_table`` (the Python table as a Z3 lookup),
``solving`` (seeded, rlimit-bounded solving), ``decision_queries``,
``spec_hash``, ``artifacts``; ``decision_flow``, ``exploration``,
``lifecycle``, ``diagram_model``, ``diagrams``, ``graphviz``.
Nothing here imports ``mcp_resume.model``.
"""

from .artifacts import write_decision_artifacts
from .decision_queries import decision_queries, run_decision_queries
from .diagrams import spec_diagrams, write_diagrams
from .solving import QueryResult

__all__ = [
    "QueryResult", "decision_queries", "run_decision_queries", "spec_diagrams",
    "write_decision_artifacts", "write_diagrams",
]
