"""The committed golden-set files as ``build --check`` and the moves read them.

Apart from ``core.check`` (which imports the build) so that the build's moves
(``core.moves``) can read the committed manifest without an import circle.
"""

from __future__ import annotations

from pathlib import Path

from labeller.io import read_regular_file

MAX_COMMITTED_BYTES = 512 * 1024 * 1024  # far above any real golden set; a planted /dev/zero link never gets here


def read_committed(path: Path) -> bytes | None:
    """A committed artifact or manifest as bytes (``None`` when it is missing).

    It comes with the pull request ``build --check`` judges, so it is read like any untrusted
    file: no symlink, a regular file (a FIFO would hang CI), bounded."""
    if not path.exists() and not path.is_symlink():
        return None
    return read_regular_file(path, max_bytes=MAX_COMMITTED_BYTES, what="committed golden-set file")
