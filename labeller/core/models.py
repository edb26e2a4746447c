"""Pydantic models of the authored questions file and the derived artifacts.

``questions.jsonl`` is the only hand-edited file, so its model refuses unknown keys and
inconsistent records outright: a silently ignored typo would be a label nobody checks.
"""

from __future__ import annotations

import unicodedata
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, field_validator, model_validator

from labeller.core.canon import canonical_quote
from labeller.core.vocab import SplitName


class Locator(BaseModel):
    """Where an answer lives: an exact ``quote`` (optionally pinned to a ``doc``), or a
    whole section named by ``doc`` + ``heading``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc: StrictStr | None = Field(None, description="Document path relative to the corpus root")
    quote: StrictStr | None = Field(None, description="Short exact quote from the canonical text")
    exact: StrictBool | None = Field(None, description="Label exactly the quote, without block expansion")
    heading: StrictStr | None = Field(None, description="Heading text naming a whole section (needs doc)")

    @model_validator(mode="after")
    def _one_kind(self) -> "Locator":
        if (self.quote is None) == (self.heading is None):
            raise ValueError("a locator has either a quote or a heading, not both and not neither")
        if self.quote is not None and not canonical_quote(self.quote):
            raise ValueError("the quote is empty")
        if self.heading is not None:
            if self.doc is None:
                raise ValueError("a section locator needs doc")
            if not self.heading.strip():
                raise ValueError("the heading is empty")
            if self.exact is not None:
                raise ValueError("exact applies to quotes only")
        return self

    def as_json(self) -> dict:
        return self.model_dump(exclude_none=True)

    def describe(self) -> str:
        where = f"{self.doc}: " if self.doc else ""
        return f"{where}# {self.heading}" if self.heading is not None else f"{where}{self.quote!r}"


class Question(BaseModel):
    """One authored record of questions.jsonl."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: StrictStr = Field(min_length=1, description="Stable id; never renumbered")
    query: StrictStr = Field(min_length=1)
    expected_answer: StrictStr
    locators: list[Locator]
    hop: Literal["single", "multi"] = "single"
    tags: list[StrictStr] = Field(default_factory=list)
    split: SplitName | None = None
    unanswerable: StrictBool | None = None

    @field_validator("id")
    @classmethod
    def _id_printable(cls, v: str) -> str:
        """An id is what a reviewer reads in a diff and a CI log: it must look like itself."""
        if not v.strip():
            raise ValueError("the id is blank")
        if v != v.strip():
            raise ValueError(f"the id {v!r} starts or ends with whitespace (it would look like another id)")
        bad = next((ch for ch in v if unicodedata.category(ch)[0] in "CZ" and ch != " "), None)
        if bad is not None:
            raise ValueError(f"the id holds the invisible or control character U+{ord(bad):04X}; "
                             "ids must be printable")
        return v

    @field_validator("query")
    @classmethod
    def _query_not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("the query is blank")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "Question":
        if self.unanswerable:
            if self.locators:
                raise ValueError("an unanswerable record must have no locators")
        elif not self.locators:
            raise ValueError("an answerable record needs at least one locator")
        if self.hop == "multi" and len(self.locators) < 2:
            raise ValueError("a multi-hop record needs at least two locators")
        return self

    def as_json(self) -> dict:
        """The record as it is written back to questions.jsonl (defaults left out)."""
        return record_json(self)


def record_json(rec) -> dict:
    """A record's questions.jsonl form, from anything with a record's fields (a ``Question``,
    or the app's draft of one that may not validate yet): key order fixed, defaults left out."""
    out: dict = {"id": rec.id, "query": rec.query, "expected_answer": rec.expected_answer,
                 "locators": [loc.as_json() for loc in rec.locators]}
    if rec.hop != "single":
        out["hop"] = rec.hop
    if rec.tags:
        out["tags"] = list(rec.tags)
    if rec.split is not None:
        out["split"] = rec.split
    if rec.unanswerable is not None:
        out["unanswerable"] = rec.unanswerable
    return out


def question_json_schema() -> dict:
    schema = Question.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "labeller questions.jsonl record"
    return schema
