"""What a format reader hands to the import: candidate records whose labels are still
foreign (documents, sections, corpus ids or locators), and the records it keeps out.

Readers only parse; turning labels into locators and checking them against the corpus is
``labeller.interop.labels`` and ``labeller.interop.plan``, the same for every format.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from labeller.core.models import Locator
from labeller.core.vocab import NEEDS_REVIEW_TAG


@dataclass(frozen=True)
class Target:
    """One foreign label: a document, a section, a corpus id (chunk id or path), or a locator."""

    kind: str  # "document" | "section" | "corpus_id" | "locator"
    doc: str | None = None
    heading: str | None = None
    ident: str | None = None
    locator: Locator | None = None


@dataclass
class Candidate:
    """A record read from a foreign file, before it meets the corpus.

    ``negative`` marks a record the file declares has no answer in the corpus (an empty
    list, or judgments that are all non-relevant); ``skip`` is set when the file itself rules
    the record out (a skip reason, judgments without query text).
    """

    id: str
    query: str
    where: str
    targets: list[Target] = field(default_factory=list)
    negative: bool = False
    fields: dict = field(default_factory=dict)  # expected_answer, tags, split, hop (what the format holds)
    skip: tuple[str, str] | None = None  # (kind, message) when the file itself rules the record out


@dataclass
class KeptOut:
    record_id: str
    where: str
    kind: str
    message: str
    suggestions: list[dict] = field(default_factory=list)  # nearest passages etc., offered, never applied

    def as_json(self) -> dict:
        out: dict = {"id": self.record_id, "where": self.where, "kind": self.kind, "message": self.message}
        if self.suggestions:
            out["suggestions"] = self.suggestions
        return out


@dataclass
class Incoming:
    """Everything a format reader found: candidates plus notes for the summary."""

    candidates: list[Candidate]
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        """Every import's report says how many records need a look because a context was
        placed by a looser tier than a quote (SPEC §10.1)."""
        marked = sum(1 for c in self.candidates if NEEDS_REVIEW_TAG in c.fields.get("tags", ()))
        if marked:
            self.notes.append(f"{marked} record(s) have a context found only in the rendered text or by its words "
                              f"in order, not as written: tagged {NEEDS_REVIEW_TAG}, check their spans in the review "
                              "queue")
