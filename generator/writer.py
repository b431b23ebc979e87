"""Atomic file output: every file is written whole under a temporary name, then renamed into place."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a reader sees the old file or the new one, never a part)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` atomically unless it already has exactly that content."""
    data = text.encode("utf-8")
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    write_bytes(path, data)
    return True


def write_new(path: Path, data: bytes) -> None:
    """Create ``path`` (and its folders) with ``data``: for files in a private staging folder,
    which are renamed into place, whole, afterwards."""
    try:
        handle = open(path, "wb")
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "wb")
    with handle:
        handle.write(data)
    os.chmod(path, 0o644)
