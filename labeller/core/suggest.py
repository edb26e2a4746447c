"""Help for refused quotes: nearest passages and the shortest unique extension.

These are offered to the author and never applied on their own: a fuzzy match that
silently relabels a record would point the golden set at text nobody chose. They are
kept apart from resolving (``Resolver.resolve`` returns bare refusals) because they
cost a fuzzy scan of the chunks (bounded by ``WORK_BUDGET``) or a count per candidate
extension: the build asks for them only for the refusals it reports, and the app after
it has shown the bare refusal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cached_property
from typing import TypeVar

from labeller.core.anchors import FoldedDocument, automaton, fold_quote
from labeller.core.chunkers import Chunk
from labeller.core.context import Context, occurrence_help
from labeller.core.heading_edits import nearest_headings
from labeller.core.quote_marks import quote_mark_hint
from labeller.core.resolve import MAX_LISTED_OCCURRENCES, Refusal, Resolver
from labeller.core.suggest_cut import within_one_block
from labeller.core.vocab import Place, RefusalKind

_WS_RUN = re.compile(r"\s+")
MAX_EXTENSION_WORDS = 12
N_SUGGESTIONS = 3
_P = TypeVar("_P", Place, Place | None, None)
MIN_SCORE = 50.0
MAX_SCORE_GAP = 10.0  # a nearest passage more than this many points below the first is not shown
# Past this many occurrences of a refused quote no context is offered (each costs a
# comparison with every other one, for 20 listed occurrences); its extension still is.
MAX_CONTEXT_OCCURRENCES = 2000


class WorkBudget:
    """Work left for the help of ambiguous quotes, in ``occurrence_help``'s units: a count,
    not a clock, so the help is the same on every machine. A record's budget is a share of
    the build's: what it spends is spent from both, so neither one record nor many can
    stall a build (a questions file of a thousand two-letter quotes on a repetitive corpus
    once took twenty minutes)."""

    def __init__(self, units: int, parent: "WorkBudget | None" = None) -> None:
        self.left = units
        self.parent = parent
        self.spent = False  # some help was refused for want of budget
        self.listed = 0  # occurrences of ambiguous quotes listed so far (the build's count)
        self.nearest_left = BUILD_NEAREST_BUDGET  # the build's units for nearest passages (``nearest_passages``)
        self.scopes: dict[str | None, ChunkScope] = {}  # the root's: what the build's nearest-passage searches share

    @property
    def nearest_open(self) -> bool:
        """Whether the build's units for nearest passages are not all spent: each quote not
        found costs up to ``WORK_BUDGET``, so a file of thousands of them once had no bound."""
        return (self.parent or self).nearest_left > 0

    def spend_nearest(self, units: int) -> None:
        root = self.parent or self
        root.nearest_left -= units

    def listing(self, n: int) -> int:
        """How many of ``n`` more occurrences may be listed: a build lists
        ``MAX_BUILD_LISTED`` at most, so its report stays bounded whatever the file holds."""
        root = self.parent or self
        k = max(0, min(n, MAX_BUILD_LISTED - root.listed))
        root.listed += k
        return k

    def share(self, units: int) -> "WorkBudget":
        return WorkBudget(units, self)

    def afford(self, units: int) -> bool:
        """Spend ``units`` (work already done is charged too): whether the budget covered
        them. One that did not is empty from then on, so the next ask costs nothing."""
        covered = True
        for b in [self] if self.parent is None else [self, self.parent]:
            if b.left < units:
                covered = False
                b.spent = True
            b.left = max(0, b.left - units)
        self.spent |= not covered
        return covered


# A build's units for the help of ambiguous quotes, and a record's share (measured: the
# worst planted file, ``help`` in benchmarks/hostile_resolution.py, spends the build's budget
# in 9 s on a 2-core AMD EPYC; 54 s before the agreements were read off one sort).
BUILD_HELP_BUDGET = 4_000_000
RECORD_HELP_BUDGET = 400_000
# Occurrences of ambiguous quotes a build lists (with their place and help), at most.
MAX_BUILD_LISTED = 2000
# Longest quote an ambiguous refusal offers extensions and contexts for: each would echo it.
MAX_HELPED_QUOTE = 2000
# What a quote not found is told once the build's units for nearest passages are spent.
NEAREST_SPENT = "no nearest passages offered: the build's budget for suggestions is spent"


def without_nearest(refusals: list[Refusal]) -> int:
    """How many refusals the build's budget left without nearest passages (``NEAREST_SPENT``):
    what its reports say in one line."""
    return sum(NEAREST_SPENT in r.message for r in refusals)


def suggest(resolver: Resolver, refusal: Refusal, budget: WorkBudget | None = None) -> Refusal:
    """The refusal with its help filled in: nearest passages for a quote not found (or, for
    a quote that occurs but never in its context, each occurrence with the context that
    would single it out), every listed occurrence of an ambiguous quote with
    ``doc:line:col``, its shortest unique extension and its shortest unique context, a
    section locator for a heading-only span, the nearest headings for a section locator whose
    heading is not found (``heading_edits``). Other refusals come back as they are."""
    loc = refusal.locator
    if refusal.kind == RefusalKind.NOT_FOUND and loc.quote is not None:
        if loc.prefix is not None or loc.suffix is not None:
            found = _in_other_contexts(resolver, loc.quote, loc.doc, budget)
            if found:
                return replace(refusal, suggestions=[s for s, _ in found],
                               suggested_places=tuple(p for _, p in found))
        if budget is not None and not budget.nearest_open:
            return replace(refusal, message=f"{refusal.message}; {NEAREST_SPENT}")
        folded = fold_quote(loc.quote)
        spend = budget.spend_nearest if budget is not None else None
        scopes = (budget.parent or budget).scopes if budget is not None else None
        passages = close_to_best(sorted(
            (cut for s, p in nearest_passages(resolver, folded, loc.doc, spend, scopes)
             if (cut := within_one_block(resolver, folded, s, p, loc.doc)) is not None),
            key=lambda sp: -sp[0].get("score", 0.0)))
        hint = quote_mark_hint(resolver, loc.quote, loc.doc)
        return replace(refusal, message=refusal.message + (f"; {hint}" if hint else ""),
                       suggestions=[s for s, _ in passages],
                       suggested_places=tuple(p for _, p in passages if p is not None))
    if refusal.kind == RefusalKind.AMBIGUOUS and loc.quote is not None:
        places = list(refusal.places)
        # only the occurrences the build still lists are helped: past its MAX_BUILD_LISTED, a
        # record's help was computed (a comparison a pair of occurrences) and never shown
        listed = budget.listing(len(places)) if budget is not None else len(places)
        helps: dict | None = {} if not listed else None
        if listed and len(loc.quote) <= MAX_HELPED_QUOTE:
            helps = occurrence_help(resolver.index, places[:listed], loc.quote, loc.doc, MAX_CONTEXT_OCCURRENCES,
                                    MAX_EXTENSION_WORDS, budget.afford if budget is not None else lambda units: True)
        message = refusal.message
        if helps is None and len(loc.quote) > MAX_HELPED_QUOTE:
            message += f"; no extension or context offered for a quote over {MAX_HELPED_QUOTE:,} characters"
        elif helps is None and budget is not None and budget.spent:
            message += "; no extension or context offered: the work budget for suggestions is spent"
        if listed < len(places):
            message += (f"; {len(places) - listed} of its occurrences not listed (a build lists "
                        f"{MAX_BUILD_LISTED:,} at most)")
        return replace(refusal, message=message, places=tuple(places[:listed]), occurrences=[
            _occurrence(resolver, p, *(helps[p] if helps is not None else (None, None))) for p in places[:listed]])
    if refusal.kind == RefusalKind.NOT_FOUND and loc.heading is not None and loc.doc is not None:
        if budget is not None and not budget.nearest_open:
            return replace(refusal, message=f"{refusal.message}; {NEAREST_SPENT}")
        headings = close_to_best(nearest_headings(resolver, loc.doc, loc.heading, MIN_SCORE, N_SUGGESTIONS,
                                                  budget.spend_nearest if budget is not None else None))
        return replace(refusal, suggestions=[s for s, _ in headings], suggested_places=tuple(p for _, p in headings))
    if refusal.kind == RefusalKind.HEADING_ONLY and refusal.places:
        title = section_title(resolver, refusal.places[0])
        return replace(refusal, suggestions=[{"doc": refusal.places[0].doc, "heading": title}] if title else [])
    return refusal


def close_to_best(passages: list[tuple[dict, _P]]) -> list[tuple[dict, _P]]:
    """The passages (best first) within ``MAX_SCORE_GAP`` points of the first: in a real history
    (issue 35) a right first suggestion scored 84 or more and every wrong one 59 or less, so a
    34 beside a 92 is noise that an author might accept by mistake."""
    if not passages:
        return passages
    floor = passages[0][0].get("score", 0.0) - MAX_SCORE_GAP
    return [sp for sp in passages if sp[0].get("score", 0.0) >= floor]


def _occurrence(resolver: Resolver, place: Place, ctx: Context | None, extension: str | None) -> dict:
    line, col = resolver.corpus[place.doc].line_col(place.start)
    return {"doc": place.doc, "line": line, "col": col, "char_start": place.start, "char_end": place.end,
            "extension": extension, "context": _context_json(ctx)}


def _context_json(ctx: Context | None) -> dict | None:
    """``{"prefix"?, "suffix"?}`` to add to the locator (``{}``: none needed), or ``None``
    (no context singles the occurrence out, or the quote is too common to try)."""
    if ctx is None:
        return None
    return {k: v for k, v in (("prefix", ctx.prefix), ("suffix", ctx.suffix)) if v is not None}


def _in_other_contexts(resolver: Resolver, quote: str, scope_doc: str | None,
                       budget: WorkBudget | None) -> list[tuple[dict, Place]]:
    """Each occurrence of a quote whose context matched nowhere, as the locator (quote and
    shortest context) that would pick it."""
    folded = fold_quote(quote)
    occurrences = resolver.index.find_all([folded], scope_doc)[folded][:MAX_LISTED_OCCURRENCES]
    places = [Place(o.doc_id, o.start, o.end) for o in occurrences]
    if len(quote) > MAX_HELPED_QUOTE:
        return []
    helps = occurrence_help(resolver.index, places, quote, scope_doc, MAX_CONTEXT_OCCURRENCES, 0,
                            budget.afford if budget is not None else lambda units: True)
    out = []
    for place in places:
        ctx = helps[place][0] if helps is not None else None
        if ctx is None:
            continue
        sug = {"doc": place.doc, "quote": quote, "where": resolver.corpus[place.doc].where(place.start),
               "unique": True, **(_context_json(ctx) or {})}
        out.append((sug, place))
    return out


def section_title(resolver: Resolver, span: Place) -> str | None:
    """The heading whose lines hold the start of ``span`` (what a section locator names)."""
    doc = resolver.corpus[span.doc]
    blocks = resolver.blocks_at(span.doc, doc.line_of(span.start), doc.line_of(span.end - 1))
    return next((h.text for h in blocks.headings if doc.line_starts[h.first] <= span.start < doc.line_end(h.last)),
                None)


# Suggestions cost a fuzzy alignment of the quote with each chunk. ``_alignment_cost``
# counts it as the longer text's length times the cube of the shorter's length in 64-bit
# blocks (rapidfuzz's bit-parallel partial ratio; measured, one unit costs 5-30 ns, the
# cube keeping long quotes at the low end). Up to this many units every chunk is scored,
# as always (a quote of up to 64 characters on a corpus of 30 MB); beyond, only the chunks
# the pre-filter ranks first, while the units they cost fit. A count, not a clock, so that
# suggestions are the same on every machine: a 1,600-character quote not found in 10 MB
# costs a fraction of a second instead of four minutes.
WORK_BUDGET = 30_000_000
# A build's units for the nearest passages of all its quotes not found (the alignment units
# above, and a character per character the pre-filter reads): past them, the later quotes
# are reported without (``NEAREST_SPENT``). Three quotes at the per-quote bound; a short
# quote on a 1 MB corpus costs ~1 M units, so 86 such quotes get help, in about 6 s
# (measured 70 ms a quote: the scan; each chunk's whitespace is normalised once per build,
# ``ChunkScope``, where it was once per quote and 180 ms on the same machine). A count, so
# the same quotes get help on every machine.
BUILD_NEAREST_BUDGET = 200_000_000
FULL_SCAN_UNITS = 1_000_000
MAX_CANDIDATES = 64
HIT_UNITS = 64
PASS_CHARS_PER_UNIT = 4
GRAM_WORDS = 3  # words per n-gram of the pre-filter, at most
GRAM_CHARS = 4  # characters per n-gram of its last level
MAX_PREFILTER_HITS = 200_000  # n-gram matches read by the pre-filter, at most


def _alignment_cost(quote_len: int, text_len: int) -> int:
    blocks = -(-min(quote_len, text_len) // 64)
    return max(quote_len, text_len) * blocks ** 3


class ChunkScope:
    """The chunks one nearest-passage search scores (a document's, or the corpus's for a
    quote of no document), with what it needs of each whatever the quote: its length, its
    text with whitespace runs as one space, its position. A build's quotes not found share
    one per scope (``WorkBudget.scopes``): re-normalising every chunk for each quote was half
    the cost of its suggestions. A text is normalised when first scored, so a quote whose
    pre-filter picks a few chunks normalises only those, as before."""

    def __init__(self, resolver: Resolver, doc_id: str | None) -> None:
        self.chunks: list[Chunk] = (resolver.chunks_of(doc_id) if doc_id
                                    else [c for cs in resolver.chunks.values() for c in cs])
        self.lengths = [len(c.text) for c in self.chunks]
        self._texts: list[str | None] = [None] * len(self.chunks)
        self._resolver, self._doc_id = resolver, doc_id

    @classmethod
    def of(cls, resolver: Resolver, doc_id: str | None,
           scopes: dict[str | None, "ChunkScope"] | None) -> "ChunkScope":
        """The scope from ``scopes`` (one build's, so one resolver's), made on first use;
        without ``scopes``, a fresh one for this quote alone."""
        if scopes is None:
            return cls(resolver, doc_id)
        scope = scopes.get(doc_id)
        if scope is None:
            scope = scopes[doc_id] = cls(resolver, doc_id)
        return scope

    def text(self, i: int) -> str:
        text = self._texts[i]
        if text is None:
            text = self._texts[i] = _WS_RUN.sub(" ", self.chunks[i].text)
        return text

    @cached_property
    def position(self) -> dict[int, int]:
        """``{id(chunk): its position}``: the pre-filter's way from a match to its chunk."""
        return {id(c): i for i, c in enumerate(self.chunks)}

    @cached_property
    def folded_docs(self) -> list[FoldedDocument]:
        """What the pre-filter reads: the folded documents the search already holds."""
        return [self._resolver.folded(self._doc_id)] if self._doc_id else self._resolver.index.docs

    @cached_property
    def folded_chars(self) -> int:
        return sum(len(fd.folded) for fd in self.folded_docs)

    def cost(self, quote_len: int, positions: Sequence[int]) -> int:
        return sum(_alignment_cost(quote_len, self.lengths[i]) for i in positions)


def nearest_passages(resolver: Resolver, folded: str, doc_id: str | None,
                     spend: Callable[[int], None] | None = None,
                     scopes: dict[str | None, ChunkScope] | None = None) -> list[tuple[dict, Place | None]]:
    """The closest chunk passages to a quote that was not found (rapidfuzz partial ratio),
    each with where it occurs (``None`` if the passage, cut at word edges, is not found).

    Every chunk is scored while that fits ``FULL_SCAN_UNITS``; past it, the chunks the
    pre-filter (``_candidates``) ranks first. ``spend`` is told the units it cost;
    ``scopes`` (``ChunkScope.of``) is what the build's searches share."""
    from rapidfuzz import fuzz, process  # only a refused quote needs it: builds skip the import

    scope = ChunkScope.of(resolver, doc_id, scopes)
    positions: Sequence[int] = range(len(scope.chunks))
    cost = scope.cost(len(folded), positions)
    if cost > FULL_SCAN_UNITS:
        # while every chunk fits WORK_BUDGET, the pre-filter may read only what scoring them
        # would cost: a quote of words repeated everywhere then falls back to the full scan
        max_hits = MAX_PREFILTER_HITS if cost > WORK_BUDGET else min(MAX_PREFILTER_HITS, cost // HIT_UNITS)
        candidates, read, complete = _candidates(resolver, scope, folded, max_hits)
        if complete or cost > WORK_BUDGET:
            positions, cost = candidates, scope.cost(len(folded), candidates) + read
        else:
            cost += read
    if spend is not None:
        spend(cost)
    if not positions:
        return []
    texts = [scope.text(i) for i in positions]
    best = process.extract(folded, texts, scorer=fuzz.partial_ratio, limit=N_SUGGESTIONS, score_cutoff=MIN_SCORE)
    out = []
    for _, score, i in best:
        chunk_text = texts[i]
        al = fuzz.partial_ratio_alignment(folded, chunk_text)
        if al is None:  # only with a score cutoff, which this call has not
            continue
        s, e = al.dest_start, al.dest_end
        while s > 0 and chunk_text[s - 1] != " ":
            s -= 1
        while e < len(chunk_text) and chunk_text[e] != " ":
            e += 1
        passage = chunk_text[s:e].strip()
        if not passage:
            continue
        chunk = scope.chunks[positions[i]]
        # the passage in this chunk: a page that repeats it has a chunk for each, not the first one twice
        hit = resolver.index.first(passage, chunk.doc_id, chunk.start)
        doc = resolver.corpus[chunk.doc_id]
        where = doc.where(hit.start) if hit else doc.where(chunk.start)
        unique = resolver.index.count(passage, None if doc_id is None else doc_id) == 1
        out.append(({"doc": chunk.doc_id, "quote": passage, "where": where, "score": round(score, 1),
                     "unique": unique}, Place(hit.doc_id, hit.start, hit.end) if hit else None))
    return out


def _candidates(resolver: Resolver, scope: ChunkScope, folded: str, max_hits: int) -> tuple[list[int], int, bool]:
    """The positions of the chunks worth a fuzzy alignment, within ``WORK_BUDGET`` and
    ``MAX_CANDIDATES``, in order; the units the search for them cost (a unit per folded
    character read, ``HIT_UNITS`` per n-gram match handled); and whether it read every match
    (not stopped at ``max_hits``).

    A chunk is ranked by how many distinct n-grams of the quote occur in it (``_gram_levels``:
    the first level any chunk holds), found by Aho-Corasick passes over the
    folded documents the search already holds; chunks with none are never scored. Ties go
    to the earlier chunk, as ``process.extract`` breaks them."""
    found: dict[int, set[str]] = {}
    read, complete = 0, True
    for grams in _gram_levels(folded):
        found, hits = _chunks_with_grams(resolver, scope, grams, max_hits)
        read += (scope.folded_chars // PASS_CHARS_PER_UNIT if grams else 0) + hits * HIT_UNITS
        complete = hits < max_hits
        if found or not complete:
            break
    ranked = sorted(found, key=lambda i: (-len(found[i]), i))[:MAX_CANDIDATES]
    chosen, spent = [], 0
    for i in ranked:
        cost = _alignment_cost(len(folded), scope.lengths[i])
        if spent + cost <= WORK_BUDGET:
            chosen.append(i)
            spent += cost
    return sorted(chosen), read, complete


def _gram_levels(folded: str):
    """Three-word, two-word, one-word n-grams of the quote, then runs of
    ``GRAM_CHARS`` characters (a quote in a script written without spaces)."""
    words = folded.split(" ")
    for n in range(min(GRAM_WORDS, len(words)), 0, -1):
        yield {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)} - {""}
    yield {g for i in range(len(folded) - GRAM_CHARS + 1) if " " not in (g := folded[i:i + GRAM_CHARS])}


def _chunks_with_grams(resolver: Resolver, scope: ChunkScope, grams: set[str],
                       max_hits: int) -> tuple[dict[int, set[str]], int]:
    """``{position in the scope's chunks: the grams found in that chunk}``, reading at most
    ``max_hits`` matches (a quote of words the corpus repeats everywhere); and how many it
    read (``max_hits`` when it stopped there)."""
    if not grams:
        return {}, 0
    position = scope.position
    found: dict[int, set[str]] = {}
    auto = automaton(sorted(grams))
    budget = max_hits
    for fd in scope.folded_docs:
        for end, gram in auto.iter(fd.folded):
            budget -= 1
            if budget < 0:
                return found, max_hits
            start = fd.to_canonical(end - len(gram) + 1)
            for c in resolver.chunks_overlapping(fd.doc.doc_id, start, start + 1)[:1]:
                if id(c) in position:
                    found.setdefault(position[id(c)], set()).add(gram)
    return found, max_hits - budget
