"""Locator → span: find the quote, refuse what is not exactly one match, expand it.

This is the single implementation behind ``labeller build`` and the app's live
preview. A refusal says what is wrong and where (the occurrences of an ambiguous
quote, the span of a heading-only one) and nothing more: the help that takes a scan of
the corpus, nearest passages and shortest unique extensions, is ``suggest.suggest``'s,
asked for only for the refusals someone will read.
"""

from __future__ import annotations

import bisect
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

from labeller.core.anchors import KEPT, FoldedDocument, Hits, QuoteIndex, fold_quote
from labeller.core.cache import SCALAR, CacheView, DigestCache, as_list, as_str, check, conforms, ints
from labeller.core.chunkers import Chunk, Chunker
from labeller.core.context import context_needle, fold_prefix, locator_needles
from labeller.core.corpus import Corpus, check_relative_doc_id
from labeller.core.expansion import DocBlocks, ExpansionRefused, document_span, expand, parse_blocks, section_span
from labeller.core.models import Locator
from labeller.core.vocab import BlockKind, Place, RefusalKind
from labeller.core.windows import DocWindows, window_key
from labeller.errors import ChunkerBug, InvalidInput

MAX_LISTED_OCCURRENCES = KEPT  # a search keeps as many per document: the first ones overall


@dataclass(frozen=True)
class Span:
    """A resolved locator: the matched quote and the expanded span, both canonical offsets."""

    doc_id: str
    start: int
    end: int
    block: BlockKind
    quote_start: int
    quote_end: int

    @property
    def place(self) -> Place:
        return Place(self.doc_id, self.start, self.end)

    def as_json(self) -> dict:
        """The block as a plain string (the same JSON text): a report of exact built-in types
        is written by ``display``'s fast path."""
        return {"block": str(self.block), "char_end": self.end, "char_start": self.start, "doc_id": self.doc_id}

    def to_data(self) -> list:
        return [self.doc_id, self.start, self.end, str(self.block), self.quote_start, self.quote_end]

    @classmethod
    def from_data(cls, data) -> "Span":
        """What ``to_data`` wrote (from the build cache), every field's type checked; the
        block comes back as its ``BlockKind`` (an unknown one is a miss)."""
        doc_id, start, end, block, quote_start, quote_end = as_list(data, 6)
        start, end, quote_start, quote_end = ints([start, end, quote_start, quote_end])
        return cls(as_str(doc_id), start, end, BlockKind(as_str(block)), quote_start, quote_end)


@dataclass
class Refusal:
    """Why a locator cannot be a label (``kind``: SPEC §2's refusal kinds).

    ``places`` is what resolving found: every occurrence of an ambiguous quote (the quote's
    own range, the first ``MAX_LISTED_OCCURRENCES``), or the span of a heading-only one.
    ``occurrences``, ``suggestions`` and ``suggested_places`` stay empty until
    ``suggest.suggest`` fills them in.
    """

    kind: RefusalKind
    message: str
    locator: Locator
    record_id: str | None = None
    places: tuple[Place, ...] = ()
    occurrences: list[dict] = field(default_factory=list)  # each place with doc:line:col and its extension
    suggestions: list[dict] = field(default_factory=list)  # nearest passages, or a section locator
    suggested_places: tuple[Place, ...] = ()  # where the suggested passages are
    found_in: tuple[str, ...] = ()  # the other documents holding the quote verbatim (``moves``: not one move)
    # a gone document's rename (``moves``): the file paired with it and by what, ``("ch18.md", "git")``
    renamed_to: tuple[str, str] | None = None

    def as_json(self) -> dict:
        out: dict = {"id": self.record_id, "locator": self.locator.as_json(), "kind": self.kind,
                     "message": self.message}
        if self.kind == RefusalKind.AMBIGUOUS:
            out["occurrences"] = self.occurrences
        if self.kind in (RefusalKind.NOT_FOUND, RefusalKind.HEADING_ONLY, RefusalKind.UNKNOWN_DOC):
            out["suggestions"] = self.suggestions
        if self.found_in:
            out["found_in"] = list(self.found_in)
        if self.renamed_to is not None:
            out["renamed_to"], out["paired_by"] = self.renamed_to
        return out

    def to_data(self) -> dict:
        return {"kind": str(self.kind), "message": self.message, "locator": self.locator.model_dump(mode="json"),
                "record_id": self.record_id, "places": _places_to_data(self.places),
                "occurrences": self.occurrences, "suggestions": self.suggestions,
                "suggested_places": _places_to_data(self.suggested_places), "found_in": list(self.found_in),
                "renamed_to": list(self.renamed_to) if self.renamed_to is not None else None}

    @classmethod
    def from_data(cls, data) -> "Refusal":
        """What ``to_data`` wrote (from the build cache), every field's type checked; the
        kind comes back as its ``RefusalKind`` (an unknown one is a miss)."""
        conforms(data, {"kind": str, "message": str, "locator": dict, "record_id": (str, None), "places": list,
                        "occurrences": [_OCCURRENCE], "suggestions": [{str: SCALAR}], "suggested_places": list,
                        "found_in": [str], "renamed_to": ([str], None)})
        renamed_to = data["renamed_to"]
        check(renamed_to is None or len(renamed_to) == 2)
        return cls(RefusalKind(data["kind"]), data["message"], Locator.model_validate(data["locator"]),
                   data["record_id"], _places_from_data(data["places"]), data["occurrences"], data["suggestions"],
                   _places_from_data(data["suggested_places"]), tuple(data["found_in"]),
                   (renamed_to[0], renamed_to[1]) if renamed_to is not None else None)


# An occurrence of an ambiguous quote (``suggest._occurrence``): scalars, and its ``context``,
# the ``{"prefix"?, "suffix"?}`` that singles it out, or null.
_OCCURRENCE = {str: (*SCALAR, {str: str})}


def _places_to_data(places: tuple[Place, ...]) -> list:
    return [[p.doc, p.start, p.end] for p in places]


def _places_from_data(data) -> tuple[Place, ...]:
    """The places ``_places_to_data`` wrote, each ``[doc, start, end]`` checked."""
    out = []
    for item in as_list(data):
        doc, start, end = as_list(item, 3)
        ints([start, end])
        check(start <= end)
        out.append(Place(as_str(doc), start, end))
    return tuple(out)


class Resolver:
    """Resolves locators against one corpus snapshot; holds its folded text and block caches."""

    def __init__(self, corpus: Corpus, chunks: dict[str, list[Chunk]], chunker: Chunker,
                 block_cache: dict | CacheView | None = None, search_cache: DigestCache | None = None) -> None:
        self.corpus = corpus
        self.chunks = chunks
        self.chunker = chunker  # the one that made ``chunks``: it says which lines lie in no chunk
        self.index = QuoteIndex(corpus)
        self._blocks: dict | CacheView = block_cache if block_cache is not None else {}
        self._search_cache = search_cache  # a DigestCache: per-document matches of a build's quotes
        # windows parsed inside ``deferred_window_writes``, per thread: the app builds in one worker
        # while another plans a repair on the same resolver
        self._deferred = threading.local()
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
        key = window_key(doc)
        unsaved: dict | None = getattr(self._deferred, "unsaved", None)
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
        build. Each thread defers its own (two at once ended one's block with the other's
        emptied); a cache write lost to a racing thread is only recomputed later."""
        unsaved: dict = {}
        self._deferred.unsaved = unsaved
        try:
            yield
        finally:
            self._deferred.unsaved = None
            for key, windows in unsaved.items():
                self._blocks[key] = windows.snapshot()

    # -- one locator -------------------------------------------------------------------

    def resolve(self, loc: Locator, record_id: str | None = None,
                found: dict[str, Hits] | None = None) -> Span | Refusal:
        """Resolve one locator to its span, or a bare refusal (``suggest.suggest`` adds
        the help). ``found`` may be passed in from a batch search (``search_locators``)."""
        if loc.kind == "section":
            return self._unknown_doc(loc, record_id) or self._resolve_section(loc, record_id)
        if loc.kind == "document":
            return self._unknown_doc(loc, record_id) or self._resolve_document(loc, record_id)
        place = self.locate(loc, record_id, found)
        if isinstance(place, Refusal):
            return place
        doc = self.corpus[place.doc]
        blocks = self.blocks_at(place.doc, doc.line_of(place.start), doc.line_of(place.end - 1))
        if loc.exact:
            if doc.line_of(place.start) < blocks.front_matter_lines:
                return Refusal(RefusalKind.FRONT_MATTER, "the quote lies in YAML front matter, which is metadata, "
                               "not answer text", loc, record_id)
            span = Span(place.doc, place.start, place.end, BlockKind.EXACT, place.start, place.end)
        else:
            try:
                start, end, kind = expand(doc, blocks, place.start, place.end)
            except ExpansionRefused as exc:
                return Refusal(exc.kind, exc.message, loc, record_id)
            span = Span(place.doc, start, end, kind, place.start, place.end)
        return self._check_chunked(span, loc, record_id)

    def locate(self, loc: Locator, record_id: str | None = None,
               found: dict[str, Hits] | None = None) -> Place | Refusal:
        """The first half of ``resolve`` for a quote locator: where its one occurrence is
        (the quote's own range, before expansion), or the refusal ``unknown_doc``,
        ``not_found`` or ``ambiguous`` (with ``places``). One scan of the folded corpus:
        what the app shows while the span and the suggestions are still being computed.
        With a prefix/suffix only the occurrences standing in that context count (SPEC
        §2.2); they are filtered after the search, which stays a search for quotes."""
        if loc.quote is None:
            raise ValueError("locate() takes a quote locator")
        refused = self._unknown_doc(loc, record_id)
        if refused is not None:
            return refused
        folded = fold_quote(loc.quote)
        occurrences = found.get(folded) if found is not None else None
        if occurrences is None:
            occurrences = self.index.find_all([folded], loc.doc)[folded]
        elif loc.doc is not None:
            occurrences = occurrences.in_doc(loc.doc)
        where = f"in {loc.doc}" if loc.doc else "in the corpus"
        what = "quote"
        needle = context_needle(loc)
        if needle is not None:
            bare = occurrences.total
            occurrences = self._in_context(loc, folded, needle, found)
            what = "quote with its context"
            if not occurrences and bare:
                return Refusal(RefusalKind.NOT_FOUND, f"the quote occurs {bare} time{'s' * (bare > 1)} {where}, "
                               "never with this prefix/suffix", loc, record_id)
        if not occurrences:
            return Refusal(RefusalKind.NOT_FOUND, f"{what} not found {where}", loc, record_id)
        total = occurrences.total
        if total > 1:
            more = f" (first {MAX_LISTED_OCCURRENCES} listed)" if total > MAX_LISTED_OCCURRENCES else ""
            fix = "lengthen it" if what == "quote" else "lengthen the context"
            return Refusal(RefusalKind.AMBIGUOUS, f"{what} occurs {total} times {where}{more}; {fix}",
                           loc, record_id, places=tuple(Place(o.doc_id, o.start, o.end)
                                                        for o in occurrences[:MAX_LISTED_OCCURRENCES]))
        occ = occurrences[0]
        return Place(occ.doc_id, occ.start, occ.end)

    def _in_context(self, loc: Locator, folded: str, needle: str, found: dict[str, Hits] | None) -> Hits:
        """The quote's occurrences that stand in the locator's context: the matches of its
        context needle (from the build's search, or searched now), each moved to the
        quote's own range inside it."""
        matches = found.get(needle) if found is not None else None
        if matches is None:
            matches = self.index.find_all([needle], loc.doc)[needle]
        elif loc.doc is not None:
            matches = matches.in_doc(loc.doc)
        shift = len(fold_prefix(loc.prefix))
        out = Hits(counts=matches.counts)
        for m in matches:
            fd = self.index.folded(m.doc_id)
            out.append(fd.occurrence(fd.to_folded(m.start) + shift, len(folded)))
        return out

    def _unknown_doc(self, loc: Locator, record_id: str | None) -> Refusal | None:
        if loc.doc is None or loc.doc in self.corpus:  # a corpus path is safe by construction
            return None
        check_relative_doc_id(loc.doc, record_id=record_id)
        return Refusal(RefusalKind.UNKNOWN_DOC, f"document {loc.doc!r} is not in the corpus", loc, record_id)

    def _resolve_section(self, loc: Locator, record_id: str | None) -> Span | Refusal:
        doc, heading = loc.doc, loc.heading
        assert doc is not None and heading is not None  # what Locator's validator makes of a section locator
        try:
            start, end = section_span(self.corpus[doc], partial(self.blocks_at, doc), heading)
        except ExpansionRefused as exc:
            return Refusal(exc.kind, exc.message, loc, record_id)
        return self._check_chunked(Span(doc, start, end, BlockKind.SECTION, start, end), loc, record_id)

    def _resolve_document(self, loc: Locator, record_id: str | None) -> Span | Refusal:
        doc = loc.doc
        assert doc is not None  # a locator with neither quote nor heading names a doc (Locator's validator)
        try:
            start, end = document_span(self.corpus[doc])
        except ExpansionRefused as exc:
            return Refusal(exc.kind, exc.message, loc, record_id)
        return self._check_chunked(Span(doc, start, end, BlockKind.DOCUMENT, start, end), loc, record_id)

    def _check_chunked(self, span: Span, loc: Locator, record_id: str | None) -> Span | Refusal:
        """A span that no chunk touches is either lines the chunker keeps out of every
        chunk by its rule (headings: the author's to fix) or a bug."""
        if self.chunks_overlapping(span.doc_id, span.start, span.end):
            return span
        if self._only_unchunked_lines(span):
            return Refusal(RefusalKind.HEADING_ONLY, "the span is only heading lines (and lines the chunker reads as "
                           "blank or rules), which lie in no chunk; "
                           "label the section instead (a {doc, heading} locator)", loc, record_id,
                           places=(span.place,))
        raise ChunkerBug(f"span {span.doc_id}[{span.start}:{span.end}] of record {record_id!r} lies in no chunk: "
                         "this is a bug in the chunker or the expansion, please report it")

    def _only_unchunked_lines(self, span: Span) -> bool:
        """Whether the chunker's ``unchunked_lines`` cover the span (they are whole lines,
        so this is: every line the span touches is one of them)."""
        pos = span.start
        for start, end in self.chunker.unchunked_lines(self.corpus[span.doc_id]):
            if start > pos:
                break
            pos = max(pos, end)
            if pos >= span.end:
                return True
        return False

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

    def search(self, quotes: list[str]) -> dict[str, Hits]:
        """The occurrences of many locator quotes in one pass."""
        return self.index.find_all_cached([fold_quote(q) for q in quotes], self._search_cache)

    def search_locators(self, locators) -> dict[str, Hits]:
        """The build's one pass: every quote of these locators and every context needle
        (``context.context_needle``), what ``resolve`` takes as ``found``."""
        return self.index.find_all_cached(locator_needles(locators), self._search_cache)


def locator_error(exc: InvalidInput, loc: Locator, record_id: str | None) -> Refusal:
    return Refusal(RefusalKind.INVALID, exc.reason, loc, record_id)
