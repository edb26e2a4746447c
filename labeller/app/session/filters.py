"""Filtering the question list: a plain value the filter bar builds and the session applies."""

from __future__ import annotations

from dataclasses import dataclass

from labeller.app.session.drafts import Draft
from labeller.core.models import no_answer as record_no_answer

NO_ANSWER = "no answer"  # how the list marks (and the filter bar offers) records without an expected answer


def no_answer(draft: Draft) -> bool:
    """The build summary's ``no_answer`` (``Question.no_answer``: answerable, with an empty
    ``expected_answer``) for a draft, valid or not yet: the rule is the core's, never restated here."""
    return record_no_answer(draft)


@dataclass(frozen=True)
class QuestionFilter:
    text: str = ""
    tag: str | None = None
    split: str | None = None
    status: str | None = None
    no_answer: bool = False  # only the records an import left without an expected answer

    def matches(self, draft: Draft, status: str) -> bool:
        if self.tag is not None and self.tag not in draft.tags:
            return False
        if self.split is not None and draft.split != self.split:
            return False
        if self.status is not None and status != self.status:
            return False
        if self.no_answer and not no_answer(draft):
            return False
        needle = self.text.strip().casefold()
        if needle:
            hay = " ".join([draft.id, draft.query, draft.expected_answer, *draft.tags]).casefold()
            return all(word in hay for word in needle.split())
        return True
