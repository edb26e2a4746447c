"""``AuthoringSession``: the project, its questions file, the drafts and their resolution.

Widgets show a session and post messages; screens turn those messages into calls on the
session; the session turns them into calls on ``labeller.core``. Nothing in this package
imports Textual, so all of it is testable without a terminal, and no labelling rule is
decided here: resolution, expansion, chunk hits, suggestions, validation of records and
of the whole file, the build and its summary all come from the core.

What the session adds is the authoring bookkeeping the core has no reason to know:
drafts (records being edited, which may not be valid yet), which of them differ from the
file on disk, the journal that keeps them across a crash (``saving``), the check that
the file did not change under the author, and which labels went stale (``stale``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Hashable

from pydantic import ValidationError

from labeller.app.journal import Journal
from labeller.app.session.drafts import Draft, LocatorDraft, next_record_id
from labeller.app.session.filters import QuestionFilter
from labeller.app.session.history import Change, History
from labeller.app.session.saving import SavingMixin
from labeller.app.session.search import Searcher, default_searcher
from labeller.app.session.stale import CommittedState
from labeller.app.session.statuses import (STATUS_INCOMPLETE, STATUS_PENDING, STATUS_RESOLVED, STATUS_STALE,
                                           STATUS_UNANSWERABLE)
from labeller.app.session.unlabelled import Gap, unlabelled
from labeller.config import load_config
from labeller.core.models import Locator, Question
from labeller.core.project import Project
from labeller.core.questions import QuestionsFile
from labeller.core.vocab import Place
from labeller.errors import InvalidInput, LabellerError
from labeller.io import refuse_symlink_components
from labeller.review.log import STATUS_LABELS, ReviewLog, read_review_log

if TYPE_CHECKING:  # the resolving half of the core is imported by the worker that first resolves
    from labeller.core.build import BuildResult, RecordResult
    from labeller.core.fixes import Fix
    from labeller.core.last_build import LastBuild
    from labeller.core.repair import Offered

# Reads the committed build (its spans, and the corpus then through git) for ``repair``'s
# suggestions; the commands hold the git reading, so ``labeller app`` hands it in.
LastBuildReader = Callable[[Project], "LastBuild | None"]


class AuthoringSession(SavingMixin):
    """A project, its questions file, the drafts being edited and their resolution.

    Methods that only read (``compute``, ``resolve_draft``, ``rebuild``, the previews) may
    run in worker threads on a snapshot of drafts; everything that changes the session
    runs on the app's thread. A stored resolution is used only while it was computed from
    the record's current draft, so a late worker can never show a stale status.
    """

    def __init__(self, project: Project, qfile: QuestionsFile, journal: Journal | None = None,
                 searcher_factory: Callable[[Project], Searcher] = default_searcher,
                 last_build_reader: LastBuildReader | None = None) -> None:
        self.project = project
        self.config = project.config
        self.journal = journal if journal is not None else Journal(self.config.layout.journal)
        self._searcher_factory = searcher_factory
        self._searcher: Searcher | None = None
        self._last_build_reader = last_build_reader
        # the committed build as read for this project and committed state (a rebuild that
        # writes the artifact replaces the state: read again when next asked)
        self._committed_build: tuple[Project, CommittedState, LastBuild | None] | None = None
        # suggestions accepted (``repair``'s fixes), per record and locator: the new locator and
        # what it was, logged as an ``edit`` in the review log when the record is saved with it
        self.repairs: dict[str, dict[int, Fix]] = {}
        self.results: dict[str, RecordResult] = {}
        self.committed = CommittedState()
        self.ready = False  # chunks, quote index and statuses computed
        self._answers: dict[str, tuple[RecordResult, str | None]] = {}  # each result's answer digest, once
        self._review_log: ReviewLog | None = None  # golden/reviews.jsonl as last read, and the stat it was read at
        self._review_stamp: tuple[int, int] | None | bool = False
        self.last_build: BuildResult | None = None
        self._save_generation = 0
        self._rebuild_lock = threading.Lock()
        self.history = History()  # undo/redo of every change made in the app, until it closes
        self.reviewer: str | None = None  # who reviews, once chosen in the app (kept until it closes)
        # review left with `e` to edit a record: its queue and that record, where review resumes
        # (issue 38: the queue does not restart at its first flagged record after an edit)
        self.review_return: tuple[list[str], str] | None = None
        self._set_file(qfile)

    @classmethod
    def open(cls, root: Path | str = ".", *, allow_outside: bool = False, **kwargs) -> "AuthoringSession":
        """Load the config and the questions file: a refusal here is a clean exit 2 before the
        UI starts. The corpus is not read here but by ``prepare`` (the app's worker), so the
        question list is shown while a large corpus loads; a corpus refused then ends the app
        with the same message and exit code (``LabellerApp.refusal``)."""
        from labeller.core.cache import DigestCache

        config = load_config(root, allow_outside=allow_outside)
        # the journal's folder: refused here, before the UI, not at the first keystroke (a planted
        # journal file itself is set aside by the app's start, as an unreadable one)
        refuse_symlink_components(config.layout.state_dir)
        project = Project(config, DigestCache(config.layout.cache_dir))
        return cls(project, project.load_questions(), **kwargs)

    def _set_file(self, qfile: QuestionsFile) -> None:
        self.qfile = qfile
        self.baseline: dict[str, Question] = {q.id: q for q in qfile.questions}
        self.order: list[str] = [q.id for q in qfile.questions]
        self.drafts: dict[str, Draft] = {q.id: Draft.from_question(q) for q in qfile.questions}
        self._dirty_memo: dict[str, tuple[Draft, bool]] = {}

    # -- resolving (thread-safe readers, app-thread writers) ----------------------------------

    def prepare(self) -> None:
        """Read the corpus (unless read already), chunk it and index it for quotes (slow on a
        big corpus: run in a worker). Until the corpus is read nothing is saved (``loading``)."""
        p = self.project
        p.corpus, p.chunks, p.resolver  # noqa: B018 - compute the cached properties once, off the UI thread
        self.committed = CommittedState.read(self.config, p)

    @property
    def loading(self) -> bool:
        """The corpus is still being read: nothing can be resolved, saved or built yet."""
        return not self.project.corpus_loaded

    def snapshot(self) -> list[Draft]:
        return [self.drafts[i] for i in self.order]

    def compute(self, drafts: list[Draft]) -> BuildResult:
        """Resolve every valid draft in one build (one multi-pattern search for all quotes)."""
        from labeller.core.build import build

        return build(self.project, [d.to_question() for d in drafts if not d.problems()])

    def store(self, result: BuildResult) -> None:
        self.last_build = result
        self.results = {r.question.id: r for r in result.records}
        self.ready = True

    def store_record(self, result: RecordResult) -> None:
        self.results[result.question.id] = result

    # -- reading ------------------------------------------------------------------------

    def iter_drafts(self) -> Iterator[Draft]:
        return (self.drafts[i] for i in self.order)

    def draft(self, record_id: str) -> Draft:
        return self.drafts[record_id]

    def is_dirty(self, record_id: str) -> bool:
        # Asked for every record on each keystroke (the journal holds the dirty ones), so
        # the answer is kept until the draft object is replaced: drafts are immutable and
        # the baseline only changes with the file (``_set_file`` drops the memo).
        draft = self.drafts[record_id]
        memo = self._dirty_memo.get(record_id)
        if memo is not None and memo[0] is draft:
            return memo[1]
        base = self.baseline.get(record_id)
        dirty = base is None or base.as_json() != draft.as_json()
        self._dirty_memo[record_id] = (draft, dirty)
        return dirty

    @property
    def dirty(self) -> bool:
        return any(self.is_dirty(i) for i in self.order) or bool(self.deleted_ids())

    def deleted_ids(self) -> list[str]:
        return sorted(set(self.baseline) - set(self.drafts))

    def result(self, record_id: str) -> RecordResult | None:
        """The last resolution of the record, only if it was computed from the current draft."""
        res = self.results.get(record_id)
        if res is None or res.question.as_json() != self.drafts[record_id].as_json():
            return None
        return res

    def status(self, record_id: str) -> tuple[str, str]:
        """``(status, detail)`` for the question list."""
        draft = self.drafts[record_id]
        problems = draft.problems()
        if problems:
            return STATUS_INCOMPLETE, problems[0]
        if draft.unanswerable:
            return STATUS_UNANSWERABLE, ""
        res = self.result(record_id)
        if res is None:
            return STATUS_PENDING, "resolving"
        if not res.refusals:
            return STATUS_RESOLVED, ""
        first = res.refusals[0]
        if self.committed.is_stale(record_id, res):
            return STATUS_STALE, first.message
        kinds = {r.kind for r in res.refusals}
        for kind in ("ambiguous", "not_found"):
            if kind in kinds:
                return kind.replace("_", " "), first.message
        return first.kind.replace("_", " "), first.message

    def review_statuses(self) -> dict[str, str]:
        """Review status per record (reviewed / needs re-review / flagged / unreviewed).

        Read from golden/reviews.jsonl, which ``labeller review`` appends to from outside the
        app too; re-read only when the file changes. An unsaved edit of a reviewed record
        already shows as needing re-review: the review covered the record as it was.
        """
        path = self.config.layout.review_log
        try:
            st = path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if self._review_stamp != stamp:
            try:
                self._review_log = read_review_log(path)
            except LabellerError:
                self._review_log = None
            self._review_stamp = stamp
        out: dict[str, str] = {}
        answers = self.answers()
        for d in self.iter_drafts():
            if self._review_log is None or d.problems():
                continue
            out[d.id] = STATUS_LABELS[self._review_log.status(d.to_question(), answers)]
        return out

    def answers(self) -> Mapping[str, str]:
        """Today's answer digests (``core.answer_text``) of the records resolved as they stand,
        each computed when the review log first asks (a reviewed label whose text changed under
        it needs re-review)."""
        if self.loading:
            return {}
        from labeller.core.answer_text import LazyDigests

        return LazyDigests(self.order, self._answer_of)

    def _answer_of(self, record_id: str) -> str | None:
        from labeller.core.answer_text import answer_digest

        res = self.result(record_id)
        if res is None:
            return None
        known = self._answers.get(record_id)
        if known is None or known[0] is not res:  # the question list asks on every refresh: digest once
            known = self._answers[record_id] = (res, answer_digest(res, self.project.corpus))
        return known[1]

    def rows(self, flt: QuestionFilter = QuestionFilter()) -> list[tuple[Draft, str]]:
        out = []
        for d in self.iter_drafts():
            status, _ = self.status(d.id)
            if flt.matches(d, status):
                out.append((d, status))
        return out

    def all_tags(self) -> list[str]:
        return sorted({t for d in self.iter_drafts() for t in d.tags})

    def broken_records(self) -> list[str]:
        """Records whose labels are refused, stale ones first: the re-anchoring walk's order."""
        broken = [i for i in self.order if (res := self.result(i)) is not None and res.refusals]
        return sorted(broken, key=lambda i: self.status(i)[0] != STATUS_STALE)

    def first_refused_locator(self, record_id: str) -> int:
        """Index of the first locator the core refused (0 when none can be matched)."""
        res = self.result(record_id)
        if res is None or not res.refusals:
            return 0
        bad = res.refusals[0].locator
        for i, ld in enumerate(self.drafts[record_id].locators):
            if ld.as_json() == bad.as_json():
                return i
        return 0

    # -- editing -------------------------------------------------------------------------
    #
    # Every change to a draft goes through ``_put``, which records it in the history (undo)
    # and the journal (crash safety); nothing else writes ``drafts`` or ``order``.

    def _put(self, record_id: str, after: Draft | None, coalesce: Hashable | None = None) -> None:
        before = self.drafts.get(record_id)
        if before == after:
            return
        index = self.order.index(record_id) if record_id in self.order else len(self.order)
        self._place(record_id, after, index)
        self.history.record(Change(record_id, before, after, index), coalesce)
        self.write_journal()

    def _place(self, record_id: str, draft: Draft | None, index: int) -> None:
        if draft is None:
            self.drafts.pop(record_id, None)
            if record_id in self.order:
                self.order.remove(record_id)
            return
        if record_id not in self.drafts:
            self.order.insert(min(index, len(self.order)), record_id)
        self.drafts[record_id] = draft

    def undo(self) -> list[str]:
        """Take back the last step; returns the ids it changed (empty: nothing to undo)."""
        step = self.history.take_undo()
        for c in reversed(step or []):
            self._place(c.record_id, c.before, c.index)
        if step:
            self.write_journal()
        return [c.record_id for c in step or []]

    def redo(self) -> list[str]:
        """Do the last undone step again; returns the ids it changed."""
        step = self.history.take_redo()
        for c in step or []:
            self._place(c.record_id, c.after, c.index)
        if step:
            self.write_journal()
        return [c.record_id for c in step or []]

    def new_record(self) -> str:
        rid = next_record_id([*self.order, *self.baseline])
        self._put(rid, Draft(id=rid, locators=(LocatorDraft(),)))
        return rid

    def delete_record(self, record_id: str) -> None:
        self._put(record_id, None)

    def update(self, record_id: str, *, coalesce: bool = True, **fields) -> Draft:
        """Change fields of a draft (query, expected_answer, hop, tags, split, unanswerable, locators).

        With ``coalesce`` (typing), consecutive changes of the same fields of one record are
        one undo step."""
        if "id" in fields:
            raise ValueError("ids are never renumbered")
        if "tags" in fields:
            fields["tags"] = tuple(fields["tags"])
        new = replace(self.drafts[record_id], **fields)
        key = ("fields", record_id, tuple(sorted(fields))) if coalesce else None
        self._put(record_id, new, key)
        return self.drafts[record_id]

    def set_locator(self, record_id: str, index: int, loc: LocatorDraft, *, coalesce: bool = True) -> Draft:
        """Replace one locator; typing into it (``coalesce``) is one undo step, a selection,
        nudge or accepted suggestion (``coalesce=False``) one step each."""
        d = self.drafts[record_id]
        if d.locators[index] == loc:
            return d
        locs = list(d.locators)
        locs[index] = loc
        new = replace(d, locators=tuple(locs))
        self._put(record_id, new, ("locator", record_id, index) if coalesce else None)
        return new

    def locator_for_range(self, base: LocatorDraft, doc_id: str, start: int, end: int) -> LocatorDraft:
        """The locator a selection of ``[start, end)`` stands for: its quote, pinned to the
        document, with the shortest context that makes *this* occurrence the one counted (an
        old context is replaced), so selecting one copy of a repeated passage labels that copy.
        ``exact`` is kept; a quote no context can single out keeps no context (it will show
        as ambiguous, with its occurrences to pick from)."""
        from labeller.core.context import pick_occurrence
        from labeller.core.nudge import quote_from_range, trimmed_start

        doc = self.project.corpus[doc_id]
        s, e = trimmed_start(doc, start, end), end
        while e > s and doc.text[e - 1].isspace():
            e -= 1
        plain = replace(base, doc=doc_id, quote=quote_from_range(doc, s, e), heading=None, prefix=None, suffix=None)
        try:
            picked = pick_occurrence(self.project.resolver.index, plain.to_locator(), Place(doc_id, s, e))
        except (ValidationError, ValueError):  # an empty selection, or a range the index does not see
            return plain
        return plain if picked is None else LocatorDraft.from_locator(picked)

    def add_locator(self, record_id: str, loc: LocatorDraft | None = None) -> int:
        d = self.drafts[record_id]
        self.update(record_id, coalesce=False, locators=(*d.locators, loc or LocatorDraft()))
        return len(d.locators)

    def remove_locator(self, record_id: str, index: int) -> None:
        d = self.drafts[record_id]
        self.update(record_id, coalesce=False,
                    locators=tuple(loc for i, loc in enumerate(d.locators) if i != index))

    def committed_build(self) -> LastBuild | None:
        """The committed build (``repair``'s ``last_build``: where each label stood, and the
        corpus then), read once per corpus loaded and build committed; None without a reader or a
        committed build."""
        cached = self._committed_build
        if self._last_build_reader is None:
            return None
        if cached is None or cached[0] is not self.project or cached[1] is not self.committed:
            project, committed = self.project, self.committed
            cached = self._committed_build = (project, committed, self._last_build_reader(project))
        return cached[2]

    def record_offers(self, record_id: str) -> list[tuple[Offered | None, tuple[Place | None, ...]]]:
        """``repair``'s suggestions for each refused locator of the record as last built (the
        build's suggestions and moves, ranked by ``core.repair.offered``; ``None`` for a refusal
        repair has none for), and where each one's new locator resolves. Slow (git, a word
        comparison): a worker's job."""
        from labeller.app.session.preview import repair_offers

        res = self.result(record_id)
        if res is None:
            return []
        last = self.committed_build()
        return [repair_offers(self.project, self.drafts[record_id], r, last) for r in res.refusals]

    def accept_fix(self, record_id: str, index: int, fix: Fix) -> LocatorDraft:
        """Accept one of ``repair``'s suggestions (``core.repair.offered``): the locator
        becomes the fix's, exactly what ``labeller repair`` writes, and the record is logged as
        edited when it is saved with it (``log_repairs``), so that it reads *changed since review*."""
        new = LocatorDraft.from_locator(fix.new)
        self.repairs.setdefault(record_id, {})[index] = fix  # first: the journal written next keeps it
        self.set_locator(record_id, index, new, coalesce=False)
        return new

    def apply_suggestion(self, record_id: str, index: int, suggestion: dict) -> LocatorDraft:
        """Accept one of the core's suggestions for a refused locator (never done on its own).

        ``suggestion`` is an entry of ``Refusal.suggestions`` (a nearest passage, possibly with
        the context that picks it, or a section locator for a heading-only span) or of
        ``Refusal.occurrences`` (an occurrence with its shortest context and its shortest unique
        extension), or a ``{"doc", "pin": True}`` from ``pin_suggestions``. Picking an occurrence
        pins it by context, so the span never widens; the longer quote is the fallback only
        where no context singles the occurrence out. An accepted passage pins its document.
        """
        if "fix" in suggestion:  # one of ``repair``'s (``preview.repair_offers``)
            return self.accept_fix(record_id, index, suggestion["fix"])
        old = self.drafts[record_id].locators[index]
        context = suggestion.get("context")
        if suggestion.get("kind") == "moved":  # the quote verbatim in another document: only the doc changes
            new = replace(old, doc=suggestion["doc"])
        elif suggestion.get("pin"):  # an ambiguous quote that occurs once in that document
            new = replace(old, doc=suggestion["doc"], heading=None)
        elif suggestion.get("heading"):
            new = LocatorDraft(doc=suggestion["doc"], heading=suggestion["heading"])
        elif "char_start" in suggestion and context is not None:
            new = replace(old, doc=suggestion["doc"], heading=None, prefix=context.get("prefix"),
                          suffix=context.get("suffix"))
        elif suggestion.get("extension"):
            new = replace(old, quote=suggestion["extension"], heading=None, prefix=None, suffix=None)
        elif suggestion.get("quote"):
            # pinned to the passage's document: the suggestion was read there, and a quote unique
            # today may not stay unique when another document grows the same words
            new = replace(old, quote=suggestion["quote"], doc=suggestion.get("doc") or old.doc, heading=None,
                          prefix=suggestion.get("prefix"),
                          suffix=suggestion.get("suffix"))
        else:
            raise ValueError("not a suggestion")
        self.set_locator(record_id, index, new, coalesce=False)
        return new

    def move_groups(self, plan: list[Fix] | None = None) -> list[dict]:
        """The broken records' moves, one group per pair of documents: the build's moved
        suggestions (``core.moves.move_groups``: what ``labeller build`` prints), or, given
        ``moves_plan``'s fixes, what ``labeller repair --moves`` would apply (the moves the build
        suggests that resolve, and a quote the new page repeats moved where it stood), each
        group with the build's rename note for its pair."""
        from labeller.core.moves import move_groups
        from labeller.core.repair import fix_groups

        refusals = [r for rid in self.broken_records() if (res := self.result(rid)) is not None for r in res.refusals]
        return move_groups(refusals) if plan is None else fix_groups(plan, refusals)

    def may_move(self) -> bool:
        """Whether a broken record has a refused locator ``repair --moves`` may fix (worth a plan)."""
        from labeller.core.repair import may_move

        return any(may_move(r) for rid in self.broken_records() if (res := self.result(rid)) is not None
                   for r in res.refusals)

    def moves_plan(self) -> list[Fix]:
        """``labeller repair --moves``'s fixes for the broken records: each moved locator
        resolved again first, and with the committed build, a quote the new page repeats moved
        where it stood (``core.repair``). Slow (git, a word comparison): a worker's job."""
        from labeller.core.repair import plan_repair

        results = [res for rid in self.broken_records() if (res := self.result(rid)) is not None]
        return plan_repair(self.project, results, moves_only=True, last_build=self.committed_build()).fixes

    def accept_moves(self, fixes: list[Fix]) -> list[str]:
        """Apply ``moves_plan``'s fixes as one undo step, each whose locator is still the one it
        was planned for (the author may have edited it while the plan was made). The author
        saves as after any edit; returns the ids changed."""
        fixes = [f for f in fixes if f.record_id in self.drafts and f.index < len(self.drafts[f.record_id].locators)
                 and self.drafts[f.record_id].locators[f.index] == LocatorDraft.from_locator(f.old)]
        with self.history.step():
            for f in fixes:
                self.accept_fix(f.record_id, f.index, f)
        return list(dict.fromkeys(f.record_id for f in fixes))

    def locate_suggestion(self, suggestion: dict) -> Place | None:
        """Where a suggested quote (with its doc and context) is, for showing it; the first
        place of several."""
        try:
            loc = Locator(doc=suggestion.get("doc"), quote=suggestion["quote"], prefix=suggestion.get("prefix"),
                          suffix=suggestion.get("suffix"))
            found = self.project.resolver.locate(loc)
        except (ValidationError, InvalidInput):
            return None
        if isinstance(found, Place):
            return found
        return found.places[0] if found.places else None

    def unlabelled(self) -> list[Gap]:
        """The "next unlabelled" queue over the labels as last resolved (session/unlabelled.py)."""
        spans = [(s.doc_id, s.start, s.end) for r in self.results.values() if r.question.id in self.drafts
                 for s in r.spans]
        return unlabelled(self.project.corpus, spans)

    # -- search ------------------------------------------------------------------------------

    def warm_search(self) -> Searcher:
        """The corpus search, its index built or loaded on first use (slow: a worker's job)."""
        if self._searcher is None:
            self._searcher = self._searcher_factory(self.project)
        return self._searcher

    def search(self, query: str, k: int = 20) -> list:
        if not query.strip():
            return []
        return self.warm_search()(query, k)

    # -- coverage ------------------------------------------------------------------------

    def coverage(self, result: BuildResult) -> dict:
        """The build's own summary (labels per document, unlabelled documents, single / multi /
        negative counts) plus labels per tag, over every valid draft."""
        summary = dict(result.summary)
        per_tag: dict[str, dict[str, int]] = {}
        for rec in result.records:
            for tag in rec.question.tags or ["(no tag)"]:
                row = per_tag.setdefault(tag, {"records": 0, "spans": 0})
                row["records"] += 1
                row["spans"] += len(rec.spans)
        summary["labels_per_tag"] = dict(sorted(per_tag.items()))
        return summary

    # -- the corpus on disk ------------------------------------------------------------------
    #
    # The corpus can change under the app (an editor, a git pull). A file watcher in the app
    # notices most changes; the guarantee is the digest check here, which every rebuild
    # runs first, so no artifact is ever built from the corpus as it was at start-up.

    def fresh_project(self) -> Project | None:
        """A project over the corpus as it is on disk now, or ``None`` when that is the corpus
        already loaded (same digest). Reads and canonicalises every document: a worker's job."""
        disk = Project(self.config, self.project.cache)
        return None if disk.corpus.digest == self.project.corpus.digest else disk

    def reload_corpus(self, project: Project | None = None) -> None:
        """Use the corpus as read again (``project``, or a fresh read); ``prepare`` and
        ``compute`` follow."""
        self.project = project if project is not None else Project(self.config, self.project.cache)
        self._searcher = None
        self.ready = False
