"""A label's answer text: the words under its spans, as a reviewer read them.

Two readers ask the same question of it, "did the words under this label change?":
``build --check`` compares the committed build's span texts with today's (``drift_classes``),
and the review log pins the text a reviewer accepted (``review.log``), so that a label whose
paragraph was rewritten under an intact quote stops counting as reviewed. Both fold
whitespace runs as a quote matches them (SPEC §2): a re-wrapped paragraph holds the same
answer, and offsets or chunk ids that moved change nothing a person reads.

The review log keeps a digest, not the text: a log line stays small, and a text the reviewer
saw is not copied into a file that every pull request touches.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from labeller.core.anchors import fold_text
from labeller.core.canon import sha256_hex
from labeller.core.corpus import Corpus
from labeller.core.models import Question


class _Placed(Protocol):
    """A resolved span (``resolve.Span``), as far as its text goes."""

    @property
    def doc_id(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


class Resolved(Protocol):
    """A resolved record (``build.RecordResult``): a protocol, so that ``drift_classes``, which
    the build's suggestions import, can share ``folded`` without an import circle."""

    @property
    def question(self) -> Question: ...
    @property
    def spans(self) -> Sequence[_Placed]: ...
    @property
    def refusals(self) -> Sequence[object]: ...


def folded(text: str) -> str:
    """A span's text as it is compared: whitespace runs folded to one space, ends stripped."""
    return fold_text(text).strip()


def answer_digest(record: Resolved, corpus: Corpus) -> str | None:
    """sha256 of the record's folded span texts in locator order, each ended by a NUL; ``None``
    when the record has no answer to compare (a refused locator, no span: an unanswerable
    record), so a partial answer is never taken for a changed one."""
    if record.refusals or not record.spans:
        return None
    texts = []
    for span in record.spans:
        doc = corpus.docs.get(span.doc_id)
        if doc is None:  # resolved against a corpus since read again
            return None
        texts.append(folded(doc.text[span.start:span.end]) + "\0")
    return sha256_hex("".join(texts))


def answer_digests(records: Iterable[Resolved], corpus: Corpus) -> dict[str, str]:
    """``answer_digest`` by record id, for the records that have one."""
    out = {}
    for rec in records:
        digest = answer_digest(rec, corpus)
        if digest is not None:
            out[rec.question.id] = digest
    return out

