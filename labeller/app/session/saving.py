"""Saving: questions.jsonl written with its conflict check, the golden set rebuilt, the journal.

The session's bookkeeping around the core's writer (``write_questions``) and build: a save is refused when
the file changed on disk since it was loaded (the digest is the core's, of the text as
``load_questions`` reads it); the app then merges the file on disk record by record
(``merge_with_disk``, ``take_disk``; the model is ``conflicts``) and saves again, so no
one's edit is dropped silently; drafts that are not valid records yet are held back in the
journal; the rebuild writes the artifact only if every label resolves, and a rebuild
overtaken by a newer save writes nothing. ``SavingMixin`` is part of ``AuthoringSession``
(it uses the session's drafts, file and project); it lives here so that saving can be
read on its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from labeller.app.journal import Journal, JournalEntry
from labeller.app.session.conflicts import THEIRS, DiskMerge, compare_with_disk
from labeller.app.session.drafts import Draft
from labeller.app.session.history import Change, History
from labeller.app.session.stale import CommittedState
from labeller.config import ProjectConfig
from labeller.core.canon import sha256_hex
from labeller.core.models import Question
from labeller.core.project import Project
from labeller.core.questions import QuestionsFile, questions_text, write_questions
from labeller.diagnostics import shorten
from labeller.errors import InvalidInput, LabellerError
from labeller.io import read_regular_file
from labeller.review.log import append_reviews, new_entry
from labeller.review.reviewers import default_reviewer

if TYPE_CHECKING:  # the build is imported by the rebuild (a worker), not with the session at start-up
    from labeller.core.build import BuildResult
    from labeller.core.fixes import Fix
    from labeller.core.resolve import Refusal

MAX_REPAIR_COMMENT = 2000  # characters of the review-log comment saying which suggestions were accepted


@dataclass
class SaveOutcome:
    """What a save did, for the status line and the tests."""

    conflict: bool = False
    loading: bool = False  # refused: the corpus is still being read
    written: bool = False
    held_back: dict[str, list[str]] = field(default_factory=dict)  # drafts not valid yet: id -> problems
    file_problems: list[dict] = field(default_factory=list)  # the loader's refusal of the whole file
    artifact_written: bool = False
    artifact_reason: str = ""  # why the artifact was not rebuilt
    refusals: list[Refusal] = field(default_factory=list)
    build: BuildResult | None = None
    questions: list[Question] = field(default_factory=list)  # what was written, for the rebuild
    generation: int = 0
    committed: "CommittedState | None" = None
    fresh_project: "Project | None" = None  # the corpus changed on disk: the rebuild read it again
    repaired: list[str] = field(default_factory=list)  # records logged as edited: a suggestion of repair's accepted
    review_problem: str = ""  # why they could not be logged

    def message(self) -> str:
        if self.conflict:
            return ("questions.jsonl changed on disk since it was loaded; nothing was written (ctrl+s merges it "
                    "record by record)")
        if self.loading:
            return ("the corpus is still being read; nothing was written (your edits are in the journal): "
                    "save again once the statuses have filled in")
        if not self.written:
            probs = "; ".join((f"line {p['line']}: " if p.get("line") else "") + str(p.get("message"))
                              for p in self.file_problems[:3])
            return f"not saved: {probs}"
        parts = ["saved questions.jsonl"]
        if self.repaired:
            parts.append(f"{len(self.repaired)} repaired record(s) logged as edited (changed since review)")
        if self.review_problem:
            parts.append(f"review log NOT written: {self.review_problem}")
        if self.held_back:
            parts.append(f"{len(self.held_back)} unfinished draft(s) kept in the journal, not written: "
                         + ", ".join(sorted(self.held_back)))
        if self.fresh_project is not None:
            parts.append("the corpus changed on disk and was read again")
        if self.artifact_written:
            parts.append("golden set and manifest rebuilt")
        else:
            parts.append(f"golden set NOT rebuilt: {self.artifact_reason}")
        return "; ".join(parts)


def disk_sha256(path: Path, max_bytes: int) -> str | None:
    """The questions file's digest as ``load_questions`` computes it (``None``: it is gone).
    Read as ``load_questions`` reads it (``read_regular_file``): a FIFO swapped in for the
    file must not hang the app."""
    if not path.exists() and not path.is_symlink():
        return None
    try:
        return sha256_hex(questions_text(read_regular_file(path, max_bytes=max_bytes, what="questions file"),
                                         str(path)))
    except InvalidInput:
        return "unreadable"  # differs from every digest: the file changed, whatever it was before


class _Session(Protocol):
    """What ``SavingMixin`` uses of the ``AuthoringSession`` it is part of (the mixin's own
    methods included): the type of ``self`` in its methods, declared here so that this
    module need not import the session that imports it."""

    project: Project
    config: ProjectConfig
    qfile: QuestionsFile
    drafts: dict[str, Draft]
    order: list[str]
    baseline: dict[str, Question]
    journal: Journal
    history: History
    committed: CommittedState
    reviewer: str | None
    repairs: dict[str, dict[int, Fix]]
    _save_generation: int
    _rebuild_lock: threading.Lock

    @property
    def dirty(self) -> bool: ...
    @property
    def loading(self) -> bool: ...
    def is_dirty(self, record_id: str) -> bool: ...
    def deleted_ids(self) -> list[str]: ...
    def iter_drafts(self) -> Iterator[Draft]: ...
    def _put(self, record_id: str, after: Draft | None, coalesce: Hashable | None = None) -> None: ...
    def _place(self, record_id: str, draft: Draft | None, index: int) -> None: ...
    def _set_file(self, qfile: QuestionsFile) -> None: ...
    def store(self, result: BuildResult) -> None: ...
    def fresh_project(self) -> Project | None: ...
    def reload_corpus(self, project: Project | None = None) -> None: ...
    def journal_entry(self) -> JournalEntry: ...
    def _questions_rel(self) -> str: ...
    def write_journal(self) -> None: ...
    def _reapply(self, entry: JournalEntry, put: Callable[..., None]) -> list[str]: ...
    def disk_changed(self) -> bool: ...
    def questions_to_write(self, held_back: dict[str, list[str]] | None = None) -> list[Question]: ...
    def log_repairs(self, before: dict[str, Question], written: list[Question], out: SaveOutcome) -> None: ...


class SavingMixin:
    """Journal, save, rebuild and reload, for ``AuthoringSession``."""

    # -- journal -------------------------------------------------------------------------

    def journal_entry(self: _Session) -> JournalEntry:
        dirty = [i for i in self.order if self.is_dirty(i)]
        return JournalEntry(questions=self._questions_rel(), base_sha256=self.qfile.source_sha256,
                            drafts=[self.drafts[i].as_json() for i in dirty], deleted=self.deleted_ids(),
                            repairs=[f for i in dirty for _, f in sorted(self.repairs.get(i, {}).items())])

    def _questions_rel(self: _Session) -> str:
        try:
            return self.config.questions.relative_to(self.config.root).as_posix()
        except ValueError:
            return str(self.config.questions)

    def write_journal(self: _Session) -> None:
        if self.dirty:
            self.journal.write(self.journal_entry())
        else:
            self.journal.clear()

    def restore(self: _Session, entry: JournalEntry) -> list[str]:
        """Re-apply a journal's drafts over the loaded file, as one undo step; returns the
        restored ids. Records keep the file's order (the app never reorders); new records go
        at the end."""
        with self.history.step():
            return self._reapply(entry, self._put)

    def _reapply(self: _Session, entry: JournalEntry, put) -> list[str]:
        drafted = {obj["id"] for obj in entry.drafts}
        for fix in entry.repairs:  # first, so that every journal written below keeps them
            if fix.record_id in drafted:  # ``log_repairs`` logs each only if its locator is still in place
                self.repairs.setdefault(fix.record_id, {})[fix.index] = fix
        restored = []
        for obj in entry.drafts:
            d = Draft.from_json(obj)
            put(d.id, d)
            restored.append(d.id)
        for rid in entry.deleted:
            if rid in self.drafts and rid not in restored:
                put(rid, None)
        self.write_journal()
        return restored

    # -- saving ----------------------------------------------------------------------------

    def disk_changed(self: _Session) -> bool:
        return disk_sha256(self.config.questions, self.config.limits.max_file_bytes) != self.qfile.source_sha256

    def questions_to_write(self: _Session, held_back: dict[str, list[str]] | None = None) -> list[Question]:
        """The records a save writes, in the session's order: a draft that is not a valid
        record yet keeps its last saved version, if any (its problems go to ``held_back``).
        Also what an eval of the golden set, saved now, would score: an unfinished draft
        never makes a result out of date."""
        questions: list[Question] = []
        for d in self.iter_drafts():
            problems = d.problems()
            if problems:
                if held_back is not None:
                    held_back[d.id] = problems
                if d.id in self.baseline:
                    questions.append(self.baseline[d.id])
            else:
                questions.append(d.to_question())
        return questions

    def save_questions(self: _Session) -> SaveOutcome:
        """Write questions.jsonl atomically (keeping comments, order and ids).

        Refuses (``loading``) while the corpus is still being read at start or after a reload:
        a save rebuilds the golden set, which is never built from a corpus not yet read (the
        author saves again once the statuses are in; the journal holds the edits meanwhile).
        Refuses (``conflict``) when the file changed on disk since it was loaded: the
        caller merges it first (``merge_with_disk``, ``take_disk``). Drafts that are not
        valid records yet are not written: their last saved version (if any) stays in the
        file and the draft stays in the journal. The golden set is rebuilt afterwards by
        ``rebuild``.
        """
        out = SaveOutcome()
        if self.loading:
            out.loading = True
            return out
        if self.disk_changed():
            out.conflict = True
            return out
        questions = self.questions_to_write(out.held_back)
        on_file = set(self.baseline)
        wanted = {q.id for q in questions}
        # a record that is new to the file (an undone delete, say) goes after the record that
        # precedes it in the session, so the file keeps the order the author sees
        after: dict[str, str] = {}
        previous = ""  # the core's anchor for "before the first record"
        for q in questions:
            if q.id not in on_file:
                after[q.id] = previous
            previous = q.id
        try:
            # the core's one writer: the loader's own checks (duplicate ids and queries, bounds)
            # decide what may be written, and every line not edited stays byte for byte
            written = write_questions(self.qfile, changed=[q for q in questions if q.id in on_file],
                                      added=[q for q in questions if q.id not in on_file],
                                      deleted=[rid for rid in self.baseline if rid not in wanted],
                                      limits=self.config.limits, path=self.config.questions, after=after)
        except InvalidInput as exc:
            out.file_problems = exc.details or [{"message": str(exc)}]
            return out
        drafts = self.drafts
        before = self.baseline
        self._set_file(written)
        for rid, d in drafts.items():  # unfinished drafts stay as they were, in the journal
            if rid in out.held_back:
                self._place(rid, d, len(self.order))
        out.written = True
        out.questions = questions
        self._save_generation += 1
        out.generation = self._save_generation
        self.write_journal()
        self.log_repairs(before, questions, out)
        return out

    def log_repairs(self: _Session, before: dict[str, Question], written: list[Question], out: SaveOutcome) -> None:
        """As ``labeller repair`` does: an ``edit`` in the review log for each record just saved
        with a suggestion of repair's it accepted still in place, pinning the version before (the
        file's, ``before``), so that it reads *changed since review* until someone reads it. A
        record held back (not valid yet) keeps its accepted fixes for the save that writes it."""
        saved = {q.id: q for q in written}
        entries = []
        for rid in [r for r in self.repairs if r not in out.held_back]:
            fixes, q, old = self.repairs.pop(rid), saved.get(rid), before.get(rid)
            if q is None or old is None or q == old:
                continue
            kept = [f for i, f in sorted(fixes.items()) if i < len(q.locators) and q.locators[i] == f.new]
            if kept:
                entries.append((old, "labeller app: " + "; ".join(f.describe() for f in kept)))
        if not entries:
            return
        try:
            reviewer = default_reviewer(self.reviewer)
            append_reviews(self.config.layout.review_log, [new_entry(old, reviewer, "edit",
                                                                     shorten(comment, MAX_REPAIR_COMMENT))
                                                           for old, comment in entries])
        except (LabellerError, OSError) as exc:
            out.review_problem = str(exc)
            return
        out.repaired = [old.id for old, _ in entries]

    def merge_with_disk(self: _Session) -> DiskMerge:
        """The file on disk now compared with the app's drafts, record by record (the
        loader's checks apply: a file on disk that would be refused raises ``InvalidInput``)."""
        return compare_with_disk(self.baseline, self.drafts, self.order, self.is_dirty,
                                 self.project.load_questions())

    def take_disk(self: _Session, merge: DiskMerge, choices: dict[str, str]) -> list[str]:
        """Make the file on disk the session's base, keeping the author's changes on top.

        Records changed only on disk come in as they are there; every record the author
        changed keeps the author's version, except a conflict resolved ``THEIRS``
        (``choices``: record id -> ``MINE``/``THEIRS``; a conflict without a choice keeps
        the author's). Taking theirs over an edit of the author's is one undo step, so the
        author's version is one ctrl+z away; the author's own edits keep their history.
        Returns the ids whose version now comes from disk over an edit of the author's."""
        previous = list(self.order)
        mine = {rid: self.drafts.get(rid) for rid in dict.fromkeys([*previous, *self.baseline])
                if (rid in self.drafts and self.is_dirty(rid)) or rid not in self.drafts}
        theirs = {c.record_id for c in merge.conflicts if choices.get(c.record_id) == THEIRS}
        self._set_file(merge.disk)
        for rid, draft in mine.items():
            if rid in theirs:
                continue
            if draft is None or rid in self.drafts:
                self._place(rid, draft, 0)  # deleted, or replaced where the file has it
                continue
            # new to the file: after the record that precedes it on the author's screen
            at = previous.index(rid)
            before = next((p for p in reversed(previous[:at]) if p in self.drafts), None)
            self._place(rid, draft, 0 if before is None else self.order.index(before) + 1)
        with self.history.step():
            for rid in theirs:
                after = self.drafts.get(rid)
                index = (self.order.index(rid) if rid in self.order
                         else previous.index(rid) if rid in previous else len(self.order))
                self.history.record(Change(rid, mine[rid], after, index))
        self.write_journal()
        return sorted(theirs)

    def rebuild(self: _Session, out: SaveOutcome) -> SaveOutcome:
        """Build the saved records and write the artifact and manifest if every label resolves
        (thread-safe; a rebuild overtaken by a newer save writes nothing).

        The corpus is checked against the files on disk first (``fresh_project``): when it
        changed, the build uses the corpus as it is now, and ``finish_save`` makes the
        session use it too, so the manifest never records a document hash that is gone."""
        from labeller.core.build import build, write_artifacts

        with self._rebuild_lock:
            if out.generation != self._save_generation:
                out.artifact_reason = "a newer save rebuilds it"
                return out
            try:
                out.fresh_project = self.fresh_project()
                project = out.fresh_project or self.project
                result = build(project, out.questions)
            except LabellerError as exc:
                out.artifact_reason = str(exc)
                return out
            out.build = result
            out.refusals = result.refusals
            if not result.ok:
                ids = sorted({str(r.record_id) for r in result.refusals})
                out.artifact_reason = (f"{len(result.refusals)} label error(s) in {', '.join(ids)}; "
                                       "the previous artifact was left as it was")
            else:
                try:
                    write_artifacts(project, result)
                except (LabellerError, OSError) as exc:  # a symlinked [golden] out, a full disk: said, not a crash
                    out.artifact_reason = str(exc)
                    return out
                out.artifact_written = True
                out.committed = CommittedState.read(self.config, project)
        return out

    def finish_save(self: _Session, out: SaveOutcome) -> None:
        """Take a rebuild's results in (app thread). After a corpus change the session uses
        the corpus the rebuild read; the caller then re-resolves every draft."""
        if out.fresh_project is not None:
            self.reload_corpus(out.fresh_project)
        if out.build is not None:
            self.store(out.build)
        if out.committed is not None:
            self.committed = out.committed

    def reload(self: _Session) -> list[str]:
        """Load questions.jsonl again from disk and put the author's edits back on top of it.

        Used after a review round, which writes the file itself: the other writer's records
        come in, and every record the author had edited keeps the author's version. Returns
        the kept ids.
        """
        mine = self.journal_entry()
        self._set_file(self.project.load_questions())
        # the author's edits go back on top without a step of their own: their history
        # already holds them, and undoing them still works record by record
        return self._reapply(mine, lambda rid, d: self._place(rid, d, len(self.order)))
