"""Locator → span: find the quote, refuse what is not exactly one match, expand it.

This is the single implementation behind ``labeller build`` and the app's live
preview. Refusals carry what the author needs to fix them (nearest passages for a
quote that is not found, every occurrence and its shortest unique extension for an
ambiguous one) but never apply a fix on their own.
"""

from __future__ import annotations

import bisect
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

from labeller.core.anchors import FoldedDocument, Occurrence, QuoteIndex, fold_quote
from labeller.core.cache import SCALAR, as_list, as_str, conforms, ints
from labeller.core.chunkers import Chunk
from labeller.core.corpus import Corpus, check_relative_doc_id
from labeller.core.expansion import DocBlocks, ExpansionRefused, expand, parse_blocks, section_span
from labeller.core.models import Locator
from labeller.core.suggest import nearest_passages, unique_extension
from labeller.core.windows import WINDOWS_VERSION, DocWindows
from labeller.errors import InvalidInput

MAX_LISTED_OCCURRENCES = 20


@dataclass(frozen=True)
class Span:
    """A resolved locator: the matched quote and the expanded span, both canonical offsets."""

    doc_id: str
    start: int
    end: int
    block: str
    quote_start: int
    quote_end: int

    def as_json(self) -> dict:
        return {"block": self.block, "char_end": self.end, "char_start": self.start, "doc_id": self.doc_id}

    def to_data(self) -> list:
        return [self.doc_id, self.start, self.end, self.block, self.quote_start, self.quote_end]

    @classmethod
    def from_data(cls, data) -> "Span":
        """What ``to_data`` wrote (from the build cache), every field's type checked."""
        doc_id, start, end, block, quote_start, quote_end = as_list(data, 6)
        return cls(as_str(doc_id), *ints([start, end]), as_str(block), *ints([quote_start, quote_end]))


@dataclass
class Refusal:
    """Why a locator cannot be a label. ``kind`` is one of SPEC §2's refusal kinds."""

    kind: str
    message: str
    locator: Locator
    record_id: str | None = None
    occurrences: list[dict] = field(default_factory=list)
    suggestions: list[dict] = field(default_factory=list)

    def as_json(self) -> dict:
        out = {"id": self.record_id, "locator": self.locator.as_json(), "kind": self.kind, "message": self.message}
        if self.kind == "ambiguous":
            out["occurrences"] = self.occurrences
        if self.kind in ("not_found", "heading_only"):
            out["suggestions"] = self.suggestions
        return out

    def to_data(self) -> dict:
        return {"kind": self.kind, "message": self.message, "locator": self.locator.model_dump(mode="json"),
                "record_id": self.record_id, "occurrences": self.occurrences, "suggestions": self.suggestions}

    @classmethod
    def from_data(cls, data) -> "Refusal":
        """What ``to_data`` wrote (from the build cache), every field's type checked."""
        conforms(data, {"kind": str, "message": str, "locator": dict, "record_id": (str, None),
                        "occurrences": [{str: SCALAR}], "suggestions": [{str: SCALAR}]})
        return cls(data["kind"], data["message"], Locator.model_validate(data["locator"]), data["record_id"],
                   data["occurrences"], data["suggestions"])


class Resolver:
    """Resolves locators against one corpus snapshot; holds its folded text and block caches."""

    def __init__(self, corpus: Corpus, chunks: dict[str, list[Chunk]], block_cache: dict | None = None,
                 search_cache=None) -> None:
        self.corpus = corpus
        self.chunks = chunks
        self.index = QuoteIndex(corpus)
        self._blocks: dict = block_cache if block_cache is not None else {}
        self._search_cache = search_cache  # a DigestCache: per-document matches of a build's quotes
        self._unsaved: dict | None = None  # windows parsed inside ``deferred_window_writes``
        self._chunk_ends: dict[str, list[int]] = {}

    def blocks(self, doc_id: str) -> DocBlocks:
        """The blocks of the whole document (what a section locator needs)."""
        doc = self.corpus[doc_id]
        key = (doc_id, doc.sha256)
        found = self._blocks.get(key)
        if found is None:
            found = self._blocks[key] = parse_blocks(doc)
        return found

    def blocks_at(self, doc_id: str, first: int, last: int) -> DocBlocks:
        """Blocks exact for lines ``first..last``: only the window between restart lines
        around them is parsed (``labeller.core.windows``), so a quote in a large document
        costs a few lines of parsing, not the document."""
        doc = self.corpus[doc_id]
        key = (WINDOWS_VERSION, doc_id, doc.sha256)
        unsaved = self._unsaved
        windows = unsaved.get(key) if unsaved is not None else None
        if windows is None:
            windows = self._blocks.get(key)
        if windows is None:
            windows = DocWindows.of(doc)
        known = len(windows.parsed)
        found = windows.blocks_at(doc, first, last)
        if len(windows.parsed) != known:
            if unsaved is not None:
                unsaved[key] = windows
            else:
                self._blocks[key] = windows.snapshot()  # stored again with the new window
        return found

    @contextmanager
    def deferred_window_writes(self):
        """Store each document's new windows once, when the block ends: a build parses
        several per document, and rewriting the entry for each was most of a small cold
        build. (A cache write lost to a racing thread is only recomputed later.)"""
        self._unsaved = {}
        try:
            yield
        finally:
            unsaved, self._unsaved = self._unsaved, None
            for key, windows in unsaved.items():
                self._blocks[key] = windows.snapshot()

    # -- one locator -------------------------------------------------------------------

    def resolve(self, loc: Locator, record_id: str | None = None,
                occurrences: list[Occurrence] | None = None) -> Span | Refusal:
        """Resolve one locator. ``occurrences`` may be passed in from a batch search."""
        if loc.doc is not None and loc.doc not in self.corpus:  # a corpus path is safe by construction
            check_relative_doc_id(loc.doc, record_id=record_id)
            return Refusal("unknown_doc", f"document {loc.doc!r} is not in the corpus", loc, record_id)
        if loc.heading is not None:
            return self._resolve_section(loc, record_id)
        folded = fold_quote(loc.quote)
        if occurrences is None:
            occurrences = self.index.find_all([folded], loc.doc)[folded]
        elif loc.doc is not None:
            occurrences = [o for o in occurrences if o.doc_id == loc.doc]
        if not occurrences:
            return Refusal("not_found", "quote not found" + (f" in {loc.doc}" if loc.doc else " in the corpus"),
                           loc, record_id, suggestions=nearest_passages(self, folded, loc.doc))
        if len(occurrences) > 1:
            return self._ambiguous(loc, record_id, folded, occurrences)
        occ = occurrences[0]
        doc = self.corpus[occ.doc_id]
        blocks = self.blocks_at(occ.doc_id, doc.line_of(occ.start), doc.line_of(occ.end - 1))
        if loc.exact:
            if doc.line_of(occ.start) < blocks.front_matter_lines:
                return Refusal("front_matter", "the quote lies in YAML front matter, which is metadata, "
                               "not answer text", loc, record_id)
            span = Span(occ.doc_id, occ.start, occ.end, "exact", occ.start, occ.end)
        else:
            try:
                start, end, kind = expand(doc, blocks, occ.start, occ.end)
            except ExpansionRefused as exc:
                return Refusal(exc.kind, exc.message, loc, record_id)
            span = Span(occ.doc_id, start, end, kind, occ.start, occ.end)
        return self._check_chunked(span, loc, record_id)

    def _resolve_section(self, loc: Locator, record_id: str | None) -> Span | Refusal:
        try:
            start, end = section_span(self.corpus[loc.doc], partial(self.blocks_at, loc.doc), loc.heading)
        except ExpansionRefused as exc:
            return Refusal(exc.kind, exc.message, loc, record_id)
        return self._check_chunked(Span(loc.doc, start, end, "section", start, end), loc, record_id)

    def _check_chunked(self, span: Span, loc: Locator, record_id: str | None) -> Span | Refusal:
        """A span that no chunk touches is either a heading line (the author's to fix) or a bug."""
        if self.chunks_overlapping(span.doc_id, span.start, span.end):
            return span
        from labeller.core.chunkers.md_struct_v1 import _is_blank, heading_line_spans, split_lines

        doc = self.corpus[span.doc_id]
        heading_lines = set(heading_line_spans(doc.text))
        # Lines the chunker reads as blank lie in no chunk either: a rule under a heading
        # ("# A\n---\n"), an exact quote on a rule, or "-\u00a0-\u00a0-", which CommonMark calls a
        # paragraph. A span of only such lines and headings is the author's to fix, not a bug.
        lines = [ln for ln in split_lines(doc.text) if ln.start < span.end and span.start < ln.end]
        if all((ln.start, ln.end) in heading_lines or _is_blank(ln.content) for ln in lines):
            blocks = self.blocks_at(span.doc_id, doc.line_of(span.start), doc.line_of(span.end - 1))
            title = next((h.text for h in blocks.headings if doc.line_starts[h.first] <= span.start
                          < doc.line_end(h.last)), None)
            suggestion = [{"doc": span.doc_id, "heading": title}] if title else []
            return Refusal("heading_only", "the span is only heading lines (and lines the chunker reads as "
                           "blank or rules), which lie in no chunk; "
                           "label the section instead (a {doc, heading} locator)", loc, record_id,
                           suggestions=suggestion)
        from labeller.errors import ChunkerBug

        raise ChunkerBug(f"span {span.doc_id}[{span.start}:{span.end}] of record {record_id!r} lies in no chunk: "
                         "this is a bug in the chunker or the expansion, please report it")

    def _ambiguous(self, loc: Locator, record_id, folded: str, occurrences: list[Occurrence]) -> Refusal:
        listed = []
        for occ in occurrences[:MAX_LISTED_OCCURRENCES]:
            doc = self.corpus[occ.doc_id]
            line, col = doc.line_col(occ.start)
            listed.append({"doc": occ.doc_id, "line": line, "col": col, "char_start": occ.start,
                           "char_end": occ.end, "extension": unique_extension(self, occ, folded, loc.doc)})
        more = f" (first {MAX_LISTED_OCCURRENCES} listed)" if len(occurrences) > MAX_LISTED_OCCURRENCES else ""
        where = f"in {loc.doc}" if loc.doc else "in the corpus"
        return Refusal("ambiguous", f"quote occurs {len(occurrences)} times {where}{more}; lengthen it",
                       loc, record_id, occurrences=listed)

    # -- helpers shared with suggestions and the app ---------------------------------------

    def chunks_of(self, doc_id: str) -> list[Chunk]:
        return self.chunks.get(doc_id, [])

    def chunks_overlapping(self, doc_id: str, start: int, end: int) -> list[Chunk]:
        """The document's chunks that share a character with ``[start, end)``, found by
        bisection: chunks come in document order and never overlap (checked once per
        document; a chunker that broke this would get the plain scan)."""
        chunks = self.chunks_of(doc_id)
        ends = self._chunk_ends.get(doc_id)
        if ends is None:
            ordered = all(a.end <= b.start for a, b in zip(chunks, chunks[1:]))
            ends = self._chunk_ends[doc_id] = [c.end for c in chunks] if ordered else []
        if len(ends) != len(chunks):
            return [c for c in chunks if c.start < end and start < c.end]
        i = bisect.bisect_right(ends, start)
        out = []
        while i < len(chunks) and chunks[i].start < end:
            out.append(chunks[i])
            i += 1
        return out

    def folded(self, doc_id: str) -> FoldedDocument:
        return self.index.folded(doc_id)

    def search(self, quotes: list[str]) -> dict[str, list[Occurrence]]:
        """All occurrences of many locator quotes in one pass (the build's path)."""
        return self.index.find_all_cached([fold_quote(q) for q in quotes], self._search_cache)


def locator_error(exc: InvalidInput, loc: Locator, record_id: str | None) -> Refusal:
    return Refusal("invalid", exc.reason, loc, record_id)
