"""Liveness: ``no-stranded-request`` on an explored graph, with a lasso counterexample.

The property (docs/design.md §4, the liveness form of ``reemit-pending``): under fair
reconnection, every pending server request is eventually delivered to an open
connection, answered or cancelled. A request is *stranded* in a state when it is
pending in a live session, the client does not hold it (not among the requests
it received and has not answered) and its carrying stream has no open
connection (MCP B21: a request on an open connection has been delivered there).

Fairness. Weak fairness on the client's reconnect: for every live session the
client holds, the session resumption ``reconnect(session=S, last_event_id=-)``
(docs/design.md §2 branch 2) cannot stay enabled for ever without being taken. In
this model the server delivers a pending request only in its answer to a
client request (the replay of branch 1, the re-emission of branch 2), so the
fairness of delivery is that of those answers: a fair run takes the reconnect,
and the server's answer is what delivers or does not.

The check (TLC's way, on the explored graph): for each request R, the strongly
connected components (iterative Tarjan) of the states where R is stranded; a
component with an edge inside it is a counterexample when every fair action
enabled in all its states is taken on an edge inside it. Its lasso is the
breadth-first path to the component (the prefix) and a closed walk through it
that takes each such action (the cycle).

The bound. A reconnect whose target lies beyond the bound (one stream too many)
is still enabled, as TLC evaluates ``ENABLED`` on the whole action: a component
that never takes it is unfair and no counterexample. When that target strands
R again, the step is kept as a *closing edge* back onto its source: one more
round of the cycle would only repeat what it did (a fresh stream, R still
stranded). That is the bound's over-approximation of the unbounded run, and a
lasso through a closing edge says so; replaying its cycle twice
(``replay_lasso``) shows R stranded after each round.

Graphs: ``spec_graph(bounds)`` walks the spec alone (every answer the profile
accepts: under an MCP revision, which does not require re-emission, the spec
itself strands requests and the rule does not hold); ``design_graph(factory, bounds)`` walks a server beside the
spec, with the spec following the server wherever an MCP revision accepts its
answer (a session resumption that leaves a request, ``Pending.LEAVE``), so the
states are what the client was actually sent. Safety findings do not stop the
walk: they are ``explore-design N``'s business.
"""

from __future__ import annotations

import pickle
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterator

from mcp_resume.spec.actions import Action, Reconnect, describe
from mcp_resume.spec.catalog import Level, grade
from mcp_resume.spec.profiles import Profile
from mcp_resume.spec.space import ISSUED_HEADERS, Bounds, candidate_actions, within
from mcp_resume.spec.state import INITIAL_STATE, RequestStatus, SessionStatus, State
from mcp_resume.spec.trace import Failure, Trace
from mcp_resume.spec.transitions import alternatives, enabled
from mcp_resume.spec.walk import BreadthFirst, StopWalk

from mcp_resume.model.explore.fingerprint import canonical_names, server_fingerprint
from mcp_resume.model.harness.checker import Checker
from mcp_resume.model.servers.adapter import ServerUnderTest, Unsupported
from mcp_resume.model.servers.idmap import IdMap

RULE = "no-stranded-request"
SAFETY_FORM = "reemit-pending"
"""The safety rule whose liveness form ``RULE`` is (docs/design.md §4): it carries the levels."""
SPEC_BOUND = "tiny"
"""The spec's default bound: one session, one stream, two events, one request, every depth."""

DESIGN_BOUNDS = Bounds(sessions=1, streams=2, events=2, requests=2, depth=8)
"""A design's default bound (``liveness``): a second stream for a re-emission, and a
client restart after it (design 3's request is lost only once re-emitted); two server
requests on one stream, so that a dropped stream can leave two pending and a session
resumption re-emit both (design 27 loses the first to the second). Beside a
design the client sends only the ids it was given (``ISSUED_HEADERS``): a refusal
changes nothing a request's delivery depends on, and the walk is many times smaller.
Nor does the server emit notifications, evict or expire events there (``QUIET``):
dropping actions only removes runs, so it can hide a lasso but never invent one."""

QUIET = frozenset({"emit_event", "evict_event", "expire_stream"})
DESIGN_BOUND_NAME = "liveness"

CHECK_BOUNDS = Bounds(sessions=1, streams=2, events=2, requests=1, depth=6)
"""The bound ``mcp-resume check`` walks the spec at: a second stream, so that a session
resumption can re-emit the request a dropped stream stranded (initialize, call, request,
drop, resume: five steps), and one step after it. Under a ``tiny`` bound (one stream) the
resumption lies beyond the bound and every stranded state is unfair: the rule would hold
without a re-emission explored. Depth 6 walks in under a second; depth 8 takes ~12 s."""

TRACKING_PROFILE = Profile.MCP_2025_11_25
"""The profile whose accepted answers the spec follows beside a design: the widest."""

LASSO_NOTE = ("a lasso: replay the prefix, then the cycle twice; after each round the request "
              "is still pending, not held by the client and on no open connection")


@dataclass(frozen=True)
class Edge:
    """One transition of the graph; ``kept`` is set on a closing edge (a fair step
    beyond the bound, drawn back onto its source): the requests it strands again."""

    action: Action
    target: Hashable
    kept: frozenset[str] | None = None


@dataclass
class LivenessGraph:
    """States (key -> spec state, as the client sees it), edges (key -> ``Edge``s)
    and the breadth-first ``walk`` that found them; a lasso of it is judged under ``profile``."""

    name: str
    bounds: Bounds
    walk: BreadthFirst
    profile: Profile = Profile.BOUNDARY
    states: dict = field(default_factory=dict)
    edges: dict = field(default_factory=dict)
    seconds: float = 0.0
    stopped: str | None = None  # why the walk ended before the bound did (``max_states``)

    @property
    def transitions(self) -> int:
        return sum(len(edges) for edges in self.edges.values())


@dataclass(frozen=True)
class Lasso:
    """A counterexample to ``no-stranded-request``: ``request`` stays stranded on
    ``cycle`` (spec handles), reached from the initial state by ``prefix``."""

    server: str
    request: str
    prefix: tuple[Action, ...]
    cycle: tuple[Action, ...]
    closing: bool  # the cycle goes through a closing edge (beyond the bound)

    def describe(self) -> str:
        lines = [f"lasso: {self.request} stays stranded ({len(self.prefix)}-step prefix, {len(self.cycle)}-step cycle)"]
        lines += [f"{n:3}. {describe(a)}" for n, a in enumerate(self.prefix, start=1)]
        lines.append("     -- cycle (repeats for ever) --")
        lines += [f"{n:3}. {describe(a)}" for n, a in enumerate(self.cycle, start=len(self.prefix) + 1)]
        if self.closing:
            lines.append("     (its reconnect opens a stream beyond the bound; the request is stranded again after it)")
        return "\n".join(lines)

    def trace(self, profile: Profile = Profile.BOUNDARY) -> Trace:
        """The lasso as a replayable trace: the prefix, then the cycle twice (``meta`` says where each starts)."""
        actions = self.prefix + self.cycle + self.cycle
        message = f"{self.request} is never delivered, answered or cancelled on a fair cycle"
        meta = {"server": self.server, "lasso": {"prefix": len(self.prefix), "cycle": len(self.cycle),
                                                  "request": self.request, "closing": self.closing,
                                                  "note": LASSO_NOTE}}
        return Trace(actions, profile, Failure(len(actions), RULE, message), "liveness", meta)


@dataclass
class LivenessResult:
    graph: LivenessGraph
    lassos: list[Lasso]
    stranded_states: int = 0  # states of the graph where some request is stranded

    @property
    def holds(self) -> bool | None:
        """No lasso in a graph walked to its bound; ``None`` when the walk stopped early
        with none (a lasso found in part of the graph is a real one: see ``_explore``)."""
        if self.lassos:
            return False
        return None if self.graph.stopped else True

    @property
    def vacuous(self) -> bool:
        """The rule holds only because no state of the whole graph strands a request (a
        bound without server requests, or too shallow for one to be stranded)."""
        return self.holds is True and not self.stranded_states

    @property
    def required(self) -> bool:
        """Whether the rule is a MUST under the graph's profile (``required``)."""
        return required(self.graph.profile)

    @property
    def verdict(self) -> str:
        """``broken``, ``allowed`` (lassos, under a profile where the rule is no MUST),
        ``incomplete``, ``vacuous`` or ``holds``."""
        if self.holds is None:
            return "incomplete"
        if not self.holds:
            return "broken" if self.required else "allowed"
        return "vacuous" if self.vacuous else "holds"


def required(profile: Profile) -> bool:
    """Whether ``RULE`` is a MUST under ``profile``: it is when its safety form
    (``reemit-pending``) is; a lasso is a failure only then."""
    return grade(SAFETY_FORM, profile).level is Level.MUST


def requirement(profile: Profile) -> str:
    """Why a lasso under ``profile`` is or is not a failure, with the sources."""
    found = grade(SAFETY_FORM, profile)
    sources = ", ".join(found.sources)
    if found.level is Level.MUST:
        return f"{SAFETY_FORM} is a MUST under {profile.value} ({sources}): a stranded request is a failure"
    why = f": {found.reason}" if found.reason else ""
    return (f"{SAFETY_FORM} is {found.level.value} under {profile.value} ({sources}){why}; "
            "a lasso there shows a run the revision allows, not a failure")


# -- the property ----------------------------------------------------------------------


def stranded(state: State) -> frozenset[str]:
    """The requests of ``state`` that are stranded (module docstring)."""
    found = set()
    for request in state.requests:
        if request.status is not RequestStatus.PENDING:
            continue
        session = state.session(request.session)
        entry = state.client_session(request.session)
        carrier = state.stream(request.stream)
        if session is None or session.status is not SessionStatus.LIVE or entry is None:
            continue
        if request.id not in entry.seen and not (carrier is not None and carrier.connected):
            found.add(request.id)
    return frozenset(found)


def reemitting_resumptions(graph: LivenessGraph) -> int:
    """The edges of ``graph`` where a session resumption (``reconnect`` without a
    Last-Event-ID, inside the bound) ends the stranding of a request: re-emitted or cancelled."""
    count = 0
    for key, edges in graph.edges.items():
        before = stranded(graph.states[key])
        for edge in edges:
            action = edge.action
            if not before or edge.kept is not None or not isinstance(action, Reconnect) or action.last_event_id:
                continue
            if before - stranded(graph.states[edge.target]):
                count += 1
    return count


def fair_actions(state: State) -> frozenset[Action]:
    """The weakly fair actions enabled in ``state``: each held live session's resumption."""
    return frozenset(Reconnect(s.id, None) for s in state.live_sessions() if state.client_session(s.id) is not None)


# -- the graphs ------------------------------------------------------------------------


Successors = Callable[[Hashable, object], Iterator[tuple[Action, State, Hashable, object, bool]]]


Progress = Callable[[int, int, float], None]
"""Called now and then while a graph is walked: states found, depth, seconds."""

PROGRESS_EVERY = 2000
"""States expanded between two progress calls."""


def _explore(name: str, bounds: Bounds, root_key, root_node, root_state: State, moves: Successors,
             max_states: int | None = None, progress: Progress | None = None,
             profile: Profile = Profile.BOUNDARY) -> LivenessGraph:
    """Breadth-first over ``moves`` (action, after state, key, node, within bounds), recording every edge.

    With ``max_states``, the walk stops before it expands a state once more than that many
    are known (``graph.stopped`` says so). Every state with edges then has all of them, and
    a state never expanded has none, so it lies on no cycle: a lasso of the part walked is a
    lasso of the whole graph, while its absence proves nothing."""
    started = time.perf_counter()
    walk = BreadthFirst(root_key, root_node)
    graph = LivenessGraph(name, bounds, walk, profile)
    graph.states[root_key] = root_state

    def successors(key, node):
        if max_states is not None and len(graph.states) > max_states:
            graph.stopped = f"stopped at --max-states {max_states:,}: {len(graph.states):,} states known, depth {walk.depth}"
            raise StopWalk
        if progress is not None and walk.expanded and walk.expanded % PROGRESS_EVERY == 0:
            progress(len(graph.states), walk.depth, time.perf_counter() - started)
        state = graph.states[key]
        edges = graph.edges.setdefault(key, [])
        fair = fair_actions(state)
        for action, after, after_key, after_node, inside in moves(key, node):
            if inside:
                graph.states.setdefault(after_key, after)
                edges.append(Edge(action, after_key))
                yield action, after_key, after_node
            elif action in fair:
                kept = stranded(state) & stranded(after)
                if kept:
                    edges.append(Edge(action, key, frozenset(kept)))

    walk.run(successors, bounds.depth)
    graph.seconds = time.perf_counter() - started
    return graph


def spec_graph(bounds: Bounds, profile: Profile = Profile.BOUNDARY, max_states: int | None = None,
               progress: Progress | None = None) -> LivenessGraph:
    """The spec's own graph within ``bounds``, keyed by state: every answer ``profile``
    accepts (``transitions.alternatives``: under ``boundary`` a session resumption
    re-emits or cancels each stranded request, under an MCP revision it may also leave it).
    ``max_states`` and ``progress`` as ``_explore``."""

    def moves(key, state):
        for action in candidate_actions(state):
            if enabled(state, action, profile):
                for transition in alternatives(state, action, profile):
                    after = transition.after
                    yield action, after, after, after, within(after, bounds)

    return _explore("spec", bounds, INITIAL_STATE, INITIAL_STATE, INITIAL_STATE, moves, max_states, progress, profile)


def design_graph(factory: Callable[[], ServerUnderTest], bounds: Bounds, max_states: int | None = None,
                 progress: Progress | None = None) -> LivenessGraph:
    """The graph of the server made by ``factory`` beside the spec within ``bounds``,
    keyed by (spec state, server fingerprint); the server must be picklable.
    ``max_states`` and ``progress`` as ``_explore``."""
    probe = factory()
    name = getattr(probe, "name", type(probe).__name__)
    root = (INITIAL_STATE, server_fingerprint(probe, IdMap(), {}))
    snapshot = pickle.dumps((probe, IdMap()), protocol=pickle.HIGHEST_PROTOCOL)
    probe.close()

    def moves(key, snapshot):
        state = key[0]
        for action in candidate_actions(state, ISSUED_HEADERS):
            if action.kind in QUIET or not enabled(state, action):
                continue
            checker = tracking_checker(*pickle.loads(snapshot), state)
            try:
                checker.apply(action)
            except Unsupported:
                continue
            after = checker.state
            after_key = (after, server_fingerprint(checker.server, checker.ids, canonical_names(after)[1]))
            if after_key == key:
                yield action, after, key, snapshot, True
                continue
            inside = within(after, bounds)
            node = pickle.dumps((checker.server, checker.ids), protocol=pickle.HIGHEST_PROTOCOL) if inside else None
            yield action, after, after_key, node, inside

    return _explore(name, bounds, root, snapshot, INITIAL_STATE, moves, max_states, progress)


def tracking_checker(server: ServerUnderTest, ids: IdMap | None = None, state: State = INITIAL_STATE) -> Checker:
    """A ``Checker`` that never stops and follows every answer ``TRACKING_PROFILE`` accepts."""
    checker = Checker(server, TRACKING_PROFILE, fail_on=frozenset(), source="liveness")
    checker.state = state
    if ids is not None:
        checker.ids = ids
    return checker


# -- the check -------------------------------------------------------------------------


def check(graph: LivenessGraph) -> LivenessResult:
    """Every request's lasso, if it has one (at most one per request, the first found)."""
    held = [found for state in graph.states.values() if (found := stranded(state))]
    requests = sorted(set().union(*held), key=lambda r: (len(r), r))
    lassos = [lasso for r in requests if (lasso := _lasso_for(graph, r)) is not None]
    return LivenessResult(graph, lassos, len(held))


def _lasso_for(graph: LivenessGraph, request: str) -> Lasso | None:
    order = [key for key, state in graph.states.items() if request in stranded(state)]
    inside = set(order)

    def edges(key):
        return [e for e in graph.edges.get(key, ()) if e.target in inside and (e.kept is None or request in e.kept)]

    found = []
    for component in strongly_connected(order, lambda key: [e.target for e in edges(key)]):
        members = set(component)
        internal = {key: [e for e in edges(key) if e.target in members] for key in component}
        if not any(internal.values()):
            continue
        needed = set.intersection(*(set(fair_actions(graph.states[key])) for key in component))
        taken = {}
        for key in component:
            for edge in internal[key]:
                if edge.action in needed:
                    taken.setdefault(edge.action, (key, edge))
        if needed <= set(taken):
            found.append(_build_lasso(graph, request, internal, [taken[a] for a in sorted(needed, key=describe)] or [_any(internal)]))
    return min(found, key=_shortness, default=None)


def _shortness(lasso: Lasso) -> tuple:
    """Shortest first, then the earliest in discovery order (a fixed order, whatever the hash seed)."""
    return len(lasso.prefix) + len(lasso.cycle), len(lasso.cycle), [describe(a) for a in lasso.prefix + lasso.cycle]


def _any(internal: dict) -> tuple:
    key = next(k for k, es in internal.items() if es)
    return key, internal[key][0]


def _build_lasso(graph: LivenessGraph, request: str, internal: dict, fair: list[tuple]) -> Lasso:
    start = fair[0][0]
    cycle: list[Action] = []
    here = start
    closing = False
    for source, edge in fair:
        cycle += _path(internal, here, source)
        cycle.append(edge.action)
        closing = closing or edge.kept is not None
        here = edge.target
    cycle += _path(internal, here, start)
    return Lasso(graph.name, request, graph.walk.path_to(start), tuple(cycle), closing)


def _path(internal: dict, source, target) -> list[Action]:
    """The actions of a shortest path from ``source`` to ``target`` inside one component."""
    if source == target:
        return []
    parents = {source: None}
    queue = deque([source])
    while queue:
        key = queue.popleft()
        for edge in internal[key]:
            if edge.target not in parents:
                parents[edge.target] = (key, edge.action)
                if edge.target == target:
                    return _unwind(parents, target)
                queue.append(edge.target)
    raise AssertionError("no path inside a strongly connected component")


def _unwind(parents: dict, key) -> list[Action]:
    steps = []
    while parents[key] is not None:
        key, action = parents[key]
        steps.append(action)
    return steps[::-1]


def strongly_connected(nodes, successors: Callable[[Hashable], list]) -> list[list]:
    """The strongly connected components of the graph on ``nodes`` (Tarjan's
    algorithm, iterative: no recursion limit), each a list of nodes."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    components: list[list] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(successors(root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors(child))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components


# -- replaying a lasso -----------------------------------------------------------------


def lasso_shape(trace: Trace) -> tuple[int, int]:
    """``(prefix, cycle)`` of a lasso trace: its ``meta.lasso`` lengths, in steps. ``ValueError``
    unless they are whole numbers, the prefix at least 0, the cycle at least 1, and the
    actions the prefix followed by the cycle one or more times (``Lasso.trace`` writes it twice)."""
    lasso = trace.meta.get("lasso") if isinstance(trace.meta, dict) else None
    if not isinstance(lasso, dict) or not {"prefix", "cycle"} <= set(lasso):
        raise ValueError("not a lasso trace: its meta has no 'lasso' with 'prefix' and 'cycle'")
    prefix, cycle = lasso["prefix"], lasso["cycle"]
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in (prefix, cycle)) or prefix < 0 or cycle < 1:
        raise ValueError(f"a lasso's prefix must be a whole number of steps >= 0 and its cycle >= 1, "
                         f"not {prefix!r} and {cycle!r}")
    rest = len(trace.actions) - prefix
    if rest < cycle or rest % cycle:
        raise ValueError(f"a lasso of {len(trace.actions)} actions cannot be a {prefix}-step prefix followed by "
                         f"its {cycle}-step cycle once or more")
    first = trace.actions[prefix:prefix + cycle]
    for start in range(prefix + cycle, len(trace.actions), cycle):
        if trace.actions[start:start + cycle] != first:
            raise ValueError(f"steps {start + 1}-{start + cycle} of the lasso differ from its cycle (steps "
                             f"{prefix + 1}-{prefix + cycle}): a lasso repeats its cycle action for action")
    if "request" in lasso and not isinstance(lasso["request"], str):
        raise ValueError(f"a lasso's request must be a server request's handle (such as \"R1\"), not {lasso['request']!r}")
    if trace.failure is not None and trace.failure.rule != RULE:
        raise ValueError(f"a lasso is a counterexample to {RULE}, but the trace's failure names {trace.failure.rule!r}")
    return prefix, cycle


def lasso_request(trace: Trace) -> str | None:
    """The request a lasso trace says stays stranded (``meta.lasso.request``), if it names one
    (after ``lasso_shape``, which checks it is a handle)."""
    return trace.meta["lasso"].get("request")


def replay_lasso(trace: Trace, server: ServerUnderTest) -> list[frozenset[str]]:
    """Replay a lasso trace (``Lasso.trace``) on ``server`` beside the spec, following
    the server as ``design_graph`` does; return the stranded requests after the
    prefix and after each round of the cycle. ``ValueError`` for a trace whose lasso
    is not one (``lasso_shape``) or with a step the spec does not enable."""
    prefix, cycle = lasso_shape(trace)
    rounds = (len(trace.actions) - prefix) // cycle
    boundaries = {prefix + cycle * n for n in range(rounds + 1)}
    checker = tracking_checker(server)
    after = [stranded(checker.state)] if 0 in boundaries else []
    for number, action in enumerate(trace.actions, start=1):
        if not checker.enabled(action):
            raise ValueError(f"lasso step {number} ({action.kind}) is not enabled in the spec's state")
        checker.apply(action)
        if number in boundaries:
            after.append(stranded(checker.state))
    return after
