"""How far an exploration of the spec goes: the bounds of a run, named bounds, ``within``.

A ``Bounds`` limits how many sessions a state may hold, how many streams each
session, how many events each stream and how many server requests each session,
and optionally how many steps a state may lie from the initial state. A
transition whose target breaks a bound is *pruned*: it is neither counted as a
transition nor checked, and its target is not explored (TLC's state constraint).
Every explorer of the project (``model.explore``, the lifecycle diagrams, the
agreement of the Z3 encoding with the spec) reads the same bounds the same way.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .state import State


@dataclass(frozen=True)
class Bounds:
    """Limits of one exploration; ``depth=None`` explores until no new state appears.

    Raises ``ValueError`` for a negative limit.
    """

    sessions: int
    streams: int
    events: int
    requests: int
    depth: int | None = None

    def __post_init__(self) -> None:
        for name in ("sessions", "streams", "events", "requests"):
            if getattr(self, name) < 0:
                raise ValueError(f"bound {name} must be 0 or more, got {getattr(self, name)}")
        if self.depth is not None and self.depth < 0:
            raise ValueError(f"bound depth must be 0 or more, got {self.depth}")

    def describe(self) -> str:
        depth = "unbounded depth" if self.depth is None else f"depth {self.depth}"
        return (
            f"{self.sessions} session(s), {self.streams} stream(s)/session, {self.events} event(s)/stream, "
            f"{self.requests} server request(s)/session, {depth}"
        )

    def to_json(self) -> dict:
        return asdict(self)


NAMED_BOUNDS: dict[str, Bounds] = {
    "graph": Bounds(sessions=1, streams=1, events=1, requests=1, depth=4),
    "tiny": Bounds(sessions=1, streams=1, events=2, requests=1),
    "small": Bounds(sessions=2, streams=1, events=2, requests=1, depth=6),
    "kill": Bounds(sessions=2, streams=2, events=2, requests=1, depth=7),
    "default": Bounds(sessions=2, streams=2, events=3, requests=1, depth=10),
    "deep": Bounds(sessions=2, streams=2, events=3, requests=1, depth=11),
}
"""The bounds a user can name on the command line. ``default`` is what ``mcp-resume
check`` exhausts; ``kill`` is where the kill matrix explores each faulty design
(the deepest design needs 7 steps and two streams of one session); ``graph`` is
small enough to draw."""

DEFAULT_BOUND = "default"
KILL_BOUND = "kill"
GRAPH_BOUND = "graph"


def named_bound(name: str) -> Bounds:
    """The bound called ``name``; ``ValueError`` naming the known bounds otherwise."""
    try:
        return NAMED_BOUNDS[name]
    except KeyError:
        raise ValueError(f"unknown bound {name!r}; known bounds: {', '.join(NAMED_BOUNDS)}") from None


def within(state: State, bounds: Bounds) -> bool:
    """True when ``state`` respects every entity bound (depth is the walk's business)."""
    if len(state.sessions) > bounds.sessions:
        return False
    return (
        _most(s.session for s in state.streams) <= bounds.streams
        and _most(e.stream for e in state.events) <= bounds.events
        and _most(r.session for r in state.requests) <= bounds.requests
    )


def _most(owners) -> int:
    """How many items the most frequent owner has (0 for none)."""
    counts: dict[str, int] = {}
    for owner in owners:
        counts[owner] = counts.get(owner, 0) + 1
    return max(counts.values(), default=0)
