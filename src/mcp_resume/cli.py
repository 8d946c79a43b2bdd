"""The ``mcp-resume`` command line.

Each subcommand lives in its own module next to this one and only composes
``spec``, ``model`` and ``proofs``. Exit codes, shared by every subcommand:

- 0: everything checked holds;
- 1: something checked does not hold (a FAIL verdict, a broken invariant, a
  faulty design that was not caught);
- 2: bad usage or a missing tool (unknown profile, no Graphviz for SVG ...);
- 3: the target could not be checked (down, never answers, not MCP).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcp_resume import __version__
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3

PROFILE_NAMES = [p.value for p in Profile]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-resume",
        description=(
            "Check how an MCP Streamable HTTP server tells stream resumption (Last-Event-ID) "
            "from session resumption (Mcp-Session-Id alone), against an executable specification."
        ),
        epilog="Exit codes: 0 all holds, 1 something does not hold, 2 usage error, 3 target unreachable.",
    )
    parser.add_argument("--version", action="version", version=f"mcp-resume {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_check(commands)
    _add_diagram(commands)
    _add_verify(commands)
    _add_explore(commands)
    return parser


def _add_check(commands) -> None:
    check = commands.add_parser(
        "check",
        help="prove the decision with Z3, run the Hypothesis machine, confirm every faulty design is caught",
        description=(
            "Run every machine check of the spec: the Z3 queries over the decision table, the "
            "Hypothesis state machine against the spec and the in-process reference server, and "
            "the same machine against every implemented faulty design, each of which must be "
            "caught. Writes proofs, certificates, counterexample traces and diagrams to --out."
        ),
    )
    check.add_argument("--out", type=Path, default=Path("mcp-resume-out"), help="output folder (default: %(default)s)")
    check.add_argument("--profile", choices=PROFILE_NAMES, default=DEFAULT_PROFILE.value, help="profile for the machine (default: %(default)s)")
    check.add_argument("--examples", type=int, default=None, help="Hypothesis examples per run (default: the CI profile's)")
    check.add_argument("--json", type=Path, default=None, metavar="FILE", help="also write the summary as JSON")
    check.add_argument("--quiet", action="store_true", help="print only the summary")


def _add_diagram(commands) -> None:
    diagram = commands.add_parser(
        "diagram",
        help="draw the decision and the stream lifecycle from the spec",
        description="Write diagrams generated from the spec: the decision as a flowchart and the lifecycles as state diagrams.",
    )
    diagram.add_argument("--out", type=Path, required=True, help="output folder")
    diagram.add_argument(
        "--format",
        action="append",
        choices=["dot", "svg", "png", "mermaid"],
        help="format to write, repeatable (default: dot, mermaid, and svg when Graphviz is installed)",
    )


def _add_verify(commands) -> None:
    verify = commands.add_parser(
        "verify",
        help="hold a real server to the spec over HTTP and give a verdict per rule",
        description=(
            "Drive a Streamable HTTP server through the reconnect scenarios and print a verdict "
            "(PASS/FAIL/WARN/SKIP/INCONCLUSIVE) per rule id with its evidence. TARGET is "
            "'python-sdk' (the official Python SDK, started here on 127.0.0.1) or the http:// URL "
            "of a running server's MCP endpoint."
        ),
    )
    verify.add_argument("target", help="'python-sdk' or an http:// URL such as http://127.0.0.1:8000/mcp")
    verify.add_argument("--profile", choices=PROFILE_NAMES, default=DEFAULT_PROFILE.value, help="rule levels to apply (default: %(default)s)")
    verify.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the verdicts as JSON")
    verify.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for any one response or event (default: %(default)s)")


def _add_explore(commands) -> None:
    from mcp_resume.model.explore_space import NAMED_BOUNDS

    explore = commands.add_parser(
        "explore",
        help="walk every state of the spec within bounds; explore a faulty design; the kill matrix",
        description=(
            "Explore the spec's state space breadth-first within bounds, as TLC does, checking every "
            "invariant in every state and on every transition; report distinct states, transitions, "
            "the count of each action and decision branch, and the shortest trace of every rule "
            "broken. With --design N, explore faulty design N beside the spec; with --kill-matrix, "
            "run every faulty design against every checker. Named bounds: "
            + "; ".join(f"{name} = {bounds.describe()}" for name, bounds in NAMED_BOUNDS.items())
            + "."
        ),
        epilog="Exit codes: 0 all holds, 1 a rule broken / vacuous run / counts differ from the manifest / "
        "a kill-matrix cell wrong, 2 usage error.",
    )
    explore.add_argument("--bound", metavar="NAME", help="a named bound (default: default; kill with --design, graph with --graph)")
    for name, what in (("sessions", "sessions"), ("streams", "streams per session"), ("events", "events per stream"),
                       ("requests", "server requests per session"), ("depth", "steps from the initial state")):
        explore.add_argument(f"--{name}", type=int, metavar="N", help=f"at most N {what} (overrides the named bound)")
    explore.add_argument("--design", type=int, metavar="N", help="explore faulty design N (1-12, DESIGN.md §5) beside the spec")
    explore.add_argument("--first", action="store_true", help="with --design: stop at the first (shortest) counterexample")
    explore.add_argument("--kill-matrix", action="store_true", help="every faulty design against every checker, under boundary and mcp-2025-11-25")
    explore.add_argument("--examples", type=int, default=None, help="with --kill-matrix: Hypothesis examples per run")
    explore.add_argument("--workers", type=int, default=None, metavar="N", help="with --kill-matrix: processes to run cells in (default: cores, at most 4)")
    explore.add_argument("--profile", choices=PROFILE_NAMES[:-1], default=DEFAULT_PROFILE.value, help="profile (default: %(default)s)")
    explore.add_argument("--engine", choices=["fast", "reference"], default="fast", help="spec explorer: over session forms (fast) or over whole states (reference)")
    explore.add_argument("--no-symmetry", action="store_true", help="reference engine without symmetry reduction")
    explore.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the result as JSON")
    explore.add_argument("--markdown", type=Path, default=None, metavar="FILE", help="with --kill-matrix: also write it as Markdown")
    explore.add_argument("--traces", type=Path, default=None, metavar="DIR", help="write the shortest trace of each broken rule as JSON")
    explore.add_argument("--graph", type=Path, default=None, metavar="DIR", help="draw the explored graph (DOT, SVG) with --design N's counterexample in red")
    explore.add_argument("--quiet", action="store_true", help="no progress line")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            from mcp_resume.check import run_check

            return run_check(args)
        if args.command == "diagram":
            from mcp_resume.diagram import run_diagram

            return run_diagram(args)
        if args.command == "explore":
            from mcp_resume.explore import run_explore

            return run_explore(args)
        from mcp_resume.verify import run_verify

        return run_verify(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
