"""Running git read-only on a repository labeller does not trust.

A project's repository may come from anyone (a fork's pull request in CI), so git runs here
with nothing the repository configures able to run a command: no fsmonitor, a folder that
merely looks like a bare repository is not one (``safe.bareRepository=explicit``), no pager,
no signature check, and only plumbing that applies no filter, textconv or external diff
(``rev-parse``, ``rev-list``, ``ls-tree``, ``cat-file``, ``diff-tree``). Nothing touches the
work tree or the index, so no clean filter runs either. git's search for a repository stops
at the folder given (``GIT_CEILING_DIRECTORIES``), and what it prints is read up to a bound.

``labeller diff REV`` reads committed files through it (``commands/git_blobs.py``); the build
asks it which documents were renamed since the last build, and what a gone document said then
(``core/renames.py``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from labeller.errors import InvalidInput

GIT = ("git", "-c", "core.fsmonitor=false", "-c", "safe.bareRepository=explicit", "-c", "core.pager=cat",
       "-c", "log.showSignature=false", "--no-pager", "--literal-pathspecs")
MAX_OUTPUT = 64 * 1024 * 1024  # bytes of one git answer read at most (a planted tree of millions of files)


def git_installed() -> bool:
    return shutil.which(GIT[0]) is not None


def run_git(top: Path, *args: str, max_output: int | None = None,
            stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """git run on the repository at ``top`` and no other: with no ``.git`` there, git's search
    stops at ``top`` rather than finding a repository the project merely sits in. With
    ``max_output``, an answer longer than that is cut there and git stopped (returncode -1);
    ``stdin`` (only without ``max_output``) is what git reads, as ``cat-file --batch`` does."""
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(top.parent), "GIT_TERMINAL_PROMPT": "0"}
    cmd = [*GIT, "-C", str(top), *args]
    try:
        if max_output is None:
            return subprocess.run(cmd, input=stdin, capture_output=True, check=False, env=env)
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env) as proc:
            assert proc.stdout is not None
            out = proc.stdout.read(max_output + 1)
            if len(out) > max_output:
                proc.kill()
                proc.wait()
                return subprocess.CompletedProcess(cmd, -1, out[:max_output], b"")
            proc.stdout.read()  # nothing left, but wait for the end of the stream
            return subprocess.CompletedProcess(cmd, proc.wait(), out, b"")
    except FileNotFoundError:
        raise InvalidInput("git is not installed: a revision cannot be read (give two questions files instead)") \
            from None


FILE_MODES = ("100644", "100755")  # a regular file's git modes


def regular_files(top: Path, commit: str, under: str) -> dict[str, tuple[str, int]]:
    """``{path: (blob id, size)}`` of the regular files below the folder ``under`` at ``commit``
    (paths relative to ``top``, with ``/``): one ``ls-tree`` for a whole corpus. A symlink or
    submodule in the tree is no file here, and a symlinked folder is not descended into."""
    args = ["ls-tree", "-r", "-l", "-z", "--full-tree", commit]
    done = run_git(top, *args, *(["--", under] if under not in ("", ".") else []), max_output=MAX_OUTPUT)
    if done.returncode != 0:  # -1: a planted tree larger than MAX_OUTPUT, compared as if absent
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
    done = run_git(top, "cat-file", "--batch", stdin="\n".join(blob_ids).encode("ascii") + b"\n")
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
