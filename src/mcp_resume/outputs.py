"""Checks on the output paths the commands are given, made before any work starts."""

from __future__ import annotations

import os
from pathlib import Path


def output_folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot receive output (a file, not writable, under a file), or ``None``.

    A folder that does not exist yet is fine when its nearest existing parent is
    a writable folder.
    """
    if folder.exists():
        if not folder.is_dir():
            return f"{folder} is a file, not a folder"
        return None if os.access(folder, os.W_OK) else f"folder {folder} is not writable"
    parent = folder.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        return f"cannot create {folder}: {parent} is a file"
    return None if os.access(parent, os.W_OK) else f"cannot create {folder}: {parent} is not writable"


def output_file_problem(path: Path) -> str | None:
    """Why a report file cannot be written at ``path``, or ``None``."""
    if path.is_dir():
        return f"{path} is a folder, expected a file name"
    if not path.parent.is_dir():
        return f"{path.parent} is not an existing folder"
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return f"{path} is not writable"
    return None if path.exists() else _creation_problem(path)


def _creation_problem(path: Path) -> str | None:
    """Create and remove ``path`` to learn what permissions do not show (``/proc``, a read-only disk)."""
    try:
        path.open("x").close()
    except OSError as error:
        return f"cannot create {path}: {error.strerror or error}"
    path.unlink()
    return None


def prepare_output_folder(folder: Path) -> str | None:
    """Create ``folder`` (and its parents) for output, or say why it cannot be, as ``output_folder_problem`` does.

    Also catches what permissions do not show (``/proc``, a full or read-only disk).
    """
    problem = output_folder_problem(folder)
    if problem:
        return problem
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot create {folder}: {error.strerror or error}"
    return None


def output_paths_problem(folders=(), files=()) -> str | None:
    """The first problem among output ``folders`` (created here) and report ``files``; ``None`` values are skipped."""
    for path in files:
        if path is not None and (problem := output_file_problem(Path(path))):
            return problem
    for path in folders:
        if path is not None and (problem := prepare_output_folder(Path(path))):
            return problem
    return None
