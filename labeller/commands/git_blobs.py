"""Reading a committed file at a git revision, for ``labeller diff REV`` and for the committed
corpus ``build --check`` compares answer texts with (``committed_corpus``).

Only ``git rev-parse``, ``rev-list``, ``ls-tree`` and ``cat-file`` run, as ``labeller.core.git`` runs git
(nothing the repository configures runs), so a revision's content comes back as bytes. The
revision is checked first (``rev-parse --verify --end-of-options``), so a name that starts
with ``-`` is a revision that does not exist, never an option. Each
component of the path is looked up in the revision's tree before the blob is read, so a
committed symlink or submodule where the file or one of its folders should be is refused
(a symlink's blob is its target's name, not the file), and the blob's size is read before
the blob, so a planted gigabyte is refused without being held.
"""

from __future__ import annotations

from pathlib import Path

from labeller.core.git import FILE_MODES, git_installed, read_blobs, regular_files, run_git as _git
from labeller.errors import InvalidInput

__all__ = ["blob_at", "commit_of", "commits_touching", "find_commit", "git_installed", "read_blobs", "regular_files"]

FOLDER_MODE = "040000"
KINDS = {**dict.fromkeys(FILE_MODES, "a file"), "120000": "a symlink", "160000": "a submodule", FOLDER_MODE: "a folder"}


def find_commit(top: Path, rev: str) -> str | None:
    """The commit ``rev`` names in the repository at ``top``; None when it names none."""
    done = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    return done.stdout.decode("ascii").strip() if done.returncode == 0 else None


def commit_of(top: Path, rev: str) -> str:
    """The commit ``rev`` names in the repository at ``top`` (exit 2 when it names none)."""
    commit = find_commit(top, rev)
    if commit is None:
        raise InvalidInput(f"{rev!r} is neither a file nor a revision of the git repository at {top}")
    return commit


def _mode(top: Path, commit: str, path: str) -> str | None:
    """The mode of ``path``'s own entry in ``commit``'s tree (None: no such entry)."""
    done = _git(top, "ls-tree", "-z", "--full-tree", commit, "--", path)
    if done.returncode != 0:
        raise InvalidInput(f"git could not list {path} at {commit[:12]}: "
                           f"{done.stderr.decode('utf-8', 'replace').strip()[:300]}")
    entry = done.stdout.split(b"\0", 1)[0]
    meta, _, name = entry.partition(b"\t")
    return meta.split(b" ", 1)[0].decode("ascii") if name == path.encode("utf-8") else None


def blob_at(top: Path, commit: str, path: str, max_bytes: int, what: str) -> bytes | None:
    """The bytes of ``path`` (relative to ``top``, with ``/``) at ``commit``; None if it has no such file."""
    parts = path.split("/")
    for depth in range(1, len(parts) + 1):
        here = "/".join(parts[:depth])
        mode = _mode(top, commit, here)
        if mode is None:
            return None
        wanted = FILE_MODES if depth == len(parts) else (FOLDER_MODE,)
        if mode not in wanted:
            raise InvalidInput(f"{what} at {commit[:12]}: {here} is {KINDS.get(mode, f'of git mode {mode}')} in that "
                               f"commit, not a {'file' if depth == len(parts) else 'folder'}; labeller reads a "
                               "revision's files only as committed regular files")
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


def commits_touching(top: Path, path: str, n: int) -> list[str]:
    """The last ``n`` commits reachable from HEAD that changed ``path`` (newest first; empty
    outside a repository or with no commit). ``rev-list``, not ``log``: it shows no signature,
    so no ``gpg.program`` runs."""
    done = _git(top, "rev-list", f"--max-count={n}", "HEAD", "--", path)
    return done.stdout.decode("ascii").split() if done.returncode == 0 else []
