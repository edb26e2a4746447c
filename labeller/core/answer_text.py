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

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
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


def answer_digest(record: Resolved, corpus: Corpus, memo: dict[tuple[str, int, int], str] | None = None
                  ) -> str | None:
    """sha256 over the sha256 of each span's folded text, in locator order; ``None`` when the
    record has no answer to compare (a refused locator, no span: an unanswerable record), so a
    partial answer is never taken for a changed one. ``memo`` keeps each span's digest by place,
    so that records sharing a span fold it once."""
    if record.refusals or not record.spans:
        return None
    parts = []
    for span in record.spans:
        place = (span.doc_id, span.start, span.end)
        digest = memo.get(place) if memo is not None else None
        if digest is None:
            doc = corpus.docs.get(span.doc_id)
            if doc is None:  # resolved against a corpus since read again
                return None
            digest = sha256_hex(folded(doc.text[span.start:span.end]))
            if memo is not None:
                memo[place] = digest
        parts.append(digest)
    return sha256_hex(" ".join(parts))


class LazyDigests(Mapping[str, str]):
    """Answer digests by record id, each computed by ``digest_of`` when first asked for (``None``:
    the record has none, and is not in the mapping). The review log asks only for the records
    whose latest review pinned a text, so a golden set nobody reviewed this way costs nothing:
    the app's question list asks on every refresh."""

    def __init__(self, ids: Iterable[str], digest_of: Callable[[str], str | None]) -> None:
        self._ids = dict.fromkeys(ids)  # ordered, and a constant-time membership test
        self._digest_of = digest_of
        self._digests: dict[str, str | None] = {}

    def _digest(self, record_id: str) -> str | None:
        if record_id not in self._digests:
            self._digests[record_id] = self._digest_of(record_id)
        return self._digests[record_id]

    def __getitem__(self, record_id: str) -> str:
        digest = self._digest(record_id) if record_id in self._ids else None
        if digest is None:
            raise KeyError(record_id)
        return digest

    def __iter__(self) -> Iterator[str]:
        return (rid for rid in self._ids if self._digest(rid) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def answer_digests(records: Iterable[Resolved], corpus: Corpus) -> LazyDigests:
    """``answer_digest`` of these records by id, computed lazily and each distinct span folded
    once: both the questions file and the review log may come with a fork's pull request, and ten
    thousand records labelling one 18 MB table must fold it once, not ten thousand times."""
    by_id = {rec.question.id: rec for rec in records}
    spans: dict[tuple[str, int, int], str] = {}
    return LazyDigests(by_id, lambda rid: answer_digest(by_id[rid], corpus, spans))
