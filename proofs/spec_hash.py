"""A fingerprint of the specification a proof was run against."""

from __future__ import annotations

import hashlib
from importlib import resources

SPEC_PACKAGE = "mcp_resume.spec"


def spec_hash(package: str = SPEC_PACKAGE) -> str:
    """The sha256 (hex) of the source of every ``.py`` module of ``package``.

    Modules are taken in name order; each contributes its file name and its
    bytes, NUL-separated, so the hash changes with any edit, rename, addition
    or removal and with nothing else (no paths, no times).
    """
    digest = hashlib.sha256()
    modules = sorted(
        (entry for entry in resources.files(package).iterdir() if entry.name.endswith(".py")),
        key=lambda entry: entry.name,
    )
    for module in modules:
        digest.update(module.name.encode() + b"\0" + module.read_bytes() + b"\0")
    return digest.hexdigest()
