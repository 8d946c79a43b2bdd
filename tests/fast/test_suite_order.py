"""The order tests/conftest.py deals the slow tier to xdist workers in: tests that share a
module-scoped fixture of their module stay together, so the fixture is made once, and the
tests that compute run beside those that wait on a server, from the start of the run to its end.
Also when the bytecode the workers need counts as missing (one collection then writes it first)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import conftest


@dataclass
class FakeItem:
    """What the dealing reads of a pytest item: node id, path, name, marks and fixtures."""

    nodeid: str
    fixtures: dict = field(default_factory=dict)
    slow: bool = True

    @property
    def path(self) -> Path:
        return conftest.SLOW / self.nodeid.split("::")[0].rsplit("/", 1)[-1]

    @property
    def name(self) -> str:
        return self.nodeid.split("::")[-1]

    @property
    def _fixtureinfo(self):
        return SimpleNamespace(name2fixturedefs=self.fixtures)

    def get_closest_marker(self, name: str):
        return object() if name == "slow" and self.slow else None


def _fixture(scope: str, baseid: str):
    return (SimpleNamespace(scope=scope, baseid=baseid),)


def test_tests_sharing_a_module_fixture_of_their_module_form_one_block():
    server = {"server": _fixture("module", "tests/slow/test_a.py")}
    shared = {"shared_runs": _fixture("session", "tests")}
    items = [FakeItem("tests/slow/test_a.py::test_1", server), FakeItem("tests/slow/test_b.py::test_1", shared),
             FakeItem("tests/slow/test_a.py::test_2", server), FakeItem("tests/slow/test_b.py::test_2", shared),
             FakeItem("tests/slow/test_a.py::test_3")]
    blocks = [[item.nodeid for item in block] for block in conftest._blocks(items)]
    assert blocks == [["tests/slow/test_a.py::test_1", "tests/slow/test_a.py::test_2"], ["tests/slow/test_b.py::test_1"],
                      ["tests/slow/test_b.py::test_2"], ["tests/slow/test_a.py::test_3"]]


def test_a_class_fixture_and_a_module_fixture_join_what_they_share():
    module = _fixture("module", "tests/slow/test_a.py")
    klass = _fixture("class", "tests/slow/test_a.py::TestA")
    items = [FakeItem("tests/slow/test_a.py::TestA::test_1", {"k": klass}),
             FakeItem("tests/slow/test_a.py::test_2", {"m": module}),
             FakeItem("tests/slow/test_a.py::TestA::test_3", {"k": klass, "m": module})]
    assert [len(block) for block in conftest._blocks(items)] == [2, 1]


def test_each_block_lands_whole_and_in_a_row_on_one_worker(monkeypatch):
    monkeypatch.setattr(conftest, "DURATIONS", {f"test_{m}.py::test_{n}": [10.0, 1.0] for m in "ab" for n in range(4)})
    server = {"server": _fixture("module", "tests/slow/test_a.py")}
    items = [FakeItem(f"tests/slow/test_a.py::test_{n}", server) for n in range(4)]
    items += [FakeItem(f"tests/slow/test_b.py::test_{n}") for n in range(4)]
    items += [FakeItem(f"tests/fast/test_c.py::test_{n}", slow=False) for n in range(8)]
    ordered = conftest._dealt(items, 2)
    assert sorted(item.nodeid for item in ordered) == sorted(item.nodeid for item in items)
    first_worker = [item.nodeid for item in ordered[:len(ordered) // 2]]
    a_tests = [index for index, nodeid in enumerate(first_worker) if "test_a.py" in nodeid]
    assert a_tests == list(range(4)), first_worker  # the whole block, longest first, before anything else
    assert not any("test_a.py" in item.nodeid for item in ordered[len(ordered) // 2:])


def test_computing_and_waiting_tests_are_dealt_at_the_same_pace(monkeypatch):
    """Four computing tests among eight that wait, on four workers: each round of the run has
    one or two computing tests, none is left with only waiting ones (dealt computing first,
    the last round would be all waiting, the cores idle)."""
    computing = {f"test_cpu.py::test_{n}": [10.0, 10.0] for n in range(4)}
    waiting = {f"test_wait.py::test_{n}": [10.0, 0.5] for n in range(8)}
    monkeypatch.setattr(conftest, "DURATIONS", computing | waiting)
    items = [FakeItem(f"tests/slow/{name}") for name in computing | waiting]
    ordered = conftest._dealt(items, 4)
    queues = [ordered[i * 3:(i + 1) * 3] for i in range(4)]  # 12 tests, 3 a worker
    rounds = [[queue[step].nodeid for queue in queues] for step in range(3)]  # what the workers run at once
    assert all(1 <= sum("test_cpu.py" in nodeid for nodeid in running) <= 2 for running in rounds), rounds


def test_bytecode_is_missing_until_each_test_module_has_its_rewritten_asserts(tmp_path):
    (tmp_path / "slow").mkdir()
    (tmp_path / "slow" / "test_a.py").write_text("def test_a(): pass\n")
    (tmp_path / "helpers.py").write_text("")  # not a test module: never rewritten
    assert conftest._bytecode_missing(tmp_path)
    cache = tmp_path / "slow" / "__pycache__"
    cache.mkdir()
    (cache / f"test_a.{sys.implementation.cache_tag}.pyc").write_bytes(b"")  # plain bytecode is not enough
    assert conftest._bytecode_missing(tmp_path)
    (cache / f"test_a.{sys.implementation.cache_tag}-pytest-{pytest.__version__}.pyc").write_bytes(b"")
    assert not conftest._bytecode_missing(tmp_path)
