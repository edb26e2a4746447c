"""The autosave journal: every unsaved edit, on disk, after every change.

The app writes the journal (``layout.journal``, ``.labeller/journal.json``) each time
the author changes a record, through the same atomic temp-file-and-rename write as every
other file, so a crash or a kill leaves either the previous journal or the new one. The
next start offers to restore it; a successful save (or an explicit discard) removes it.
It is written on every keystroke, so without the fsyncs (``durable=False``): they cost
10-25 ms each time on a busy disk, on the UI thread, and guard only against the machine
losing power, after which a garbled journal is set aside, never applied (``JournalError``).
questions.jsonl itself is always written durably.

The journal holds only what differs from questions.jsonl: the edited and new records as
drafts (which may not be valid records yet) and the ids deleted, and the repair suggestions
the author accepted in them (``core.repair.Fix``: the old and new locator, no span), so that a
restored repair is still logged as an ``edit`` in the review log when it is saved, as it
would have been without the crash. It never holds derived data, so restoring it can never
smuggle in a stale span.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from labeller.display import json_dumps
from labeller.errors import InvalidInput
from labeller.io import atomic_write_text, check_output_path, parse_json, read_regular_file

if TYPE_CHECKING:  # repair imports the resolver, which the app's first frame does not load
    from labeller.core.fixes import Fix

JOURNAL_FORMAT = "labeller-journal-v1"
# A journal is an unsaved questions file plus bookkeeping; the same order of bound applies.
MAX_JOURNAL_BYTES = 8 * 1024 * 1024


class JournalError(InvalidInput):
    """The journal exists but cannot be read back (truncated by hand, foreign, or hostile).

    It is invalid input like any other file labeller reads, named by path and line; the
    app catches it to set the journal aside instead of refusing to start."""


@dataclass
class JournalEntry:
    """What a journal file says: the drafts to re-apply over the questions file."""

    questions: str
    base_sha256: str | None
    drafts: list[dict] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    repairs: list[Fix] = field(default_factory=list)  # accepted in the drafts, not saved yet

    def as_json(self) -> dict:
        out = {"format": JOURNAL_FORMAT, "questions": self.questions, "base_sha256": self.base_sha256,
               "drafts": self.drafts, "deleted": self.deleted}
        if self.repairs:  # a journal without any reads as before they were kept
            out["repairs"] = [f.as_json() for f in self.repairs]
        return out


class Journal:
    """One journal file for one project (``config.layout.journal``)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def exists(self) -> bool:
        return self.path.is_file()

    def write(self, entry: JournalEntry) -> None:
        check_output_path(self.path)  # a committed ``.labeller`` symlink is not written through
        atomic_write_text(self.path, json_dumps(entry.as_json(), indent=1, sort_keys=True) + "\n",
                          durable=False)

    def read(self) -> JournalEntry | None:
        """The journal's content, ``None`` when there is none; ``JournalError`` when unreadable.

        Read like every untrusted file (no symlink, regular, bounded) and parsed by the
        guarded JSON reader, so a planted nesting bomb is an error naming the file, never a
        RecursionError at app start."""
        if not self.path.exists() and not self.path.is_symlink():
            return None
        where = str(self.path)
        try:
            obj = parse_json(read_regular_file(self.path, max_bytes=MAX_JOURNAL_BYTES, what="journal"), where)
        except InvalidInput as exc:
            raise JournalError(exc.reason, path=exc.path, line=exc.line) from None
        except OSError as exc:
            raise JournalError(f"cannot read it: {exc.strerror}", path=where) from None
        if not isinstance(obj, dict) or obj.get("format") != JOURNAL_FORMAT:
            raise JournalError(f"not a {JOURNAL_FORMAT} file", path=where)
        drafts, deleted = obj.get("drafts"), obj.get("deleted")
        if not (isinstance(drafts, list) and all(isinstance(d, dict) and isinstance(d.get("id"), str)
                                                 for d in drafts)
                and isinstance(deleted, list) and all(isinstance(i, str) for i in deleted)):
            raise JournalError("malformed drafts or deleted list", path=where)
        repairs = obj.get("repairs", [])
        if not isinstance(repairs, list):
            raise JournalError("malformed repairs list", path=where)
        fixes: list[Fix] = []
        if repairs:
            from labeller.core.fixes import Fix  # only a journal that holds accepted repairs needs it
            try:
                fixes = [Fix.from_json(f) for f in repairs]
            except ValueError as exc:
                raise JournalError(f"malformed repairs list: {str(exc).splitlines()[0]}", path=where) from None
        return JournalEntry(questions=str(obj.get("questions", "")), base_sha256=obj.get("base_sha256"),
                            drafts=drafts, deleted=deleted, repairs=fixes)

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)

    def set_aside(self) -> Path:
        """Move an unreadable journal out of the way, keeping its bytes for the author."""
        n = 1
        while (target := self.path.with_name(f"{self.path.name}.unreadable-{n}")).exists():
            n += 1
        self.path.rename(target)
        return target
