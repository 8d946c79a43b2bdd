"""Shared pytest set-up: the two tiers, the workers, and the expensive runs every test shares.

- Tests live in folders by what they cost: ``tests/fast/`` is the fast tier (pure
  computation, no whole checker run, no server started; ``-m "not slow"``) and
  ``tests/slow/`` the slow tier (real servers, whole ``verify``/``prove``/machine
  runs). Every test under ``tests/slow/`` is marked ``slow`` here; a ``slow`` mark
  anywhere else is an error, so the folder and the marker never disagree. Under
  ``-m "not slow"`` the slow folder is not even collected (its modules import the
  SDK servers and cost seconds per worker). Helpers the tests share are in
  ``tests/helpers/`` (in-process and hostile servers, event stores, recorded traffic).
- The workers are pytest-xdist's: ``-n auto --dist loadgroup`` (``pyproject.toml``). A free
  worker takes the next test; the tests of a module that share a module-scoped fixture carry
  ``pytest.mark.xdist_group`` with the module's name, so that one worker runs them and makes
  the fixture once. ``-n auto`` is ``WORKERS_PER_CORE`` workers a core when the slow tier runs.
  The slow tier's tests are collected first. Bytecode is written and read by every interpreter
  the suite starts, wherever ``PYTHONDONTWRITEBYTECODE`` is set (``[tool.pytest_env]``, pytest-env).
- ``pytester`` runs the test kit's plugin the way a user's suite does.
- The expensive runs are session-scoped and made once for the whole session, not
  once per xdist worker (``SharedRuns``): ``prove_outcome(profile)`` (a whole
  ``mcp-resume prove`` of one profile), ``machine_run(server, profile)`` (the
  Hypothesis machine against one in-process server, its counterexample confirmed),
  ``verify_report(server, profile)`` and ``design_over_http(number, profile)``
  (``verify`` against an in-process server served over HTTP), ``prove_to_dev_full`` and
  ``docs_cli_run`` (a whole ``prove`` and ``docs`` command, as a user runs them); test
  modules share theirs the same way (the liveness lassos, each design's exploration).
"""

from __future__ import annotations

import fcntl
import os
import pickle
from pathlib import Path

import pytest

from mcp_resume.spec.profiles import Profile

from tests.helpers import SUITE_EXAMPLES

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent
SLOW = TESTS / "slow"

WORKERS_PER_CORE = 4
"""``-n auto`` workers a core for a run with the slow tier: most of its tests wait on a server's
answers (bounded timeouts, idle periods), so a core has room for several. The fast tier
(``-m "not slow"``) computes: one worker a core."""


def _fast_tier_only(config) -> bool:
    return config.option.markexpr.replace(" ", "") == "notslow"


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: ``WORKERS_PER_CORE`` workers a core, one a core for the fast tier alone."""
    return (1 if _fast_tier_only(config) else WORKERS_PER_CORE) * (os.cpu_count() or 1)


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """Under ``-m "not slow"`` the slow folder is not collected at all."""
    if _fast_tier_only(config) and (collection_path == SLOW or SLOW in collection_path.parents):
        return True
    return None


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config, items) -> None:
    """Mark ``slow`` every test of ``tests/slow/`` (a ``slow`` mark elsewhere is a
    ``pytest.UsageError``) and put the slow tier first (a stable sort: each tier keeps its order)."""
    for item in items:
        in_slow = SLOW in Path(item.path).parents
        if item.get_closest_marker("slow") is not None and not in_slow:
            raise pytest.UsageError(f"{item.nodeid} is marked slow outside tests/slow/: move it there")
        if in_slow:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


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

