"""How many processes a run uses unless ``--workers`` says."""

from __future__ import annotations

import os

MAX_WORKERS = 4
"""The most processes a run takes unasked (the explorers and the kill matrix): more than the
cores only slows it, and four already saturate a laptop."""


def default_workers() -> int:
    """Processes a run uses unless told: the cores, at most ``MAX_WORKERS``."""
    return min(MAX_WORKERS, os.cpu_count() or 1)
