"""The documentation set, generated from the specification (``mcp-resume docs``).

Public entry points:

- ``build_docs(out_dir, tests_dir, dot_program) -> DocsResult`` (``build``): an
  index, the decision as a flowchart and a table, the lifecycles as state
  diagrams (DOT, Mermaid, SVG), one page per catalog rule (statement, levels,
  MCP sources, checks, covering tests, proof obligations, faulty designs), the
  profile comparison, the MCP sources, the EventStore test kit, the fixture tools, a CI job,
  judging real traffic, the command reference (read from ``cli.build_parser()``) and the
  contributor page;
- ``compare_sets(generated, committed, svg=True) -> list[Difference]``
  (``compare``): byte comparison, SVG by text content;
- ``scan_tests(tests_dir, root, known_rules)`` (``rule_coverage``): the tests marked
  ``@pytest.mark.covers(...)``, found by a static scan;
- ``SECTIONS`` (``hooks``): optional sections (proof report, explored state
  graph) contributed by modules when they exist.

Modules: ``markdown``, ``rule_coverage``, ``obligations``, ``hooks``, ``collect``,
``pages_spec``, ``pages_rules``, ``pages_kit``, ``pages_fixtures``, ``pages_traffic``,
``pages_commands``, ``pages_contributing``, ``build``, ``compare``.
"""

from .build import DocsResult, build_docs
from .compare import REGENERATE, Difference, compare_sets, regenerate_command
from .rule_coverage import CoverageError, TestRef, scan_tests
from .hooks import SECTIONS, HookError

__all__ = [
    "REGENERATE", "SECTIONS", "regenerate_command", "CoverageError", "Difference", "DocsResult", "HookError", "TestRef",
    "build_docs", "compare_sets", "scan_tests",
]
