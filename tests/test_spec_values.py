"""``spec.values.immutable`` makes what ``dataclass(frozen=True, slots=True)`` makes, with
a cheaper ``__init__``: the same fields, defaults, equality, hashing, ``replace`` and
refusal to change a field."""

from dataclasses import FrozenInstanceError, field, fields, replace

import pytest

from mcp_resume.spec.state import State, Stream, StreamKind, StreamStatus
from mcp_resume.spec.values import immutable


@immutable
class _Point:
    x: int
    y: int = 0
    seen: tuple = field(default=(), compare=False)
    cached: int | None = field(default=None, init=False, compare=False)


def test_a_value_is_built_compared_hashed_and_replaced_as_a_frozen_dataclass():
    point = _Point(1)
    assert (point.x, point.y, point.seen, point.cached) == (1, 0, (), None)
    assert _Point(1, 2) == _Point(x=1, y=2) != _Point(1, 3)
    assert _Point(1, 2, ("a",)) == _Point(1, 2) and hash(_Point(1, 2, ("a",))) == hash(_Point(1, 2))
    assert replace(point, y=5) == _Point(1, 5)
    assert [f.name for f in fields(_Point)] == ["x", "y", "seen", "cached"]
    assert not hasattr(point, "__dict__")  # slotted
    with pytest.raises(FrozenInstanceError):
        point.x = 2
    with pytest.raises(TypeError):
        _Point()
    with pytest.raises(TypeError):
        _Point(1, cached=3)


def test_a_field_with_a_default_factory_is_refused():
    with pytest.raises(TypeError, match="plain defaults"):
        @immutable
        class _Listed:
            items: list = field(default_factory=list)


def test_the_spec_values_keep_their_defaults():
    stream = Stream("T1", "S1", StreamKind.POST)
    assert (stream.status, stream.connected, stream.evicted) == (StreamStatus.OPEN, True, 0)
    assert State() == State((), (), (), (), ()) and State().dense is None
    with pytest.raises(FrozenInstanceError):
        stream.connected = False
