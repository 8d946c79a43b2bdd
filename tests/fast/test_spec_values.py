"""The spec's values are plain frozen, slotted dataclasses: built, compared, hashed and
replaced as dataclasses are, and never changed once built."""

from dataclasses import FrozenInstanceError, fields, is_dataclass, replace

import pytest

from mcp_resume.spec import actions, decision, invariants, state, transitions
from mcp_resume.spec.state import Event, State, Stream, StreamKind, StreamStatus

VALUE_CLASSES = [
    cls for module in (actions, decision, invariants, state, transitions)
    for cls in vars(module).values()
    if isinstance(cls, type) and is_dataclass(cls) and cls.__module__ == module.__name__
]


def test_every_value_class_is_a_frozen_slotted_dataclass():
    assert len(VALUE_CLASSES) >= 25
    for cls in VALUE_CLASSES:
        assert cls.__dataclass_params__.frozen, cls
        assert "__slots__" in vars(cls), cls


def test_the_spec_values_keep_their_defaults():
    stream = Stream("T1", "S1", StreamKind.POST)
    assert (stream.status, stream.connected, stream.evicted) == (StreamStatus.OPEN, True, 0)
    assert [f.name for f in fields(State)] == ["sessions", "streams", "events", "requests", "client"]
    with pytest.raises(FrozenInstanceError):
        stream.connected = False


def test_equal_states_hash_alike_and_replace_builds_a_new_one():
    one = State(events=(Event("E1", "T1"),))
    assert one == State((), (), (Event("E1", "T1"),), (), ()) and hash(one) == hash(State(events=one.events))
    assert replace(one, events=()) == State() != one
    assert one.event("E1") == Event("E1", "T1") and one.event("E2") is None and one.event(None) is None
