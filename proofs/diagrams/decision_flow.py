"""The decision as a flowchart, derived from ``decide_class`` by enumeration.

No label is typed by hand except the names of the questions. The table is
enumerated over every (method, session class, event class, profile); profiles
that route requests the same way form one group; within a group a decision
diagram is grown over the questions in a fixed order (the session header first,
so the 400/404 guards come first, then the method, then ``Last-Event-ID``),
skipping a question wherever its answer changes nothing and merging answers
that lead to the same place. An outcome shows the branch, its number in
docs/design.md §2, the catalog rule that judges it, and its statuses per profile,
profiles with the same statuses on one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from mcp_resume.spec.decision import BRANCH_RULE, NUMBERED_BRANCHES, Branch, ClassDecision, Method
from mcp_resume.spec.headers import EventClass, SessionClass
from mcp_resume.spec.profiles import Profile

from mcp_resume.proofs.decision.table import DecideClass, python_table, ranges
from mcp_resume.proofs.diagrams.model import Diagram, Edge, Node

QUESTIONS: tuple[tuple[str, str, type[Enum]], ...] = (
    ("session", "Mcp-Session-Id?", SessionClass),
    ("method", "method?", Method),
    ("event", "Last-Event-ID?", EventClass),
)
"""(key, label, enum) of each question, in the order they are asked."""

Request = dict  # question key -> enum member


@dataclass(frozen=True)
class Outcome:
    branch: Branch
    statuses: tuple[tuple[Profile, int, frozenset[int]], ...]  # (profile, canonical, acceptable)


@dataclass(frozen=True)
class Ask:
    question: str
    answers: tuple[tuple[tuple[Enum, ...], "Ask | Outcome"], ...]


def decision_flow(decide: DecideClass | None = None) -> Diagram:
    """The flowchart of ``decide`` (default: the spec's ``decide_class``)."""
    table = python_table(decide)
    builder = _Builder()
    start = Node("start", ("request",), "start")
    root = _profile_split(table)
    builder.nodes.append(start)
    if isinstance(root, Ask):
        builder.ask_answers("start", root)
    else:
        builder.edge("start", builder.add(root), ())
    return Diagram("decision-flow", "How a server answers one request", "flowchart",
                   tuple(builder.nodes), tuple(builder.edges))


def _profile_split(table) -> Ask:
    groups: dict[tuple, list[Profile]] = {}
    for profile in Profile:
        routing = tuple(table[(m, s, e, profile)].branch for m in Method for s in SessionClass for e in EventClass)
        groups.setdefault(routing, []).append(profile)
    answers = []
    for profiles in groups.values():
        requests = [{"session": s, "method": m, "event": e} for s in SessionClass for m in Method for e in EventClass]
        answers.append((tuple(profiles), _grow(table, tuple(profiles), requests, 0)))
    return Ask("profile", tuple(answers))


def _outcome(table, profiles, request: Request) -> Outcome:
    entries: list[tuple[Profile, ClassDecision]] = [
        (p, table[(request["method"], request["session"], request["event"], p)]) for p in profiles
    ]
    return Outcome(entries[0][1].branch, tuple((p, e.status, e.statuses) for p, e in entries))


def _grow(table, profiles, requests: list[Request], depth: int):
    outcomes = {_outcome(table, profiles, r) for r in requests}
    if len(outcomes) == 1:
        return outcomes.pop()
    key, _, enum = QUESTIONS[depth]
    children = []
    for value in enum:
        subset = [r for r in requests if r[key] is value]
        if subset:
            children.append((value, _grow(table, profiles, subset, depth + 1)))
    if len({child for _, child in children}) == 1:
        return children[0][1]
    merged: dict = {}
    for value, child in children:
        merged.setdefault(child, []).append(value)
    answers = [(tuple(values), child) for child, values in merged.items()]
    answers.sort(key=lambda a: not isinstance(a[1], Outcome))  # outcomes decided here first (guards)
    return Ask(key, tuple(answers))


class _Builder:
    """Turns the Ask/Outcome tree into nodes and edges, sharing equal subtrees."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.edges: list[Edge] = []
        self.ids: dict[object, str] = {}

    def add(self, item) -> str:
        if item in self.ids:
            return self.ids[item]
        if isinstance(item, Outcome):
            node_id = f"outcome_{len(self.ids)}"
            self.ids[item] = node_id
            self.nodes.append(Node(node_id, outcome_lines(item), "outcome"))
            return node_id
        node_id = f"ask_{item.question}_{len(self.ids)}"
        self.ids[item] = node_id
        label = next(label for key, label, _ in QUESTIONS if key == item.question)
        self.nodes.append(Node(node_id, (label,), "question"))
        self.ask_answers(node_id, item)
        return node_id

    def ask_answers(self, node_id: str, ask: Ask) -> None:
        for values, child in ask.answers:
            slot = len(self.edges)
            self.edges.append(None)  # keeps a question's edges ahead of its subtree's
            self.edges[slot] = Edge(node_id, self.add(child), (", ".join(v.value for v in values),))

    def edge(self, source: str, target: str, labels: tuple[str, ...]) -> None:
        self.edges.append(Edge(source, target, labels))


def outcome_lines(outcome: Outcome) -> tuple[str, ...]:
    """``("[1] stream-resumption", "rule: replay-suffix", "boundary: 200", ...)``.

    Statuses get one line per group of profiles that agree, or a single
    ``status ...`` line when all the outcome's profiles agree.
    """
    number = NUMBERED_BRANCHES.get(outcome.branch)
    head = f"[{number}] {outcome.branch.value}" if number else outcome.branch.value
    lines = [head, f"rule: {BRANCH_RULE[outcome.branch]}"]
    by_statuses: dict[tuple[int, frozenset[int]], list[Profile]] = {}
    for profile, canonical, statuses in outcome.statuses:
        by_statuses.setdefault((canonical, statuses), []).append(profile)
    if len(by_statuses) == 1:
        (canonical, statuses), = by_statuses
        return (*lines, f"status {describe_statuses(canonical, statuses)}")
    for (canonical, statuses), profiles in by_statuses.items():
        lines.append(f"{', '.join(p.value for p in profiles)}: {describe_statuses(canonical, statuses)}")
    return tuple(lines)


def describe_statuses(canonical: int, statuses: frozenset[int]) -> str:
    """``"400"``, or ``"200 (accepts 200, 405)"``, or ``"400 (accepts 4xx except 404)"``."""
    if statuses == frozenset({canonical}):
        return str(canonical)
    return f"{canonical} (accepts {status_set_text(statuses)})"


def status_set_text(statuses: frozenset[int]) -> str:
    """A short reading of a status set: whole classes as ``4xx``, nearly whole ones with ``except``."""
    parts = []
    remaining = set(statuses)
    for hundred in range(100, 600, 100):
        in_class = {c for c in remaining if hundred <= c < hundred + 100}
        missing = sorted(set(range(hundred, hundred + 100)) - in_class)
        if len(missing) <= 3:
            text = f"{hundred // 100}xx"
            parts.append((hundred, text + (f" except {', '.join(map(str, missing))}" if missing else "")))
            remaining -= in_class
    for item in ranges(frozenset(remaining)):
        parts.append((item[0] if isinstance(item, tuple) else item,
                      f"{item[0]}-{item[1]}" if isinstance(item, tuple) else str(item)))
    return ", ".join(text for _, text in sorted(parts))
