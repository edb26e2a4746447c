"""The tool's documented errors and the exit codes they map to.

Every failure a user can cause is one of these, so the CLI can print a clear message
and exit with the code the README promises, and the fuzz tests can assert that nothing
else ever escapes.
"""

from __future__ import annotations

import os
import tempfile
import traceback
from pathlib import Path

EXIT_OK = 0
EXIT_REFUSED = 1  # a build refusal, drift under --check, or a regression (with the flag)
EXIT_INVALID = 2  # invalid input (malformed files, unsafe paths, bounds) and environment errors (EACCES, ENOSPC)
EXIT_INTERNAL = 3  # a bug in labeller: one line and the path of a traceback file, never "drift" (1)
# the reader of our output went away (`labeller build | head -1`): the status a shell gives a
# process SIGPIPE ended (128 + 13), so a pipeline reads it as "stopped early", not as a refusal
EXIT_BROKEN_PIPE = 141


class LabellerError(Exception):
    """Base of every documented error; carries its exit code.

    ``details`` holds one dict per individual problem when an error reports many at once
    (every malformed line of a file, say), so ``--format json`` can list them all.
    """

    exit_code = EXIT_INVALID
    details: list[dict] = []

    def with_details(self, details: list[dict]) -> "LabellerError":
        self.details = details
        return self


class InvalidInput(LabellerError):
    """Input the tool refuses to read: named file, line or record, and the reason."""

    exit_code = EXIT_INVALID

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 record_id: str | None = None) -> None:
        self.path = path
        self.line = line
        self.record_id = record_id
        where = []
        if path:
            where.append(path if line is None else f"{path}:{line}")
        if record_id is not None:
            where.append(f"record {record_id!r}")
        prefix = (" ".join(where) + ": ") if where else ""
        super().__init__(prefix + message)
        self.reason = message


class BuildRefused(LabellerError):
    """The build found label errors (not found, ambiguous, ...); nothing was written."""

    exit_code = EXIT_REFUSED

    def __init__(self, errors: list) -> None:
        self.errors = errors
        super().__init__(f"build refused: {len(errors)} error(s)")


class JudgmentRefused(LabellerError):
    """A verdict that cannot be recorded (SPEC §11): its passage does not resolve to one place."""

    exit_code = EXIT_REFUSED


class ChunkerBug(LabellerError):
    """A span that no chunk hits under any_overlap: the chunker or expansion is wrong.

    This is never the author's fault, so it is loud and never written to an artifact.
    """

    exit_code = EXIT_REFUSED


def environment_message(exc: OSError) -> str:
    """An OS error as one line naming the path: what the user can fix (permissions, space)."""
    paths = [p for p in (exc.filename, exc.filename2) if p is not None]
    where = " -> ".join(os.fsdecode(p) for p in paths)
    reason = exc.strerror or str(exc)
    return f"{where}: {reason}" if where else reason


def write_crash_report(exc: BaseException) -> Path | None:
    """Write ``exc``'s traceback to a new file in the user's cache folder (never the
    project: a report there could be committed) and return its path, or None if no
    folder takes it. The CLI prints the path instead of the traceback."""
    folders = [Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "labeller" / "crashes",
               Path(tempfile.gettempdir())]
    text = "".join(traceback.format_exception(exc))
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, name = tempfile.mkstemp(prefix="labeller-crash-", suffix=".txt", dir=folder)
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
                fh.write(text)
            return Path(name)
        except OSError:
            continue
    return None
