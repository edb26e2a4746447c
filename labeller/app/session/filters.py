"""Filtering the question list: a plain value the filter bar builds and the session applies."""

from __future__ import annotations

from dataclasses import dataclass

from labeller.app.session.drafts import Draft


@dataclass(frozen=True)
class QuestionFilter:
    text: str = ""
    tag: str | None = None
    split: str | None = None
    status: str | None = None

    def matches(self, draft: Draft, status: str) -> bool:
        if self.tag is not None and self.tag not in draft.tags:
            return False
        if self.split is not None and draft.split != self.split:
            return False
        if self.status is not None and status != self.status:
            return False
        needle = self.text.strip().casefold()
        if needle:
            hay = " ".join([draft.id, draft.query, draft.expected_answer, *draft.tags]).casefold()
            return all(word in hay for word in needle.split())
        return True
