"""Memos the checkers put on three pure functions of the spec, in their own process.

The spec works out a decision-table entry (``spec.decision._class_outcome``), a bodiless
answer (``spec.transitions._answer``) and the server checks in scope of a step
(``spec.invariants._in_scope``) afresh on every call, as a specification reads best. Each
is a pure function of a few hashable values (enum members, ints, bools, the tuple of
checks), and an exhaustive exploration calls them millions of times. ``install()``
replaces each, in this process only, with a memoized wrapper of the same function, so
every verdict and count is what the plain spec gives (``tests/fast/test_memos.py`` holds
each wrapper to the spec's function on every input). It wins back the 9-12% of CPU
``check`` and the default bound spent once the spec's own memos were taken out of it
(benchmarks/RESULTS.md). Called on import by the machine (``harness.stateful``) and the
explorers (``explore.fast``, ``explore.server``); calling it again changes nothing.
"""

from __future__ import annotations

import functools

from mcp_resume.spec import decision, invariants, transitions

MEMOIZED = ((decision, "_class_outcome"), (transitions, "_answer"), (invariants, "_in_scope"))
"""The (module, function name) pairs ``install`` wraps: pure functions of hashable arguments."""


def install() -> None:
    """Wrap each function of ``MEMOIZED`` in ``functools.cache`` (once per process)."""
    for module, name in MEMOIZED:
        function = getattr(module, name)
        if not hasattr(function, "cache_info"):
            setattr(module, name, functools.cache(function))


def plain(module, name: str):
    """The spec's own function behind ``module.name``, memoized or not."""
    function = getattr(module, name)
    return getattr(function, "__wrapped__", function)
