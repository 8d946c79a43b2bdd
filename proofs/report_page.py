"""The Markdown reports of the proofs: ``DECISION.md`` (the decision queries) and
``REPORT.md`` (the transition system of one profile).

Pure text from results: no resource counts, no times, so a report changes only
when a result, a core, a counterexample or the wording does. ``artifacts``
writes them next to the results files.
"""

from __future__ import annotations

from mcp_resume.spec.catalog import level
from mcp_resume.spec.profiles import Profile

from mcp_resume.proofs.decision.queries import QueryResult
from mcp_resume.proofs.solving import SatResult, ProofStatus
from mcp_resume.proofs.system.bmc import BmcResult, Replay
from mcp_resume.proofs.system.invariants import INDUCTIVE, STEP_PROPERTIES, STRENGTHENING_INVARIANTS
from mcp_resume.proofs.system.faulty_systems import LEFT_OUT
from mcp_resume.proofs.system.proofs import (
    ALONE, CONSECUTION, ENABLED, INITIATION, INVARIANT_FREE, VACUITY, ProofResult, required, tally,
)
from mcp_resume.proofs.system.vocabulary import ActionKind

REGENERATE = "mcp-resume prove --out proofs/results"
"""The command that rewrites the committed results of the default profile."""


# -- the decision ---------------------------------------------------------------------------


def decision_report(results: list[QueryResult], spec_digest: str) -> str:
    """``DECISION.md``: run parameters, then one table row per query (no resource counts)."""
    held = sum(r.holds for r in results)
    first = results[0] if results else None
    lines = [
        "# Decision proofs",
        "",
        "Z3 queries over the reconnect decision (docs/decision.md), checked against "
        "`mcp_resume.spec.decision.decide_class`.",
        "",
        f"- queries holding: {held} of {len(results)}",
        f"- spec sha256: `{spec_digest}`",
    ]
    if first is not None:
        lines += [
            f"- Z3 {first.z3_version}, random seed {first.random_seed}, "
            f"rlimit {first.rlimit} resource units per query",
        ]
    lines += [
        "",
        "| query | expected | result | holds | witness | what it shows | sources |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        cells = [
            f"`{r.query}`", r.expected.value, r.result.value, "yes" if r.holds else "**NO**",
            _witness_text(r), r.description, ", ".join(r.sources),
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _witness_text(result: QueryResult) -> str:
    if result.witness is None:
        return result.reason_unknown or "-"
    return ", ".join(f"{k}={v}" for k, v in result.witness.items())


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")



# -- the transition system ---------------------------------------------------------------


def system_report(profile: Profile, proofs: list[ProofResult], bmc: list[BmcResult], replays: dict[int, Replay],
                  results_name: str = "results.json", agreement: dict | None = None) -> str:
    """``REPORT.md`` of one profile: summary, the obligation matrix, what each guarantee
    rests on, the strengthening, non-vacuity, the bounded runs of the faulty designs.
    No resource counts, times or hashes (those change without the results changing);
    ``results_name`` is the results file it points to; ``agreement`` the figures of
    the agreement check both ways, one run (``AgreementFigures.to_json``) or the wide
    and deep runs of ``prove`` (``ProveAgreement.to_json``), when run."""
    first = proofs[0] if proofs else None
    failing = [r for r in proofs if r.holds is False and required(r)]
    waived = [r for r in proofs if r.holds is False and not required(r)]
    lines = [
        f"# Transition-system proofs ({profile.value})",
        "",
        "Z3 proves the invariants of the rule catalog (spec/catalog.py) for the state machine of `spec.transitions`, for any",
        "number of sessions, streams, events and server requests (unbounded: uninterpreted sorts,",
        "many-sorted EPR), and finds a shortest run for every faulty design of model/servers/faulty.py by bounded",
        f"model checking. Regenerate with `{REGENERATE}`.",
        "",
        f"- required obligations of `{profile.value}`: {tally(proofs).describe()}",
        f"- {TRIVIAL_MEANS} (section [Trivial obligations](#trivial-obligations))",
        f"- faulty designs caught: {sum(1 for b in bmc if b.caught)} of the {len(bmc)} searched; traces confirmed by "
        f"replay: {sum(1 for b in bmc if b.design in replays and replays[b.design].confirmed)}; left out of the "
        "search: " + ("; ".join(f"design {n} ({why})" for n, why in LEFT_OUT.items()) or "none"),
        f"- every query, its result, unsat core and fragment: `{results_name}` (with the spec's sha256)",
    ]
    if first is not None:
        lines.append(f"- Z3 {first.z3_version}, random seed {first.random_seed}, rlimit {first.rlimit} resource units per query")
    if failing:
        lines += ["", "**Required obligations that do not hold:** " + ", ".join(f"`{r.query}`" for r in failing)]
    lines += _matrix(proofs)
    lines += _fragments(proofs, bmc)
    lines += _rests_on(proofs)
    lines += _strengthening(proofs)
    lines += _enabled(proofs)
    lines += _applicability(proofs)
    lines += _trivial(proofs)
    lines += _agreement(agreement)
    if waived:
        lines += _waived(profile, waived)
    lines += _bmc(profile, bmc, replays)
    lines += _statements()
    return "\n".join(lines) + "\n"


def _matrix(proofs: list[ProofResult]) -> list[str]:
    by_query = {r.query: r for r in proofs}
    kinds = list(ActionKind)
    lines = [
        "", "## Initiation and consecution, per action", "",
        "`yes`: proven by induction: unsat as expected (the invariant holds), its unsat core names an "
        "invariant assumed before the step, and its vacuity query found a step that meets its antecedent; "
        "`no inv.`: unsat as expected with no invariant in its core (invariant-free); `trivial`: unsat from the "
        "action's effect equations alone, true of every step, not counted as proven (see below); "
        "`n/a`: not applicable, no query asked (the action cannot touch it; see below); "
        "`vacuous`: proven only because no step meets its antecedent; `NO`: a counterexample to induction "
        "(below); `unknown`: Z3 ran out of its resource limit, neither proven nor refuted (raise `--rlimit`); "
        "`no (not required)`: the profile does not make the rule a MUST.", "",
        "Actions: " + ", ".join(f"{i + 1} `{k.value}`" for i, k in enumerate(kinds)), "",
        "| invariant | rule | kind | initiation | " + " | ".join(str(i + 1) for i in range(len(kinds))) + " |",
        "|---|---|---|---|" + "---|" * len(kinds),
    ]
    for invariant in INDUCTIVE + STEP_PROPERTIES:
        init = by_query.get(f"{INITIATION}.{invariant.id}")
        cells = [_mark(by_query.get(f"{CONSECUTION}.{invariant.id}.{k.value}")) for k in kinds]
        lines.append(f"| `{invariant.id}` | {invariant.rule or '(strengthening)'} | {invariant.kind} | {_mark(init)} | " + " | ".join(cells) + " |")
    return lines


def _mark(result: ProofResult | None) -> str:
    if result is None:
        return "-"
    if result.verdict is ProofStatus.NOT_APPLICABLE:
        return "n/a"
    if result.vacuous:
        return "**vacuous**"
    if result.trivial:
        return "trivial"
    if result.grounds == INVARIANT_FREE:
        return "no inv."
    if result.holds:
        return "yes"
    if result.verdict is ProofStatus.UNKNOWN:
        return "unknown"
    return "no (not required)" if not required(result) else "**NO**"


def _yes_no(result: ProofResult) -> str:
    if result.verdict is ProofStatus.UNKNOWN:
        return "unknown"
    return "yes" if result.holds else "**NO**"


def _fragments(proofs: list[ProofResult], bmc: list[BmcResult]) -> list[str]:
    counts: dict[str, int] = {}
    for r in proofs:
        counts[r.fragment] = counts.get(r.fragment, 0) + 1
    for b in bmc:
        counts[b.fragment] = counts.get(b.fragment, 0) + 1
    lines = ["", "## Decidable fragment of each query", "", "| fragment | queries |", "|---|---|"]
    lines += [f"| {name} | {n} |" for name, n in sorted(counts.items())]
    lines += ["", "Per query in the results file (`fragment`). The proof queries use only functions "
              "RequestId -> EventId -> StreamId -> SessionId (and RequestId -> SessionId, StreamId) and "
              "quantifier alternations that follow those edges, so Skolemization closes no cycle; bounded "
              "model checking expands every quantifier over its finite scope."]
    return lines


def _rests_on(proofs: list[ProofResult]) -> list[str]:
    lines = ["", "## What each guarantee rests on (unsat cores)", "",
             "The union, over the actions, of the named facts the consecution proofs used (`goal`, the "
             "negated invariant, omitted). `inv.*` are invariants assumed before the step, `tr.<action>.*` "
             "conjuncts of the transition formulas, `def.*` definitions of the step's header classes and "
             "statuses, `axiom.*` facts about event order.", "",
             "| invariant | invariants used | axioms used | transition conjuncts used (by action) |", "|---|---|---|---|"]
    for invariant in INDUCTIVE + STEP_PROPERTIES:
        used = [r for r in proofs if r.kind == CONSECUTION and r.invariant == invariant.id and r.holds]
        names = sorted({n for r in used for n in r.core if n != "goal"})
        invariants = [n[4:] for n in names if n.startswith("inv.")]
        axioms = [n[6:] for n in names if n.startswith("axiom.")]
        by_action = []
        for r in used:
            parts = [n for n in r.core if n.startswith(("tr.", "def."))]
            if parts:
                mark = " (trivial)" if r.trivial else ""
                by_action.append(f"{r.action}{mark}: " + ", ".join(_short(n, r.action) for n in parts))
        lines.append(f"| `{invariant.id}` | {', '.join(invariants) or '-'} | {', '.join(axioms) or '-'} | "
                     + ("; ".join(by_action) or "-") + " |")
    return lines


def _short(name: str, action: str | None) -> str:
    prefix = f"tr.{action}."
    return name[len(prefix):] if action and name.startswith(prefix) else name


def _strengthening(proofs: list[ProofResult]) -> list[str]:
    lines = ["", "## Inductive alone? The strengthening", "",
             "Each state invariant assuming only itself, against every action at once. When it is not "
             "inductive alone, the counterexample to induction shows why; the strengthening written down for it "
             "(`proofs/system/invariants.py`, `needs`) is what its consecution proofs assume besides itself.", ""]
    for invariant in INDUCTIVE:
        alone = next((r for r in proofs if r.kind == ALONE and r.invariant == invariant.id), None)
        if alone is None:
            continue
        declared = ", ".join(f"`{n}`" for n in invariant.needs) or "nothing"
        if alone.result is SatResult.UNSAT:
            lines.append(f"- `{invariant.id}`: inductive alone (its consecution proofs assume {declared} besides).")
            continue
        lines += [f"- `{invariant.id}`: **not** inductive alone ({alone.result.value}); its strengthening: {declared}.",
                  "", "```text", alone.counterexample or alone.reason_unknown or "", "```", ""]
    lines += ["", "Strengthening invariants (proven like the others):", ""]
    lines += [f"- `{i.id}`: {i.statement}" for i in STRENGTHENING_INVARIANTS]
    return lines


def _enabled(proofs: list[ProofResult]) -> list[str]:
    lines = ["", "## Every action can happen", "",
             "Every action can happen from some state satisfying the inductive invariant (sat), and both "
             "resumptions can succeed and deliver something.", "",
             "| query | result | holds |", "|---|---|---|"]
    lines += [f"| `{r.query}` | {r.result.value} | {_yes_no(r)} |" for r in proofs if r.kind == ENABLED]
    return lines


def _applicability(proofs: list[ProofResult]) -> list[str]:
    vacuity = [r for r in proofs if r.kind == VACUITY and r.verdict is not ProofStatus.NOT_APPLICABLE]
    skipped = [r for r in proofs if r.kind in (INITIATION, CONSECUTION) and r.verdict is ProofStatus.NOT_APPLICABLE]
    how: dict[str, int] = {}
    for r in skipped:
        key = r.applicability.split(":")[0]
        how[key] = how.get(key, 0) + 1
    vacuous = [r.of for r in vacuity if r.result is SatResult.UNSAT]
    lines = ["", "## Applicability and vacuity", "",
             "The antecedent of a property is what must hold for it to say anything (the guards of its "
             "implications, `proofs/system/vacuity.py`). An obligation is *not applicable* when the action "
             "cannot meet it: decided structurally (the action's kind, the relations it frames, whether it "
             "delivers; no solver) or, failing that, by a query on the action's transition formula alone (no "
             "axiom, no invariant: unsat). Not applicable is never counted as proven. Every applicable "
             "consecution has a vacuity query: its antecedent together with the axioms, the whole inductive "
             "invariant and the action (sat expected); unsat would make the consecution *vacuous*, and "
             "`prove` fails.", "",
             f"- not applicable: {len(skipped)} ("
             + ", ".join(f"{n} {k}" for k, n in sorted(how.items())) + ")",
             f"- vacuity queries: {len(vacuity)}, witnessed {sum(1 for r in vacuity if r.result is SatResult.SAT)}, "
             f"vacuous {len(vacuous)}, unknown {sum(1 for r in vacuity if r.result is SatResult.UNKNOWN)}"]
    if vacuous:
        lines.append("- **vacuous:** " + ", ".join(f"`{q}`" for q in vacuous))
    lines += ["", "| not applicable | why |", "|---|---|"]
    lines += [f"| `{r.query}` | {_cell(r.applicability or '')} |" for r in skipped]
    return lines


TRIVIAL_MEANS = ("proven by induction: a consecution unsat as expected whose unsat core names an invariant "
                 "assumed before the step; invariant-free: unsat with no invariant in its core (the step's "
                 "encoding meets the property's: two hand encodings agreeing); initiations hold of the initial "
                 "state, enabled witnesses are satisfiable queries; trivial: unsat from the action's effect "
                 "equations alone (no axiom, no invariant, no initial state, no guard), so it holds of every "
                 "step, reachable or not; only the first count as proofs of the steps")
"""The headline's one-line definition of the two classes (``proofs.system.triviality``)."""


def _trivial(proofs: list[ProofResult]) -> list[str]:
    trivial = [r for r in proofs if r.trivial and required(r)]
    lines = ["", "## Trivial obligations", "",
             "An initiation or consecution answered unsat is read again with the action's *effect equations* "
             "alone: which action it is (`kind`, `no-headers`), the state relations after the step (each update "
             "or frame condition) and what it shows (`delivered`, `closed`, `tr.obs.*`, the stream a reconnect "
             "names). Left out: the axioms, the initial state, the invariant hypotheses and the action's guards "
             "(`enabled`, `fresh-*`, `status`, `dealing-events` and the `def.*` definitions the decision and "
             "the guards read). When the goal is still unsat, the obligation is *trivial*: it holds of every step "
             "of the action from any state, whatever the decision chooses, because the encoding restates it or "
             "the frame conditions carry it. It is true but shows nothing about the spec, so it is not counted "
             "as proven. When the original unsat core uses only effect equations it is the proof and no query "
             "is asked; an unknown answer is filed trivial (`proofs/system/triviality.py`).", "",
             f"- trivial: {len(trivial)}; initiations and consecutions answered as expected otherwise: "
             f"{_proven_steps(proofs)}", "",
             "| trivial obligation | what settles it |", "|---|---|"]
    lines += [f"| `{r.query}` | {_cell(r.triviality or '')} |" for r in trivial]
    return lines


def _proven_steps(proofs: list[ProofResult]) -> int:
    return sum(1 for r in proofs if r.proven and required(r) and r.kind in (INITIATION, CONSECUTION))


def _agreement(figures: dict | None) -> list[str]:
    """The agreement section: one run (``AgreementFigures.to_json``) or several by name
    (``ProveAgreement.to_json``)."""
    if figures is None:
        return []
    runs = figures.items() if "bounds" not in figures else [(None, figures)]
    lines = ["", "## Agreement of the encoding with `spec.transitions`, both ways"]
    for name, run in runs:
        lines += _agreement_run(name, run)
    return lines


def _agreement_run(name: str | None, figures: dict) -> list[str]:
    forward, converse = figures["spec_to_formulas"], figures["formulas_to_spec"]
    title = f"{name.capitalize()} run, within" if name else "Within"
    lines = ["", f"{title} {figures['bounds']}:", "",
             f"- every spec step satisfies the formulas: {forward['transitions']} steps from {forward['states']} "
             f"states checked ({forward.get('reemissions', 0)} of them re-emit a server request), "
             f"{len(forward['problems'])} disagreements",
             f"- every successor the formulas allow (reference statuses, finite scope) is a step the spec takes: "
             f"{converse['states']} states, {converse['successors']} spec successors matched, "
             f"{len(converse['problems'])} disagreements"]
    lines += [f"  - {_cell(p)}" for p in forward["problems"] + converse["problems"]]
    return lines


def _waived(profile: Profile, waived: list[ProofResult]) -> list[str]:
    lines = ["", f"## Where {profile.value} differs from boundary", "",
             f"These step properties do not hold for the transition system of `{profile.value}`, whose level "
             "for the rule is not MUST; each counterexample is a step this profile allows.", ""]
    for r in waived:
        lines += [f"### `{r.query}` ({r.rule}: {level(r.rule, profile).value} under {profile.value})", "", "```text",
                  r.counterexample or r.reason_unknown or "", "```", ""]
    return lines


def _caught(b: BmcResult) -> str:
    if b.caught:
        return "yes"
    return f"unknown at depth {len(b.depths)}" if b.verdict is ProofStatus.UNKNOWN else "no"


def _bmc(profile: Profile, bmc: list[BmcResult], replays: dict[int, Replay]) -> list[str]:
    lines = ["", "## Faulty designs: shortest violating runs (bounded model checking)", "",
             "One query per design: a script that checks depths 1, 2, ... in order on one incremental "
             "solver; every depth below the one reported has no violating run (unsat, within the scope). Each trace is replayed against the design's in-process server (it "
             "must raise a counterexample), the spec and the reference server (both must pass).", "",
             "| design | caught | depth | rule (Z3) | rule (replay) | replay on design | on spec | on reference | "
             "scope |", "|---|---|---|---|---|---|---|---|---|"]
    for b in bmc:
        replay = replays.get(b.design)
        yes = lambda flag, replay=replay: "-" if replay is None else ("yes" if flag else "**NO**")
        scope = ", ".join(f"{v} {k}" for k, v in b.scope.items())
        lines.append(
            f"| {b.design} | {_caught(b)} | {b.depth or '-'} | {b.rule or '-'} | "
            f"{replay.rule if replay and replay.rule else '-'} | {yes(replay and replay.on_design)} | "
            f"{yes(replay and replay.on_spec)} | {yes(replay and replay.on_reference)} | {scope} |")
    for b in bmc:
        if b.trace is None:
            continue
        lines += ["", f"### Design {b.design}", "", "```text", b.trace.describe(), "```", "", "<details><summary>the run, "
                  "step by step (what the faulty server showed)</summary>", "", "```text", b.run or "", "```", "", "</details>"]
    return lines


RULE_NOTES: dict[str, str] = {
    "replay-suffix": "step property; delivery is a set in the encoding, read in event order (`lt`), so a reorder "
                     "is not expressible and not claimed here (the Hypothesis checks compare sequences)",
    "no-cross-session": "state invariant on the client's cursors and step property on every delivery, over the "
                        "connection that carried it (`on`): no event goes out on a connection of another session",
    "no-replay-on-session-resume": "step property",
    "no-reemit-on-stream-resume": "step property",
    "no-broadcast": "state invariant (a request has at most one carrying stream, of its session) and step property "
                    "(MCP B21: a request sent anew, issued in the step or re-emitted, goes out on one stream only, and "
                    "not while an open connection of another stream carries it pending), and no event goes out "
                    "on two streams' connections at once (`on`, the message's place apart from its event id: "
                    "design 21)",
    "reemit-pending": "step property: every pending request whose carrier has no open connection is re-emitted or "
                      "cancelled (boundary only: the MCP revisions also let a session resumption leave it pending)",
    "reemit-keeps-pending": "step property: a re-emitted request is re-emitted again while pending, a session "
                            "resumption resolves nothing, and only an answer or a cancellation ends a pending request",
    "reject-orphan-event-id": "step property: 400, nothing delivered, state unchanged",
    "reject-foreign-event-id": "step property: a non-404 4xx, nothing delivered, state unchanged (boundary only)",
    "unknown-session-404": "step property: 404, nothing delivered, state unchanged",
    "session-identity-stable": "step property; its state half (one session per id) holds by construction, a "
                               "session being one element of `SessionId`",
    "expiry-independent": "state invariant (an ended session's streams are expired) and step property (expiring a "
                          "stream ends no session, closes no other connection)",
    "event-id-unique": "state invariant (every event id resolves to one stream and one session) and step property "
                       "(every delivered id resolves); uniqueness itself holds by construction, an event being one "
                       "element of `EventId` with one `stream_of`",
    "server-request-ownership": "three state invariants (first stream, carrying events, the client's holdings) and "
                                "a step property on every delivery",
    "no-duplicate-tool-call": "end to end, stated as what the state machine can say: a request naming a live session "
                              "is never answered 404 (the only answer after which a client following B34 re-runs "
                              "its tools/call in a new session)",
    "standalone-stream-scope": "step property: a server action on a call's POST stream sends its event on that "
                               "stream's connection only (`on`: a response sent on another stream is design 32, "
                               "a MUST NOT of B18/D21 in every revision), and a call's message sent on the GET "
                               "stream comes with its own event; for the spec this follows from the encoding "
                               "(an event goes out on its own stream's connection), so Z3 shows the two "
                               "encodings agree, and the bounded search shows the property catches design 32",
}
"""How each rule of docs/design.md §4 is stated in the encoding."""

_STATUS_BRANCH = ("a branch of the decision table: its status is proven by the decision queries (total, exclusive, "
                  "reachable, agreeing with `spec.decision`: `mcp-resume check`, `proofs/decision/`), not by the "
                  "transition system, whose requests carry an issued, unknown or no session id")
_SESSIONLESS = ("a rule of the sessionless 2026-07-28 revision, which has no sessions to resume: its checks "
                "(`spec/sessionless/checks.py`) judge that revision's own state machine, explored exhaustively "
                "(`model/sessionless/sessionless_explore.py`); it is not encoded in Z3")

NOT_STATED: dict[str, str] = {
    "missing-session-400": _STATUS_BRANCH,
    "malformed-session-400": _STATUS_BRANCH,
    "new-session-on-initialize": _STATUS_BRANCH,
    "session-delete": _STATUS_BRANCH + "; its second half (404 afterwards) is unknown-session-404's step property",
    "priming-event": "a property of a stream's first bytes (an id and empty data, MCP D8): events in the encoding "
                     "carry no payload, and the unbounded encoding admits events that carry no request (padding) "
                     "on every new stream",
    "protocol-version-accepted": "a property of a request header (MCP-Protocol-Version, C40/D45): the actions of "
                                 "the transition system carry no protocol version",
    "unsupported-version-400": "a property of a request header (MCP-Protocol-Version, C40/D45): the actions of "
                               "the transition system carry no protocol version",
    "retry-before-close": "a property of a stream's bytes (the SSE retry field, D10, D23): events in the "
                          "encoding carry no payload",
    "call-answered": "the vocabulary tells no response from another event, so a call's stream ending without its "
                     "response cannot be stated (designs 33 and 34 are left out of the search for it)",
    "cancel-notifies": "the cancellation is the cancel_request step's own effect (an event that `cancels` the "
                       "request, on its carrying stream): a step property would be trivial, with nothing to induct; "
                       "the explorer and the Hypothesis machine judge the spec's servers on it",
    "sessionless-get-405": _SESSIONLESS,
    "sessionless-ignores-headers": _SESSIONLESS,
    "sessionless-request-scope": _SESSIONLESS,
    "sessionless-no-server-requests": _SESSIONLESS,
    "sessionless-close-cancels": _SESSIONLESS,
    "sessionless-input-required-retry": _SESSIONLESS,
    "sessionless-request-validated": _SESSIONLESS,
    "sessionless-notification-202": _SESSIONLESS,
}
"""The catalog's rules the transition system does not state, and why (every other rule is in ``RULE_NOTES``)."""


def _statements() -> list[str]:
    lines = ["", "## How each rule of the catalog is stated", "", "| rule | stated as |", "|---|---|"]
    lines += [f"| {rule} | {note} |" for rule, note in RULE_NOTES.items()]
    lines += ["", "Rules of the catalog not stated here, and why:", "", "| rule | why not |", "|---|---|"]
    lines += [f"| {rule} | {why} |" for rule, why in NOT_STATED.items()]
    lines += ["", "Modelling notes: the unbounded encoding lets a session resumption's new stream carry, besides "
              "one fresh event per pending server request, events that carry no request (padding, like the "
              "priming events of D8); saying \"no other event\" would need a function from events back to "
              "requests and leave EPR. Bounded model checking adds that constraint. Agreement of the encoding "
              "with `spec.transitions` is checked on every step of two bounded explorations (above), and by "
              "`tests/fast/test_proof_agreement.py` and `tests/slow/test_proof_agreement.py` on more.",
              "", "## The invariants", "", "| id | rule | kind | statement |", "|---|---|---|---|"]
    lines += [f"| `{i.id}` | {i.rule or '-'} | {i.kind} | {i.statement} |" for i in INDUCTIVE + STEP_PROPERTIES]
    return lines
