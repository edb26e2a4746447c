"""The tool's documented errors and the exit codes they map to.

Every failure a user can cause is one of these, so the CLI can print a clear message
and exit with the code the README promises, and the fuzz tests can assert that nothing
else ever escapes.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_REFUSED = 1  # a build refusal, drift under --check, or a regression (with the flag)
EXIT_INVALID = 2  # invalid input: malformed files, unsafe paths, bounds exceeded


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


class ChunkerBug(LabellerError):
    """A span that no chunk hits under any_overlap: the chunker or expansion is wrong.

    This is never the author's fault, so it is loud and never written to an artifact.
    """

    exit_code = EXIT_REFUSED
