"""Writing a decided label back into questions.jsonl: adjudication and edits made in review.

Both paths end the same way: the new record must validate, every locator must resolve
(a reviewer never saves a label the build would refuse), the record on disk must still
be the one the person was looking at, and the whole file must still load after the
change. Only then is it written (atomically, through ``QuestionsFile``), and only then
is the decision appended to the review log. A crash between the two leaves a record
whose latest review pins an older digest: it shows as needing review, which is safe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from labeller.core.answer_text import answer_digest
from labeller.core.build import RecordResult, resolve_record
from labeller.core.models import Locator, Question
from labeller.core.project import Project
from labeller.core.questions import load_questions, write_questions
from labeller.core.resolve import Span
from labeller.errors import InvalidInput
from labeller.review.log import append_review, new_entry, record_digest

if TYPE_CHECKING:
    from labeller.config import ProjectConfig

ACTIONS = ("keep_a", "keep_b", "merge", "new")


def merged_locators(project: Project, record_id: str, a: list[Locator], b: list[Locator]) -> list[Locator]:
    """A's locators, then each of B's that adds something: a different locator that does
    not resolve to a span already kept (two quotes of one paragraph are one label, and
    keeping both would be a ``duplicate_span`` refusal at build time)."""
    kept: list[Locator] = []
    spans: set[tuple] = set()
    for loc in [*a, *b]:
        res = project.resolver.resolve(loc, record_id)
        key = (res.doc_id, res.start, res.end) if isinstance(res, Span) else None
        if loc in kept or (key is not None and key in spans):
            continue
        kept.append(loc)
        if key is not None:
            spans.add(key)
    return kept


def adjudicated_locators(project: Project, question: Question, b: list[Locator], action: str) -> list[Locator]:
    """The locators that keep_a, keep_b or merge leave on the record."""
    if action == "keep_a":
        return list(question.locators)
    if action == "keep_b":
        return list(b)
    if action == "merge":
        return merged_locators(project, question.id, list(question.locators), list(b))
    raise InvalidInput(f"adjudication {action!r} is not one of {', '.join(ACTIONS)}", record_id=question.id)


def with_new_locators(question: Question, locators: list[Locator]) -> Question:
    """The record with these locators; no locators makes it an unanswerable negative."""
    data = question.as_json()
    data["locators"] = [loc.as_json() for loc in locators]
    if not locators:
        data["unanswerable"] = True
    elif data.get("unanswerable"):
        del data["unanswerable"]
    return validated(data, question.id)


def validated(data: dict, record_id: str) -> Question:
    try:
        return Question.model_validate(data)
    except ValidationError as exc:
        msgs = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'record'}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(msgs, record_id=record_id) from None


def check_resolves(project: Project, question: Question) -> RecordResult:
    """Refuse a record the build would refuse, listing every refusal; else its resolution."""
    rec = resolve_record(project, question)
    refusals = rec.refusals
    if refusals:
        raise InvalidInput(f"{len(refusals)} locator(s) do not resolve: "
                           + "; ".join(f"{r.kind}: {r.locator.describe()}" for r in refusals),
                           record_id=question.id).with_details([r.as_json() for r in refusals])
    return rec


def save_record(config: ProjectConfig, question: Question, seen: Question) -> None:
    """Replace record ``seen`` (as the person saw it) by ``question`` in questions.jsonl.

    The file is re-read first, so edits made meanwhile to other records survive, and the
    save is refused if this record itself changed since it was shown. The rendered file
    is parsed again before writing, so a duplicate query or a broken bound never lands.
    """
    if question.id != seen.id:
        raise InvalidInput(f"record ids are stable; {seen.id!r} cannot become {question.id!r}", record_id=seen.id)
    qf = load_questions(config.questions, config.limits)
    current = next((q for q in qf.questions if q.id == seen.id), None)
    if current is None:
        raise InvalidInput("the record is no longer in the questions file", path=str(config.questions),
                           record_id=seen.id)
    if record_digest(current) != record_digest(seen):
        raise InvalidInput("the record changed on disk since it was opened; reload it before saving",
                           path=str(config.questions), record_id=seen.id)
    try:
        write_questions(qf, changed=[question], limits=config.limits)
    except InvalidInput as exc:
        raise InvalidInput(exc.reason, path=str(config.questions), record_id=seen.id) from None


def apply_edit(project: Project, seen: Question, edited: Question, reviewer: str, comment: str = "") -> bool:
    """An edit made during review: save it and log ``edit`` against the version reviewed.

    The entry pins the old digest, so the edited record reads as ``needs_rereview`` until
    someone accepts the new version. Returns False (and logs nothing) when nothing changed.
    """
    if record_digest(edited) == record_digest(seen):
        return False
    check_resolves(project, edited)
    save_record(project.config, edited, seen)
    append_review(project.config.layout.review_log, new_entry(seen, reviewer, "edit", comment))
    return True


def adjudicate(project: Project, question: Question, b: list[Locator], action: str, adjudicator: str,
               annotator: str, new: Question | None = None) -> Question:
    """Decide between the golden labels (A) and ``annotator``'s (B) and write the result.

    ``new`` is the record the adjudicator wrote by hand (action ``new``). The adjudicator
    has read both sides, so the outcome is logged as an ``accept`` of the record as
    written, with the action in the comment.
    """
    if action == "new":
        if new is None:
            raise InvalidInput("adjudication 'new' needs the new record", record_id=question.id)
        result = new
    else:
        result = with_new_locators(question, adjudicated_locators(project, question, b, action))
    answer = answer_digest(check_resolves(project, result), project.corpus)
    if record_digest(result) != record_digest(question):
        save_record(project.config, result, question)
    append_review(project.config.layout.review_log, new_entry(result, adjudicator, "accept",
                                                              f"adjudicated against {annotator}: {action}",
                                                              answer=answer))
    return result
