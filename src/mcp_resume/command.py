"""The ``mcp-resume`` console command (``[project.scripts]``): ``cli.entry``, imported here so that
Ctrl-C while the command's modules load ends with exit 130 and one line, not a traceback."""

import sys

from mcp_resume.jobs.exits import EXIT_INTERRUPTED


def entry() -> int:
    """Import ``mcp_resume.cli`` and run ``cli.entry``; exit 130 when interrupted while importing."""
    try:
        from mcp_resume.cli import entry as run
    except KeyboardInterrupt:
        sys.stderr.write("mcp-resume: interrupted\n")
        return EXIT_INTERRUPTED
    return run()
