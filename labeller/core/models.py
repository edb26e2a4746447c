"""Pydantic models of the authored questions file and the derived artifacts.

``questions.jsonl`` is the only hand-edited file, so its model refuses unknown keys and
inconsistent records outright: a silently ignored typo would be a label nobody checks.
"""

from __future__ import annotations

import unicodedata
from typing import Literal

from pydantic import (BaseModel, ConfigDict, Field, JsonValue, StrictBool, StrictInt, StrictStr, field_validator,
                      model_validator)

from labeller.core.canon import canonical_quote
from labeller.core.vocab import SplitName


class Locator(BaseModel):
    """Where an answer lives (SPEC §2): an exact ``quote`` (optionally pinned to a ``doc``,
    optionally with the ``prefix`` / ``suffix`` that must stand right before / after it), a
    whole section named by ``doc`` + ``heading``, or a whole document named by ``doc`` alone."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc: StrictStr | None = Field(None, description="Document path relative to the corpus root; alone, the "
                                  "whole document (front matter and surrounding blank lines excluded)")
    quote: StrictStr | None = Field(None, description="Short exact quote from the canonical text")
    exact: StrictBool | None = Field(None, description="Label exactly the quote, without block expansion")
    heading: StrictStr | None = Field(None, description="Heading text naming a whole section (needs doc)")
    prefix: StrictStr | None = Field(None, description="Text that must stand immediately before the quote (not "
                                     "part of the span; a trailing space means whitespace between them)")
    suffix: StrictStr | None = Field(None, description="Text that must stand immediately after the quote (not "
                                     "part of the span; a leading space means whitespace between them)")

    @model_validator(mode="after")
    def _one_kind(self) -> "Locator":
        if self.quote is not None and self.heading is not None:
            raise ValueError("a locator has either a quote or a heading, not both")
        if self.quote is None and self.heading is None and self.doc is None:
            raise ValueError("a locator needs a quote, a doc and heading, or a doc (the whole document)")
        if self.quote is not None and not canonical_quote(self.quote):
            raise ValueError("the quote is empty")
        if self.heading is not None:
            if self.doc is None:
                raise ValueError("a section locator needs doc")
            if not self.heading.strip():
                raise ValueError("the heading is empty")
        if self.quote is None:
            for name in ("exact", "prefix", "suffix"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} applies to quotes only")
        for name in ("prefix", "suffix"):
            value = getattr(self, name)
            if value is not None and not value.strip():
                # whitespace alone is both its inner and its outer edge: it would say nothing
                raise ValueError(f"the {name} is empty or only whitespace; leave it out")
        return self

    @property
    def kind(self) -> Literal["quote", "section", "document"]:
        return "quote" if self.quote is not None else "section" if self.heading is not None else "document"

    def as_json(self) -> dict:
        return self.model_dump(exclude_none=True)

    def describe(self) -> str:
        where = f"{self.doc}: " if self.doc else ""
        if self.kind == "document":
            return f"{self.doc} (whole document)"
        if self.kind == "section":
            return f"{where}# {self.heading}"
        before = f"{_shown(self.prefix)} + " if self.prefix is not None else ""
        after = f" + {_shown(self.suffix)}" if self.suffix is not None else ""
        return f"{where}{before}{_shown(self.quote)}{after}"


SHOWN_CHARS = 200  # of a quote, prefix or suffix echoed in a message: a 600 KB quote is not repeated whole


def _shown(text: str | None) -> str:
    """``repr`` of a locator's text, its middle elided past ``SHOWN_CHARS`` characters."""
    if text is None or len(text) <= SHOWN_CHARS:
        return repr(text)
    half = SHOWN_CHARS // 2
    return f"{text[:half]!r} … ({len(text) - 2 * half:,} characters) … {text[-half:]!r}"


class TrafficProvenance(BaseModel):
    """Where a record sampled from traffic came from (SPEC §14): what an estimate needs to undo
    the sample's design, and a salted hash that finds the log line again. Never the raw text."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stratum: StrictStr = Field(min_length=1, max_length=200, description="The sampling stratum, e.g. tail|tenant=acme")
    pi: float = Field(gt=0.0, le=1.0, description="Inclusion probability of the folded query in its stratum")
    frequency: StrictInt = Field(ge=1, description="Log lines the folded query stands for")
    log_hash: StrictStr = Field(pattern=r"^[0-9a-f]{16,64}$", description="Salted hash of a log line it came from")
    tenant: StrictStr | None = Field(None, max_length=200, description="The tenant the lines came from")

    @field_validator("pi", mode="before")
    @classmethod
    def _number(cls, v: object) -> object:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError("pi must be a number")
        return v


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
    metadata: dict[str, JsonValue] = Field(default_factory=dict, description="What the tool a record was imported "
                                           "from said about it beyond labeller's fields (a ragas test set's "
                                           "evolution_type, ...): carried along and exported back, never read")
    traffic: TrafficProvenance | None = Field(None, description="Present on a record sampled from a query log "
                                              "(its source is traffic): stratum, inclusion probability, frequency")

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

    @property
    def no_answer(self) -> bool:
        """An answerable record whose ``expected_answer`` is empty (SPEC §6: allowed, since
        imports rarely carry one, but counted, and not done until someone writes it). A
        negative has no answer by definition and is never counted."""
        return no_answer(self)

    def as_json(self) -> dict:
        """The record as it is written back to questions.jsonl (defaults left out)."""
        return record_json(self)


def no_answer(rec) -> bool:
    """``Question.no_answer`` from anything with a record's fields (the app's draft too, which
    asks it for every row of the question list: building a model per row to ask cost more
    than the rest of the list)."""
    return not rec.unanswerable and not rec.expected_answer.strip()


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
    if rec.metadata:
        out["metadata"] = dict(rec.metadata)
    traffic = getattr(rec, "traffic", None)
    if traffic is not None:
        out["traffic"] = traffic.model_dump(exclude_none=True) if isinstance(traffic, BaseModel) else dict(traffic)
    return out


def question_json_schema() -> dict:
    schema = Question.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "labeller questions.jsonl record"
    return schema
