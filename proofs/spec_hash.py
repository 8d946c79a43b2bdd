"""A fingerprint of the specification a proof was run against."""

from __future__ import annotations

import hashlib
from importlib import resources

SPEC_PACKAGE = "mcp_resume.spec"


def spec_hash(package: str = SPEC_PACKAGE) -> str:
    """The sha256 (hex) of the source of every ``.py`` module of ``package`` and its subpackages.

    Modules are taken in the order of their paths relative to the package; each
    contributes that path and its bytes, NUL-separated, so the hash changes with any
    edit, rename, addition or removal and with nothing else (no absolute paths, no times).
    """
    digest = hashlib.sha256()
    for name, module in sorted(_modules(resources.files(package)), key=lambda pair: pair[0]):
        digest.update(name.encode() + b"\0" + module.read_bytes() + b"\0")
    return digest.hexdigest()


def _modules(folder, prefix: str = ""):
    """``(relative path, entry)`` of every ``.py`` file under ``folder``."""
    for entry in folder.iterdir():
        if entry.is_dir() and entry.name != "__pycache__":
            yield from _modules(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(".py"):
            yield f"{prefix}{entry.name}", entry
