"""The cyclic garbage collector, paused while an explorer runs.

An explorer builds a large heap of acyclic values (states, tuples, pickles of
servers, the parents map of its walk) and frees almost none of it until it ends;
reference counting reclaims the rest. The collector finds nothing in it, yet
each of its full passes walks all of it, and the passes come more often as the
heap grows: about a sixth of a design's walk (``benchmarks/bench_checkers.py``),
and on two cores the parent of the form workers competes with them for a CPU.
Forked workers inherit the pause. Whatever cycles a run does create are
collected by the first pass after it.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable ``gc`` for the ``with`` block, then restore it as it was (nested use is fine)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
