"""A server's state written in the spec's canonical names: the key of a product state.

The design explorer (``explore_server``) meets the same spec state, up to
symmetry, on many paths, with the server's tables holding the same content
under different ids (``sess-1`` here, ``sess-3`` there, because other things
were created in between) and filled in a different order. ``server_fingerprint``
walks the server's attributes and writes every id the checker has paired with
a spec handle as that handle's *canonical name* (its position in the canonical
form: session rank, stream index, event position, request number). Everything
else is kept as it is: counters, flags, unpaired ids, the order of lists, and
the order of dicts, except *tables*: dicts keyed by paired ids, whose entries
are sorted by canonical name.

Two product states with equal canonical spec forms and equal fingerprints are
then the same up to a renaming of ids and the insertion order of tables, and
the explorer explores one of them. That is sound for servers that

- treat their ids as names: compare, store and take them apart only the way
  they built them (an event id that ends in its stream's key), and
- do not let the insertion order of a table decide what they answer, beyond
  what the spec itself orders the same way (the connections closed by one
  step are listed in creation order on both sides).

The reference server and every faulty design here satisfy both (design 4
replays a history in table order, and is wrong in every order). A server that
did not would be explored less than exhaustively, never wrongly caught: every
counterexample is replayed on the server and on the reference before it counts.
"""

from __future__ import annotations

from collections import deque

from dataclasses import fields, is_dataclass

from mcp_resume.spec.state import State

from mcp_resume.model.explore.canonical import SessionForm, session_naming
from mcp_resume.model.servers.idmap import UNMAPPED_PREFIX, IdMap


def canonical_names(state: State) -> tuple[tuple[SessionForm, ...], dict[str, str]]:
    """The canonical form of ``state`` and a canonical name for each of its handles.

    Sessions are ranked by their forms; a stream is named by its session's rank
    and its index in the form, an event by its stream and position, a request by
    its session's rank and number.
    """
    named = sorted((session_naming(state, s.id) for s in state.sessions), key=lambda item: item[0])
    names: dict[str, str] = {}
    for rank, (_, naming) in enumerate(named):
        names[naming.session] = f"s{rank}"
        for index, stream in enumerate(naming.streams):
            names[stream] = f"s{rank}t{index}"
            for position, event in enumerate(naming.events[index]):
                names[event] = f"s{rank}t{index}e{position}"
        for number, request in enumerate(naming.requests):
            names[request] = f"s{rank}r{number}"
    return tuple(form for form, _ in named), names


def server_fingerprint(server: object, ids: IdMap, names: dict[str, str]) -> tuple:
    """The server's attributes, with every paired id replaced by its canonical name."""
    return _Fingerprint(ids, names).walk(server)


class _Fingerprint:
    """One fingerprint: a walk over the server's values, each string renamed once."""

    def __init__(self, ids: IdMap, names: dict[str, str]) -> None:
        self.ids = ids
        self.names = names
        self.strings: dict[str, object] = {}

    def walk(self, value):
        kind = type(value)
        if kind is str:
            named = self.strings.get(value)
            return self._name(value) if named is None else named
        if value is None or kind in _ATOMS:
            return value
        visit = _VISITS.get(kind)
        if visit is None:
            visit = _VISITS[kind] = _visit_for(kind)  # worked out once per type
        return visit(self, value)

    def _name(self, value: str):
        handle = self.ids.handle(value)
        named = value if handle.startswith(UNMAPPED_PREFIX) else ("#", self.names.get(handle, handle))
        self.strings[value] = named
        return named

    def _dict(self, value: dict) -> tuple:
        walk = self.walk
        items = [(walk(k), walk(v)) for k, v in value.items()]
        if items and all(type(k) is tuple and k[0] == "#" for k, _ in items):
            items.sort(key=_first)  # a table keyed by ids
        return ("dict",) + tuple(items)

    def _sequence(self, value) -> tuple:
        walk = self.walk
        return (type(value).__name__,) + tuple(walk(item) for item in value)

    def _set(self, value) -> tuple:
        return ("set",) + tuple(sorted((self.walk(item) for item in value), key=repr))

    def _string(self, value: str):
        return self._name(value)

    def _atom(self, value):
        return value

    def _dataclass(self, value) -> tuple:
        walk = self.walk
        return (type(value).__name__,) + tuple(walk(getattr(value, name)) for name in _FIELDS[type(value)])

    def _object(self, value) -> tuple:
        walk = self.walk
        return (type(value).__name__,) + tuple((key, walk(item)) for key, item in sorted(vars(value).items()))


def _visit_for(kind: type):
    """How to walk a value of type ``kind`` (a subclass of a known type is walked as it is)."""
    if issubclass(kind, str):
        return _Fingerprint._string
    if issubclass(kind, (bool, int, float)):
        return _Fingerprint._atom
    for base, visit in _CONTAINERS.items():
        if issubclass(kind, base):
            return visit
    if is_dataclass(kind):
        _FIELDS[kind] = tuple(f.name for f in fields(kind))
        return _Fingerprint._dataclass
    return _Fingerprint._object


def _first(item):
    return item[0]


_ATOMS = (bool, int, float)
_CONTAINERS = {
    dict: _Fingerprint._dict,
    list: _Fingerprint._sequence,
    tuple: _Fingerprint._sequence,
    deque: _Fingerprint._sequence,
    set: _Fingerprint._set,
    frozenset: _Fingerprint._set,
}
_VISITS = dict(_CONTAINERS)
"""How each type met so far is walked (``_visit_for``)."""
_FIELDS: dict[type, tuple[str, ...]] = {}
