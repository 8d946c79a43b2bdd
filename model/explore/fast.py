"""The fast explorer: the same exploration as ``plain.explore_spec``, session by session.

Why it can be fast. In the spec a session owns everything that refers to it:
an action names one session (or none), changes nothing outside that session's
streams, events, requests and client view, and the invariants read one session
at a time. So a state, up to symmetry, is a *multiset of session forms*
(``canonical``), and what an action does to a session depends only on that
session's form (and, for a foreign event id or request id, on there being one).

The explorer therefore keeps two levels:

- a **session table**: every distinct session form gets a small integer; the
  first time a form is expanded, each action on it is computed once with
  ``spec.transitions.step`` on the decoded one-session state, checked with
  ``check_spec_step``, and each new form with ``check_state``. A foreign
  event id or request id is tried against a *witness* session (one stream, one
  event carrying a pending request);
- a **state graph**: a state is the sorted tuple of its sessions' integers. Its
  successors are its sessions' successors in the table, a new session
  (``initialize``), and ``restart_client`` (every session forgets at once).

A run does the two in turn. ``expand_forms`` expands, breadth-first from the
fresh form, every form a state within the bound can hold while it is expanded
(most of the time of a run: ``forms`` spreads each level over forked
workers); its level sizes also give the size of the run before the search
starts (``estimate``). The breadth-first walk over the tuples (``search``,
split by hash over worker processes from ``search.SPLIT_FROM`` workers) then
costs a tuple and a set lookup per successor. The counts do not depend on the
number of workers.

Counts are those of the reference explorer: each action that names any event of
another session counts once per such event (``foreign`` multiplicity), each
session-less request once per event or request it names, and the two copies of
one form in a state are counted as two sessions. Requests without a live
session never change anything in the spec; they are stepped and checked once
on a witness state. The tests hold this explorer to ``explore_spec`` (same
states, transitions, pruned transitions, depth, per-action and per-branch
counts) and every step to ``spec.transitions.step`` on the decoded state.

The actions on a session form are those of ``spec.space.candidate_actions``
that act on it (``session_templates``), and the session-less requests those that
name no session (``sessionless_templates``), so the two explorers try the same
actions by construction.

A violation is reported with a concrete trace: the path to the state is found
again (the same walk, over ``moves``, run only when there is something to report
and stopped at the target), translated into the spec's handles, and replayed
with ``step`` to confirm the finding.
"""

from __future__ import annotations

import time
from collections import Counter, deque
from dataclasses import dataclass, field
from operator import attrgetter

from mcp_resume.spec import actions as a
from mcp_resume.spec.space import Bounds
from mcp_resume.spec.space import CLIENT_REQUESTS, acting_session, candidate_actions
from mcp_resume.spec.decision import Branch
from mcp_resume.spec.invariants import Finding, check_spec_step, check_state
from mcp_resume.spec.profiles import DEFAULT_PROFILE, Profile
from mcp_resume.spec.state import INITIAL_STATE, State
from mcp_resume.spec.transitions import Transition, remember, step, step_if_enabled
from mcp_resume.spec.walk import BreadthFirst, StopWalk

from mcp_resume.model.explore.canonical import (
    SessionForm,
    decode,
    decode_beside,
    server_key,
    session_form,
    session_naming,
)
from mcp_resume.model.harness.coverage import Coverage
from mcp_resume.model.explore.result import ExplorationResult
from mcp_resume.model.explore import estimate, forms, search
from mcp_resume.model.explore.collector import collector_paused
from mcp_resume.model.explore.search import _insert
from mcp_resume.model.explore.plain import PROGRESS_EVERY, Progress, _judge
from mcp_resume.model.harness import memos

memos.install()  # the spec's pure functions memoized in this process: same results, less time

_STREAM_OF = attrgetter("stream")
"""An event's stream (counted in C by ``Counter``: ``fits`` runs on every step that changes a state)."""

ONE, PER_FOREIGN_EVENT, PER_FOREIGN_REQUEST, PER_EVENT, PER_REQUEST = range(5)
"""How many concrete actions one template stands for in a state."""

WITNESS_ACTIONS = (a.Initialize(), a.CallTool("S1"), a.IssueServerRequest("T1"))
"""How the witness session is reached: one open stream, one event carrying a pending request."""


class FastEngineError(AssertionError):
    """The spec broke an assumption this explorer relies on (a session-less request
    that changes the state, an action on one session that changes another); use
    ``explore_spec`` and fix the assumption."""


@dataclass(frozen=True)
class Template:
    """One action on a session form (handles of the decoded form: ``S1``, ``T1`` ...,
    the witness's for foreign ids), or a state-wide action."""

    action: a.Action
    multiplicity: int
    witness: bool  # stepped on the form beside the witness session


@dataclass
class Expansion:
    """Everything the actions on one session form do, computed once."""

    moves: list[tuple[int, int]] = field(default_factory=list)  # (template index, successor form id)
    successors: tuple[int, ...] = ()  # distinct successor form ids other than itself
    templates: tuple[Template, ...] = ()  # shared by every form with the same handles
    counts: list[dict[int, int]] = field(default_factory=lambda: [{}, {}, {}])  # LABELS index -> steps, by multiplicity
    pruned: list[int] = field(default_factory=lambda: [0, 0, 0])
    findings: list[tuple[int, Finding]] = field(default_factory=list)
    forget: int = -1  # the form after restart_client
    forget_findings: list[Finding] = field(default_factory=list)


class SessionTable:
    """Session forms, their integers, and their expansions (computed on first use)."""

    def __init__(self, bounds: Bounds, profile: Profile) -> None:
        self.bounds = bounds
        self.profile = profile
        self.forms: list[SessionForm] = []
        self.ids: dict[SessionForm, int] = {}
        self.expansions: list[Expansion | None] = []
        self.events: list[int] = []
        self.requests: list[int] = []
        self.state_findings: dict[int, list[Finding]] = {}
        self.witness = session_form(_run(WITNESS_ACTIONS), "S1")
        self.templates: dict[tuple, tuple[Template, ...]] = {}
        self._witnesses: dict[tuple[int, int, int, int], tuple] = {}  # the witness's part of a decoded pair, by counts
        self.server_steps: dict[tuple, list] = {}  # server_key -> (transition, findings) or None, by template
        self.sides: dict[tuple, tuple] = {}  # server_key -> the first such form decoded, its templates
        self.forgotten: dict[tuple, tuple] = {}  # (server_key, held) -> the form after restart_client, its findings
        self.steps = 0  # steps judged (each template enabled on each form)
        self.stepped = 0  # of those, stepped with ``step`` (the others reuse a form with the same server's side)
        self.reused = 0  # forms whose server's side was stepped before
        self.seconds = 0.0  # spent expanding forms (stepping and checking the spec)

    def intern(self, form: SessionForm, state: State | None = None) -> int:
        """The id of ``form``; a new form is checked with ``check_state`` on ``state``
        (a one-session state with that form) or on the decoded form."""
        number = self.ids.get(form)
        if number is not None:
            return number
        return self.intern_checked(form, check_state(decode([form]) if state is None else state))

    def intern_checked(self, form: SessionForm, findings) -> int:
        """The id of ``form``; a new form has ``findings`` (its ``check_state`` findings, computed elsewhere)."""
        number = self.ids.get(form)
        if number is not None:
            return number
        number = len(self.forms)
        self.ids[form] = number
        self.forms.append(form)
        self.expansions.append(None)
        self.events.append(sum(len(stream[4]) for stream in form[2]))
        self.requests.append(len(form[3]))
        if findings:
            self.state_findings[number] = findings
        return number

    def truncate(self, length: int) -> None:
        """Forget every form numbered ``length`` or later (a form worker's own numbering of
        the forms it met, before it takes the parent's)."""
        for form in self.forms[length:]:
            del self.ids[form]
        for items in (self.forms, self.expansions, self.events, self.requests):
            del items[length:]
        for number in [n for n in self.state_findings if n >= length]:
            del self.state_findings[number]

    def fits(self, state: State) -> bool:
        """Whether the one-session ``state`` is within the bounds (read before its form is
        worked out: a state past a bound is pruned, its form never needed)."""
        bounds = self.bounds
        if len(state.streams) > bounds.streams or len(state.requests) > bounds.requests:
            return False
        if len(state.events) <= bounds.events:
            return True
        return max(Counter(map(_STREAM_OF, state.events)).values()) <= bounds.events

    def expand(self, number: int, foreign: bool = True) -> Expansion:
        """The expansion of form ``number``, computed on first use; without ``foreign``, the
        templates that name another session's event or request are not stepped (for a form
        that no state with another session holds while it is expanded: ``expand_forms``)."""
        expansion = self.expansions[number]
        if expansion is not None:
            return expansion
        started = time.perf_counter()
        try:
            return self._expand(number, foreign)
        finally:
            self.seconds += time.perf_counter() - started

    def _expand(self, number: int, foreign: bool) -> Expansion:
        form = self.forms[number]
        key = server_key(form)
        expansion = Expansion()
        alone, templates = self._side(form, key)
        expansion.templates = templates
        server_steps = self._server_steps(key, form, alone, templates, foreign)
        distinct: dict[int, None] = {}
        counts, pruned, findings, moves = expansion.counts, expansion.pruned, expansion.findings, expansion.moves
        for index, stepped in enumerate(server_steps):
            template = templates[index]
            if stepped is None or (template.witness and not foreign):
                continue
            transition, checked, fits, label = stepped
            self.steps += 1
            slot = _SLOTS[template.multiplicity]
            after = self._successor(number, alone, template, transition) if fits else None
            if after is None:
                pruned[slot] += 1
                continue
            tally = counts[slot]
            tally[label] = tally.get(label, 0) + 1
            for finding in checked:
                findings.append((index, finding))
            if after != number:
                moves.append((index, after))
                distinct[after] = None
        expansion.successors = tuple(distinct)
        expansion.forget, expansion.forget_findings = self._forget(form, alone)
        self.expansions[number] = expansion
        return expansion

    def _forget(self, form: SessionForm, alone: State) -> tuple[int, list[Finding]]:
        """The id of the form ``restart_client`` leads to from ``form`` (``alone``), and the
        step's findings: worked out once per server's side and ``held`` (the client forgets
        every cursor and request, and only that)."""
        key = (server_key(form), form[1])
        forgotten = self.forgotten.get(key)
        if forgotten is None:
            restarted = step(alone, a.RestartClient(), self.profile)
            forgotten = self.forgotten[key] = (session_form(restarted.after, "S1"), check_spec_step(restarted))
        after, findings = forgotten
        return self.intern(after), list(findings)

    def _side(self, form: SessionForm, key: tuple) -> tuple[State, tuple[Template, ...]]:
        """``decode([form])`` and its templates, worked out once per server's side (``key``,
        the form's ``server_key``): a later form with that side keeps the first one's
        sessions, streams, events and requests and adds its own client memory
        (``canonical.decode_beside``), and has the same handles, so the same templates."""
        side = self.sides.get(key)
        if side is None:
            alone = decode([form])
            side = self.sides[key] = (alone, self._templates(alone, self._beside(form, alone)))
            return side
        first, templates = side
        return decode_beside(form, first), templates

    def _server_steps(self, key: tuple, form: SessionForm, alone: State, templates: tuple[Template, ...],
                      foreign: bool) -> list:
        """What each template does on the server's side of ``form`` (``alone``, its
        decoded state): ``(transition, its check_spec_step findings, whether its next
        state is within the bounds, its ``LABELS`` index)`` per template, ``None`` when
        it is not enabled (or, without ``foreign``, names another session's event or
        request).

        Worked out once for every form with the same server's side (``server_key``): the
        first such form's transitions serve the others, whose client memory
        ``_successor`` puts in. Sound because the spec's server does not read the
        client's memory: no decision, no server check and no bound does
        (``spec.transitions.remember``; ``tests/slow/test_spec_transitions.py`` holds the spec to it).
        """
        server_steps = self.server_steps.get(key)
        if server_steps is None:
            server_steps = self.server_steps[key] = [_UNSTEPPED] * len(templates)
        else:
            self.reused += 1
        beside = None
        for index, template in enumerate(templates):
            if server_steps[index] is not _UNSTEPPED or (template.witness and not foreign):
                continue
            if template.witness and beside is None:
                beside = self._beside(form, alone)
            transition = step_if_enabled(beside if template.witness else alone, template.action, self.profile)
            if transition is None:
                server_steps[index] = None
                continue
            self.stepped += 1
            self._check_shape(template, transition)
            fits = template.witness or transition.after is transition.before or self.fits(transition.after)
            server_steps[index] = (transition, check_spec_step(transition), fits, _label(transition))
        return [None if stepped is _UNSTEPPED else stepped for stepped in server_steps]

    def templates_of(self, number: int) -> tuple[Template, ...]:
        """The templates of form ``number`` (an expansion made in a worker does not carry them)."""
        expansion = self.expand(number)
        if not expansion.templates:
            form = self.forms[number]
            alone = decode([form])
            expansion.templates = self._templates(alone, self._beside(form, alone))
        return expansion.templates

    def _beside(self, form: SessionForm, alone: State) -> State:
        """``decode([form, witness])`` from ``alone`` (``decode([form])``): ``decode`` numbers
        handles in order, so the witness's entities depend only on how many streams,
        events and requests come before them, and are decoded once per count."""
        counts = (len(alone.streams), len(alone.events), len(alone.requests), len(alone.client))
        witness = self._witnesses.get(counts)
        if witness is None:
            whole = decode([form, self.witness])
            witness = self._witnesses[counts] = (whole.sessions[1:], whole.streams[counts[0]:], whole.events[counts[1]:],
                                                 whole.requests[counts[2]:], whole.client[counts[3]:])
        sessions, streams, events, requests, client = witness
        return State(alone.sessions + sessions, alone.streams + streams, alone.events + events,
                     alone.requests + requests, alone.client + client)

    def _templates(self, alone: State, beside: State) -> tuple[Template, ...]:
        """``session_templates``, computed once per set of handles: the templates
        name only handles, and most forms share theirs (``S1``, ``T1``, ``E1`` ...)."""
        handles = (tuple((t.id, t.session) for t in beside.streams), tuple((e.id, e.stream) for e in beside.events),
                   tuple((r.id, r.session) for r in beside.requests),
                   tuple(e.id for e in alone.events), tuple(r.id for r in alone.requests))
        templates = self.templates.get(handles)
        if templates is None:
            templates = self.templates[handles] = tuple(session_templates(alone, beside))
        return templates

    @staticmethod
    def _check_shape(template: Template, transition: Transition) -> None:
        """Raise ``FastEngineError`` when a step breaks what this explorer relies on."""
        if template.witness:
            if transition.after != transition.before:
                raise FastEngineError(f"{a.describe(template.action)} with a foreign id changed the state")
        elif transition.after is not transition.before and len(transition.after.sessions) != 1:
            raise FastEngineError(f"{a.describe(template.action)} created a session")

    def _successor(self, number: int, alone: State, template: Template, transition: Transition) -> int:
        """The id of the form ``transition`` (a step of a form with the server's side of
        ``alone``, whose next state is within the bounds) leads to from form ``number``
        (``alone``)."""
        if template.witness:
            return number
        if transition.after is transition.before and not transition.observation.events:
            return number  # the server refused: nothing changed, whatever the client held
        after = transition.after
        if transition.before is not alone:  # another form's step: its server's side, this form's client
            server_side = State(after.sessions, after.streams, after.events, after.requests, alone.client)
            after = remember(alone, server_side, transition.observation)
        return self.intern(session_form(after, "S1"), after)


_UNSTEPPED = object()
"""A template ``_server_steps`` has not stepped yet for a server's side."""


def session_templates(alone: State, beside: State) -> list[Template]:
    """The actions of ``candidate_actions(beside)`` that act on session ``S1`` (the
    form of ``alone``, first in ``beside``), in that order: an event id or request
    id of the witness session (the other session of ``beside``) stands for every
    one of another session, and is stepped on ``beside``; the others on ``alone``."""
    own_events = {e.id for e in alone.events}
    own_requests = {r.id for r in alone.requests}
    templates = []
    for action in candidate_actions(beside):
        if acting_session(beside, action) != "S1":
            continue
        if isinstance(action, a.Reconnect) and beside.event(action.last_event_id) is not None \
                and action.last_event_id not in own_events:
            templates.append(Template(action, PER_FOREIGN_EVENT, True))
        elif isinstance(action, a.AnswerRequest) and beside.request(action.request) is not None \
                and action.request not in own_requests:
            templates.append(Template(action, PER_FOREIGN_REQUEST, True))
        else:
            templates.append(Template(action, ONE, False))
    return templates


def sessionless_templates(witness: State) -> list[Template]:
    """The client requests of ``candidate_actions(witness)`` whose session header
    names no session, in that order, on the witness state: the event and request
    they name stand for every event and request of a state."""
    templates = []
    for action in candidate_actions(witness):
        if not isinstance(action, CLIENT_REQUESTS) or witness.session(action.session) is not None:
            continue
        if isinstance(action, a.Reconnect) and witness.event(action.last_event_id) is not None:
            templates.append(Template(action, PER_EVENT, True))
        elif isinstance(action, a.AnswerRequest) and witness.request(action.request) is not None:
            templates.append(Template(action, PER_REQUEST, True))
        else:
            templates.append(Template(action, ONE, True))
    return templates


@dataclass
class _Global:
    """State-wide actions, stepped once: session-less requests and ``initialize``."""

    counts: list[Counter]
    findings: list[tuple[Template, Finding]]
    fresh: int
    initialize: Transition


@collector_paused()
def explore_fast(
    bounds: Bounds,
    profile: Profile = DEFAULT_PROFILE,
    progress: Progress | None = None,
    workers: int = 1,
    max_states: int | None = None,
    max_memory: float | None = None,
    budget: int | None = None,
) -> ExplorationResult:
    """Explore the spec within ``bounds`` (with symmetry reduction); see the module docstring.

    ``workers``: processes the state search is split over (``search``), the counts
    are the same for any number. ``max_states`` / ``max_memory`` (MB resident):
    stop there, with ``result.stopped`` saying why and the counts so far.
    ``budget``: refuse (``estimate.TooLarge``, with the estimate) a run whose
    estimated size (``estimate.estimate_states``) is above it, as soon as the
    estimate passes it while the session forms are expanded.

    Raises ``NotModelled`` for a sessionless profile, ``FastEngineError`` when the
    spec breaks the session independence this explorer relies on.
    """
    started = time.perf_counter()
    result = ExplorationResult("spec", profile, bounds, "fast", True)
    table = SessionTable(bounds, profile)
    world = _global_actions(table)
    watch = estimate.Watch(bounds, budget, report=_forms_progress(result, progress, started))
    distances = expand_forms(table, world.fresh, bounds, max_states, workers, watch, max_memory)
    table.server_steps.clear()  # the search needs the expansions only
    table.sides.clear()
    table.forgotten.clear()
    result.notes["estimated_states"] = watch.final(distances)
    depth = bounds.depth
    if not _forms_complete(table, distances, bounds):  # stopped at --max-states or --max-memory
        depth = _searchable_depth(table, distances, depth)
    plan = _plan(table, world.fresh, bounds, max_states, max_memory, PROGRESS_EVERY, depth)
    tally = search.search(plan, workers, _progress_of(result, progress, started))
    result.levels, result.states, result.depth = tally.levels, tally.states, tally.depth
    result.stopped = tally.stopped
    if result.stopped is None and depth != bounds.depth:
        over_states = max_states is not None and len(distances) > max_states
        cap = f"--max-states {max_states:,}" if over_states else f"--max-memory {max_memory:,.0f} MB"
        result.stopped = (f"stopped at {cap}: {len(distances):,} session forms already; "
                          f"states explored to depth {depth}")
    _count(result, table, world, tally)
    _report_findings(result, table, world, distances, profile, bounds)
    result.exhausted = result.stopped is None
    result.notes.update({"session_forms": len(table.forms), "session_steps": table.steps, "session_steps_stepped": table.stepped,
                         "session_seconds": round(table.seconds, 3), "workers": workers})
    result.seconds = time.perf_counter() - started
    return result


def expand_forms(table: SessionTable, fresh: int, bounds: Bounds, limit: int | None = None,
                 workers: int = 1, watch: "estimate.Watch | None" = None,
                 max_memory: float | None = None) -> dict[int, int]:
    """Expand every session form that a state within ``bounds`` can hold while the
    search expands it, breadth-first from the fresh form, on ``workers`` processes
    (``forms``: workers forked for each big level claim its chunks): the forms at most ``depth - 2``
    single-session steps from it (a form ``k`` steps away first appears at depth
    ``k + 1``). Return the distance
    of every form interned. Stop early when more than ``limit`` forms are known;
    ``watch`` sees the distances after each level (and may raise ``TooLarge``); the
    expansion also stops after a level that leaves this process above ``max_memory`` MB
    resident.

    The templates naming another session's event or request are stepped only for forms
    that a state holding such a session reaches while it is expanded (elsewhere their
    weight in the counts is zero). A state holding forms ``k`` and ``j`` steps away is at
    least ``2 + k + own`` deep, ``own`` the steps of the second session's own (a restart
    moves every session's form at once, so it counts for one session only), and the
    search expands states up to ``depth - 1`` deep. So a form ``k`` steps away needs
    them only when ``k <= depth - 3 - m``, ``m`` the fewest own steps after which a
    session holds an event or a request (``_own_steps_to_hold``, 2 in today's spec),
    and never when a state holds one session at most."""
    distances = {fresh: 0}
    if bounds.sessions == 0:
        return distances
    with forms.FormWorkers(table, workers) as pool:
        return _expand_levels(table, fresh, bounds, limit, watch, pool, distances, max_memory)


def _expand_levels(table: SessionTable, fresh: int, bounds: Bounds, limit: int | None, watch,
                   pool: "forms.FormWorkers", distances: dict[int, int], max_memory: float | None) -> dict[int, int]:
    frontier = [fresh]
    distance = 0
    while frontier and (bounds.depth is None or distance <= bounds.depth - 2):
        pool.expand_level(frontier, _foreign_needed(table, fresh, bounds, distance))
        found = []
        for form in frontier:
            expansion = table.expansions[form]
            for after in expansion.successors + (expansion.forget,):
                if after not in distances:
                    distances[after] = distance + 1
                    found.append(after)
            if limit is not None and len(distances) > limit:
                return distances
        frontier = found
        distance += 1
        if watch is not None:
            watch.level(distances, distance + 1, bool(frontier))
        if max_memory is not None and search.resident_mb() > max_memory:
            return distances
    return distances


def _foreign_needed(table: SessionTable, fresh: int, bounds: Bounds, distance: int) -> bool:
    """Whether forms ``distance`` steps away need their templates naming another
    session's ids stepped (``expand_forms``)."""
    if bounds.sessions < 2:
        return False
    if bounds.depth is None:
        return True
    if distance > bounds.depth - 3:
        return False
    held = _own_steps_to_hold(table, fresh)
    return held is not None and distance <= bounds.depth - 3 - held


def _own_steps_to_hold(table: SessionTable, fresh: int) -> int | None:
    """A lower bound of the fewest steps of its own (a restart costs nothing) after which
    a session holds an event or a server request, from the forms expanded so far (a form
    not expanded yet counts as holding one); ``None`` when no form within the bounds
    holds one. A breadth-first walk with two costs: a restart 0, an own step 1."""
    cost = {fresh: 0}
    queue = deque([fresh])
    while queue:
        form = queue.popleft()
        here = cost[form]
        expansion = table.expansions[form]
        if table.events[form] or table.requests[form] or expansion is None:
            return here
        for after, extra in ((expansion.forget, 0), *((successor, 1) for successor in expansion.successors)):
            if after not in cost or cost[after] > here + extra:
                cost[after] = here + extra
                if extra:
                    queue.append(after)
                else:
                    queue.appendleft(after)
    return None


def _forms_complete(table: SessionTable, distances: dict[int, int], bounds: Bounds) -> bool:
    """Whether ``expand_forms`` expanded every form it had to (it did not stop at a limit):
    each one at most ``depth - 2`` steps away (any, without a depth); none without sessions."""
    if bounds.sessions == 0:
        return True
    last = None if bounds.depth is None else bounds.depth - 2
    return all(table.expansions[form] is not None for form, distance in distances.items()
               if last is None or distance <= last)


def _searchable_depth(table: SessionTable, distances: dict[int, int], depth: int | None) -> int:
    """The depth a search can reach when ``expand_forms`` stopped early: a state ``d`` deep
    holds forms at most ``d - 1`` steps away, so the states held by expanded forms alone
    are expanded up to one step past the farthest of them."""
    farthest = max(distance for form, distance in distances.items() if table.expansions[form] is not None)
    return farthest + 2 if depth is None else min(depth, farthest + 2)


def _plan(table: SessionTable, fresh: int, bounds: Bounds, max_states, max_memory, every: int,
          depth: int | None = None) -> search.Plan:
    """The search of the states within ``bounds`` (to ``depth`` when given)."""
    successors, forgets = [], []
    for expansion in table.expansions:
        successors.append(expansion.successors if expansion else ())
        forgets.append(expansion.forget if expansion else -1)
    return search.Plan(successors, forgets, list(table.events), list(table.requests), fresh, bounds.sessions,
                       bounds.depth if depth is None else depth, max_states, max_memory, every)


def _forms_progress(result: ExplorationResult, progress: Progress | None, started: float):
    """Progress while the session forms are expanded: ``notes["forms_so_far"]``, the level reached."""
    if progress is None:
        return None

    def report(distances: dict[int, int], distance: int) -> None:
        result.notes["forms_so_far"] = len(distances)
        result.depth, result.seconds = distance, time.perf_counter() - started
        progress(result)

    return report


def _progress_of(result: ExplorationResult, progress: Progress | None, started: float):
    if progress is None:
        return None

    def report(tally: search.Tally) -> None:
        result.notes.pop("forms_so_far", None)
        result.states, result.depth, result.levels = tally.states, tally.depth, list(tally.levels)
        result.seconds = time.perf_counter() - started
        progress(result)

    return report


def _global_actions(table: SessionTable) -> _Global:
    witness = decode([table.witness])
    counts = [Counter() for _ in range(5)]
    findings = []
    for template in sessionless_templates(witness):
        transition = step(witness, template.action, table.profile)
        if transition.after != witness:
            raise FastEngineError(f"{a.describe(template.action)} changed the state")
        counts[template.multiplicity][_label(transition)] += 1  # by LABELS index, as an expansion
        findings += [(template, f) for f in check_spec_step(transition)]
    initialize = step(INITIAL_STATE, a.Initialize(), table.profile)
    findings += [(Template(a.Initialize(), ONE, False), f) for f in check_spec_step(initialize)]
    fresh = table.intern(session_form(initialize.after, "S1"), initialize.after)
    return _Global(counts, findings, fresh, initialize)


_SLOTS = {ONE: 0, PER_FOREIGN_EVENT: 1, PER_FOREIGN_REQUEST: 2}

LABELS: tuple[tuple[str, Branch | None], ...] = tuple(
    (kind, branch) for kind in a.ACTION_TYPES for branch in (None, *Branch))
"""Every (action kind, branch) a step can be counted under; an expansion counts by index
here (the same in every process: a worker's counts travel as small integers)."""

LABEL_IDS = {label: index for index, label in enumerate(LABELS)}


def _label(transition: Transition) -> int:
    """The ``LABELS`` index of ``transition`` (worked out once per server step: an enum's hash is slow)."""
    return LABEL_IDS[transition.action.kind, transition.outcome.branch if transition.outcome else None]


def _count(result: ExplorationResult, table: SessionTable, world: _Global, tally: search.Tally) -> None:
    """Transitions, pruned transitions and coverage, from the weights the search kept."""
    coverage = Coverage()
    transitions = Counter()
    for form, weight in enumerate(tally.form_weight):
        if not weight:
            continue
        expansion = table.expansions[form]
        weights = (weight, tally.foreign_event_weight[form], tally.foreign_request_weight[form])
        for slot, slot_weight in enumerate(weights):
            for label, count in expansion.counts[slot].items():
                transitions[LABELS[label]] += count * slot_weight
            result.pruned += expansion.pruned[slot] * slot_weight
    state_weights = {ONE: tally.expanded, PER_EVENT: tally.event_weight, PER_REQUEST: tally.request_weight}
    for multiplicity, weight in state_weights.items():
        for label, count in world.counts[multiplicity].items():
            transitions[LABELS[label]] += count * weight
    transitions[("initialize", world.initialize.outcome.branch)] += tally.initializations
    transitions[("restart_client", None)] += tally.restarts
    result.pruned += tally.pruned_initializations
    for (kind, branch), count in transitions.items():
        if count:
            coverage.record(kind, branch, count)
    result.transitions = sum(transitions.values())
    result.coverage = coverage


# -- violations: find the path again, make it concrete, confirm it -------------------


def _report_findings(result, table: SessionTable, world: _Global, distances: dict[int, int], profile: Profile,
                     bounds: Bounds) -> None:
    """Every finding with a shortest trace: a form ``k`` steps from the fresh form is
    first held by the one-session state ``(form,)``, ``k + 1`` steps deep."""
    for finding in check_state(INITIAL_STATE):
        _judge(result, [finding], (), profile, bounds)
    targets = []  # (state key, abstract action or None, finding)
    expanded = [form for form in distances if table.expansions[form] is not None]
    for form in expanded:
        expansion = table.expansions[form]
        targets += [((form,), ("session", form, index), finding) for index, finding in expansion.findings]
        targets += [((form,), ("restart",), finding) for finding in expansion.forget_findings]
    if bounds.sessions and (bounds.depth is None or bounds.depth >= 1):
        reached = [form for form, distance in distances.items() if bounds.depth is None or distance < bounds.depth]
        targets += [((form,), None, finding) for form in reached for finding in table.state_findings.get(form, ())]
    nearest = {PER_EVENT: _nearest(expanded, distances, table.events), PER_REQUEST: _nearest(expanded, distances, table.requests)}
    for template, finding in world.findings:
        state = nearest.get(template.multiplicity, ())
        if state is not None:
            targets.append((state, ("global", template), finding))
    traces = []
    for state_key, abstract, finding in targets:
        actions = concrete_path(table, world.fresh, bounds, state_key, profile)
        if abstract is not None:
            actions = actions + (_concrete(table, _replay(actions, profile), abstract),)
        _confirm(actions, finding, profile)
        traces.append((actions, finding))
    for actions, finding in sorted(traces, key=lambda item: len(item[0])):
        _judge(result, [finding], actions, profile, bounds)


def _nearest(expanded: list[int], distances: dict[int, int], sizes: list[int]) -> tuple | None:
    """The one-session state nearest the initial state whose form has events (requests)."""
    holding = [form for form in expanded if sizes[form]]
    return (min(holding, key=distances.__getitem__),) if holding else None


def concrete_path(table: SessionTable, fresh: int, bounds: Bounds, target: tuple, profile: Profile = DEFAULT_PROFILE) -> tuple:
    """A shortest sequence of spec actions from the initial state to a state whose
    canonical form is ``target`` (a sorted tuple of session-form ids of ``table``);
    ``FastEngineError`` when no path within ``bounds`` reaches it."""

    def successors(state: tuple, _node):
        for successor, move in moves(table, fresh, bounds, state):
            yield move, successor, None
            if successor == target:
                raise StopWalk

    walk = BreadthFirst((), None)
    if target not in walk.parents:
        walk.run(successors)
    if target not in walk.parents:
        raise FastEngineError(f"no path to {target}")
    actions: list[a.Action] = []
    state = INITIAL_STATE
    for move in walk.path_to(target):
        action = _concrete(table, state, move)
        actions.append(action)
        state = step(state, action, profile).after
    return tuple(actions)


def moves(table: SessionTable, fresh: int, bounds: Bounds, state: tuple) -> list[tuple[tuple, tuple]]:
    """Every (successor, abstract step) of ``state`` that changes it and stays within bounds."""
    found = []
    if len(state) < bounds.sessions:
        found.append((_insert(state, fresh), ("initialize",)))
    for index, form in enumerate(state):
        expansion = table.expand(form)
        rest = state[:index] + state[index + 1 :]
        found += [(_insert(rest, after), ("session", form, template)) for template, after in expansion.moves]
    restarted = tuple(sorted(table.expand(f).forget for f in state))
    if restarted != state:
        found.append((restarted, ("restart",)))
    return found


def _concrete(table: SessionTable, state: State, move: tuple) -> a.Action:
    """The action of ``state`` that ``move`` (an abstract step) stands for."""
    kind = move[0]
    if kind == "initialize":
        return a.Initialize()
    if kind == "restart":
        return a.RestartClient()
    if kind == "global":
        template = move[1]
        return _rename(template.action, {"E1": state.events[0].id if state.events else "E1",
                                         "R1": state.requests[0].id if state.requests else "R1"})
    _, form, index = move
    for session in state.sessions:
        found, naming = session_naming(state, session.id)
        if found != table.forms[form]:
            continue
        template = table.templates_of(form)[index]
        mapping = naming.handles("S1", 1, 1, 1)
        if template.witness:
            others = [e.id for e in state.events if state.session_of_event(e.id) != session.id]
            foreign_requests = [r.id for r in state.requests if r.session != session.id]
            local = decode([table.forms[form]])
            mapping[f"E{len(local.events) + 1}"] = others[0] if others else ""
            mapping[f"R{len(local.requests) + 1}"] = foreign_requests[0] if foreign_requests else ""
        return _rename(template.action, mapping)
    raise FastEngineError("no session of the state has the form the path expects")


def _rename(action: a.Action, mapping: dict[str, str]) -> a.Action:
    values = {name: mapping.get(value, value) if isinstance(value, str) else value
              for name, value in a.action_to_json(action).items() if name != "kind"}
    return type(action)(**values)


def _replay(actions: tuple, profile: Profile) -> State:
    state = INITIAL_STATE
    for action in actions:
        state = step(state, action, profile).after
    return state


def _confirm(actions: tuple, finding: Finding, profile: Profile) -> None:
    """Replay ``actions`` with ``step``: the last step (or the state it reaches) must show ``finding.rule``."""
    state = INITIAL_STATE
    found: list[Finding] = check_state(state) if not actions else []
    for action in actions:
        transition = step(state, action, profile)
        state = transition.after
        found = check_spec_step(transition) + check_state(state)
    if not any(f.rule == finding.rule for f in found):
        raise FastEngineError(f"the trace for {finding.rule} does not reproduce it: {[a.describe(x) for x in actions]}")


def _run(actions) -> State:
    state = INITIAL_STATE
    for action in actions:
        state = step(state, action).after
    return state


__all__ = ["explore_fast", "expand_forms", "FastEngineError", "SessionTable", "concrete_path", "moves"]
