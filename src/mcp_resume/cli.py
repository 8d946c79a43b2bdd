"""The ``mcp-resume`` command line.

One command per job. Each subcommand lives in its own module next to this one
(``mcp_resume.<command>``): it parses (its arguments are defined here), calls the
library the commands share, ``mcp_resume.jobs``, and prints; no command module
imports another. Exit codes (``jobs.exits``), shared by every subcommand:

- 0: everything checked holds;
- 1: something checked does not hold (a FAIL verdict, a broken invariant, a
  faulty design that was not caught);
- 2: bad usage or a missing tool (unknown profile, no Graphviz for SVG ...);
- 3: the target could not be checked (down, never answers, not MCP), or, for
  ``verify``, some verdict is INCONCLUSIVE and none is FAIL;
- 130: interrupted (Ctrl-C or SIGTERM).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import signal
import sys
import threading
from pathlib import Path

from mcp_resume import __version__, interrupts
from mcp_resume.jobs.exits import EXIT_INTERRUPTED, EXIT_USAGE
from mcp_resume.spec import designs
from mcp_resume.spec.profiles import DEFAULT_PROFILE, SESSION_ERA, Profile

PROFILE_NAMES = [p.value for p in Profile]
SESSION_PROFILE_NAMES = [p.value for p in Profile if p in SESSION_ERA]


def output_path(text: str) -> Path:
    """An argparse type: a non-empty path (an empty one would silently mean the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return Path(text)


def non_empty(text: str) -> str:
    """An argparse type: a non-empty string."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def whole_number(text: str) -> int:
    """An argparse type: a whole number written in ASCII digits, with an optional sign (``int``
    alone also takes ``1_0`` and other scripts' digits)."""
    if not re.fullmatch(r"\s*[+-]?[0-9]+\s*", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(text)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    number = whole_number(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


MOST_WORKERS = 64
"""The most processes ``--workers`` may ask for: each is a forked copy of the run, and more
than the cores only slows it (a thousand exhausted the file descriptors and process slots)."""


def worker_count(text: str) -> int:
    """An argparse type: a number of worker processes, 1 to ``MOST_WORKERS``."""
    number = positive_int(text)
    if number > MOST_WORKERS:
        raise argparse.ArgumentTypeError(f"at most {MOST_WORKERS}, got {number} (this machine has "
                                         f"{os.cpu_count() or 1} cores; more workers than cores only slow a run)")
    return number


def _command(module: str, function: str):
    """The handler of one subcommand: ``mcp_resume.<module>.<function>(args)``, imported only when that
    command runs (each pulls in its own stack: Z3, Hypothesis, httpx ...)."""

    def handler(args: argparse.Namespace) -> int:
        return getattr(importlib.import_module(f"mcp_resume.{module}"), function)(args)

    handler.__qualname__ = f"{module}.{function}"
    return handler


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-resume",
        description=(
            "Check how an MCP Streamable HTTP server tells stream resumption (Last-Event-ID) "
            "from session resumption (Mcp-Session-Id alone), against an executable specification."
        ),
        epilog=("Exit codes: 0 all holds, 1 something does not hold, 2 usage error or missing tool, "
                "3 target could not be checked (verify: also when a verdict is INCONCLUSIVE and none FAILs), 130 interrupted."),
    )
    parser.add_argument("--version", action="version", version=f"mcp-resume {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_check(commands)
    _add_diagram(commands)
    _add_verify(commands)
    _add_docs(commands)
    _add_replay(commands)
    _add_compat(commands)
    _add_prove(commands)
    _add_explore(commands)
    _add_explore_design(commands)
    _add_liveness(commands)
    _add_kill_matrix(commands)
    _add_graph(commands)
    _add_validate(commands)
    _add_proxy(commands)
    return parser


def _add_proxy(commands) -> None:
    proxy = commands.add_parser(
        "proxy",
        help="a checking reverse proxy between a real MCP client and its server",
        description=(
            "Forward every request to --upstream and stream every answer back unchanged, record the exchanges "
            "(--record, JSON lines for validate) and check them as they happen: each finding is printed when "
            "seen, marked provisional. Ctrl-C or SIGTERM stops it and writes the final report, the one that "
            "counts, with a curl reproducer and a spec trace in --out for each of its FAILs and WARNs. Binds "
            "127.0.0.1 unless --listen says otherwise. At start it asks the upstream one bounded initialize "
            "and says what it found: an upstream that answers but not as an MCP server (501 Not Implemented, 405 "
            "to the POST, another 4xx, a redirect, a page or another non-JSON, non-event-stream body) ends it with "
            "exit 3; one that is unreachable, answers another 5xx (it may come up later) or asks for credentials "
            "is a warning and the proxy runs. Exit codes as validate's, and 3 for an upstream that is not an MCP "
            "server or a run that recorded nothing."
        ),
    )
    proxy.set_defaults(handler=_command("proxy", "run"))
    proxy.add_argument("--upstream", required=True, metavar="URL", help="the server's MCP endpoint, e.g. http://127.0.0.1:8000/mcp")
    proxy.add_argument("--listen", default="127.0.0.1:8808", metavar="HOST:PORT", help="where to listen (default: %(default)s; port 0 = any free one)")
    proxy.add_argument("--profile", choices=["auto", *PROFILE_NAMES], default="auto",
                       help="rule levels to apply; auto (the default) = the profile of the revision the traffic shows: "
                            "the one initialize negotiated, or 2026-07-28 for its request shape, exchange by exchange")
    proxy.add_argument("--record", type=output_path, default=None, metavar="FILE", help="write every exchange to FILE as JSON lines")
    proxy.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the verdicts as JSON when stopped")
    proxy.add_argument("--out", type=output_path, default=Path("mcp-resume-findings"), metavar="DIR", help="folder for each finding's reproducers, <rule>.curl.sh (executable) and <rule>.trace.json for replay; refused at start when it cannot be a folder (default: %(default)s)")
    proxy.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the upstream's response head (default: %(default)s)")


def _add_validate(commands) -> None:
    validate = commands.add_parser(
        "validate",
        help="judge recorded traffic with a server (HAR, or the proxy's JSON lines) against the spec",
        description=(
            "Map each recorded exchange onto the spec's actions and judge it by every rule's server check. "
            "What the log cannot show is left open: a rule only unjudged exchanges touched is INCONCLUSIVE, "
            "one no exchange touched is SKIP. JSON lines of any length are read line by line, each exchange "
            "kept as what the judge reads of it: memory grows with the exchanges and events, not the bytes "
            "(a 235 MB recording of 107,000 events in under 150 MB). Exit codes: 0 holds, 1 some rule FAILed, "
            "2 bad usage, an unreadable file or one with no exchange, 3 no FAIL but some rule INCONCLUSIVE."
        ),
    )
    validate.set_defaults(handler=_command("validate", "run"))
    validate.add_argument("file", help="a HAR 1.2 file or a JSON-lines record file")
    validate.add_argument("--format", choices=["auto", "har", "jsonl"], default="auto", help="file format (default: %(default)s, by content)")
    validate.add_argument("--profile", choices=["auto", *PROFILE_NAMES], default="auto",
                       help="rule levels to apply; auto (the default) = the profile of the revision the traffic shows: "
                            "the one initialize negotiated, or 2026-07-28 for its request shape, exchange by exchange")
    validate.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the verdicts as JSON")
    validate.add_argument("--junit", type=output_path, default=None, metavar="FILE", help="write JUnit XML, one test case per rule")
    validate.add_argument("--markdown", type=output_path, default=None, metavar="FILE", help="write the report as Markdown")


def _add_check(commands) -> None:
    check = commands.add_parser(
        "check",
        help="the quick gate: Z3 proofs, the Hypothesis machine, the explorer, every faulty design caught",
        description=(
            "Run every machine check of the spec, side by side on the cores: the Z3 queries over the decision "
            "table and the transition-system proofs (with a shortest run refuting each faulty design), the "
            "Hypothesis state machine against the spec and the in-process reference server, every faulty design "
            "explored beside the spec to its shortest counterexample (replayed to confirm it), the diagrams, and "
            "the spec's default bound exhausted and compared with the state-space manifest. --kill-matrix adds "
            "every faulty design against every checker. Writes proof results, counterexample traces and "
            "diagrams to --out, and one line per finished stage to stderr. The sessionless mcp-2026-07-28 "
            "profile has no sessions to resume and is checked by 'verify' only."
        ),
        epilog="Exit codes: 0 all holds, 1 something does not hold, 2 usage error, 130 interrupted.",
    )
    check.set_defaults(handler=_command("check", "run_check"))
    check.add_argument("--out", type=output_path, default=Path("mcp-resume-out"),
                       help="output folder for proof results, traces, diagrams and the kill matrix (default: %(default)s)")
    check.add_argument("--profile", choices=SESSION_PROFILE_NAMES, default=DEFAULT_PROFILE.value,
                       help="profile for the machine against the spec and the reference server; the faulty designs "
                            "always run under boundary (default: %(default)s)")
    check.add_argument("--examples", type=positive_int, default=None, metavar="N",
                       help="Hypothesis examples per machine run, at least 1 (default: the derandomized CI profile's)")
    check.add_argument("--json", type=output_path, default=None, metavar="FILE", help="also write the summary as JSON")
    check.add_argument("--kill-matrix", action="store_true",
                       help="also run every faulty design against every checker (Hypothesis, explorer, Z3, HTTP verify) "
                            "under boundary and mcp-2025-11-25: minutes, not seconds")
    check.add_argument("--workers", type=worker_count, default=None, metavar="N",
                       help="processes to run the stages in (default: one per core; 1 runs them in this process)")
    check.add_argument("--quiet", action="store_true", help="no progress lines; print only the summary table")


def _add_diagram(commands) -> None:
    diagram = commands.add_parser(
        "diagram",
        help="draw the decision and the stream lifecycle from the spec",
        description="Write diagrams generated from the spec: the decision as a flowchart and the lifecycles as state diagrams.",
    )
    diagram.set_defaults(handler=_command("diagram", "run_diagram"))
    diagram.add_argument("--out", type=output_path, required=True, help="output folder")
    diagram.add_argument(
        "--format",
        action="append",
        choices=["dot", "svg", "png", "mermaid"],
        help="format to write, repeatable (default: dot, mermaid, and svg when Graphviz is installed)",
    )


def _add_verify(commands) -> None:
    from mcp_resume.model.targets.embedded import embedded_help

    verify = commands.add_parser(
        "verify",
        help="hold a real server to the spec over HTTP and give a verdict per rule",
        description=(
            "Drive a Streamable HTTP server through the reconnect scenarios and print a verdict "
            "(PASS/FAIL/WARN/SKIP/INCONCLUSIVE) per rule id with its evidence. TARGET is the http:// "
            "URL of a running server's MCP endpoint, or an embedded target started here on 127.0.0.1: "
            f"{embedded_help()}. "
            "The rules about pending server requests and stream history need tools that make them: the "
            "fixture tools of docs/fixtures.md (mcp_resume.fixtures.add_fixture_tools(server) adds them to a "
            "server of the official Python SDK), or your own tools named with --tool ROLE=NAME."
        ),
        epilog=(
            "For every FAIL and WARN a verify trace (for 'mcp-resume replay') and a curl script are "
            "written next to the report or into --out. Exit codes: 0 no FAIL, 1 some FAIL, 2 usage "
            "error or missing tool, 3 target unreachable, 130 interrupted (partial report written)."
        ),
    )
    verify.set_defaults(handler=_command("verify", "run_verify"))
    verify.add_argument("target", help="an http:// URL such as http://127.0.0.1:8000/mcp, or an embedded target name")
    verify.add_argument(
        "--profile",
        choices=["auto"] + PROFILE_NAMES,
        default="auto",
        help="rule levels to apply; auto = the MCP profile of the revision the server negotiates, "
        "boundary = the stricter reconnect decision (default: %(default)s)",
    )
    verify.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the verdicts as JSON")
    verify.add_argument("--junit", type=output_path, default=None, metavar="FILE", help="write JUnit XML, one test case per rule")
    verify.add_argument("--markdown", type=output_path, default=None, metavar="FILE", help="write the report as Markdown")
    verify.add_argument("--out", type=output_path, default=None, metavar="DIR",
                        help="folder for the reproducers of each finding (default: mcp-resume-findings beside the first "
                             "report written). A later run against the same target and --profile replaces an earlier "
                             "run's reproducers there; a run against another target or profile is refused (exit 2): "
                             "give each its own --out")
    verify.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for any one response or event (default: %(default)s)")
    verify.add_argument("--max-seconds", type=float, default=600.0, help="bound on the whole run in seconds (default: %(default)s)")
    verify.add_argument("--stream-ttl", type=float, default=None, metavar="S", help="seconds after which the server expires an ended stream: verify waits that long and checks expiry-independent")
    verify.add_argument("--session-ttl", type=float, default=None, metavar="S", help="seconds after which the server ends an idle session: verify waits that long and checks expiry-independent")
    verify.add_argument(
        "--tool", action="append", default=[], metavar="ROLE=NAME[:ARGUMENTS_JSON]",
        help="call your own tool NAME (with the JSON object ARGUMENTS_JSON) wherever verify would call a fixture "
             "tool of ROLE: server-request (it sends an elicitation, sampling or roots request), notifications (it "
             "sends notifications before its answer), long-running (it runs for a while); repeatable; "
             "docs/fixtures.md defines the fixture tools",
    )
    verify.add_argument(
        "--sdk", default=None, metavar="NAME",
        help="the SDK the server is built with, whose remedies the fixes of FAIL and WARN give (python-sdk, "
             "typescript-sdk, fastmcp-python, fastmcp-typescript, tmcp, mcp-lite; default: the one serverInfo's "
             "name mentions)",
    )
    verify.add_argument("--progress", action="store_true", help="print each verdict to stderr as it is made, 'rule n of N: RULE: VERDICT' (the default, kept for old scripts)")


def _add_replay(commands) -> None:
    replay = commands.add_parser(
        "replay",
        help="run a saved finding (a verify trace or a spec trace) again against a target",
        description=(
            "Run a trace again: a verify trace (written by 'verify' for every FAIL and WARN) re-runs its "
            "rule's scenario against TARGET, an http:// URL or an embedded target; TARGET 'spec' shows "
            "what the spec expects. A spec trace (a counterexample of 'check') is replayed side by side "
            "with the spec against spec, reference, design-N, or a server over HTTP."
        ),
        epilog=("Exit codes: 0 the rule holds (a verify trace: PASS), 1 it does not (a verify trace: FAIL, or WARN: "
                "the finding reproduces), 2 bad trace or target, 3 target unreachable or "
                "nothing judged (the rule SKIP or INCONCLUSIVE there, e.g. a missing fixture tool: docs/fixtures.md)."),
    )
    replay.set_defaults(handler=_command("replay", "run_replay"))
    replay.add_argument("trace", type=Path, help="a *.trace.json file")
    replay.add_argument("target", help="spec, reference, design-N, an embedded target or an http:// URL")
    replay.add_argument("--profile", choices=SESSION_PROFILE_NAMES, default=None, help="profile (default: the trace's)")
    replay.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for any one response or event (default: %(default)s)")
    replay.add_argument(
        "--tool", action="append", default=[], metavar="ROLE=NAME[:ARGUMENTS_JSON]",
        help="a verify trace: call your own tool NAME for ROLE, as 'verify --tool' does; replaces the tools the "
             "trace recorded for that ROLE (default: the trace's); repeatable; docs/fixtures.md",
    )


def _add_compat(commands) -> None:
    compat = commands.add_parser(
        "compat",
        help="verify the official MCP SDKs and third-party frameworks and write the compatibility page",
        description=(
            "Start python-sdk 1.x and 2.x (each in its own cached virtualenv), typescript-sdk (from npm, "
            "cached) and the pinned third-party frameworks (fastmcp-python, fastmcp-typescript, tmcp, mcp-lite, "
            "each in its own cache folder), verify each under boundary and under its negotiated MCP profile, "
            "time each run, write one Markdown page."
        ),
    )
    compat.set_defaults(handler=_command("compat", "run_compat"))
    compat.add_argument("--out", type=output_path, default=Path("docs/compatibility.md"), help="page to write (default: %(default)s)")
    compat.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for any one response or event (default: %(default)s)")
    compat.add_argument("targets", nargs="*", help="embedded targets (default: the newest python-sdk 1.x and 2.x, typescript-sdk, the frameworks)")


def _add_docs(commands) -> None:
    docs = commands.add_parser(
        "docs",
        help="write the documentation set generated from the spec (or --check it)",
        description=(
            "Write Markdown pages readable on GitHub, generated entirely from the spec: an index, the decision "
            "and the lifecycles as diagrams (DOT, Mermaid, SVG when Graphviz is installed), one page per rule "
            "with its MCP sources, checks, covering tests (@pytest.mark.covers) and proof obligations, and the "
            "profile comparison. With --check, write nothing and exit 1 when DIR differs from what would be written."
        ),
    )
    docs.set_defaults(handler=_command("docs", "run_docs"))
    docs.add_argument("--out", type=output_path, required=True, metavar="DIR", help="output folder, e.g. docs")
    docs.add_argument("--tests", type=Path, default=None, metavar="DIR",
                      help="test folder scanned for covers markers; its parent is the repository root (default: tests "
                           "when it is a folder; without one, as from an installed package, every page is written and "
                           "says the test coverage is not available)")
    docs.add_argument("--check", action="store_true", help="compare a fresh set with DIR instead of writing it")


def _add_prove(commands) -> None:
    def positive(text: str) -> int:
        value = whole_number(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
        return value

    prove = commands.add_parser(
        "prove",
        help="prove every invariant of the state machine with Z3 and refute every faulty design",
        description=(
            "Prove, with Z3, that every safety invariant of the rule catalog holds initially and is kept by "
            "every action of the spec, for any number of sessions, streams, events and server requests; "
            "find a shortest run for every faulty design of spec/designs.py and replay it. The summary counts "
            "the obligations proven, trivial (unsat from the action's effect equations alone), not applicable "
            "and vacuous apart; only the proven count as proofs. The encoding is checked against the spec both "
            "ways, wide (two sessions, depth 4) and deep (one session to depth 5, where a request is re-emitted, "
            "two server requests). Writes, per "
            "profile, results.json (every query, its result, unsat core and fragment), the traces and REPORT.md "
            "to OUT/<profile>/; with --smt2 also one SMT-LIB2 file per query in OUT/<profile>/smt2/."
        ),
        epilog=("Exit codes: 0 all holds, 1 something is refuted (a counterexample) or does not replay, 2 usage "
                "error or an output that cannot be written, 3 nothing refuted but some query unknown (Z3 ran out "
                "of resource units: raise --rlimit), 130 interrupted (nothing written to --out)."),
    )
    prove.set_defaults(handler=_command("prove", "run_prove"))
    prove.add_argument("--profile", action="append", choices=SESSION_PROFILE_NAMES, metavar="PROFILE",
                       help="profile to prove, repeatable: mcp-2025-03-26, mcp-2025-06-18, mcp-2025-11-25 or "
                            "boundary (default: boundary; mcp-2026-07-28 has no state machine)")
    prove.add_argument("--out", type=output_path, default=Path("mcp-resume-proofs"), help="output folder (default: %(default)s)")
    prove.add_argument("--json", type=output_path, default=None, metavar="FILE", help="also write the summary as JSON")
    prove.add_argument("--smt2", action="store_true", help="also write each query as an SMT-LIB2 file, replayable with z3")
    prove.add_argument("--rlimit", type=positive, default=20_000_000, help="Z3 resource units per query (default: %(default)s)")
    prove.add_argument("--seed", type=whole_number, default=0, help="Z3 random seed (default: %(default)s)")
    prove.add_argument("--max-depth", type=positive, default=8, help="longest run searched per faulty design (default: %(default)s)")
    prove.add_argument("--quiet", action="store_true", help="print only the summary")


class Moved(argparse.Action):
    """An option that became a command of its own (issue 27: one command per job): giving it is a
    usage error (exit 2) that names the command to use instead."""

    def __init__(self, option_strings, dest, instead: str, **kwargs):
        kwargs.setdefault("nargs", 0)
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kwargs)
        self.instead = instead

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string} is no option of {parser.prog} any more: use '{self.instead}'")


def _add_bound(parser, default: str) -> None:
    """``--bound NAME`` and the numbers that override it; ``default`` says which bound is explored without them."""
    parser.add_argument("--bound", type=non_empty, metavar="NAME", help=f"a named bound (default: {default})")
    for name, what in (("sessions", "sessions"), ("streams", "streams per session"), ("events", "events per stream"),
                       ("requests", "server requests per session"), ("depth", "steps from the initial state")):
        parser.add_argument(f"--{name}", type=whole_number, metavar="N", help=f"at most N {what} (overrides the named bound)")


def _named_bounds() -> str:
    """The named bounds, for a description (their sizes: spec/space.py and docs/state-graph/README.md)."""
    from mcp_resume.spec.space import NAMED_BOUNDS

    return ", ".join(NAMED_BOUNDS) + " (spec/space.py; their sizes and counts: docs/state-graph/README.md)"


def _add_explore(commands) -> None:
    explore = commands.add_parser(
        "explore",
        help="walk every state of the spec within bounds, checking every invariant (as TLC does)",
        description=(
            "Explore the spec's state space breadth-first within bounds, as TLC does, checking every "
            "invariant in every state and on every transition; report distinct states, transitions, "
            "the count of each action and decision branch, and the shortest trace of every rule "
            "broken; a named bound is compared with the state-space manifest. Named bounds: " + _named_bounds() + ". "
            "A faulty design beside the spec: explore-design N; the liveness rule: liveness; every design "
            "against every checker: kill-matrix; the picture: graph."
        ),
        epilog="Exit codes: 0 all holds, 1 a rule broken / vacuous run / counts differ from the manifest, "
        "2 usage error (a run estimated above --budget), 3 stopped at --max-states or --max-memory "
        "before exploring everything (marked incomplete).",
    )
    explore.set_defaults(handler=_command("explore", "run_explore"))
    _add_bound(explore, "default")
    explore.add_argument("--profile", choices=SESSION_PROFILE_NAMES, default=DEFAULT_PROFILE.value, help="profile (default: %(default)s)")
    engine = explore.add_mutually_exclusive_group()
    engine.add_argument("--workers", type=worker_count, default=None, metavar="N", help="processes for the fast explorer, over session forms (default: cores, at most 4)")
    engine.add_argument("--reference", action="store_true", help="the reference explorer instead: over whole states, symmetry reduced, one process")
    engine.add_argument("--no-symmetry", action="store_true", help="the reference explorer without symmetry reduction")
    explore.add_argument("--budget", type=positive_int, default=None, metavar="N", help="refuse a run estimated above N states (default: 3,000,000 fast, 150,000 reference; none with --max-states or --max-memory)")
    explore.add_argument("--max-states", type=positive_int, default=None, metavar="N", help="stop once more than N states are held (the successors of the state that passes N are kept: a few more), marked incomplete (exit 3)")
    explore.add_argument("--max-memory", type=positive_int, default=None, metavar="MB", help="stop at MB of resident memory, marked incomplete (exit 3)")
    explore.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the result as JSON")
    explore.add_argument("--traces", type=output_path, default=None, metavar="DIR", help="write the shortest trace of each broken rule as JSON")
    explore.add_argument("--quiet", action="store_true", help="no progress line")
    for option, instead in (("--design", "mcp-resume explore-design N"), ("--first", "mcp-resume explore-design N --first"),
                            ("--exhaustive", "mcp-resume explore-design N --exhaustive"), ("--liveness", "mcp-resume liveness [N]"),
                            ("--kill-matrix", "mcp-resume kill-matrix"), ("--examples", "mcp-resume kill-matrix --examples N"),
                            ("--markdown", "mcp-resume kill-matrix --markdown FILE"), ("--graph", "mcp-resume graph --out DIR"),
                            ("--engine", "mcp-resume explore --reference (or --no-symmetry)")):
        explore.add_argument(option, action=Moved, instead=instead, nargs="?")


def _add_explore_design(commands) -> None:
    design = commands.add_parser(
        "explore-design",
        help="explore faulty design N beside the spec to its shortest counterexamples",
        description=(
            "Explore faulty design N beside the spec, breadth-first (each level likeliest first), checking "
            "every invariant on every step, until every rule the design breaks (docs/design.md §5) has its "
            "shortest counterexample, at the latest at the end of the first level with a counterexample; "
            "print the shortest trace of each rule broken and the count of states it needed. Named bounds: "
            + _named_bounds() + "."
        ),
        epilog="Exit codes: 0 nothing broken within the bound, 1 a rule broken (as a faulty design should) or a "
        "vacuous run, 2 usage error.",
    )
    design.set_defaults(handler=_command("explore_design", "run"))
    design.add_argument("design", type=whole_number, metavar="N", help=f"the faulty design ({designs.numbers_text()}, spec/designs.py)")
    _add_bound(design, "kill, widened for a design whose counterexample lies beyond it")
    design.add_argument("--profile", choices=SESSION_PROFILE_NAMES, default=DEFAULT_PROFILE.value, help="profile (default: %(default)s)")
    walk = design.add_mutually_exclusive_group()
    walk.add_argument("--first", action="store_true", help="stop at the first (shortest) counterexample")
    walk.add_argument("--exhaustive", action="store_true", help="walk the whole bound and list every rule broken in it")
    design.add_argument("--workers", type=worker_count, default=None, metavar="N", help="processes for the big levels (default: cores, at most 4)")
    design.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the result as JSON")
    design.add_argument("--traces", type=output_path, default=None, metavar="DIR", help="write the shortest trace of each broken rule as JSON")
    design.add_argument("--quiet", action="store_true", help="no progress line")


def _add_liveness(commands) -> None:
    liveness = commands.add_parser(
        "liveness",
        help="check no-stranded-request under fair reconnects, with a lasso counterexample",
        description=(
            "Check the liveness rule no-stranded-request on the explored graph of the spec, or of faulty design "
            "N, with weak fairness on the client's reconnect, and print a lasso counterexample (a failure where "
            "reemit-pending is a MUST: boundary). The graph is kept whole and unreduced in memory: --max-states "
            "caps it (default 500,000); a lasso found by then is real. A design is judged under boundary only."
        ),
        epilog="Exit codes: 0 holds (or the profile allows the lasso), 1 a lasso or a vacuous graph, 2 usage error, "
        "3 stopped at --max-states with no lasso so far.",
    )
    liveness.set_defaults(handler=_command("liveness", "run"))
    liveness.add_argument("design", type=whole_number, nargs="?", default=None, metavar="N",
                          help=f"a faulty design ({designs.numbers_text()}) instead of the spec")
    _add_bound(liveness, "tiny for the spec; beside a design, liveness = 1 session, 2 streams, 2 events, "
                         "2 server requests, depth 8; numbers given build on it")
    liveness.add_argument("--profile", choices=SESSION_PROFILE_NAMES, default=None, help=f"profile (default: {DEFAULT_PROFILE.value})")
    liveness.add_argument("--max-states", type=positive_int, default=None, metavar="N", help="stop once more than N states are held (default: 500,000), marked incomplete (exit 3)")
    liveness.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the result as JSON")
    liveness.add_argument("--traces", type=output_path, default=None, metavar="DIR", help="write the lasso as JSON, for replay")
    liveness.add_argument("--graph", type=output_path, default=None, metavar="DIR", help="draw the graph bound's states with the lasso's cycle in red (DOT, SVG)")
    liveness.add_argument("--quiet", action="store_true", help="no progress line")


def _add_kill_matrix(commands) -> None:
    matrix = commands.add_parser(
        "kill-matrix",
        help="every faulty design against every checker, under boundary and mcp-2025-11-25",
        description=(
            "Run every faulty design, and every correct variation, against every checker (Hypothesis, the "
            "explorer, Z3 bounded model checking, verify over HTTP) under boundary and mcp-2025-11-25: a "
            "faulty design must be caught, a variation must pass. Minutes, not seconds."
        ),
        epilog="Exit codes: 0 every cell shows what it must, 1 some cell does not, 2 usage error.",
    )
    matrix.set_defaults(handler=_command("kill_matrix", "run"))
    _add_bound(matrix, "kill; the explorer column's")
    matrix.add_argument("--examples", type=positive_int, default=None, metavar="N", help="Hypothesis examples per run, at least 1")
    matrix.add_argument("--workers", type=worker_count, default=None, metavar="N", help="processes for the cells (default: cores, at most 4)")
    matrix.add_argument("--json", type=output_path, default=None, metavar="FILE", help="write the matrix as JSON")
    matrix.add_argument("--markdown", type=output_path, default=None, metavar="FILE", help="write the matrix as Markdown")
    matrix.add_argument("--quiet", action="store_true", help="no progress line")


def _add_graph(commands) -> None:
    graph = commands.add_parser(
        "graph",
        help="draw the spec's state graph, optionally with a faulty design's counterexample in red",
        description=(
            "Draw every state of the spec within a bound (DOT, and SVG with Graphviz): explored.* an overview, "
            "explored-N.* its parts with every arrow labelled (read them with docs/state-graph/README.md). A "
            "bound too big to draw is refused before anything is written."
        ),
        epilog="Exit codes: 0 drawn, 1 drawn with a design's counterexample in red (or Graphviz failed), 2 usage error.",
    )
    graph.set_defaults(handler=_command("graph", "run"))
    graph.add_argument("--out", type=output_path, required=True, metavar="DIR", help="output folder")
    _add_bound(graph, "graph")
    graph.add_argument("--profile", choices=SESSION_PROFILE_NAMES, default=DEFAULT_PROFILE.value, help="profile (default: %(default)s)")
    graph.add_argument("--design", type=whole_number, default=None, metavar="N",
                       help="draw faulty design N's shortest counterexample in red (found within the bound, else the kill bound)")


REPORT_OPTIONS = ("json", "junit", "markdown")
"""The report files a command may write; any one of them may be ``-``, standard output."""


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand. Shared by all of them: SIGINT and SIGTERM end the run with exit 130; an
    output that cannot be written (``OutputError``, or an ``OSError`` naming a file) is one line on
    stderr and exit 2, never a traceback. A report file named ``-`` (``--json -``, ``--junit -`` or
    ``--markdown -``, one of them) is written to stdout, and the rest of the command's output to stderr."""
    from mcp_resume.outputs import is_standard_output, report_to

    parser = build_parser()
    args = parser.parse_args(argv)
    to_stdout = [name for name in REPORT_OPTIONS if is_standard_output(getattr(args, name, None))]
    if len(to_stdout) > 1:
        _command_parser(parser, args.command).error(
            f"only one report can go to standard output ('-'): --{' and --'.join(to_stdout)} both ask for it")
    if to_stdout:  # stdout holds that report alone; everything else the command prints goes to stderr
        report_to(sys.stdout)
        with contextlib.redirect_stdout(sys.stderr):
            return _run(args)
    report_to(None)
    return _run(args)


def _command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The subparser of ``command`` (its usage and prog, e.g. ``mcp-resume verify``), so that an error
    found after parsing is said as argparse says the subcommand's own; ``parser`` if there is none."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(command, parser)
    return parser


def _run(args) -> int:
    from mcp_resume.outputs import OutputError

    interrupts.reset()
    previous = _stop_on_signals()
    unraisable = sys.unraisablehook
    sys.unraisablehook = _quiet_lost_interrupt(unraisable)
    try:
        code = args.handler(args)
        interrupts.raise_if_seen()
        return code
    except KeyboardInterrupt:
        return _interrupted(args.command)
    except Exception as error:
        if interrupts.seen():  # the interrupt surfaced as another error (e.g. ctypes wraps it inside a Z3 call)
            return _interrupted(args.command)
        if isinstance(error, OutputError):
            print(f"mcp-resume {args.command}: error: {error}", file=sys.stderr)
            return EXIT_USAGE
        if isinstance(error, OSError) and error.filename is not None:
            print(f"mcp-resume {args.command}: error: {error.filename}: {error.strerror or error}", file=sys.stderr)
            return EXIT_USAGE
        raise
    finally:
        interrupts.end()
        if not interrupts.seen():  # an interrupted run keeps the quiet hook: its half-built objects die on the way out
            sys.unraisablehook = unraisable
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _interrupted(command: str) -> int:
    print(f"mcp-resume {command}: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def _quiet_lost_interrupt(previous):
    """An unraisable-exception hook that, once the run was interrupted (``interrupts``), drops what
    destructors raise: the ``KeyboardInterrupt`` of our own handler when it lands in a ``__del__``
    ("Exception ignored in ... __del__"), and the errors of objects whose construction it cut short
    (a Z3 ``AstRef`` without its ``ctx``). The run exits 130 anyway. Before an interrupt, every
    unraisable exception goes to ``previous``."""
    def hook(unraisable) -> None:
        if interrupts.seen():
            return
        previous(unraisable)
    return hook


def _stop_on_signals() -> dict:
    """Treat SIGTERM like Ctrl-C, so that started servers are stopped and partial
    reports written on the way out (only in the main thread, where signals land).
    Only the first signal interrupts: later ones are ignored, so that the clean-up
    (removing a scratch folder, stopping servers and workers) is not cut short.
    Returns the handlers it replaced, to be put back when the command ends."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}

    def interrupt(signum, frame):
        interrupts.mark()
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
    return previous


def entry() -> int:
    """The ``mcp-resume`` console command: ``main`` on ``sys.argv``. An interrupted run leaves at once
    with exit 130 (``os._exit`` after flushing): its clean-up ran inside the command, and the
    interpreter's own finalization would free objects the interrupt left half-built."""
    try:
        code = main()
    except KeyboardInterrupt:  # before the command's own handlers were in place (parsing the arguments)
        print("mcp-resume: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if code == EXIT_INTERRUPTED and interrupts.seen():
        _release_semaphores()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)
    return code


def _release_semaphores() -> None:
    """Before ``os._exit``: run ``multiprocessing``'s finalizers that have an exit priority, as
    its own exit handler would. They release the semaphores of the queues of a worker pool the
    interrupt ended (else its resource tracker warns of leaked semaphores once we are gone); the
    ones that join threads have no such priority and stay skipped."""
    util = sys.modules.get("multiprocessing.util")
    run = getattr(util, "_run_finalizers", None)
    if run is not None:
        run(0)


if __name__ == "__main__":
    sys.exit(entry())
