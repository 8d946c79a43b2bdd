"""The exit codes every ``mcp-resume`` command shares (``cli``'s module docstring says when each is
given). This module imports nothing: ``mcp_resume.command`` reads ``EXIT_INTERRUPTED`` from it
before anything else is loaded."""

EXIT_OK = 0
"""Everything checked holds."""

EXIT_FAILED = 1
"""Something checked does not hold: a FAIL verdict, a broken invariant, a vacuous run, a faulty
design that was not caught, a kill-matrix cell that does not show what it must."""

EXIT_USAGE = 2
"""Bad usage or a missing tool: unknown profile, bound or design, an output that cannot be
written, no Graphviz for SVG ..."""

EXIT_UNCHECKED = 3
"""The target could not be checked (down, never answers, not MCP), or a verdict is INCONCLUSIVE
and none FAILs, a Z3 query is unknown, or a walk stopped at its cap before exploring everything."""

EXIT_INTERRUPTED = 130
"""Interrupted: Ctrl-C or SIGTERM."""
