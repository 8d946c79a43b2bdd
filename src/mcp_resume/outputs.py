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
    return None
