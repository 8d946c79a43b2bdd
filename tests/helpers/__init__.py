"""What the tests share: servers, event stores, recorded traffic, and per topic what a
fast and a slow half of it both use. ``ROOT`` is the checkout the tests run from."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root folder (the one holding ``spec/``, ``model/``, ``tests/``)."""
