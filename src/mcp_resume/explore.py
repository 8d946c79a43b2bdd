"""``mcp-resume explore``: walk every state of the spec within bounds, as TLC does.

Modes (one run, one exit code):

- the spec alone (default): the fast explorer within ``--bound`` (default
  ``default``) or explicit ``--sessions/--streams/--events/--requests/--depth``;
  prints the counts, the count of each action and of each decision branch,
  every invariant with its verdict and, for each broken rule, the shortest
  trace; a named bound is compared with the state-space manifest;
- ``--design N``: faulty design N explored beside the spec (default bound
  ``kill``) breadth-first up to the end of the first level with a
  counterexample, with the shortest trace of every rule broken at that depth
  and the count of states it needed (``--first``: stop at the first failing
  step; ``--exhaustive``: walk the whole bound and list every rule broken in
  it);
- ``--kill-matrix``: every faulty design against every checker under
  ``boundary`` and ``mcp-2025-11-25`` (``--markdown FILE`` too);
- ``--liveness``: ``no-stranded-request`` on the explored graph, with weak
  fairness on the client's reconnect (``model.explore.liveness``): the spec
  within ``tiny`` by default, ``--design N`` within the ``liveness`` bound; a
  lasso counterexample is printed, saved with ``--traces DIR``
  (``no-stranded-request.lasso.trace.json``) and drawn with ``--graph DIR``;
  the walk stops at ``--max-states`` (default ``LIVENESS_MAX_STATES``): a lasso
  found by then is real, none found is exit 3; numbers given override its own
  bounds; a design is judged under ``boundary`` only (under an MCP revision the
  spec itself may leave a request pending); the spec's lasso under a profile where
  ``reemit-pending`` is no MUST is ``allowed`` (exit 0: a run the revision permits);
  a graph where no request is ever stranded is vacuous (exit 1);
- ``--graph DIR``: also draw the explored graph (DOT, and SVG with Graphviz:
  ``explored.*`` an overview, ``explored-<n>.*`` its parts with every arrow
  labelled; docs/state-graph/README.md says how to read them), at the ``graph`` bound unless a bound is given, with ``--design N``'s
  shortest counterexample in red (``--design N`` explores its own bound, ``kill``
  by default, and is drawn within the ``graph`` bound unless the given one is
  small enough to draw). The picture is drawn before the run: a bound too big to
  draw is refused at once.

The spec explorer estimates the size of a run before it starts
(``fast.estimate_states``; without symmetry reduction, scaled by a sample) and
refuses one above ``--budget`` (default ``FAST_BUDGET`` states for the fast
engine, ``REFERENCE_BUDGET`` for the reference one), naming the estimate and
the flag; ``--max-states N`` and ``--max-memory MB`` stop a run there, with the
counts so far, marked incomplete. ``--workers N`` splits the fast engine over N
processes (default: cores, at most 4), and with ``--design N`` the levels of at
least ``FORK_AT`` product states; the counts do not depend on N.

Exit codes: 0 everything explored holds (for ``--kill-matrix``: every cell
shows what it must); 1 a rule is broken, a run is vacuous, the counts differ
from the manifest, or a cell of the matrix does not show what it must; 2 bad
usage (unknown bound or design, negative bound, a bound too big to draw or
above the budget, options that mean nothing together, a file in a folder that
does not exist); 3 the run stopped at ``--max-states`` or ``--max-memory``
before exploring everything (nothing broken so far; for ``--liveness``, no lasso so far). Without Graphviz,
``--graph`` writes the DOT file only, and says so.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mcp_resume.jobs.workers import default_workers
from mcp_resume.outputs import output_folder_probe, output_paths_problem, write_output
from mcp_resume.model.harness.coverage import REQUIRED_BRANCHES, branch_label
from mcp_resume.model.explore.estimate import TooLarge, estimate_reference
from mcp_resume.model.explore.result import ExplorationResult
from mcp_resume.model.explore.server import Stop, explore_server
from mcp_resume.spec.space import (
    DEFAULT_BOUND,
    GRAPH_BOUND,
    KILL_BOUND,
    NAMED_BOUNDS,
    Bounds,
    named_bound,
)
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.spec import designs
from mcp_resume.spec.catalog import AGREEMENT
from mcp_resume.spec.decision import BRANCH_RULE
from mcp_resume.spec.invariants import GENERIC_CHECKS, STATE_INVARIANTS, SERVER_CHECKS
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile


EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INCOMPLETE = 0, 1, 2, 3

FAST_BUDGET = 3_000_000
"""States the fast engine explores without ``--budget`` (the default bound: 783,677)."""

REFERENCE_BUDGET = 150_000
"""States the reference engine explores without ``--budget`` (it walks a few thousand states/s)."""


EXPLICIT = ("sessions", "streams", "events", "requests", "depth")


class UsageError(ValueError):
    """Bad command-line input; the message says what and what to do."""


def run_explore(args) -> int:
    """Run ``explore`` for parsed ``args``; return the exit code (module docstring)."""
    try:
        profile = Profile.parse(args.profile or DEFAULT_PROFILE.value)
        bound_name, bounds = resolve_bounds(args)
        if args.design is not None and args.design not in designs.BY_NUMBER:
            raise UsageError(f"unknown design {args.design}; designs are {designs.numbers_text()} (spec/designs.py)")
        _check_options(args)
        problem = (_same_path_problem(args) or output_paths_problem(files=[args.json, args.markdown])
                   or _folders_problem(args.graph, args.traces))
        if problem:
            raise UsageError(problem)
    except (UsageError, ValueError) as error:
        return _error(str(error), EXIT_USAGE)
    console = Console()
    progress = None if args.quiet else ProgressLine()
    if args.kill_matrix:
        return _kill_matrix(args, console, progress)
    if getattr(args, "liveness", False):
        return run_liveness(args, profile, bound_name, bounds, console, progress)
    drawn = None
    if args.graph:  # drawn first: a bound too big to draw is refused before the run, not after it
        try:
            drawn = _draw(args, profile, bounds)
        except UsageError as error:
            return _error(str(error), EXIT_USAGE)
    if args.design is not None:
        code, result = _design(args, profile, bound_name, bounds, console, progress)
    else:
        try:
            code, result = _spec(args, profile, bound_name, bounds, console, progress)
        except TooLarge as error:
            if progress:
                progress.done()
            anyway = "a --budget well above that" if error.partial else f"--budget {error.estimate}"
            return _error(f"{error}; explore it anyway with {anyway}, or stop early with --max-states N / "
                          f"--max-memory MB", EXIT_USAGE)
    if drawn is not None:
        summary = f"{len(drawn.data.states)} states, {len(drawn.data.edges)} edges -> "
        code = max(code, _write_picture(Path(args.graph), drawn, console, summary))
    if args.traces:
        _write_traces(Path(args.traces), result, console)
    return code


def resolve_bounds(args) -> tuple[str | None, Bounds]:
    """The bound to explore and its name (``None`` for explicit numbers).

    ``--bound`` names one; explicit numbers override the corresponding field of
    the named (or default) bound. Without either, ``--liveness`` explores its own
    (``tiny``, or ``liveness`` beside a design), ``--design`` the ``kill`` bound,
    ``--graph`` the ``graph`` bound and the spec the ``default``. ``UsageError``
    for an unknown name, a session count or depth below 1.
    """
    explicit = {name: getattr(args, name) for name in EXPLICIT if getattr(args, name) is not None}
    for name in ("sessions", "depth"):
        if explicit.get(name, 1) < 1:
            raise UsageError(f"--{name} must be at least 1, got {explicit[name]} (0 explores nothing beyond the initial state)")
    liveness = getattr(args, "liveness", False)
    if args.bound:
        name = args.bound
    elif liveness:
        name = _liveness_bound_name(args.design)
    elif args.design is not None or args.kill_matrix:
        name = KILL_BOUND
    elif args.graph:
        name = GRAPH_BOUND
    else:
        name = DEFAULT_BOUND
    base = _named_bound(name, liveness)
    if not explicit:
        return name, base
    values = {field: getattr(base, field) for field in EXPLICIT}
    values.update(explicit)
    bounds = Bounds(**values)
    return (name if bounds == base else None), bounds


def _liveness_bound_name(design: int | None) -> str:
    """``--liveness``'s own bound: ``tiny`` for the spec, ``liveness`` beside a design."""
    from mcp_resume.model.explore import liveness

    return liveness.SPEC_BOUND if design is None else liveness.DESIGN_BOUND_NAME


def _named_bound(name: str, liveness: bool) -> Bounds:
    """The bound called ``name``; ``liveness`` (``--liveness``'s own) among them with ``--liveness``."""
    try:
        return named_bound(name)
    except ValueError as error:
        unknown = str(error)
    from mcp_resume.model.explore.liveness import DESIGN_BOUND_NAME, DESIGN_BOUNDS

    if name != DESIGN_BOUND_NAME:
        raise UsageError(unknown + (f", and with --liveness {DESIGN_BOUND_NAME}" if liveness else ""))
    if not liveness:
        raise UsageError(f"the {DESIGN_BOUND_NAME} bound ({DESIGN_BOUNDS.describe()}) is --liveness's own; "
                         f"give --liveness, or another bound: {', '.join(NAMED_BOUNDS)}")
    return DESIGN_BOUNDS


def _bound_given(args) -> bool:
    """Whether the command line names a bound (``--bound`` or any explicit number)."""
    return bool(args.bound) or any(getattr(args, name) is not None for name in EXPLICIT)


def _same_path_problem(args) -> str | None:
    """Two outputs named by one path (a report that would also be a folder, or overwrite
    another report): refused before the run, so no report is left behind by a failed write."""
    given = [(option, Path(path)) for option, path in (("--json", args.json), ("--markdown", args.markdown),
                                                        ("--traces", args.traces), ("--graph", args.graph))
             if path is not None and path != "-"]
    for index, (option, path) in enumerate(given):
        for other, other_path in given[index + 1:]:
            if path.resolve() == other_path.resolve() and {option, other} != {"--traces", "--graph"}:
                return f"{option} and {other} both name {path}: give each its own path"
    return None


def _folders_problem(*folders) -> str | None:
    """Why an output folder cannot be made when the run ends; nothing is left behind now."""
    for folder in folders:
        if folder is not None and (problem := output_folder_probe(Path(folder))):
            return problem
    return None


def _check_options(args) -> None:
    """Options that mean nothing together are refused, not ignored (``_conflict``)."""
    problem = _conflict(args)
    if problem:
        raise UsageError(problem)


_SPEC_ONLY = ("--max-states", "--max-memory", "--budget")
"""Options of the spec explorer alone (not of --design N, not of --kill-matrix)."""


def _given(args) -> dict[str, bool]:
    """Which options the command line set (defaults are None or False)."""
    names = ("bound", "design", "first", "exhaustive", "liveness", "kill_matrix", "examples", "workers", "profile",
             "engine", "no_symmetry", "markdown", "traces", "graph", "max_states", "max_memory", "budget")
    return {"--" + name.replace("_", "-"): getattr(args, name, None) not in (None, False) for name in names}


def _conflict(args) -> str | None:
    """The first option that means nothing beside the others, as one line; None when they fit."""
    given = _given(args)
    if given["--kill-matrix"]:
        for option in ("--design", "--graph", "--first", "--exhaustive", "--liveness", "--traces", "--engine",
                       "--no-symmetry", "--profile", *_SPEC_ONLY):
            if given[option]:
                return f"{option} does not apply with --kill-matrix (it runs every design under its two profiles)"
        return None
    for option in ("--markdown", "--examples"):
        if given[option]:
            return f"{option} only applies with --kill-matrix"
    for option in ("--first", "--exhaustive"):
        if given[option] and not given["--design"]:
            return f"{option} only applies with --design N"
    if given["--first"] and given["--exhaustive"]:
        return "--first and --exhaustive ask for opposite walks: give one"
    if given["--liveness"]:
        for option in ("--first", "--exhaustive", "--no-symmetry", "--workers", "--max-memory", "--budget"):
            if given[option]:
                return f"{option} does not apply with --liveness"
        if args.engine == "reference":
            return "--engine reference does not apply with --liveness"
        if given["--design"] and args.profile not in (None, Profile.BOUNDARY.value):
            return (f"--liveness --design N is judged under {Profile.BOUNDARY.value}: under {args.profile} "
                    "reemit-pending is no MUST and the spec itself may leave a server request pending, so a "
                    f"design's lasso there is no defect (see the spec's, allowed, with --liveness --profile {args.profile})")
        return None
    if given["--design"]:
        for option in ("--engine", "--no-symmetry", *_SPEC_ONLY):
            if given[option]:
                return f"{option} applies to the spec explorer, not to --design N"
        return None
    if given["--no-symmetry"] and args.engine == "fast":
        return "--no-symmetry needs --engine reference (the fast engine always reduces symmetry)"
    if given["--workers"] and (args.engine == "reference" or given["--no-symmetry"]):
        return "--workers applies to the fast engine; the reference engine runs in one process"
    return None


# -- the spec alone ------------------------------------------------------------------


def _spec(args, profile, bound_name, bounds, console, progress):
    from mcp_resume.model.explore import state_space
    from mcp_resume.model.explore.fast import explore_fast
    from mcp_resume.model.explore.plain import explore_spec

    if progress:
        progress.note(f"explore: the spec under {profile.value}, within {bounds.describe()}")
    limits = {"max_states": args.max_states, "max_memory": args.max_memory}
    workers = args.workers or default_workers()
    if args.engine == "reference" or args.no_symmetry:
        budget = _budget(args, REFERENCE_BUDGET)
        estimate = None if budget is None else estimate_reference(bounds, profile, not args.no_symmetry, budget, workers)
        result = explore_spec(bounds, profile, symmetry=not args.no_symmetry, progress=progress, **limits)
        result.notes["estimated_states"] = estimate
    else:
        result = explore_fast(bounds, profile, progress=progress, workers=workers, budget=_budget(args, FAST_BUDGET), **limits)
    if progress:
        progress.done()
    differences = None
    if bound_name is not None and result.complete and not args.no_symmetry \
            and state_space.expected(bound_name, profile) is not None:
        differences = state_space.differences(bound_name, result)
    print_exploration(result, console, bound_name, differences)
    if result.violations:
        code = EXIT_FAILED
    elif not result.complete:
        code = EXIT_INCOMPLETE
    else:
        code = EXIT_OK if result.holds and not differences else EXIT_FAILED
    _write_json(args.json, {**result.to_json(), "bound_name": bound_name, "manifest_differences": differences})
    return code, result


def _budget(args, default: int) -> int | None:
    """``--budget``, else none when ``--max-states`` or ``--max-memory`` bound the run, else ``default``."""
    if args.budget is not None:
        return args.budget
    return None if args.max_states is not None or args.max_memory is not None else default


# -- one faulty design beside the spec ------------------------------------------------


def _design(args, profile, bound_name, bounds, console, progress):
    factory = DESIGNS[args.design]
    stop = Stop.FIRST if args.first else Stop.NEVER if args.exhaustive else Stop.LEVEL
    if progress:
        walk = "until the first counterexample" if args.first else "the whole bound" if args.exhaustive else \
            "until each rule of the design, or the first level with a counterexample, is done"
        progress.note(f"explore: design {args.design} beside the spec under {profile.value}, within "
                      f"{bounds.describe()} ({walk})")
    expect = designs.design(args.design).breaks(profile)  # LEVEL ends once each has its counterexample
    if bound_name == KILL_BOUND:
        bounds = designs.design(args.design).widened(bounds)  # a design whose counterexample lies beyond it
    workers = args.workers or default_workers()
    result = explore_server(factory, bounds, profile, stop=stop, progress=progress, expect=expect, workers=workers)
    if progress:
        progress.done()
    print_exploration(result, console, bound_name, None)
    _write_json(args.json, {**result.to_json(), "bound_name": bound_name, "design": args.design})
    return (EXIT_FAILED if result.violations or result.vacuous else EXIT_OK), result


# -- the kill matrix --------------------------------------------------------------------


def _kill_matrix(args, console, progress) -> int:
    from mcp_resume.model.explore.kill_matrix import VACUOUS, run_kill_matrix
    from mcp_resume.model.harness.machine import DEFAULT_EXAMPLES

    bounds = resolve_bounds(args)[1]
    note = progress.note if progress else None
    workers = args.workers or default_workers()
    matrix = run_kill_matrix(kill_columns(args.examples, bounds), progress=note, workers=workers)
    if progress:
        progress.done()
    print_kill_matrix(matrix, console)
    _write_json(args.json, matrix.to_json())
    if args.markdown:
        write_output(Path(args.markdown), matrix.to_markdown())
    if any(cell.outcome == VACUOUS for cell in matrix.misses):
        console.print(f"VACUOUS cells: the run never fired some action or took some decision branch; "
                      f"raise --examples (default {DEFAULT_EXAMPLES})")
    return EXIT_OK if matrix.holds else EXIT_FAILED


def kill_columns(examples, bounds):
    """``kill_columns.kill_columns``, imported when the matrix runs (it pulls in Hypothesis, Z3, httpx)."""
    from mcp_resume.jobs.kill_columns import kill_columns as columns

    return columns(examples, bounds)


def print_kill_matrix(matrix, console: Console) -> None:
    """``matrix`` is a ``kill_matrix.KillMatrix``."""
    from mcp_resume.model.explore.kill_matrix import describe_cell

    for profile in sorted({c.profile for c in matrix.cells}, key=lambda p: p is not Profile.BOUNDARY):
        table = Table(title=f"kill matrix under {profile.value}")
        table.add_column("design")
        table.add_column("must be")
        for name in matrix.columns:
            table.add_column(name, overflow="fold")
        for design in dict.fromkeys(c.design for c in matrix.cells):
            row = [str(design), "caught" if matrix.cell(matrix.columns[0], design, profile).expected else "passed"]
            for name in matrix.columns:
                cell = matrix.cell(name, design, profile)
                text = describe_cell(cell)
                style = "dim" if cell.outcome == "not available" else ("green" if cell.as_expected else "bold red")
                row.append(f"[{style}]{text}[/]")
            table.add_row(*row)
        console.print(table)
    for name in matrix.columns:
        console.print(f"[bold]{name}[/]: {matrix.notes.get(name, '')}")
    verdict = "holds: every cell shows what it must" if matrix.holds else f"DOES NOT HOLD: {len(matrix.misses)} cell(s)"
    console.print(f"kill matrix {verdict} ({matrix.seconds:.0f} s)")


# -- the graph ------------------------------------------------------------------------------


def _draw(args, profile, bounds):
    """The picture ``--graph`` asks for: the spec within the run's bound, except that ``--design N``
    without a bound of the user's is drawn within the ``graph`` bound (its run explores ``kill``).
    Raises ``UsageError`` for a bound with too many states to draw."""
    from mcp_resume.model.explore.state_graph import GraphTooLarge

    from mcp_resume.jobs.state_graph import draw_graph

    picture = bounds if _bound_given(args) or args.design is None else named_bound(GRAPH_BOUND)
    try:
        drawn = draw_graph(picture, profile, args.design)
    except GraphTooLarge as error:
        if args.design is None:
            raise UsageError(f"cannot draw: {error}; use --bound {GRAPH_BOUND} or smaller numbers") from None
        picture = named_bound(GRAPH_BOUND)  # the design's run keeps its bound; its picture is the graph bound's
        print(f"note: {error}; the picture is drawn within the {GRAPH_BOUND} bound", file=sys.stderr)
        drawn = draw_graph(picture, profile, args.design)
    if args.design is not None and drawn.trace is None:
        print(f"note: design {args.design} is not caught within the drawn bound ({picture.describe()}) "
              f"nor the kill bound: the picture has no red path", file=sys.stderr)
    return drawn


def _write_picture(folder: Path, drawn, console: Console, summary: str = "") -> int:
    """Write ``drawn`` (DOT, and SVG when Graphviz is installed) into ``folder``; the exit code."""
    from mcp_resume.proofs.diagrams import graphviz

    from mcp_resume.jobs.state_graph import write_graph

    dot_program = graphviz.find_dot()
    if dot_program is None:
        console.print(f"note: no SVG ({graphviz.INSTALL_HINT})")
    try:
        written = write_graph(folder, drawn, dot_program)
    except graphviz.GraphvizError as error:
        return _error(str(error), EXIT_FAILED)
    console.print(f"graph: {summary}" + ", ".join(map(str, written)))
    return EXIT_OK


def print_exploration(result: ExplorationResult, console: Console, bound_name: str | None, differences) -> None:
    """The counts, coverage, invariants and shortest traces of one exploration."""
    summary = Table(title=f"explored {result.server} under {result.profile.value}")
    summary.add_column("measure")
    summary.add_column("value", overflow="fold")
    name = f"{bound_name}: " if bound_name else ""
    rows = [
        ("bound", name + result.bounds.describe()),
        ("engine", f"{result.engine}{' with symmetry reduction' if result.symmetry else ', no symmetry reduction'}"),
        ("distinct states", f"{result.states:,}"),
        ("transitions", f"{result.transitions:,} (+{result.pruned:,} pruned by the bound)"),
        ("depth", f"{result.depth}" + ("" if result.exhausted or result.stopped else f" ({_stopped(result)})")),
        ("states per level", " ".join(map(str, result.levels))),
        ("time", f"{result.seconds:.2f} s, {result.states_per_second:,.0f} states/s"),
        ("coverage", result.coverage.explain()),
    ]
    if differences is not None:
        rows.append(("manifest", "matches" if not differences else "DIFFERS: " + "; ".join(differences)))
    if result.stopped:
        rows.insert(0, ("INCOMPLETE", f"{result.stopped}; the counts are those of the states explored so far"))
    for measure, value in rows:
        summary.add_row(measure, value)
    console.print(summary)
    counts = Table(title="transitions per action and per decision branch")
    counts.add_column("action")
    counts.add_column("transitions", justify="right")
    counts.add_column("branch")
    counts.add_column("transitions", justify="right")
    actions = sorted(result.coverage.actions.items(), key=lambda kv: -kv[1])
    branches = [(b.value, result.coverage.branches.get(b.value, 0)) for b in REQUIRED_BRANCHES]
    for index in range(max(len(actions), len(branches))):
        kind, n = actions[index] if index < len(actions) else ("", "")
        branch, m = branches[index] if index < len(branches) else ("", "")
        counts.add_row(kind, f"{n:,}" if n != "" else "", branch_label(branch) if branch else "", f"{m:,}" if m != "" else "")
    console.print(counts)
    rules = list(STATE_INVARIANTS) + [r for r, _ in SERVER_CHECKS if r != "status"] + [r for r, _ in GENERIC_CHECKS]
    rules += [BRANCH_RULE[branch] for branch in REQUIRED_BRANCHES]  # the status check files findings under these
    rules += [r for r in list(result.violations) + list(result.warnings) if r not in rules]
    invariants = Table(title="invariants, checked in every state and on every transition")
    invariants.add_column("rule")
    invariants.add_column("result")
    invariants.add_column("shortest trace")
    for rule in dict.fromkeys(rules):
        if rule in result.violations:
            invariants.add_row(rule, "[bold red]BROKEN[/]", _steps(result.violations[rule].steps))
        elif rule == AGREEMENT and rule in result.warnings:
            invariants.add_row(rule, "[yellow]note: differs where no rule speaks[/]", _steps(result.warnings[rule].steps))
        elif rule in result.warnings:
            invariants.add_row(rule, "[yellow]broken (not a MUST here)[/]", _steps(result.warnings[rule].steps))
        else:
            invariants.add_row(rule, "[yellow]holds so far[/]" if result.stopped else "[green]holds[/]", "")
    console.print(invariants)
    for violation in list(result.violations.values()) + list(result.warnings.values()):
        console.print(f"[bold]{violation.rule}[/] ({_steps(violation.steps)}): {violation.message}")
        console.print(violation.trace.describe(), markup=False, highlight=False)
    if result.violations:
        verdict = "DOES NOT HOLD"
    elif result.stopped:
        verdict = "INCOMPLETE (nothing broken so far)"
    else:
        verdict = "holds" if result.holds else ("VACUOUS" if result.vacuous else "DOES NOT HOLD")
    console.print(f"{result.server} {verdict} within {result.bounds.describe()}")


_STOPPED = {
    "first": "stopped at the first counterexample",
    "level": "stopped at the end of the first level with a counterexample; --exhaustive walks the whole bound",
}


def _stopped(result: ExplorationResult) -> str:
    """Why a walk ended early and, for a design, how many product states it needed."""
    text = _STOPPED.get(result.notes.get("stop"), _STOPPED["first"])
    if "expanded" in result.notes:
        text += f"; needed {result.states:,} states, {result.notes['expanded']:,} of them expanded"
    return text


def _error(message: str, code: int) -> int:
    """Print ``message`` as the command's one error line on stderr; return ``code``."""
    print(f"mcp-resume explore: error: {message}", file=sys.stderr)
    return code


def _steps(count: int) -> str:
    return f"{count} step" if count == 1 else f"{count} steps"


def _write_json(path, data) -> None:
    if path is not None:
        write_output(Path(path), json.dumps(data, indent=2) + "\n")


def _write_traces(folder: Path, result: ExplorationResult, console: Console) -> None:
    """Write each counterexample as ``FOLDER/<server>-<rule>.json``; name the traces of the
    same server an earlier run left there for rules this run did not break (kept as they are)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = set()
    for registry in (result.violations, result.warnings):
        for rule, violation in registry.items():
            path = folder / f"{result.server}-{rule}.json"
            write_output(path, violation.trace.dumps())
            written.add(path.name)
            console.print(f"trace: {path}", markup=False, highlight=False, soft_wrap=True)
    for path in sorted(folder.glob(f"{result.server}-*.json")):
        if path.name not in written:
            console.print(f"[yellow]note[/]: {escape(str(path))} is an earlier run's trace: this run did not break its rule",
                          soft_wrap=True)


class ProgressLine:
    """One status line on stderr, at most once a second: states, transitions, depth, rate."""

    def __init__(self, interval: float = 1.0) -> None:
        self.interval = interval
        self.last = 0.0
        self.tty = sys.stderr.isatty()
        self.shown = False

    def __call__(self, result: ExplorationResult) -> None:
        if not self._due():
            return
        forms = result.notes.get("forms_so_far")
        if forms is not None:
            self._show(f"expanding session forms: {forms:,} forms within {_steps(result.depth)}, {result.seconds:.0f} s")
            return
        self._show(f"explored {result.states:,} states, depth {result.depth}, "
                   f"{result.seconds:.0f} s, {result.states_per_second:,.0f} states/s")

    def note(self, text: str) -> None:
        self._show(text, force=True)

    def graph(self, states: int, depth: int, seconds: float) -> None:
        """Progress of a graph walked for ``--liveness`` (``liveness.Progress``)."""
        if self._due():
            self._show(f"walking the graph: {states:,} states, depth {depth}, {seconds:.0f} s")

    def _due(self) -> bool:
        now = time.monotonic()
        if now - self.last < self.interval:
            return False
        self.last = now
        return True

    def _show(self, text: str, force: bool = False) -> None:
        if self.tty:
            sys.stderr.write("\r\033[K" + text)
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown and self.tty:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


# -- liveness -------------------------------------------------------------------------------

LASSO_FILE = "no-stranded-request.lasso.trace.json"


LIVENESS_MAX_STATES = 500_000
"""Where ``--liveness`` stops without ``--max-states``: the graph is kept whole in memory
(about 3 kB a state, 1.5 GB here) and unreduced (the ``default`` bound has millions)."""


def run_liveness(args, profile: Profile, name: str | None, bounds: Bounds, console: Console,
                 progress: "ProgressLine | None" = None) -> int:
    """``explore --liveness`` within ``bounds`` (``resolve_bounds``; ``name`` when named): exit 0
    when no request can stay stranded, 1 with a lasso or a vacuous graph, 3 when the walk
    stopped at ``--max-states`` (default ``LIVENESS_MAX_STATES``) with none."""
    from mcp_resume.model.explore import liveness

    cap = args.max_states if args.max_states is not None else LIVENESS_MAX_STATES
    report = progress.graph if progress else None
    if args.design is None:
        graph = liveness.spec_graph(bounds, profile, cap, report)
    else:
        graph = liveness.design_graph(DESIGNS[args.design], bounds, cap, report)
    if progress:
        progress.done()
    result = liveness.check(graph)
    console.print(f"{liveness.RULE} on {graph.name} within {(name + ': ') if name else ''}{bounds.describe()}: "
                  f"{len(graph.states):,} states, {graph.transitions:,} transitions, {graph.seconds:.1f} s")
    if graph.stopped:
        default = "" if args.max_states is not None else " (the default with --liveness)"
        console.print(f"[yellow]INCOMPLETE[/]: {graph.stopped}{default}; a lasso found in the part walked is real, "
                      "its absence proves nothing")
    console.print("fairness: weak, on each held live session's resumption (reconnect without Last-Event-ID)")
    for lasso in result.lassos:
        console.print(lasso.describe(), markup=False, highlight=False)
    verdict = result.verdict
    text = {"incomplete": "holds so far (no lasso in the states walked)", "holds": "holds",
            "broken": f"DOES NOT HOLD: {len(result.lassos)} lasso(s)",
            "allowed": f"does not hold, as {profile.value} allows: {len(result.lassos)} lasso(s)",
            "vacuous": ("VACUOUS: no state of the graph strands a request, so the rule was never put to "
                        "the test; widen the bound (--requests, --depth)")}[verdict]
    if result.lassos:
        console.print(liveness.requirement(profile), markup=False, highlight=False)
    console.print(f"{graph.name} {text}")
    _write_json(args.json, _liveness_json(result, name, args.design, profile))
    if result.lassos and args.traces:
        folder = Path(args.traces)
        folder.mkdir(parents=True, exist_ok=True)
        path = write_output(folder / LASSO_FILE, result.lassos[0].trace(profile).dumps())
        console.print(f"trace: {path} (replay: the prefix, then the cycle twice)")
    code = {"incomplete": EXIT_INCOMPLETE, "holds": EXIT_OK, "allowed": EXIT_OK}.get(verdict, EXIT_FAILED)
    if args.graph:
        code = max(code, _liveness_graph(args, profile, result, console))
    return code


def _liveness_json(result, bound_name, design, profile: Profile) -> dict:
    graph = result.graph
    return {"rule": "no-stranded-request", "server": graph.name, "design": design, "profile": profile.value,
            "bound_name": bound_name,
            "bounds": graph.bounds.to_json(), "states": len(graph.states), "transitions": graph.transitions,
            "seconds": round(graph.seconds, 3), "holds": None if result.verdict == "incomplete" else result.verdict == "holds", "stopped": graph.stopped,
            "verdict": result.verdict, "required": result.required,
            "vacuous": result.vacuous, "stranded_states": result.stranded_states,
            "lassos": [lasso.trace(profile).to_json() for lasso in result.lassos]}


def _liveness_graph(args, profile, result, console) -> int:
    from mcp_resume.model.explore.state_graph import add_lasso

    from mcp_resume.jobs.state_graph import draw_graph, drawing

    drawn = draw_graph(named_bound(GRAPH_BOUND), profile)
    if result.lassos:
        lasso = result.lassos[0]
        add_lasso(drawn.data, lasso, DESIGNS[args.design]() if args.design is not None else None)
        title = f"spec states within {named_bound(GRAPH_BOUND).describe()}; red: the cycle of {lasso.server}'s lasso"
        drawn = drawing(drawn.data, title)
    return _write_picture(Path(args.graph), drawn, console)

