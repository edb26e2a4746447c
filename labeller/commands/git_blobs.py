"""Reading a committed file at a git revision, for ``labeller diff REV`` and for the committed
corpus ``build --check`` compares answer texts with (``committed_corpus``).

Only ``git rev-parse``, ``rev-list``, ``ls-tree`` and ``cat-file`` run: they apply no filter, textconv,
hook or fsmonitor, so a revision's content comes back as bytes and nothing the repository
configures runs; a folder that merely looks like a bare repository (a planted ``HEAD``,
``objects/``, ``refs/``) is not one to git here (``safe.bareRepository=explicit``). The
revision is checked first (``rev-parse --verify --end-of-options``), so a name that starts
with ``-`` is a revision that does not exist, never an option. Each
component of the path is looked up in the revision's tree before the blob is read, so a
committed symlink or submodule where the file or one of its folders should be is refused
(a symlink's blob is its target's name, not the file), and the blob's size is read before
the blob, so a planted gigabyte is refused without being held.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from labeller.errors import InvalidInput

GIT = ("git", "-c", "core.fsmonitor=false", "-c", "safe.bareRepository=explicit", "--literal-pathspecs")
FILE_MODES = ("100644", "100755")
FOLDER_MODE = "040000"
KINDS = {**dict.fromkeys(FILE_MODES, "a file"), "120000": "a symlink", "160000": "a submodule", FOLDER_MODE: "a folder"}


def git_installed() -> bool:
    return shutil.which(GIT[0]) is not None


def _git(top: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """git run on the repository at ``top`` and no other: with no ``.git`` there, git's search
    stops at ``top`` rather than finding a repository the project merely sits in."""
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(top.parent)}
    try:
        return subprocess.run([*GIT, "-C", str(top), *args], input=stdin, capture_output=True, check=False, env=env)
    except FileNotFoundError:
        raise InvalidInput("git is not installed: a revision cannot be read (give two questions files instead)") \
            from None


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


def repo_path(path: Path, root: Path, top: Path) -> str:
    """A project path as git names it at a revision: relative to the work tree, with ``/``.

    Links in the root's own path are resolved (as ``top`` is), none below it: a symlink in
    the working tree (``golden -> decoy``) must not choose which of a revision's files is read."""
    lexical = os.path.normpath(os.path.join(os.path.realpath(root), os.path.relpath(path, root)))
    return Path(os.path.relpath(lexical, top)).as_posix()


def commits_touching(top: Path, path: str, n: int) -> list[str]:
    """The last ``n`` commits reachable from HEAD that changed ``path`` (newest first; empty
    outside a repository or with no commit). ``rev-list``, not ``log``: it shows no signature,
    so no ``gpg.program`` runs."""
    done = _git(top, "rev-list", f"--max-count={n}", "HEAD", "--", path)
    return done.stdout.decode("ascii").split() if done.returncode == 0 else []


def regular_files(top: Path, commit: str, under: str) -> dict[str, tuple[str, int]]:
    """``{path: (blob id, size)}`` of the regular files below the folder ``under`` at ``commit``
    (paths relative to ``top``, with ``/``): one ``ls-tree`` for a whole corpus. A symlink or
    submodule in the tree is no file here, and a symlinked folder is not descended into."""
    args = ["ls-tree", "-r", "-l", "-z", "--full-tree", commit]
    done = _git(top, *args, *(["--", under] if under not in ("", ".") else []))
    if done.returncode != 0:
        return {}
    out = {}
    for entry in done.stdout.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        fields = meta.split()
        if len(fields) == 4 and fields[0].decode("ascii") in FILE_MODES and fields[3].isdigit():
            out[name.decode("utf-8", "surrogateescape")] = (fields[2].decode("ascii"), int(fields[3]))
    return out


def read_blobs(top: Path, blob_ids: list[str]) -> dict[str, bytes]:
    """The bytes of each blob (one ``cat-file --batch``); the caller bounds their sizes first
    (``regular_files``), since every one is held."""
    if not blob_ids:
        return {}
    done = _git(top, "cat-file", "--batch", stdin="\n".join(blob_ids).encode("ascii") + b"\n")
    out, pos, data = {}, 0, done.stdout
    while pos < len(data):
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split()
        pos = nl + 1
        if len(header) != 3:  # "<id> missing"
            continue
        size = int(header[2])
        out[header[0].decode("ascii")] = data[pos:pos + size]
        pos += size + 1
    return out
