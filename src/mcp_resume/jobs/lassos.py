"""``no-stranded-request`` checked on an explored graph under weak fairness on the client's
reconnect (``model.explore.liveness_check``), printed, written and drawn for ``mcp-resume liveness``.

The spec is walked within ``tiny`` by default, a faulty design within the ``liveness`` bound; the
graph is kept whole and unreduced, so the walk stops at ``max_states`` (default
``LIVENESS_MAX_STATES``): a lasso found by then is real, none found is exit 3. A design is judged
under ``boundary`` only (under an MCP revision the spec itself may leave a request pending); the
spec's lasso under a profile where ``reemit-pending`` is no MUST is ``allowed`` (exit 0: a run the
revision permits); a graph where no request is ever stranded is vacuous (exit 1).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from mcp_resume.jobs.bounds import UsageError
from mcp_resume.jobs.exits import EXIT_FAILED, EXIT_OK, EXIT_UNCHECKED as EXIT_INCOMPLETE
from mcp_resume.jobs.explore_report import write_json
from mcp_resume.model.servers.faulty import DESIGNS
from mcp_resume.outputs import write_output
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import Bounds

LASSO_FILE = "no-stranded-request.lasso.trace.json"

LIVENESS_MAX_STATES = 500_000
"""Where the walk stops without ``max_states``: the graph is kept whole in memory (about 3 kB a
state, 1.5 GB here) and unreduced (the ``default`` bound has millions)."""


def default_bound(design: int | None) -> str:
    """The bound walked unless one is named: ``tiny`` for the spec, ``liveness`` beside a design."""
    from mcp_resume.model.explore import liveness_check

    return liveness_check.SPEC_BOUND if design is None else liveness_check.DESIGN_BOUND_NAME


def check_profile(design: int | None, profile: Profile, given: bool) -> None:
    """``UsageError`` for a design judged under a profile other than ``boundary`` (``given``: the
    command line named it): there ``reemit-pending`` is no MUST and the spec itself may leave a
    server request pending, so a design's lasso is no defect."""
    if design is not None and given and profile is not Profile.BOUNDARY:
        raise UsageError(f"a design's liveness is judged under {Profile.BOUNDARY.value}: under {profile.value} "
                         "reemit-pending is no MUST and the spec itself may leave a server request pending, so a "
                         f"design's lasso there is no defect (see the spec's, allowed, with liveness --profile {profile.value})")


def check_liveness(design: int | None, profile: Profile, name: str | None, bounds: Bounds, console: Console,
                   progress=None, max_states: int | None = None, json_path: Path | None = None,
                   traces: Path | None = None, graph: Path | None = None) -> int:
    """Walk the spec (``design`` ``None``) or faulty design ``design`` within ``bounds`` (called
    ``name`` when named), check ``no-stranded-request``, print the verdict and the lassos, write
    ``json_path``, the first lasso into ``traces`` (``LASSO_FILE``) and its picture into ``graph``.
    The exit code: 0 when no request can stay stranded (or the profile allows it), 1 with a lasso
    or a vacuous graph, 3 when the walk stopped at ``max_states`` with none."""
    from mcp_resume.jobs.pictures import lasso_drawing, write_picture
    from mcp_resume.model.explore import liveness_check

    cap = max_states if max_states is not None else LIVENESS_MAX_STATES
    report = progress.graph if progress else None
    if design is None:
        walked = liveness_check.spec_graph(bounds, profile, cap, report)
    else:
        walked = liveness_check.design_graph(DESIGNS[design], bounds, cap, report)
    if progress:
        progress.done()
    result = liveness_check.check(walked)
    console.print(f"{liveness_check.RULE} on {walked.name} within {(name + ': ') if name else ''}{bounds.describe()}: "
                  f"{len(walked.states):,} states, {walked.transitions:,} transitions, {walked.seconds:.1f} s")
    if walked.stopped:
        default = "" if max_states is not None else " (the default of liveness)"
        console.print(f"[yellow]INCOMPLETE[/]: {walked.stopped}{default}; a lasso found in the part walked is real, "
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
        console.print(liveness_check.requirement(profile), markup=False, highlight=False)
    console.print(f"{walked.name} {text}")
    write_json(json_path, _liveness_json(result, name, design, profile))
    if result.lassos and traces:
        folder = Path(traces)
        folder.mkdir(parents=True, exist_ok=True)
        path = write_output(folder / LASSO_FILE, result.lassos[0].trace(profile).dumps())
        console.print(f"trace: {path} (replay: the prefix, then the cycle twice)")
    code = {"incomplete": EXIT_INCOMPLETE, "holds": EXIT_OK, "allowed": EXIT_OK}.get(verdict, EXIT_FAILED)
    if graph:
        drawn = lasso_drawing(profile, result.lassos[0] if result.lassos else None, design)
        code = max(code, write_picture(Path(graph), drawn, console, command="liveness"))
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
