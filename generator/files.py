"""Standard-library file helpers shared by the loader and ``opgen generate``.

Kept free of pydantic, Jinja and PyYAML so that an up-to-date ``opgen generate`` can decide it has
nothing to do without importing them.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path


def spec_files(specs_dir: Path) -> list[Path]:
    """Operator spec files: every ``*.yaml`` under ``specs_dir`` except the ``catalog/`` folder.

    Folders are walked without following symbolic links (no loop can trap the walk); every entry
    named ``*.yaml`` is listed, whatever it is, so that a folder or a broken link with that name
    gets a located error instead of being skipped.
    """
    return [specs_dir / rel for rel in spec_rels(specs_dir)]


def spec_rels(specs_dir: Path) -> list[str]:
    """``spec_files`` as sorted paths relative to ``specs_dir`` (``sub/x.yaml``)."""
    top = os.fspath(specs_dir)
    found = []
    for folder, dirs, names in os.walk(top):
        prefix = "" if folder == top else os.path.relpath(folder, top).replace(os.sep, "/") + "/"
        if not prefix:
            dirs[:] = [d for d in dirs if d != "catalog"]
        found += [prefix + n for n in names if n.endswith(".yaml")]
        found += [prefix + d for d in dirs if d.endswith(".yaml")]
        dirs[:] = [d for d in dirs if not d.endswith(".yaml")]
    return sorted(found, key=lambda rel: rel.split("/"))


def catalog_files(specs_dir: Path) -> list[Path]:
    """Every ``*.yaml`` of ``specs_dir/catalog`` (the shared catalogues)."""
    folder = specs_dir / "catalog"
    try:
        return sorted(folder / n for n in os.listdir(folder) if n.endswith(".yaml"))
    except OSError:
        return []


def dump_json(value, *, sort_keys: bool = False) -> bytes:
    """Compact UTF-8 JSON of generate's own bookkeeping (state, rows): dicts, lists, strings, ints
    and bools only. orjson writes the megabyte-sized state of a large catalogue 20x faster than the
    standard library; it is imported on first use (about 10 ms), by runs that write."""
    import orjson

    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else 0)


def load_json(data: bytes, *, many: bool = False):
    """The value of bookkeeping JSON written by :func:`dump_json` (ValueError when it is not JSON).
    The standard library by default (as fast as orjson on the state, which every run reads, and
    already imported); ``many``: orjson, twice as fast on the many small documents of the rows file,
    read only by runs that write."""
    if many:
        import orjson

        return orjson.loads(data)
    return json.loads(data)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


DIGEST = 64  # characters of a sha256 hex digest


def fingerprint(
    path: str, known: str | None, trust_before: int, follow: bool = False, dir_fd: int | None = None
) -> str | None:
    """``"size:mtime_ns:ctime_ns:inode:sha256"`` of the regular file ``path`` (relative to the
    folder ``dir_fd`` when given), or None when it is missing or not a regular file (a symbolic
    link counts as one only with ``follow``).

    The content is hashed unless ``known`` (an earlier result) has the same stamp and was taken
    before ``trust_before`` (the time the stamp was recorded, in the file system's clock). The
    change time cannot be set from user space (``touch`` and ``os.utime`` update it), so any
    write after that moment changes the stamp; a stamp recorded in the same clock tick as a write
    is not trusted (the write could have come just after the look).
    """
    try:
        st = os.stat(path, dir_fd=dir_fd, follow_symlinks=follow)
    except (OSError, ValueError):
        return None
    if st.st_mode & 0o170000 != 0o100000:  # not S_ISREG
        return None
    stamp = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:"
    if known is not None and known.startswith(stamp) and len(known) == len(stamp) + DIGEST:
        if st.st_ctime_ns < trust_before:
            return known
    try:
        fd = os.open(path, os.O_RDONLY | (0 if follow else os.O_NOFOLLOW), dir_fd=dir_fd)
        with open(fd, "rb") as handle:
            return stamp + sha256(handle.read())
    except OSError:
        return None


def digest(fingerprint_or_digest: str) -> str:
    """The content hash of a fingerprint (a bare hash is its own)."""
    return fingerprint_or_digest[-DIGEST:]


def stamped(path: str, digest: str) -> str:
    """The fingerprint of a file just written with content hash ``digest`` (no need to re-read it)."""
    st = os.stat(path, follow_symlinks=False)
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:{digest}"
