"""The tool's closed vocabularies and the one type for a place in the corpus.

Splits, block kinds and refusal kinds are written into artifacts, JSON reports and the
app; spelling them once here means a typo is an ``AttributeError`` at import, not a silently
empty filter. They are ``StrEnum``s so that they compare equal to, and serialise as, the
plain strings the file formats have always used.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, NamedTuple

# The tag an import gives a record one of whose contexts was placed by the rendered or the
# aligned tier (SPEC §10.1): its span is right by a rule looser than a quote's, so a person
# should look (the review summary counts these records until they are reviewed). Here, not
# beside the locator, so that reading it costs a quick ``build --check`` no numpy.
NEEDS_REVIEW_TAG = "needs-review"


class Split(StrEnum):
    """Which evaluation split a record belongs to (SPEC §6)."""

    DEV = "dev"
    TEST = "test"
    HOLDOUT = "holdout"


SPLITS: tuple[str, ...] = tuple(s.value for s in Split)

# The same three as a type, for pydantic fields (whose JSON schema and values stay plain
# strings) and type checkers; tests/test_vocab.py holds it equal to ``SPLITS``.
SplitName = Literal["dev", "test", "holdout"]


class BlockKind(StrEnum):
    """What structural unit a span was expanded to (SPEC §3, §2, §2.1)."""

    TABLE_ROW = "table_row"
    LIST_ITEM = "list_item"
    PARAGRAPH = "paragraph"
    HEADING = "heading"
    CODE = "code"
    HTML = "html"
    SECTION = "section"
    DOCUMENT = "document"
    EXACT = "exact"


class RefusalKind(StrEnum):
    """Why a locator cannot be a label, as ``errors[].kind`` prints it (SPEC §2)."""

    NOT_FOUND = "not_found"
    AMBIGUOUS = "ambiguous"
    UNKNOWN_DOC = "unknown_doc"
    FRONT_MATTER = "front_matter"
    HEADING_ONLY = "heading_only"
    DUPLICATE_SPAN = "duplicate_span"
    NO_HIT = "no_hit"  # no chunk satisfies the build's hit rule (coverage>=T, span_containment)
    INVALID = "invalid"


class Place(NamedTuple):
    """A half-open range ``[start, end)`` of code points in one document's canonical text.

    Spans, chunk ranges, occurrences and suggestions all name a place this way, instead of
    ad-hoc ``(doc, start, end)`` tuples and dicts whose field order had to be remembered.
    """

    doc: str
    start: int
    end: int

    def overlaps(self, other: "Place") -> bool:
        return self.doc == other.doc and self.start < other.end and other.start < self.end
