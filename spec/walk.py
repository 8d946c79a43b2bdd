"""A breadth-first walk over any graph given by a ``successors`` function, and the path
back to a node it found: a search utility, not part of what the spec says.

No module of the specification uses it. It sits in ``spec/`` because the explorers of
two layers that never import each other walk the spec's states with it: in ``model/``,
``explore.plain`` (the reference explorer), ``explore.fast`` (the search over session
forms and the path back to a finding), ``explore.server`` (a faulty design beside the
spec), ``explore.liveness_check`` and ``sessionless.sessionless_explore``; in ``proofs/``,
``system.agreement`` (the Z3 encoding against the spec) and ``diagrams.exploration``
(the lifecycle diagrams). ``spec/`` is the one package both layers import.

The walk goes level by level from a root, expanding each node once; a node is known by
its *key* (the node itself, or a canonical form of it). Breadth-first order makes the
path to any node a shortest one, so the first trace an explorer records for a rule is
a shortest.

``successors(key, node)`` is called once per node to expand and yields
``(step, successor key, successor)`` triples; a step is whatever the caller
calls an edge (an action, an abstract move). It is usually a generator, and the
walk processes each triple before the generator resumes: code after a ``yield``
sees ``walk.parents`` already holding the successor when it was new, and code
before it may test ``key in walk.parents`` to skip work for a known node. The
generator may raise ``StopWalk`` to end the walk at once (``walk.stopped``).

Standard library only, no I/O; nothing here knows what a node is.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Iterable, Mapping

Successors = Callable[[Hashable, object], Iterable[tuple[object, Hashable, object]]]
"""``successors(key, node)`` -> ``(step, successor key, successor)`` triples."""


class StopWalk(Exception):
    """Raised by ``successors`` to end the walk now (a first counterexample, a target reached)."""


class BreadthFirst:
    """One breadth-first walk from ``root`` (whose key is ``root_key``).

    ``parents`` maps every key found to ``(parent key, step)``, ``None`` for the
    root; ``levels[d]`` is how many nodes lie ``d`` steps from the root;
    ``depth`` is the deepest level expanded or reached; ``expanded`` counts the
    nodes expanded; ``stopped`` is True when ``successors`` raised ``StopWalk``.
    All are live during ``run``, so ``successors`` may read them (progress).
    """

    def __init__(self, root_key: Hashable, root: object) -> None:
        self.root_key = root_key
        self.root = root
        self.parents: dict[Hashable, tuple[Hashable, object] | None] = {root_key: None}
        self.levels: list[int] = [1]
        self.depth = 0
        self.expanded = 0
        self.stopped = False

    def run(self, successors: Successors, depth: int | None = None,
            order: Callable[[object], Any] | None = None,
            level: Callable[[list[tuple[Hashable, object]]], None] | None = None) -> "BreadthFirst":
        """Expand the levels 0, 1, ... up to ``depth - 1`` (all of them when ``depth``
        is None), each node once, in the order ``successors`` yields; return ``self``.

        ``order``, when given, sorts each level before it is expanded (a sort key of
        the node; ties keep the order found): paths stay shortest in any order within
        a level, and a caller that stops at its first finding finds it sooner by
        expanding the likeliest nodes first. ``level``, when given, sees each level's
        ``(key, node)`` list, in order, before its nodes are expanded (a caller may
        work out their successors ahead, e.g. on other cores).

        Raises ``ValueError`` for a negative ``depth``, and whatever ``successors``
        raises other than ``StopWalk``.
        """
        if depth is not None and depth < 0:
            raise ValueError(f"depth must be 0 or more, got {depth}")
        parents = self.parents
        frontier = [(self.root_key, self.root)]
        try:
            while frontier and (depth is None or self.depth < depth):
                if level is not None:
                    level(frontier)
                next_frontier: list[tuple[Hashable, object]] = []
                add = next_frontier.append
                for key, node in frontier:
                    for step, successor_key, successor in successors(key, node):
                        if successor_key not in parents:
                            parents[successor_key] = (key, step)
                            add((successor_key, successor))
                    self.expanded += 1
                frontier = next_frontier
                if order is not None:
                    frontier.sort(key=lambda item: order(item[1]))
                if frontier:
                    self.depth += 1
                    self.levels.append(len(frontier))
        except StopWalk:
            self.stopped = True
        return self

    def path_to(self, key: Hashable) -> tuple[object, ...]:
        """The steps from the root to ``key``; ``KeyError`` for a key not found."""
        return path_to(self.parents, key)


def breadth_first(root_key: Hashable, root: object, successors: Successors, depth: int | None = None) -> BreadthFirst:
    """``BreadthFirst(root_key, root).run(successors, depth)``: see ``BreadthFirst``."""
    return BreadthFirst(root_key, root).run(successors, depth)


def path_to(parents: Mapping[Hashable, tuple[Hashable, object] | None], key: Hashable) -> tuple[object, ...]:
    """The steps from the root to ``key`` in a breadth-first ``parents`` map
    (key -> ``(parent key, step)``, ``None`` at the root); ``KeyError`` for a key
    not in the map."""
    steps = []
    link = parents[key]
    while link is not None:
        key, step = link
        steps.append(step)
        link = parents[key]
    return tuple(reversed(steps))
