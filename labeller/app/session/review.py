"""The review round without a screen: reviewing, blind annotation and adjudication.

Every file a review screen touches (questions.jsonl, the review log, an annotator's file)
is read and written here, and every rule of the round (which records are queued, who is
reviewing, what a decision writes, when a typed locator may be added) is decided here; the
screens (``labeller.app.screens.review`` / ``annotate`` / ``adjudicate``) show what these
models hold and call them on a key. So the round is tested without Textual, and the same
model serves ``labeller review`` and the app's review mode.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Mapping

from labeller.core.answer_text import answer_digest
from labeller.core.build import RecordResult, resolve_record
from labeller.core.models import Locator, Question
from labeller.core.project import Project
from labeller.core.resolve import Refusal, Span, locator_error
from labeller.errors import InvalidInput, LabellerError
from labeller.review.adjudicate import adjudicate, apply_edit, merged_locators, with_new_locators
from labeller.review.agreement import RecordAgreement, compare_record, resolve_pair
from labeller.review.annotations import Annotations, load_annotations
from labeller.review.log import STATUS_LABELS, ReviewEntry, ReviewLog, append_review, new_entry, read_review_log
from labeller.review.reviewers import default_reviewer

REVIEWER_VARIABLE = "LABELLER_REVIEWER"


class RecordCursor:
    """A position in an ordered list of record ids: what next / previous move (never past
    either end)."""

    def __init__(self, record_ids: list[str]) -> None:
        self.record_ids = list(record_ids)
        self.index = 0

    @property
    def record_id(self) -> str | None:
        return self.record_ids[self.index] if self.record_ids else None

    def step(self, by: int) -> None:
        self.index = max(0, min(len(self.record_ids) - 1, self.index + by))


# -- who reviews, and what ----------------------------------------------------------------------


def review_queue(project: Project, answers: Mapping[str, str]) -> list[str]:
    """The records the app's review mode walks: most urgent first (see ``ReviewLog.queue``;
    ``answers``: today's answer digests), or every record when none needs review."""
    questions = project.load_questions().questions
    return read_review_log(project.layout.review_log).queue(questions, answers=answers) or [q.id for q in questions]


def reviewer_from_environment() -> str | None:
    """``$LABELLER_REVIEWER`` checked as a person's name, None when it is not set;
    ``LabellerError`` when it is set to something ``check_person`` refuses."""
    return default_reviewer(None) if os.environ.get(REVIEWER_VARIABLE) else None


def login_name() -> str:
    """The name to offer when asking who reviews ("" when the system cannot tell)."""
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return ""


def checked_reviewer(name: str) -> str:
    """A typed reviewer name as it is written into the log; ``LabellerError`` if refused."""
    return default_reviewer(name.strip())


# -- review: accept, flag, edit -----------------------------------------------------------------


class ReviewSession(RecordCursor):
    """One reviewer's pass over ``record_ids``: the records and the log as last read, and the
    decisions, each appended to the log at once."""

    def __init__(self, project: Project, record_ids: list[str], reviewer: str) -> None:
        super().__init__(record_ids)
        self.project = project
        self.reviewer = reviewer
        self.questions: dict[str, Question] = {}
        self.log = ReviewLog(project.layout.review_log)
        self.load_error = ""

    def reload(self) -> None:
        """Re-read questions and log: another reviewer may be appending to the same log, and
        the author may be saving. A file that cannot be read keeps the last good state, with
        the reason in ``load_error``, rather than ending the session."""
        try:
            questions = {q.id: q for q in self.project.load_questions().questions}
            log = read_review_log(self.project.layout.review_log)
        except LabellerError as exc:
            self.load_error = str(exc)
            return
        self.questions, self.log, self.load_error = questions, log, ""

    def current(self) -> Question | None:
        """The record under the cursor; None when there is none or it left questions.jsonl."""
        rid = self.record_id
        return None if rid is None else self.questions.get(rid)

    def answer(self, question: Question) -> str | None:
        """The digest of the text under the record's spans today (``core.answer_text``): what an
        accept pins, and what tells a review whose text changed under it."""
        return answer_digest(resolve_record(self.project, question, suggestions=False), self.project.corpus)

    def _answers(self, question: Question) -> dict[str, str]:
        answer = self.answer(question)
        return {} if answer is None else {question.id: answer}

    def status(self, question: Question) -> str:
        return self.log.status(question, self._answers(question))

    def status_label(self, question: Question) -> str:
        """The status as the head line says it: a stale review says whether the text changed
        (the record resolved once for both)."""
        answers = self._answers(question)
        answer_changed = self.log.answer_changed(question, answers)
        return STATUS_LABELS["answer_changed" if answer_changed else self.log.status(question, answers)]

    def latest(self, record_id: str) -> ReviewEntry | None:
        return self.log.latest(record_id)

    def decide(self, decision: str, comment: str = "") -> Question | None:
        """Append this reviewer's ``decision`` on the current record and read the log again;
        the record decided on (None: no record here). ``LabellerError`` when refused (a flag
        with no comment, a log that cannot be written)."""
        question = self.current()
        if question is None:
            return None
        append_review(self.project.layout.review_log,
                      new_entry(question, self.reviewer, decision, comment, answer=self.answer(question)))
        self.reload()
        return question

    def save_edit(self, original: Question, edited: Question) -> None:
        """Write an edited record to questions.jsonl (it then needs review again)."""
        apply_edit(self.project, original, edited, self.reviewer)


# -- blind annotation ---------------------------------------------------------------------------


class AnnotateSession(RecordCursor):
    """One annotator's locators for ``record_ids``, each change written to their file at once.

    The annotator sees queries only (``show_expected`` adds the expected answer), never the
    golden locators: nothing here reads them."""

    def __init__(self, project: Project, record_ids: list[str], annotator: str, show_expected: bool = False) -> None:
        super().__init__(record_ids)
        self.project = project
        self.annotator = annotator
        self.show_expected = show_expected
        self.queries: dict[str, Question] = {}
        self.annotations: Annotations = load_annotations(project.config, annotator)

    def load(self) -> None:
        self.queries = {q.id: q for q in self.project.load_questions().questions}

    def query(self) -> Question | None:
        rid = self.record_id
        return None if rid is None else self.queries.get(rid)

    @property
    def done(self) -> int:
        return sum(1 for r in self.record_ids if r in self.annotations.records)

    def locators(self) -> list[Locator] | None:
        """This record's locators; None when it is not annotated yet ([]: "no answer")."""
        return None if self.record_id is None else self.annotations.get(self.record_id)

    def save(self, locators: list[Locator] | None) -> None:
        """Store this record's locators (None: not annotated) and write the file at once."""
        record_id = self.record_id
        assert record_id is not None, "the actions that save act on the record on screen"
        if locators is None:
            self.annotations.records.pop(record_id, None)
        else:
            self.annotations.set(record_id, locators)
        self.annotations.save()

    def resolve(self, loc: Locator) -> Span | Refusal:
        """What ``loc`` resolves to, exactly as the build would resolve it."""
        try:
            return self.project.resolver.resolve(loc, self.record_id)
        except InvalidInput as exc:
            return locator_error(exc, loc, self.record_id)

    def where(self, res: Span | Refusal) -> str:
        """Where a locator landed, in a few words (block, document and line, or the refusal)."""
        if isinstance(res, Refusal):
            return f"refused: {res.kind}"
        return f"{res.block} {res.doc_id}:{self.project.corpus[res.doc_id].line_of(res.start) + 1}"

    def add(self, loc: Locator) -> str | None:
        """Add ``loc`` to this record and save; or why it was not added (it does not resolve,
        or it lands on a block another locator of the record already labels)."""
        if self.record_id is None:
            return "no record"
        res = self.resolve(loc)
        if isinstance(res, Refusal):
            return f"not added: {res.kind}"
        existing = self.locators() or []
        for i, other in enumerate(existing, start=1):
            o = self.resolve(other)
            if isinstance(o, Span) and (o.doc_id, o.start, o.end) == (res.doc_id, res.start, res.end):
                return f"not added: same block as locator {i}"
        self.save([*existing, loc])
        return None

    def remove(self, position: int | None) -> bool:
        """Remove the locator at ``position`` (0-based) and save; False when there is none."""
        locs = self.locators()
        if not locs or position is None:
            return False
        del locs[position]
        self.save(locs or None)
        return True

    def toggle_no_answer(self) -> str | None:
        """Mark "I found no answer", or unmark it; a record that has locators keeps them and
        the reason is returned instead."""
        if self.record_id is None:
            return None  # no record on screen: nothing to mark
        locs = self.locators()
        if locs:
            return "remove the locators first (d) to mark this record as having no answer"
        self.save(None if locs == [] else [])
        return None


# -- adjudication ---------------------------------------------------------------------------------


class AdjudicateSession(RecordCursor):
    """Golden labels (A) against ``annotator``'s (B), record by record; each decision writes
    questions.jsonl and an ``accept`` by ``adjudicator`` to the review log."""

    def __init__(self, project: Project, annotator: str, adjudicator: str, record_ids: list[str]) -> None:
        super().__init__(record_ids)
        self.project = project
        self.annotator = annotator
        self.adjudicator = adjudicator
        self.questions: dict[str, Question] = {}
        self.annotations: Annotations | None = None
        self.log = ReviewLog(project.layout.review_log)

    def reload(self) -> None:
        self.questions = {q.id: q for q in self.project.load_questions().questions}
        self.annotations = load_annotations(self.project.config, self.annotator)
        self.log = read_review_log(self.project.layout.review_log)

    def current(self) -> tuple[Question, list[Locator]] | None:
        """The record and B's locators for it; None when either is missing."""
        rid = self.record_id
        if rid is None:
            return None
        assert self.annotations is not None, "reload() runs first and reads the annotations"
        q, b = self.questions.get(rid), self.annotations.get(rid)
        return None if q is None or b is None else (q, b)

    def sides(self, question: Question, b: list[Locator]) -> tuple[RecordResult, RecordResult]:
        return resolve_pair(self.project, question, b)

    def agreement(self, a_res: RecordResult, b_res: RecordResult) -> RecordAgreement | None:
        """How far A and B agree; None while either side has a refusal."""
        if a_res.refusals or b_res.refusals:
            return None
        return compare_record(self.project, a_res, b_res)

    def last_adjudication(self, record_id: str) -> ReviewEntry | None:
        latest = self.log.latest(record_id)
        return latest if latest is not None and latest.comment.startswith("adjudicated") else None

    def decide(self, action: str) -> Question | None:
        """Keep A, keep B or merge (``adjudicate``'s actions) and read everything again; the
        record decided on (None: no record here). ``LabellerError`` when refused."""
        cur = self.current()
        if cur is None:
            return None
        q, b = cur
        adjudicate(self.project, q, b, action, self.adjudicator, self.annotator)
        self.reload()
        return q

    def rewrite_start(self, question: Question, b: list[Locator]) -> Question:
        """Where writing a new label starts: A merged with B, or A when the union is not a
        valid record (say, too many locators)."""
        try:
            return with_new_locators(question, merged_locators(self.project, question.id, list(question.locators), b))
        except LabellerError:
            return question

    def save_new(self, question: Question, b: list[Locator], edited: Question) -> None:
        """Write ``edited`` as the adjudicated record; ``LabellerError`` refuses it."""
        adjudicate(self.project, question, b, "new", self.adjudicator, self.annotator, new=edited)
