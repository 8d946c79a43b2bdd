"""Drive a server under test and the spec side by side, one action at a time.

For every action the checker computes the spec's transition, applies the action
to the server (in the server's ids), translates what the server did back to the
spec's handles, and judges it with the spec's invariants (``spec.invariants``)
under the chosen profile. The first finding whose verdict is FAIL (a MUST broken,
or a disagreement no rule names) raises ``Counterexample`` carrying the trace so
far, which replays against any adapter (``replay``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from mcp_resume.spec.actions import Action, CallTool, EmitEvent, ExpireSession, IssueServerRequest, describe
from mcp_resume.spec.catalog import AGREEMENT
from mcp_resume.spec.decision import Branch
from mcp_resume.spec.invariants import (
    Finding, check_sanity, check_state, check_transition, comparable, distinct_rejections, judged_rules,
)
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.state import INITIAL_STATE, State
from mcp_resume.spec.trace import Failure, Trace
from mcp_resume.spec.transitions import (
    Delivered, Observation, Pending, Transition, enabled, ended_at_will, exact_after_eviction, planned, step,
    step_if_enabled,
)
from mcp_resume.spec.verdicts import Verdict, verdict_for_finding

from mcp_resume.model.servers.adapter import ServerUnderTest, Unsupported, Violation
from mcp_resume.model.servers.idmap import UNMAPPED_PREFIX, IdMap
from mcp_resume.model.harness.trace_edits import not_enabled_error


@dataclass(frozen=True, slots=True)
class StepReport:
    """One step: the action (spec handles), what the spec expects, what the server
    did (translated to handles), every finding, and those that fail the run."""

    number: int
    action: Action
    expected: Observation
    observed: Observation
    findings: tuple[Finding, ...]
    failing: tuple[Finding, ...]
    branch: Branch | None = None  # the spec's decision for a client request
    judged: frozenset[str] = frozenset()  # the rules whose check could have failed here (``judged_rules``)


class Counterexample(AssertionError):
    """The server under test broke a rule; ``trace`` reproduces it from the start."""

    def __init__(self, trace: Trace, report: StepReport) -> None:
        self.trace = trace
        self.report = report
        super().__init__(self.explain())

    def explain(self) -> str:
        steps = len(self.trace.actions)
        lines = [f"counterexample ({steps} step{'' if steps == 1 else 's'}, profile {self.trace.profile.value}):"]
        lines.append(self.trace.describe())
        lines += [f"  [{f.rule}] {f.message}" for f in self.report.failing]
        return "\n".join(lines)


class SpecSanityError(AssertionError):
    """The spec broke one of its own sanity checks (a bug of the spec, not of the
    server under test)."""


class Checker:
    """Side-by-side driver of the spec and one server under test.

    ``fail_on`` is the set of verdicts that stop the run (default: FAIL only; add
    WARN to fail on broken SHOULDs too). A step with findings that do not fail
    the run (a broken SHOULD or MAY) is kept in ``diverged``: from there on the
    server may be in a state the spec does not predict. ``keep_reports=False``: the step
    reports are returned, not kept in ``reports`` (a long recording's judge keeps its own).
    """

    def __init__(
        self,
        server: ServerUnderTest,
        profile: Profile = DEFAULT_PROFILE,
        fail_on: frozenset[Verdict] = frozenset({Verdict.FAIL}),
        source: str = "",
        keep_reports: bool = True,
    ) -> None:
        self.server = server
        self.profile = profile
        self.fail_on = fail_on
        self.source = source
        self.state: State = INITIAL_STATE
        self.ids = IdMap()
        self.actions: list[Action] = []
        self.reports: list[StepReport] = []  # every step's, unless ``keep_reports`` is False (the caller keeps them)
        self.keep_reports = keep_reports
        self.diverged: StepReport | None = None
        self.rejections: dict[Branch, tuple[int, int | None]] = {}  # first refusal seen per branch

    def enabled(self, action: Action) -> bool:
        return enabled(self.state, action, self.profile)

    def apply(self, action: Action) -> StepReport:
        """Apply ``action`` to both sides and judge the server.

        Raises ``Counterexample`` on a failing finding, ``Unsupported`` when the
        server cannot be driven through ``action``, ``ValueError`` when the action
        is not enabled in the spec's state.
        """
        variants = self._variants(action)
        self.actions.append(action)
        spec, observed, findings, raw = self._observe(variants, action)
        observed, going_on = _split_going_on(spec, observed, raw)
        findings += self._judge(spec, observed) + self._distinct_rejections(spec, observed)
        judged = judged_rules(replace(spec, observation=observed))
        state = _next_state(spec, observed)
        for item in going_on:
            state, more, also = self._goes_on(state, item)
            findings, judged = findings + more, judged | also
        failing = tuple(f for f in findings if self._verdict(f) in self.fail_on)
        branch = spec.outcome.branch if spec.outcome else None
        report = StepReport(len(self.actions), action, spec.observation, observed, tuple(findings), failing, branch,
                            judged | {f.rule for f in findings})
        if self.keep_reports:
            self.reports.append(report)
        if failing:
            first = failing[0]
            raise Counterexample(self.trace(Failure(report.number, first.rule, first.message)), report)
        if findings and self.diverged is None:
            self.diverged = report
        self.state = state
        return report

    def _goes_on(self, state: State, item: Delivered) -> tuple[State, list[Finding], frozenset[str]]:
        """A new message the stream a step opened or resumed sent after its answer (``item``,
        in the server's ids): judged as the server's next step on that stream, a notification
        (``EmitEvent``) or a new server request (``IssueServerRequest``); returns the state
        after it, its findings and the rules it judged (docs/design.md §2: a resumed stream
        goes on with its own new events)."""
        stream = self.ids.handle(item.stream)
        action = IssueServerRequest(stream) if item.request is not None else EmitEvent(stream)
        spec = step_if_enabled(state, action, self.profile)
        if spec is None:
            return state, [], frozenset()
        raw = Observation(event=item.event, request=item.request, events=(item,))
        observed = replace(spec, observation=self.ids.align(spec, raw))
        return spec.after, check_transition(observed, spec.observation), judged_rules(observed)

    def trace(self, failure: Failure | None = None) -> Trace:
        meta = {"server": getattr(self.server, "name", type(self.server).__name__)}
        return Trace(tuple(self.actions), self.profile, failure, self.source, meta)

    def _variants(self, action: Action) -> tuple[Transition, ...]:
        """The reference's transition for ``action`` from the current state (the other
        choices of a session resumption are built from what the server did, ``_chosen``)."""
        return (step(self.state, action, self.profile),)

    def _chosen(self, reference: Transition, action: Action, raw: Observation) -> Transition | None:
        """The alternative of a session resumption the server's observation (in its ids)
        shows: for each request to deal with, re-emitted, cancelled or neither, and whether
        a priming event came first (MCP D8); None when that is the reference's choice. A
        choice ``profile`` does not accept is followed all the same (its check fails:
        ``reemit-pending``), so that the spec's state stays the server's.
        Built directly (``spec.transitions.planned``): enumerating every plan grows as 3^n."""
        outcome = reference.outcome
        if outcome is not None and outcome.branch is Branch.REJECT_FOREIGN_EVENT_ID and raw.status == 200:
            return exact_after_eviction(self.state, action, self.profile)
        if outcome is None or outcome.branch is not Branch.SESSION_RESUMPTION:
            return None
        plan = tuple(_choice(self.ids.server_id(request), raw) for request in outcome.reemit)
        primed = raw.primed is True and raw.status == 200
        if all(choice is Pending.REEMIT for choice in plan) and not primed:
            return None
        return planned(self.state, action, self.profile, plan, primed)  # judged as it is; a choice the profile refuses fails

    def _judge(self, spec: Transition, observed: Observation) -> list[Finding]:
        """Every finding on the server's step: ``spec`` with ``observed`` in place of its observation."""
        whole_state = spec.after is not spec.before and _checks_whole_state(len(self.actions))
        sanity = check_sanity(spec) + (check_state(spec.after) if whole_state else [])
        if sanity:
            raise SpecSanityError(f"the spec broke its own sanity checks on {action_text(spec)}: {sanity}")
        return check_transition(replace(spec, observation=observed), spec.observation)

    def _distinct_rejections(self, spec: Transition, observed: Observation) -> list[Finding]:
        """Branch 3's refusal must differ from the missing-session one (docs/design.md §2
        row 3): compared once both have been seen."""
        branch = spec.outcome.branch if spec.outcome else None
        if branch not in _REJECTIONS or observed.status is None or observed.status < 400 or branch in self.rejections:
            return []
        if branch is Branch.MISSING_SESSION and not isinstance(spec.action, CallTool):
            return []  # the missing-session error a client knows is a POST's (B32); a GET's is GET handling
        self.rejections[branch] = (observed.status, observed.error)
        if len(self.rejections) < len(_REJECTIONS):
            return []
        foreign, missing = (self.rejections[b] for b in _REJECTIONS)
        return [Finding("reject-foreign-event-id", m) for m in distinct_rejections(foreign, missing)]

    def _observe(self, variants: tuple[Transition, ...], action: Action):
        """Apply ``action`` to the server; return the spec variant it matches (the
        reference's when none does), the translated observation, findings, and what the
        server answered in its own ids.

        Under an MCP revision a 404 for a live session is the server having ended it at
        will (``spec.transitions.ended_at_will``, MCP B33): the spec's state ends it first; not
        a 404 to a request with an unsupported ``MCP-Protocol-Version`` (unsupported-version-400's)."""
        try:
            raw = self.server.apply(self.ids.to_server(action))
        except Unsupported:
            self.actions.pop()
            raise
        except Violation as violation:
            return variants[0], Observation(status=-1), [Finding(violation.rule, violation.message)], Observation()
        except Exception as error:  # a crash of the server under test is a finding, not ours: under the step's rule
            rule = variants[0].outcome.rule if variants[0].outcome is not None else AGREEMENT
            return variants[0], Observation(status=-1), [Finding(rule, f"the server raised {error!r}")], Observation()
        ended = None if raw.version_unsupported else ended_at_will(self.state, action, raw.status, self.profile)
        if ended is not None:
            self.state = step(self.state, ExpireSession(ended), self.profile).after
            variants = self._variants(action)
        variant = self._chosen(variants[0], action, raw)
        if variant is not None:
            ids = self.ids.copy()
            observed = ids.align(variant, raw)
            if comparable(observed) == comparable(variant.observation):
                self.ids = ids
                return variant, observed, [], raw
        return variants[0], self.ids.align(variants[0], raw), [], raw

    def _verdict(self, finding: Finding) -> Verdict:
        return verdict_for_finding(finding, self.profile)


_REJECTIONS = (Branch.REJECT_FOREIGN_EVENT_ID, Branch.MISSING_SESSION)

WHOLE_STATE_STEPS = 64
"""Steps up to which the spec's state invariants are checked after every step; later, at
steps that are powers of two and once at the end of a replay. A whole-state check costs
time linear in the state, so checking every step made a replay quadratic in its length."""


def _checks_whole_state(step: int) -> bool:
    return step <= WHOLE_STATE_STEPS or step & (step - 1) == 0


def _check_final_state(checker: "Checker") -> None:
    sanity = check_state(checker.state)
    if sanity:
        raise SpecSanityError(f"the spec broke its own state invariants at the end of the trace: {sanity}")


def _split_going_on(spec: Transition, observed: Observation, raw: Observation) -> tuple[Observation, list[Delivered]]:
    """``observed`` without the events the stream its step opened or resumed sent as its own
    new messages after the answer, and those events in the server's ids: events no spec event
    explains (unpaired), on that stream, carrying no server request the session sent before
    and cancelling nothing. A request sent again is kept: a re-emission is judged with the step."""
    if spec.outcome is None or observed.status != 200 or observed.stream is None or len(raw.events) != len(observed.events):
        return observed, []
    kept, going_on = [], []
    for item, raw_item in zip(observed.events, raw.events):
        new = item.event.startswith(UNMAPPED_PREFIX) and item.stream == observed.stream and item.cancels is None
        if new and (item.request is None or item.request.startswith(UNMAPPED_PREFIX)):
            going_on.append(raw_item)
        else:
            kept.append(item)
    if not going_on:
        return observed, []
    return replace(observed, events=tuple(kept)), going_on


def _choice(request: str | None, raw: Observation) -> Pending:
    """What the server did with ``request`` (its id) on a session resumption's new stream."""
    if any(item.request == request for item in raw.events):
        return Pending.REEMIT
    if any(item.cancels == request for item in raw.events):
        return Pending.CANCEL
    return Pending.LEAVE


def action_text(t: Transition) -> str:
    return describe(t.action)


def _next_state(spec: Transition, observed: Observation) -> State:
    """The spec state that matches what the server did.

    An accepted alternative status that refuses where the reference proceeds
    (a 409 on a connected stream, a 405 for no GET stream, an empty 200 for a
    foreign event id under an MCP profile) changes nothing.
    """
    if spec.outcome is None or observed.status in (spec.outcome.status, spec.observation.status):
        return spec.after  # the reference's answer, or the alternative ``spec`` is (an exact replay after eviction)
    if _success(observed.status) and _success(spec.outcome.status):
        return spec.after
    return spec.before


def _success(status: int | None) -> bool:
    return status is not None and 200 <= status < 300


def replay(trace: Trace, server: ServerUnderTest, profile: Profile | None = None) -> list[StepReport]:
    """Replay ``trace`` against ``server``; return every step's report.

    Raises ``Counterexample`` at the first failing step; ``TraceStepError`` (a
    ``ValueError``) when a step is not enabled in the spec (a hand-edited trace:
    it names the step that made it so); ``Unsupported`` naming the step the
    server cannot be driven through.
    """
    checker = Checker(server, profile or trace.profile, source=trace.source)
    for number, action in enumerate(trace.actions, start=1):
        if not checker.enabled(action):
            raise not_enabled_error(trace.actions, number, checker.profile)
        try:
            checker.apply(action)
        except Unsupported as error:
            raise Unsupported(f"step {number} ({describe(action)}) cannot be played: {error}") from None
    _check_final_state(checker)
    return checker.reports



def shorten(found: Counterexample, factory) -> Counterexample:
    """A shorter counterexample for the same rule, by deleting actions from ``found``'s trace.

    Greedy block deletion (halving block sizes, then single actions until no
    deletion helps). A block is first deleted with every later action that
    names a handle only the deleted actions created (a tool call goes with the
    server request and the drops on its stream), then alone. Each candidate
    replays on a fresh ``factory()`` server with the later actions' handles
    renamed to those the spec gives the kept actions (deleting an ``initialize``
    renumbers the sessions after it), and is kept when it fails by the same rule
    with no earlier non-failing finding (after one the server is unpredictable).
    Returns ``found`` itself when nothing can be deleted.
    """
    rule = found.trace.failure.rule
    first = _fails_by([(action, ()) for action in found.trace.actions], factory, found.trace, rule)
    if first is None:
        return found
    best, created = first
    size = max(1, len(best.trace.actions) // 2)
    while True:
        progress, start = False, 0
        while start < len(best.trace.actions):
            kept = list(zip(best.trace.actions, created))
            candidate = None
            for steps in _without_block(kept, start, size):
                candidate = _fails_by(steps, factory, found.trace, rule)
                if candidate is not None:
                    break
            if candidate is not None:
                (best, created), progress = candidate, True
            else:
                start += size
        if size == 1 and not progress:
            return best
        size = max(1, size // 2)


def _without_block(steps: list, start: int, size: int) -> list[list]:
    """The candidates that delete ``steps[start:start + size]``: with the later steps
    that name a handle only deleted steps created (transitively), then without
    them when there were any."""
    gone = {handle for _, created in steps[start : start + size] for handle in created}
    dependent = []
    for action, created in steps[start + size :]:
        if any(getattr(action, f, None) in gone for f in _HANDLE_FIELDS):
            gone.update(created)
            continue
        dependent.append((action, created))
    plain = steps[:start] + steps[start + size :]
    pruned = steps[:start] + dependent
    return [pruned, plain] if len(pruned) < len(plain) else [plain]


_HANDLE_FIELDS = ("session", "stream", "last_event_id", "request")


def _fails_by(steps, factory, original: Trace, rule: str):
    """Replay ``steps`` ((action, handles it created when it was recorded)) on a
    fresh server, renaming handles as they are created; return the counterexample
    and each step's created handles when the replay fails by ``rule`` with no
    earlier finding, else ``None`` (also when a step is not enabled)."""
    server = factory()
    checker = Checker(server, original.profile, source=original.source)
    names: dict[str, str] = {}
    created: list[tuple[str, ...]] = []
    try:
        for action, recorded in steps:
            action = _renamed(action, names)
            if not checker.enabled(action) or checker.diverged is not None:
                return None
            before = checker.state
            try:
                checker.apply(action)
            except Counterexample as failed:
                same = failed.trace.failure.rule == rule and checker.diverged is None
                return (failed, created + [()]) if same else None
            new = _new_handles(before, checker.state)
            names.update(_correspondence(recorded, new))
            created.append(new)
    except Unsupported:
        return None
    finally:
        server.close()
    return None


def _renamed(action: Action, names: dict[str, str]) -> Action:
    changes = {f: names[v] for f in _HANDLE_FIELDS if (v := getattr(action, f, None)) in names}
    return replace(action, **changes) if changes else action


def _correspondence(recorded: tuple[str, ...], new: tuple[str, ...]) -> dict[str, str]:
    """Each handle a step created when it was recorded -> the one it creates now, kind
    by kind (the spec's handles start with their kind: S, T, E, R) and in order; a
    recorded handle beyond those created now stands for the last of its kind (a
    resumption that re-emits one request fewer: a cursor on its last event stays on
    the last event)."""
    mapping: dict[str, str] = {}
    for kind in {handle[:1] for handle in recorded}:
        now = [handle for handle in new if handle[:1] == kind]
        if not now:
            continue
        then = [handle for handle in recorded if handle[:1] == kind]
        mapping.update((handle, now[min(index, len(now) - 1)]) for index, handle in enumerate(then))
    return mapping


def _new_handles(before: State, after: State) -> tuple[str, ...]:
    """The handles ``after`` has and ``before`` has not (sessions, streams, events, requests)."""
    new: list[str] = []
    for field in ("sessions", "streams", "events", "requests"):
        old = {item.id for item in getattr(before, field)}
        new += [item.id for item in getattr(after, field) if item.id not in old]
    return tuple(new)
