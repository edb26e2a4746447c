"""Crash-safe file writes and bounded, no-follow reads.

Every file labeller writes goes through ``atomic_write_*``: temp file in the same
folder, fsync, rename, fsync the folder. A kill at any point leaves either the old file
or the new one, never a torn mix.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from labeller.errors import InvalidInput


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), _mode_for(path))
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(path.parent)


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once at import, while nothing else runs: os.umask is process-wide


def _mode_for(path: Path) -> int:
    """The permissions the written file should have: those of the file it replaces, else what
    ``open()`` would give a new file. (``mkstemp`` makes 0600, which would silently turn an
    author's group-readable questions.jsonl private on the first save.)"""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o666 & ~_UMASK


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def fsync_dir(folder: Path) -> None:
    try:
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def refuse_symlink_components(path: Path) -> None:
    """Refuse a path any of whose components is a symlink (labels must be read as named)."""
    path = Path(os.path.abspath(path))
    for parent in [*reversed(path.parents), path]:
        if parent.is_symlink():
            raise InvalidInput(f"path component {parent} is a symlink; give the physical path", path=str(path))


def read_regular_file(path: Path, *, max_bytes: int, what: str = "file", bound_hint: str = "") -> bytes:
    """Read an untrusted input file: no symlinks anywhere in its path, regular, bounded."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise InvalidInput(f"{what} not found", path=str(path))
    refuse_symlink_components(path)
    st = path.lstat()
    if not stat.S_ISREG(st.st_mode):
        raise InvalidInput(f"{what} is not a regular file", path=str(path))
    if st.st_size > max_bytes:
        hint = f" ({bound_hint})" if bound_hint else ""
        raise InvalidInput(f"{what} is {st.st_size} bytes, over the bound of {max_bytes}{hint}", path=str(path))
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InvalidInput(f"{what} grew past the bound of {max_bytes} bytes", path=str(path))
    return data
