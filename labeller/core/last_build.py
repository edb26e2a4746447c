"""What the last build saw, for ``repair``: each label's span and its document's text then.

A nearest passage is offered because it resembles the quote, and an edited quote's new words
are new text. A passage that already stood in its document at the last build, away from the
label's own span, is therefore other text the author did not quote: the survival benchmark
(``benchmarks/survival.py``) found exactly that wrong repair, a deleted sentence re-pointed at
95.7 to a similar sentence the page had always held. ``repair`` leaves such a passage for a
person. A passage that overlaps the label's old span (an edge word of the quote deleted, say)
is the quote's own text, and stays repairable.

The last build is the committed artifact (spans, in locator order) and manifest (each
document's sha256); a document's text then is the corpus's own when its sha256 is unchanged,
else what ``OldTexts`` finds in git (``commands/committed_corpus.py``), used only when it
hashes to the pinned sha256. Where the text cannot be had (no git, a shallow clone, a record
added since), nothing is known and nothing is refused on this ground.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from labeller.core.corpus import Corpus
from labeller.core.drift_classes import OldTexts


class LastBuild:
    """The committed build's spans and document texts, read on demand (each document once)."""

    def __init__(self, records: Mapping[str, dict], docs: Mapping[str, dict], corpus: Corpus,
                 old_texts: OldTexts | None) -> None:
        self.records, self.docs, self.corpus, self.old_texts = records, docs, corpus, old_texts
        self._texts: dict[str, str | None] = {}

    def text(self, doc_id: str) -> str | None:
        """``doc_id``'s canonical text at the last build, or None where it cannot be had."""
        if doc_id not in self._texts:
            self._texts[doc_id] = self._read(doc_id)
        return self._texts[doc_id]

    def read_ahead(self, doc_ids: Iterable[str]) -> None:
        """Read the texts then of ``doc_ids`` at once: one question to git for all the changed
        ones (each question costs a few processes: asked per document, seconds on a real history)."""
        changed: dict[str, str] = {}
        for doc_id in dict.fromkeys(doc_ids):
            if doc_id in self._texts:
                continue
            sha = self._sha(doc_id)
            if sha is not None and self.old_texts is not None and not self._unchanged(doc_id, sha):
                changed[doc_id] = sha
            else:
                self._texts[doc_id] = self._read(doc_id)
        found = self.old_texts(changed) if changed and self.old_texts is not None else {}
        for doc_id in changed:
            self._texts[doc_id] = found.get(doc_id)

    def span_doc(self, record_id: str, index: int) -> str | None:
        """The document of locator ``index`` of ``record_id``'s span at the last build."""
        span = self._span(record_id, index)
        doc_id = span.get("doc_id") if span is not None else None
        return doc_id if isinstance(doc_id, str) else None

    def _sha(self, doc_id: str) -> str | None:
        """``doc_id``'s sha256 at the last build (the committed manifest's), if it has one."""
        info = self.docs.get(doc_id)
        sha = info.get("sha256") if isinstance(info, dict) else None
        return sha if isinstance(sha, str) else None

    def _unchanged(self, doc_id: str, sha: str) -> bool:
        return doc_id in self.corpus.docs and self.corpus[doc_id].sha256 == sha

    def _read(self, doc_id: str) -> str | None:
        sha = self._sha(doc_id)
        if sha is None:
            return None
        if self._unchanged(doc_id, sha):
            return self.corpus[doc_id].text
        if self.old_texts is None:
            return None
        return self.old_texts({doc_id: sha}).get(doc_id)

    def _span(self, record_id: str, index: int) -> dict | None:
        """Locator ``index`` of ``record_id``'s span at the last build (None when not known)."""
        record = self.records.get(record_id)
        spans = record.get("answer_spans") if isinstance(record, dict) else None
        if not isinstance(spans, list) or not 0 <= index < len(spans) or not isinstance(spans[index], dict):
            return None
        return spans[index]

    def span_text(self, record_id: str, index: int) -> str | None:
        """The text of locator ``index`` of ``record_id``'s span at the last build (a section
        locator's: its section then), or None when that is not known."""
        then = self.span_then(record_id, index)
        return then[1][then[2]:then[3]] if then is not None else None

    def span_then(self, record_id: str, index: int) -> tuple[str, str, int, int] | None:
        """Locator ``index`` of ``record_id``'s span at the last build: its document, that
        document's text then and the span's range in it; None when that is not known."""
        span = self._span(record_id, index)
        if span is None:
            return None
        doc_id, start, end = span.get("doc_id"), span.get("char_start"), span.get("char_end")
        if not isinstance(doc_id, str) or type(start) is not int or type(end) is not int or not 0 <= start <= end:
            return None
        text = self.text(doc_id)
        return (doc_id, text, start, end) if text is not None and end <= len(text) else None

    def quote_then(self, record_id: str, index: int, quote: str) -> tuple[str, int, int] | None:
        """Where ``quote`` stood at the last build: its document and its range in the text then,
        when it occurred exactly once in locator ``index``'s span (a span is the quote's block or
        blocks); None when that is not known."""
        span = self._span(record_id, index)
        if span is None:
            return None
        doc_id, start, end = span.get("doc_id"), span.get("char_start"), span.get("char_end")
        if not isinstance(doc_id, str) or not isinstance(start, int) or not isinstance(end, int) \
                or not quote.split():
            return None
        text = self.text(doc_id)
        if text is None:
            return None
        found = list(_pattern(quote).finditer(text, max(0, start), max(0, end)))
        return (doc_id, found[0].start(), found[0].end()) if len(found) == 1 else None

    def stood_elsewhere(self, record_id: str, index: int, doc_id: str, quote: str) -> bool:
        """Whether ``quote`` occurred at the last build somewhere other than the span of locator
        ``index`` of ``record_id`` (``times_elsewhere``; False when the last build is not known)."""
        return self.times_elsewhere(record_id, index, doc_id, quote) > 0

    def times_elsewhere(self, record_id: str, index: int, doc_id: str, quote: str) -> int:
        """How many times ``quote`` occurred at the last build away from the span of locator
        ``index`` of ``record_id``: in ``doc_id`` and in the span's own document, when that is
        another (a renamed page's passage is looked for in the page as it was, under its old
        name: Poetry's "folder, you can pass the `--name`", a sentence the page always held,
        was offered for its edited "folder, you can use the `--src`" once ``cli.md`` had left
        ``docs/``); 0 when the last build is not known."""
        span = self._span(record_id, index)
        if span is None or not quote.split():
            return 0
        own = (span.get("doc_id"), span.get("char_start"), span.get("char_end"))
        n = 0
        for doc in dict.fromkeys((doc_id, own[0])):
            text = self.text(doc) if isinstance(doc, str) else None
            if text is None:
                continue
            for m in _pattern(quote).finditer(text):
                inside = (own[0] == doc and isinstance(own[1], int) and isinstance(own[2], int)
                          and m.start() < own[2] and own[1] < m.end())
                n += not inside
        return n


def _pattern(quote: str) -> re.Pattern:
    """The quote's words with any whitespace run between them (SPEC §2's folding)."""
    return re.compile(r"\s+".join(map(re.escape, quote.split())))
