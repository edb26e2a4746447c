"""Reading a committed file at a git revision, for ``labeller diff REV``.

Only ``git cat-file`` runs: it applies no filter, textconv, hook or fsmonitor, so a revision's
content comes back as bytes and nothing the repository configures runs. The revision is
checked first (``rev-parse --verify --end-of-options``), so a name that starts with ``-`` is
a revision that does not exist, never an option, and the blob's size is read before the blob,
so a planted gigabyte is refused without being held.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from labeller.errors import InvalidInput

GIT = ("git", "-c", "core.fsmonitor=false")


def _git(top: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run([*GIT, "-C", str(top), *args], capture_output=True, check=False)
    except FileNotFoundError:
        raise InvalidInput("git is not installed: a revision cannot be read (give two questions files instead)") \
            from None


def commit_of(top: Path, rev: str) -> str:
    """The commit ``rev`` names in the repository at ``top`` (exit 2 when it names none)."""
    done = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    if done.returncode != 0:
        raise InvalidInput(f"{rev!r} is neither a file nor a revision of the git repository at {top}")
    return done.stdout.decode("ascii").strip()


def blob_at(top: Path, commit: str, path: str, max_bytes: int, what: str) -> bytes | None:
    """The bytes of ``path`` (relative to ``top``, with ``/``) at ``commit``; None if it has no such file."""
    spec = f"{commit}:{path}"
    size = _git(top, "cat-file", "-s", spec)
    if size.returncode != 0:
        return None
    if int(size.stdout) > max_bytes:
        raise InvalidInput(f"{what} at {commit[:12]} is {int(size.stdout):,} bytes, over the bound of {max_bytes:,}")
    blob = _git(top, "cat-file", "blob", spec)
    if blob.returncode != 0:
        raise InvalidInput(f"git could not read {path} at {commit[:12]}: "
                           f"{blob.stderr.decode('utf-8', 'replace').strip()[:300]}")
    return blob.stdout
