"""Shared pytest set-up.

- ``pytester`` runs the test kit's plugin the way a user's suite does.
- The expensive runs are session-scoped: each is made once per test session (once
  per worker with ``-n``), on first use, and shared by every test that needs it:
  ``prove_outcome(profile)`` (a whole ``mcp-resume prove`` of one profile),
  ``machine_run(server, profile)`` (the Hypothesis machine against one in-process
  server, its counterexample confirmed), ``design_over_http(number, profile)``
  (``verify`` against a faulty design served over HTTP).
"""

from __future__ import annotations

import functools
import os

import pytest

from mcp_resume.spec.profiles import Profile

pytest_plugins = ["pytester"]


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: two workers per core. Most of the slow tier waits on a server's answers
    (bounded timeouts, idle periods), so a second worker per core uses the time it waits."""
    return 2 * (os.cpu_count() or 1)


def pytest_collection_modifyitems(items) -> None:
    """The slow tier first: with ``-n``, its long tests start at once and the short ones
    fill the gaps at the end, so the workers finish together."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def prove_outcome(tmp_path_factory):
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

    prove = functools.cache(fresh)
    return lambda profile: prove(Profile.parse(profile))


@pytest.fixture(scope="session")
def machine_run():
    """``machine_run(server, profile) -> ServerRun`` with the default examples (``server``:
    ``spec``, ``reference`` or ``design-N``)."""
    from mcp_resume.model.harness.runs import run_server

    run = functools.cache(run_server)
    return lambda name, profile: run(name, Profile.parse(profile))


@pytest.fixture(scope="session")
def design_over_http():
    """``design_over_http(number, profile) -> (caught, rules)``: ``verify`` against design
    ``number`` served over Streamable HTTP on 127.0.0.1."""
    from mcp_resume.model.serving.designs_over_http import verify_design_over_http

    verify = functools.cache(verify_design_over_http)
    return lambda number, profile: verify(number, Profile.parse(profile))
