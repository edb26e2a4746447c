"""Judging a pool without a screen: the queue, the verdicts, where to resume.

A pool (``labeller pool``) is a list of (question, chunk) pairs nobody judged. This model
walks it for one judge: it knows which pairs that judge has already judged (their verdicts
are in golden/judgments.jsonl, matched by the passage each one names), starts at the first
one left, so a session closed half way resumes where it stopped, and writes each verdict at
once through ``core.judgments.record_verdicts`` — the same path as ``labeller judge``. The
screen (``labeller.app.screens.judging``) only shows what this holds and calls it on a key.
"""

from __future__ import annotations

from pathlib import Path

from labeller.app.session.review import RecordCursor
from labeller.core.build import resolve_record
from labeller.core.judgments import Judgment, load_judgments, passage_locator, record_verdicts
from labeller.core.models import Locator, Question
from labeller.core.project import Project
from labeller.core.resolve import Span
from labeller.core.vocab import Place
from labeller.errors import LabellerError
from labeller.eval.pooling import PoolEntry, read_pool


class PoolSession(RecordCursor):
    """One judge's pass over a pool file."""

    def __init__(self, project: Project, pool: Path, judge: str) -> None:
        self.entries: list[PoolEntry] = read_pool(pool)
        super().__init__([f"{e.query_id} {e.chunk_id}" for e in self.entries])
        self.project = project
        self.judge = judge
        self.questions: dict[str, Question] = {}
        self.verdicts: dict[int, bool] = {}  # entry index -> this judge's verdict
        self._locators: dict[int, Locator | None] = {}

    def load(self) -> None:
        """Read the questions and this judge's verdicts, and move to the first entry left."""
        self.questions = {q.id: q for q in self.project.load_questions().questions}
        mine = {j.passage_key: j.relevant for j in load_judgments(self.project).judgments if j.judge == self.judge}
        self.verdicts = {}
        for i, e in enumerate(self.entries):
            loc = self.locator(i)
            if loc is not None and (e.query_id, loc.doc, loc.quote, loc.prefix, loc.suffix) in mine:
                self.verdicts[i] = mine[(e.query_id, loc.doc, loc.quote, loc.prefix, loc.suffix)]
        self.index = next((i for i in range(len(self.entries)) if i not in self.verdicts), 0)

    def locator(self, i: int) -> Locator | None:
        """The locator a verdict on entry ``i`` records; None when the corpus no longer holds
        the pooled text (the pool is older than the corpus) or no quote can name it."""
        if i not in self._locators:
            e = self.entries[i]
            try:
                self._locators[i] = (passage_locator(self.project, Place(e.doc, e.start, e.end))
                                     if e.current(self.project) else None)
            except LabellerError:
                self._locators[i] = None
        return self._locators[i]

    @property
    def done(self) -> int:
        return len(self.verdicts)

    def current(self) -> PoolEntry | None:
        return self.entries[self.index] if self.entries else None

    def question(self) -> Question | None:
        e = self.current()
        return None if e is None else self.questions.get(e.query_id)

    def labelled_spans(self) -> list[Span]:
        """The question's label spans as the build resolves them (what the candidate is judged beside)."""
        q = self.question()
        return [] if q is None else resolve_record(self.project, q, suggestions=False).spans

    def decide(self, relevant: bool, *, promote: bool = False) -> Judgment:
        """Record this judge's verdict on the current entry (``promote``: also as a locator of
        its question) and move to the next entry not judged yet. ``LabellerError`` when it
        cannot be recorded (stale pool, a passage that no longer resolves)."""
        e = self.current()
        loc = self.locator(self.index)
        if e is None or loc is None or loc.quote is None:
            raise LabellerError("this pooled chunk is not in the corpus any more (the corpus changed since "
                                "pooling): pool again")
        judgment = Judgment(query_id=e.query_id, doc=e.doc, quote=loc.quote, prefix=loc.prefix, suffix=loc.suffix,
                            relevant=relevant, judge=self.judge)
        record_verdicts(self.project, [judgment], promoted=promote)
        self.verdicts[self.index] = relevant
        if promote:
            self.questions = {q.id: q for q in self.project.load_questions().questions}
        self.skip()
        return judgment

    def skip(self) -> None:
        """On to the next entry this judge has not judged (or one step, when all are judged)."""
        after = [i for i in range(self.index + 1, len(self.entries)) if i not in self.verdicts]
        self.index = after[0] if after else min(self.index + 1, max(len(self.entries) - 1, 0))
