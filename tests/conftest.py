"""Shared pytest set-up: the two tiers, and the expensive runs every test shares.

- Tests live in folders by what they cost: ``tests/fast/`` is the fast tier (pure
  computation, no whole checker run, no server started; ``-m "not slow"``) and
  ``tests/slow/`` the slow tier (real servers, whole ``verify``/``prove``/machine
  runs). Every test under ``tests/slow/`` is marked ``slow`` here; a ``slow`` mark
  anywhere else is an error, so the folder and the marker never disagree. Under
  ``-m "not slow"`` the slow folder is not even collected (its modules import the
  SDK servers and cost seconds per worker). Helpers the tests share are in
  ``tests/helpers/`` (in-process and hostile servers, event stores, recorded traffic).
- ``pytester`` runs the test kit's plugin the way a user's suite does.
- The expensive runs are session-scoped and made once for the whole session, not
  once per xdist worker (``SharedRuns``): ``prove_outcome(profile)`` (a whole
  ``mcp-resume prove`` of one profile), ``machine_run(server, profile)`` (the
  Hypothesis machine against one in-process server, its counterexample confirmed),
  ``verify_report(server, profile)`` and ``design_over_http(number, profile)``
  (``verify`` against an in-process server served over HTTP), ``prove_to_dev_full`` and
  ``docs_cli_run`` (a whole ``prove`` and ``docs`` command, as a user runs them); test
  modules share theirs the same way (the liveness lassos, each design's exploration).
- Each test's CPU seconds go into the JUnit report (a ``cpu`` property), from which
  ``tools/test_durations.py`` writes ``tests/durations.json``, the order of the slow tier.
- The session writes bytecode (``__pycache__``, which .gitignore lists) even where
  ``PYTHONDONTWRITEBYTECODE`` is set, as container images often set it, and so do the
  interpreters it starts. Without bytecode each of the twelve workers rewrote the asserts
  of every test module again (3.1 CPU seconds to collect instead of 1.3), and every child
  interpreter (a command run as a user runs it, a process pool's worker) compiled the
  package again. Where a test module has none yet, as in a fresh clone, one collection
  writes it before the workers start (``_write_bytecode``).
"""

from __future__ import annotations

import fcntl
import gc
import heapq
import json
import os
import pickle
import resource
import subprocess
import sys
from pathlib import Path

import pytest

sys.dont_write_bytecode = False  # before the imports below, see the module's docstring
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

from mcp_resume.spec.profiles import Profile  # noqa: E402

from tests.helpers import SUITE_EXAMPLES  # noqa: E402

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent
SLOW = TESTS / "slow"


def _fast_tier_only(config) -> bool:
    return config.option.markexpr.replace(" ", "") == "notslow"


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: one worker per core for the fast tier (``-m "not slow"``: computation,
    and each worker pays the collection again), six per core when the slow tier runs
    (most of it waits on a server's answers: bounded timeouts, idle periods). The tests'
    wall seconds add up to about 4,700, so five a core cannot finish in under 490 s, and
    took 494 s with the cores idle for the last 90 s; six took 443 s, the cores busy until
    the last minute. More load means slower answers from the in-process servers, so the
    bounds that a passing run never waits out (connecting, the first byte) are generous in
    the tests that serve them."""
    return (1 if _fast_tier_only(config) else 6) * (os.cpu_count() or 1)


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """Under ``-m "not slow"`` the slow folder is not collected at all."""
    if _fast_tier_only(config) and (collection_path == SLOW or SLOW in collection_path.parents):
        return True
    return None


DURATIONS = json.loads((TESTS / "durations.json").read_text(encoding="utf-8")) if (TESTS / "durations.json").exists() else {}
"""``[wall seconds, CPU seconds]`` each test of a second or more took in a whole run, keyed
``<file>::<test>`` (``tools/test_durations.py`` writes them from a JUnit report): the order
the slow tier starts in."""

BUSY = 0.25
"""A test whose CPU seconds are at least this share of its wall seconds computes; the others
mostly wait on a server (bounded timeouts, idle periods: a tenth or less). A computing test's
share falls to a half or less in a run where others compete for the cores (0.3-0.4 at six
workers a core)."""


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config, items) -> None:
    """Mark ``slow`` every test of ``tests/slow/`` (a ``slow`` mark elsewhere is a
    ``pytest.UsageError``), then order the tests so that the workers finish together and the
    cores stay as busy at the end as at the start: the slow ones first, in the order
    ``_dealt`` gives, the short ones after them to fill the gaps.

    ``--dist worksteal`` gives worker ``i`` of ``n`` the next ``len(left) // (n - i)`` tests
    of this order, then moves tests from the end of a busy worker's queue to an idle one."""
    for item in items:
        in_slow = SLOW in Path(item.path).parents
        if item.get_closest_marker("slow") is not None and not in_slow:
            raise pytest.UsageError(f"{item.nodeid} is marked slow outside tests/slow/: move it there")
        if in_slow:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: (item.get_closest_marker("slow") is None, -_seconds(item)))
    workers = getattr(config, "workerinput", {}).get("workercount", 1)
    if workers > 1:
        items[:] = _dealt(items, workers)


def _recorded(item) -> tuple[float, float]:
    """``(wall, cpu)`` seconds of ``item`` in the run ``DURATIONS`` recorded ((0, 0) for a
    short or new test)."""
    wall, cpu = DURATIONS.get(f"{Path(item.path).name}::{item.name}", (0.0, 0.0))
    return wall, cpu


def _seconds(item) -> float:
    return _recorded(item)[0]


def _weight(block: list) -> float:
    """The wall seconds ``block`` takes: its tests', at least 0.1 each."""
    return sum(max(_seconds(item), 0.1) for item in block)


def _cores_used(block: list) -> float:
    """How many cores ``block`` kept busy while it ran: its CPU seconds over its wall seconds."""
    wall, cpu = (sum(values) for values in zip(*map(_recorded, block)))
    return cpu / wall if wall > 0 else 0.0


def _dealt(items: list, workers: int) -> list:
    """``items`` (slow first) as ``workers`` consecutive slices of worksteal's sizes.

    The slow blocks (``_blocks``) are of two kinds: those that compute and those that mostly
    wait on a server. They are dealt by playing the run through with their recorded seconds:
    whenever a worker is free it takes the longest block left of the kind of which the
    smaller share of wall seconds has been dealt. Both kinds then run from the first minute
    to the last at the same pace, so the cores are as busy at the end of the run as at its
    start. (Dealing the computing blocks first, as many at once as there are cores, left
    every worker waiting on a server with the cores idle for the last minute and a half.)
    The fast tests then fill every slice up to its size."""
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    fast = items[len(slow):]
    blocks = sorted(_blocks(slow), key=lambda block: -_weight(block))
    kinds = ([block for block in blocks if _cores_used(block) >= BUSY], [block for block in blocks if _cores_used(block) < BUSY])
    totals = [sum(map(_weight, kind)) for kind in kinds]
    dealt = [0.0 for _ in kinds]
    queues: list[list] = [[] for _ in range(workers)]
    free_at = [(0.0, worker) for worker in range(workers)]
    while any(kinds):
        now, worker = heapq.heappop(free_at)
        behind = min((k for k, kind in enumerate(kinds) if kind), key=lambda k: dealt[k] / totals[k])
        block = kinds[behind].pop(0)
        dealt[behind] += _weight(block)
        queues[worker] += block
        heapq.heappush(free_at, (now + _weight(block), worker))
    left, ordered = len(items), []
    for index, queue in enumerate(queues):
        size = left // (workers - index)
        fill = max(0, size - len(queue))
        queue, fast = queue + fast[:fill], fast[fill:]
        ordered += queue
        left -= len(queue)
    return ordered + fast


def _blocks(items: list) -> list[list]:
    """``items`` in blocks that must run one after the other on one worker: the tests of a
    module that share a module- or class-scoped fixture of that module (a worker makes such a
    fixture again for every run of the module's tests its order breaks up), each other test a
    block of its own. A block keeps its first test's place."""
    blocks: list[list] = []
    block_of: dict[tuple[str, str], list] = {}
    for item in items:
        keys = _local_fixtures(item)
        block = next((block_of[key] for key in keys if key in block_of), None)
        if block is None:
            block = []
            blocks.append(block)
        block.append(item)
        for key in keys:
            block_of.setdefault(key, block)
    return blocks


def _local_fixtures(item) -> list[tuple[str, str]]:
    """``(module node id, fixture name)`` of each module- or class-scoped fixture ``item``
    uses that its own module defines (pytest's fixture definitions, ``item._fixtureinfo``;
    none when this pytest has no such attribute)."""
    module = item.nodeid.split("::")[0]
    info = getattr(item, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.items() if info is not None else ()
    return [(module, name) for name, defs in definitions for d in defs
            if d.scope in ("module", "class") and (d.baseid or "").split("::")[0] == module]


def pytest_configure(config) -> None:
    """No garbage collection while this process collects the tests (``pytest_collection_finish``).
    In the process that starts the workers of a whole run, the bytecode is written first
    where it is missing (``_write_bytecode``)."""
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", default=None):
        gc.disable()
    elif not _fast_tier_only(config) and _bytecode_missing():
        _write_bytecode(config)


def _bytecode_missing(folder: Path = TESTS) -> bool:
    """Whether some test module under ``folder`` has no asserts rewritten by this pytest in
    its ``__pycache__``."""
    cached = f"{sys.implementation.cache_tag}-pytest-{pytest.__version__}.pyc"
    return any(not (module.parent / "__pycache__" / f"{module.stem}.{cached}").exists() for module in folder.rglob("test_*.py"))


def _write_bytecode(config) -> None:
    """Collect the tests once in a child interpreter, before the workers start, so that they
    find every test module's rewritten asserts and the package's bytecode written. Twelve
    workers collecting a fresh clone together each rewrite and compile all of it: 22 s (40
    CPU seconds) before the first test, against 15 s (22 CPU seconds) for one collection
    and then the twelve.
    Whatever goes wrong here, the workers collect as they would have (their errors are the
    ones reported)."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider", str(TESTS)]
    try:
        subprocess.run(command, cwd=config.rootpath, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120,
                       check=False)
    except (OSError, subprocess.TimeoutExpired):
        pass


def pytest_collection_finish(session) -> None:
    """Collection makes objects that live for the whole session (modules, fixtures, 3,200
    test items). While it ran, the cyclic collector walked them again and again: on each of
    ten workers starting together, a dozen full collections of 0.2-2 s, about 50 CPU seconds
    before the first test. So none runs during collection, and what collection made is then
    frozen (``gc.freeze``): later full collections, which stall a test's in-process server
    for as long as they last, no longer walk it."""
    gc.freeze()
    gc.enable()


def pytest_sessionfinish(session) -> None:
    """Let go of the design explorer's memo of the spec's steps (``model.explore.server``,
    up to its ``LIMIT`` entries: a million objects in a worker that explored designs), so that
    pytest's garbage collection at exit, and the interpreter's, have less to walk."""
    explorer = sys.modules.get("mcp_resume.model.explore.server")
    if explorer is not None:
        explorer.clear_spec_memo()


_CPU_STARTED = pytest.StashKey[float]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    """Note the CPU seconds before the test's set-up (see ``pytest_runtest_call``)."""
    item.stash[_CPU_STARTED] = _cpu_seconds()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """Record the CPU seconds of the test's set-up and call (this process and the children it
    waited for) as its ``cpu`` property: the JUnit report carries it to
    ``tools/test_durations.py``."""
    yield
    started = item.stash.get(_CPU_STARTED, None)
    if started is not None:
        item.user_properties.append(("cpu", round(_cpu_seconds() - started, 2)))


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class SharedRuns:
    """Results made once per session and shared by every xdist worker through ``folder``.

    ``get(key, make)`` returns ``make()``'s result for ``key`` (a file-name-safe string):
    the first caller makes it while holding ``<key>.lock`` and pickles it to
    ``<key>.pickle``; later callers, in any worker, wait for the lock and unpickle it
    (the pattern pytest-xdist documents for session fixtures). A ``make`` that raises
    leaves nothing behind, so the next caller tries again. A result that does not survive
    pickling (an exception whose ``__init__`` takes more than its ``args``) is not shared:
    each worker makes its own.
    """

    def __init__(self, folder: Path):
        self.folder = folder
        self.made: dict[str, object] = {}

    def get(self, key: str, make):
        if key not in self.made:
            self.made[key] = self._shared(key, make)
        return self.made[key]

    def _shared(self, key: str, make):
        path, unshared = self.folder / f"{key}.pickle", self.folder / f"{key}.unshared"
        with open(self.folder / f"{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # bounded by the test's timeout (pytest-timeout)
            if path.exists():
                return pickle.loads(path.read_bytes())
            if not unshared.exists():
                value = make()
                try:
                    data = pickle.dumps(value)
                    pickle.loads(data)
                except Exception:
                    unshared.touch()
                    return value
                partial = path.with_suffix(".partial")
                partial.write_bytes(data)
                partial.replace(path)
                return value
        return make()


@pytest.fixture(scope="session")
def shared_runs(tmp_path_factory, worker_id):
    """The session's ``SharedRuns``: in the folder all xdist workers share (the parent of
    each worker's base temporary folder), or this process's own without ``-n``; what it made
    is let go at the session's end, so that pytest's garbage collection at exit (and the
    interpreter's) has less to walk."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if worker_id != "master" else base) / "shared-runs"
    folder.mkdir(exist_ok=True)
    runs = SharedRuns(folder)
    yield runs
    runs.made.clear()  # explorations, traces and reports, freed before pytest's last garbage collection


@pytest.fixture(scope="session")
def prove_outcome(tmp_path_factory, shared_runs):
    """``prove_outcome(profile) -> jobs.proving.ProfileOutcome``: proofs, bounded searches, replays
    and the artifacts written to a folder of this session. Each profile is proved in a fresh
    interpreter, as ``mcp-resume prove`` runs: Z3's unsat cores depend on the terms a process
    made before, so a worker that ran other Z3 queries first would find other (equally valid)
    cores than the committed results."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from mcp_resume.jobs.proving import prove_profile

    folder = tmp_path_factory.mktemp("prove")

    def fresh(profile: Profile):
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            return pool.submit(prove_profile, profile, folder).result()

    def prove(profile: Profile):
        return shared_runs.get(f"prove-{profile.value}", lambda: fresh(profile))

    return lambda profile: prove(Profile.parse(profile))


@pytest.fixture(scope="session")
def machine_run(shared_runs):
    """``machine_run(server, profile) -> ServerRun`` with ``SUITE_EXAMPLES`` examples
    (``server``: ``spec``, ``reference`` or ``design-N``)."""
    from mcp_resume.model.harness.runs import run_server

    def run(name: str, profile: Profile):
        return shared_runs.get(f"machine-{name}-{profile.value}", lambda: run_server(name, profile, SUITE_EXAMPLES))

    return lambda name, profile: run(name, Profile.parse(profile))


@pytest.fixture(scope="session")
def verify_report(shared_runs):
    """``verify_report(server, profile) -> Report``: ``verify`` against the in-process server
    ``server`` (``reference``, ``design-N`` or a variation) served over Streamable HTTP on
    127.0.0.1 (``model.serving.designs_over_http.verify_server_over_http``)."""
    from mcp_resume.model.serving.designs_over_http import verify_server_over_http

    def verify(name: str, profile: Profile):
        return shared_runs.get(f"verify-{name}-{profile.value}", lambda: verify_server_over_http(name, profile))

    return lambda name, profile: verify(name, Profile.parse(profile))


@pytest.fixture(scope="session")
def design_over_http(verify_report):
    """``design_over_http(number, profile) -> (caught, rules)``: ``verify`` against design
    ``number`` served over Streamable HTTP on 127.0.0.1, as
    ``model.serving.designs_over_http.verify_design_over_http`` gives it."""
    from mcp_resume.spec.verdicts import Verdict

    def verify(number: int, profile):
        rules = [v.rule for v in verify_report(f"design-{number}", profile).verdicts if v.verdict is Verdict.FAIL]
        return bool(rules), rules

    return verify


@pytest.fixture(scope="session")
def prove_to_dev_full(shared_runs, tmp_path_factory):
    """``mcp-resume prove --rlimit 1 --out <tmp> --json /dev/full`` run once for the session, as
    a user runs it (a child process, progress on stderr): the one whole ``prove`` command that
    tests/slow/test_progress.py reads for its stage lines and tests/slow/test_write_failures.py
    for its one error line (a ``subprocess.CompletedProcess``). With ``--rlimit 1`` Z3 gives up
    on each query at once: the same stages and counts at half the CPU (what the proofs find
    is ``prove_outcome``'s to test)."""
    from tests.helpers.progress import run

    def prove():
        folder = tmp_path_factory.mktemp("prove-dev-full")
        return run("prove", "--rlimit", "1", "--out", str(folder / "proofs"), "--json", "/dev/full", cwd=folder)

    return shared_runs.get("prove-cli-dev-full", prove)


@pytest.fixture(scope="session")
def docs_cli_run(shared_runs, tmp_path_factory):
    """``(done, folder)``: ``mcp-resume docs --out <folder> --tests tests`` run once for the
    session from the repository root, as a user runs it (a child process): the whole
    generation that tests/slow/test_progress.py reads for its stage lines and
    tests/slow/test_docs.py compares, byte for byte, with its own in-process one."""
    from tests.helpers import ROOT
    from tests.helpers.progress import run

    folder = tmp_path_factory.mktemp("docs-cli") / "docs"

    def generate():
        return run("docs", "--out", str(folder), "--tests", str(ROOT / "tests"), cwd=ROOT), folder

    return shared_runs.get("docs-cli", generate)

